#if canImport(Security)
import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Security
import ServerTrust
import SwiftASN1
import X509

/// The requests in flight on one session, what the delegate decided about them, and the
/// requirements whose server trust this transport evaluated on that session.
///
/// Every entry's continuation is resumed exactly once, by whichever of completion,
/// cancellation and invalidation removes the entry first.
// SAFETY: every stored `var` is read and written only while `lock` is held. Continuations
// are resumed and tasks cancelled after the lock is released, so neither can re-enter it
// while it is held; URLSessionTask's methods are safe to call from any thread.
final class URLSessionTaskTable: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [Int: Entry] = [:]
    private var verified: Set<ConnectionRequirements> = []
    private var invalidated = false

    private struct Entry {
        let task: URLSessionTask
        let requirements: ConnectionRequirements
        var continuation: CheckedContinuation<URLSessionOutcome, Never>?
        /// The outcome decided before a continuation was attached.
        var earlyOutcome: URLSessionOutcome?
        /// The first failure the delegate decided (trust, size limit); it wins over URLError.
        var failure: SecureHTTPError?
        var body = Data()
    }

    static var shutDown: SecureHTTPError {
        SecureHTTPError(.shutDown, "the transport has been invalidated")
    }

    /// Creates a suspended task for `request`, or nil when the session has been invalidated
    /// (creating a task in an invalidated session raises an exception).
    func makeTask(
        in session: URLSession,
        for request: URLRequest,
        requirements: ConnectionRequirements
    ) -> URLSessionDataTask? {
        self.lock.lock()
        defer { self.lock.unlock() }
        guard !self.invalidated else { return nil }
        let task = session.dataTask(with: request)
        self.entries[task.taskIdentifier] = Entry(task: task, requirements: requirements)
        return task
    }

    /// Attaches the continuation of a request. Returns true when the task should be resumed;
    /// false when the request has already ended (the continuation has then been resumed).
    func attach(_ continuation: CheckedContinuation<URLSessionOutcome, Never>, to identifier: Int) -> Bool {
        self.lock.lock()
        guard let entry = self.entries[identifier] else {
            self.lock.unlock()
            continuation.resume(returning: .failure(Self.shutDown))
            return false
        }
        if let early = entry.earlyOutcome {
            self.entries[identifier] = nil
            self.lock.unlock()
            entry.task.cancel()
            continuation.resume(returning: early)
            return false
        }
        self.entries[identifier]?.continuation = continuation
        self.lock.unlock()
        return true
    }

    /// Ends a request with `error` and cancels its task.
    func cancel(_ identifier: Int, with error: SecureHTTPError) {
        self.finish(identifier, with: .failure(error))
    }

    /// Ends every request in flight and refuses new ones. Returns false when already invalidated.
    func invalidate() -> Bool {
        self.lock.lock()
        guard !self.invalidated else {
            self.lock.unlock()
            return false
        }
        self.invalidated = true
        var pending: [CheckedContinuation<URLSessionOutcome, Never>] = []
        for (identifier, entry) in self.entries {
            if let continuation = entry.continuation {
                pending.append(continuation)
                self.entries[identifier] = nil
            } else if entry.earlyOutcome == nil {
                self.entries[identifier]?.earlyOutcome = .failure(Self.shutDown)
            }
        }
        self.lock.unlock()
        for continuation in pending {
            continuation.resume(returning: .failure(Self.shutDown))
        }
        return true
    }

    /// The requirements of a request, for its TLS challenge.
    func requirements(for identifier: Int) -> ConnectionRequirements? {
        self.lock.lock()
        defer { self.lock.unlock() }
        return self.entries[identifier]?.requirements
    }

    /// Records the first failure the delegate decided for a request.
    func record(_ failure: SecureHTTPError, for identifier: Int) {
        self.lock.lock()
        defer { self.lock.unlock() }
        if self.entries[identifier] != nil, self.entries[identifier]?.failure == nil {
            self.entries[identifier]?.failure = failure
        }
    }

    /// Appends body bytes. Returns true when the body passed `limit`: the failure is recorded,
    /// the bytes are dropped and the caller must cancel the task.
    func append(_ data: Data, to identifier: Int, limit: Int) -> Bool {
        self.lock.lock()
        defer { self.lock.unlock() }
        guard let count = self.entries[identifier]?.body.count, self.entries[identifier]?.failure == nil else {
            return false
        }
        guard data.count <= limit - count else {
            self.entries[identifier]?.failure = SecureHTTPError(
                .responseTooLarge,
                "the response body is larger than \(limit) bytes"
            )
            self.entries[identifier]?.body = Data()
            return true
        }
        self.entries[identifier]?.body.append(data)
        return false
    }

    /// Ends a request when its task completes.
    func complete(_ identifier: Int, error: (any Error)?, response: URLResponse?) {
        self.lock.lock()
        guard let entry = self.entries[identifier] else {
            self.lock.unlock()
            return
        }
        let outcome = Self.outcome(of: entry, error: error, response: response)
        self.lock.unlock()
        self.finish(identifier, with: outcome)
    }

    /// Records that the server trust for `requirements` was evaluated and accepted.
    func markVerified(_ requirements: ConnectionRequirements) {
        self.lock.lock()
        defer { self.lock.unlock() }
        self.verified.insert(requirements)
    }

    /// Whether a connection for `requirements` was evaluated and accepted on this session.
    func isVerified(_ requirements: ConnectionRequirements) -> Bool {
        self.lock.lock()
        defer { self.lock.unlock() }
        return self.verified.contains(requirements)
    }

    /// Resumes the request's continuation with `outcome` (or keeps the outcome for
    /// ``attach(_:to:)`` when none is attached yet) and cancels its task.
    private func finish(_ identifier: Int, with outcome: URLSessionOutcome) {
        self.lock.lock()
        guard let entry = self.entries[identifier] else {
            self.lock.unlock()
            return
        }
        if let continuation = entry.continuation {
            self.entries[identifier] = nil
            self.lock.unlock()
            entry.task.cancel()
            continuation.resume(returning: outcome)
        } else {
            if entry.earlyOutcome == nil {
                self.entries[identifier]?.earlyOutcome = outcome
            }
            self.lock.unlock()
            entry.task.cancel()
        }
    }

    private static func outcome(of entry: Entry, error: (any Error)?, response: URLResponse?) -> URLSessionOutcome {
        if let failure = entry.failure {
            return .failure(failure)
        }
        let host = entry.requirements.host
        if let error {
            return .failure(Self.map(error, host: host))
        }
        guard let httpResponse = (response as? HTTPURLResponse)?.httpResponse else {
            return .failure(SecureHTTPError(.invalidResponse, "\(host) sent a response that is not valid HTTP"))
        }
        return .success(URLSessionExchange(response: httpResponse, body: entry.body))
    }

    /// A URLSession error as a ``SecureHTTPError``: codes and the host only, never the URL,
    /// headers or body.
    private static func map(_ error: any Error, host: String) -> SecureHTTPError {
        guard let urlError = error as? URLError else {
            let nsError = error as NSError
            return SecureHTTPError(.connectFailed, "the request to \(host) failed (\(nsError.domain) \(nsError.code))")
        }
        let code = urlError.code
        switch code {
        case .cancelled:
            return SecureHTTPError(.cancelled, "the request to \(host) was cancelled")
        case .timedOut:
            return SecureHTTPError(.deadlineExceeded, "the request to \(host) timed out")
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid:
            return SecureHTTPError(.tlsFailure, "the TLS connection to \(host) failed (URLError \(code.rawValue))")
        case .clientCertificateRequired, .clientCertificateRejected:
            return SecureHTTPError(
                .clientCertificateRequired,
                "\(host) requires a client certificate it accepts (URLError \(code.rawValue))"
            )
        case .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed, .notConnectedToInternet:
            return SecureHTTPError(.connectFailed, "could not connect to \(host) (URLError \(code.rawValue))")
        case .networkConnectionLost:
            return SecureHTTPError(
                .connectionClosed,
                "the connection to \(host) closed before the response was complete"
            )
        case .appTransportSecurityRequiresSecureConnection:
            return SecureHTTPError(
                .policyViolation,
                "App Transport Security refused the request to \(host): the app's Info.plist needs an exception too"
            )
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
            return SecureHTTPError(
                .invalidResponse,
                "\(host) sent a response that is not valid HTTP (URLError \(code.rawValue))"
            )
        case .dataLengthExceedsMaximum:
            return SecureHTTPError(.responseTooLarge, "the response from \(host) is too large")
        default:
            return SecureHTTPError(.connectFailed, "the request to \(host) failed (URLError \(code.rawValue))")
        }
    }
}
#endif
