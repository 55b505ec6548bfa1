#if canImport(Security)
import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Security
import ServerTrust
import SwiftASN1
import X509

/// The requests in flight on one session and what the delegate learnt about them (failures,
/// an accepted server-trust challenge, the connection from the task metrics).
///
/// Every entry's continuation is resumed exactly once, by whichever of completion,
/// cancellation and invalidation removes the entry first.
// SAFETY: every stored `var` is read and written only while `lock` is held. Continuations
// are resumed and tasks cancelled after the lock is released, so neither can re-enter it
// while it is held; URLSessionTask's methods are safe to call from any thread.
final class URLSessionTaskTable: @unchecked Sendable {
    private let lock = NSLock()
    private let policy: URLSessionDelegatePolicy
    private var entries: [Int: Entry] = [:]
    private var state = State.open
    /// Whether any server-trust challenge on this session was accepted.
    private var acceptedAConnection = false

    private enum State {
        case open
        /// Retired from the pool: no new task; the tasks in flight finish.
        case retired
        /// Invalidated: every task ended.
        case invalidated
    }

    /// What ``makeTask(in:for:requirements:)`` returns.
    enum NewTask {
        case task(URLSessionDataTask)
        /// The session is being retired: lease another.
        case retired
        /// The transport has been invalidated.
        case invalidated
    }

    private struct Entry {
        let task: URLSessionTask
        let requirements: ConnectionRequirements
        var continuation: CheckedContinuation<URLSessionOutcome, Never>?
        /// The outcome decided before a continuation was attached.
        var earlyOutcome: URLSessionOutcome?
        /// The first failure the delegate decided (trust, size limit); it wins over URLError.
        var failure: SecureHTTPError?
        var body = Data()
        /// Whether this task's own server-trust challenge was accepted.
        var challengeAccepted = false
        /// The connection of the task's last network transaction, from its metrics.
        var connection: URLSessionDelegatePolicy.Connection?
    }

    init(policy: URLSessionDelegatePolicy) {
        self.policy = policy
    }

    static var shutDown: SecureHTTPError {
        SecureHTTPError(.shutDown, "the transport has been invalidated")
    }

    /// Creates a suspended task for `request`, unless the session is retired or invalidated
    /// (creating a task in an invalidated session raises an exception; the state is checked and
    /// the task created under the lock that ``retire()`` and ``invalidate()`` take first).
    func makeTask(
        in session: URLSession,
        for request: URLRequest,
        requirements: ConnectionRequirements
    ) -> NewTask {
        self.lock.lock()
        defer { self.lock.unlock() }
        switch self.state {
        case .retired: return .retired
        case .invalidated: return .invalidated
        case .open: break
        }
        let task = session.dataTask(with: request)
        self.entries[task.taskIdentifier] = Entry(task: task, requirements: requirements)
        return .task(task)
    }

    /// Takes no new task from now on. Returns false when already retired or invalidated.
    func retire() -> Bool {
        self.lock.lock()
        defer { self.lock.unlock() }
        guard case .open = self.state else { return false }
        self.state = .retired
        return true
    }

    /// Whether the session is retired and has no request left.
    var isDrained: Bool {
        self.lock.lock()
        defer { self.lock.unlock() }
        if case .open = self.state { return false }
        return self.entries.isEmpty
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
        if case .invalidated = self.state {
            self.lock.unlock()
            return false
        }
        self.state = .invalidated
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
        let outcome = Self.outcome(
            of: entry,
            error: error,
            response: response,
            policy: self.policy,
            sessionAcceptedAConnection: self.acceptedAConnection
        )
        self.lock.unlock()
        self.finish(identifier, with: outcome)
    }

    /// Records that the task's own server-trust challenge was accepted.
    func challengeAccepted(for identifier: Int) {
        self.lock.lock()
        defer { self.lock.unlock() }
        self.entries[identifier]?.challengeAccepted = true
        self.acceptedAConnection = true
    }

    /// Records the connection the task's metrics report.
    func record(_ connection: URLSessionDelegatePolicy.Connection, for identifier: Int) {
        self.lock.lock()
        defer { self.lock.unlock() }
        self.entries[identifier]?.connection = connection
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

    private static func outcome(
        of entry: Entry,
        error: (any Error)?,
        response: URLResponse?,
        policy: URLSessionDelegatePolicy,
        sessionAcceptedAConnection: Bool
    ) -> URLSessionOutcome {
        if let failure = entry.failure {
            return .failure(failure)
        }
        let host = entry.requirements.host
        if let error {
            return .failure(Self.map(error, host: host))
        }
        if let failure = policy.completionFailure(
            usesTLS: entry.requirements.usesTLS,
            challengeAccepted: entry.challengeAccepted,
            connection: entry.connection,
            sessionAcceptedAConnection: sessionAcceptedAConnection
        ) {
            return .failure(failure)
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
        case .cannotFindHost, .dnsLookupFailed:
            let cause = TransportErrorText.Cause.hostNotFound(host)
            return SecureHTTPError(.connectFailed, "could not connect to \(host): \(cause.sentence)")
        case .cannotConnectToHost:
            let cause = TransportErrorText.Cause.refused(peer: host)
            return SecureHTTPError(.connectFailed, "could not connect to \(host): \(cause.sentence)")
        case .notConnectedToInternet:
            let cause = TransportErrorText.Cause.offline
            return SecureHTTPError(.connectFailed, "could not connect to \(host): \(cause.sentence)")
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
