import Foundation

/// When and how long to wait before sending an idempotent request again.
///
/// A request is retried only when it is idempotent (``Request/isIdempotent``) and either the
/// server answered one of ``retryableStatuses`` (408, 429, 502, 503, 504 by default) or the
/// connection failed before an answer (connect refused or timed out, handshake timed out,
/// connection closed, an HTTP/2 stream reset). A request of any method is retried when the
/// server said it did not process it (HTTP/2 GOAWAY or REFUSED_STREAM:
/// `SecureHTTPError.Code.requestNotProcessed`). Trust, policy and TLS failures are never retried. The wait is exponential
/// backoff with full jitter (a random time up to `baseDelay × 2^(retry − 1)`, at most
/// ``maximumDelay``), or the server's `Retry-After` when it gave one. A `Retry-After` longer than
/// ``maximumRetryAfter`` is not waited for: the error is thrown with ``APIError/retryAfter`` set.
public struct RetryPolicy: Hashable, Sendable {
    /// Attempts in all, the first included. Default 3.
    public var maximumAttempts: Int
    /// The first backoff step. Default 250 ms.
    public var baseDelay: Duration
    /// The longest backoff wait. Default 8 s.
    public var maximumDelay: Duration
    /// The longest `Retry-After` the client will wait for. Default 30 s.
    public var maximumRetryAfter: Duration
    /// The statuses worth another attempt.
    public var retryableStatuses: Set<Int>

    /// Creates a policy.
    public init(
        maximumAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(250),
        maximumDelay: Duration = .seconds(8),
        maximumRetryAfter: Duration = .seconds(30),
        retryableStatuses: Set<Int> = [408, 429, 502, 503, 504]
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.baseDelay = max(.zero, baseDelay)
        self.maximumDelay = max(.zero, maximumDelay)
        self.maximumRetryAfter = max(.zero, maximumRetryAfter)
        self.retryableStatuses = retryableStatuses
    }

    /// Three attempts, 250 ms base, 8 s cap, `Retry-After` up to 30 s.
    public static let standard = RetryPolicy()

    /// Never retry.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// The wait before retry number `retry` (1 for the first retry).
    ///
    /// - Parameters:
    ///   - retry: which retry this is, from 1.
    ///   - retryAfter: the server's `Retry-After`, if any; it is used as it is.
    ///   - random: a number in `0..<1` for the jitter.
    /// - Returns: the wait, or nil when `retryAfter` exceeds ``maximumRetryAfter``.
    public func delay(beforeRetry retry: Int, retryAfter: Duration?, random: Double) -> Duration? {
        if let retryAfter {
            return retryAfter <= self.maximumRetryAfter ? max(.zero, retryAfter) : nil
        }
        let exponent = min(max(retry - 1, 0), 30)
        let ceiling = min(self.baseDelay * (1 << exponent), self.maximumDelay)
        let fraction = min(max(random, 0), 1)
        return ceiling * fraction
    }
}

/// The `Retry-After` header (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date.
enum RetryAfter {
    /// The wait the header asks for, or nil when it is absent or malformed. A date in the past
    /// means no wait.
    static func parse(_ value: String?, now: Date) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            guard value.utf8.count <= 9, let seconds = Int(value) else { return .seconds(Int.max / 1_000_000_000) }
            return .seconds(seconds)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: value) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds <= 0 ? .zero : .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }
}
