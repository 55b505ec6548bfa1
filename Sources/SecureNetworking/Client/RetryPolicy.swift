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
