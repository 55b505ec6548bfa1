/// Whether an exchange that failed is sent again on another connection, as a value without
/// I/O (AsyncHTTPClient keeps the same decision in its request state machine). One per hop:
/// the transport asks it after each failure and performs what it says.
///
/// The rules, in order:
/// 1. A cancelled request is never sent again.
/// 2. A request that never reached the wire (``SecureHTTPError/requestWasNotSent``) is always
///    safe to send again, whatever its method: up to ``maximumNotSentRetries`` times, since a
///    connection can close between the lease and the stream.
/// 3. Otherwise one retry in all, for an idempotent request (RFC 9110 §9.2.2) whose body can be
///    sent again: when the server says it did not process it (HTTP/2 GOAWAY above the last
///    stream id, REFUSED_STREAM: ``SecureHTTPError/Code/requestNotProcessed``), or when a
///    reused keep-alive connection turned out closed by the server
///    (``SecureHTTPError/Code/connectionClosed`` on a connection not opened for this request).
struct ExchangeRetryDecision: Sendable, Equatable {
    /// How many times a request that never reached the wire is sent again.
    static let maximumNotSentRetries = 3

    /// Why a request is sent again; each reason has its counter in the statistics.
    enum Reason: Sendable, Equatable {
        /// It never reached the wire.
        case notSent
        /// The server said it did not process it.
        case notProcessed
        /// The reused connection had been closed by the server.
        case staleConnection
    }

    enum Decision: Sendable, Equatable {
        /// Lease a connection again and send the request again.
        case retry(Reason)
        /// Throw the error.
        case fail
    }

    /// What the decision needs to know of the request.
    struct Request: Sendable, Equatable {
        /// GET, HEAD, PUT, DELETE, OPTIONS, TRACE (RFC 9110 §9.2.2).
        var isIdempotent: Bool
        /// Whether its body can be sent again (a body of bytes; a streamed body could not).
        var bodyIsReplayable = true
    }

    /// What the decision needs to know of the failure.
    struct Failure: Sendable, Equatable {
        var code: SecureHTTPError.Code
        var requestWasNotSent: Bool
        /// The connection was opened for this request (not reused from the pool).
        var connectionWasFresh: Bool
        var isCancelled: Bool

        init(code: SecureHTTPError.Code, requestWasNotSent: Bool = false, connectionWasFresh: Bool, isCancelled: Bool) {
            self.code = code
            self.requestWasNotSent = requestWasNotSent
            self.connectionWasFresh = connectionWasFresh
            self.isCancelled = isCancelled
        }

        init(_ error: SecureHTTPError, connectionWasFresh: Bool, isCancelled: Bool) {
            self.init(
                code: error.code,
                requestWasNotSent: error.requestWasNotSent,
                connectionWasFresh: connectionWasFresh,
                isCancelled: isCancelled
            )
        }
    }

    let request: Request
    private(set) var notSentRetries = 0
    /// The one retry of a request that may have been processed is spent.
    private(set) var retried = false

    init(_ request: Request) {
        self.request = request
    }

    /// What to do after `failure`; a retry is counted against the budget.
    mutating func decide(after failure: Failure) -> Decision {
        if failure.isCancelled { return .fail }
        if failure.requestWasNotSent, self.notSentRetries < Self.maximumNotSentRetries {
            self.notSentRetries += 1
            return .retry(.notSent)
        }
        guard !self.retried, self.request.isIdempotent, self.request.bodyIsReplayable else { return .fail }
        let reason: Reason
        switch failure.code {
        case .requestNotProcessed:
            reason = .notProcessed
        case .connectionClosed where !failure.connectionWasFresh:
            reason = .staleConnection
        default:
            return .fail
        }
        self.retried = true
        return .retry(reason)
    }
}
