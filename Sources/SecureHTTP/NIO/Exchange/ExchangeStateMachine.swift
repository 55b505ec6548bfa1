/// The rules for reading one response, the same over HTTP/1.1 and HTTP/2, with no I/O: the
/// handlers (``HTTP1ClientHandler``, ``HTTP2StreamHandler``) turn what the channel delivers into
/// its events and carry out the action each event returns. Shaped after AsyncHTTPClient's
/// `HTTPRequestStateMachine`.
///
/// The rules it holds, once for both protocols:
/// - an interim (`1xx`) response is skipped and the final one awaited; over HTTP/1.1 `101` is
///   final (NIOHTTP1 ends the message there); over HTTP/2 a stream may not end on one;
/// - a `Content-Length` over the body limit fails the exchange before any byte of the body,
///   for a response that has a body (``ResponseBodyRule``);
/// - the body received so far is held to the limit, whatever the server announced;
/// - trailers are accepted and not surfaced; over HTTP/2 they must end the stream;
/// - a part out of order fails the exchange;
/// - the deadline fails the exchange while it runs;
/// - the exchange ends exactly once: any event after its end is ignored (``Action/wait``).
///
/// The body bytes themselves stay with the handler (its buffer, reused across requests over
/// HTTP/1.1); the machine counts them.
struct ExchangeStateMachine {
    /// The wire the exchange runs on, for the few rules that differ.
    enum Wire: Equatable {
        case http1
        case http2
    }

    enum State: Equatable {
        /// No request yet.
        case idle
        /// The request is written (or being written); no final response head yet.
        case awaitingHead(method: String, maximumBodySize: Int)
        /// The final head arrived; `received` bytes of body so far.
        case receivingBody(maximumBodySize: Int, received: Int)
        /// Succeeded or failed; nothing more happens.
        case finished
    }

    /// What the handler does after an event.
    enum Action: Equatable {
        /// Write the request.
        case writeRequest
        /// Nothing: an interim response, or an event after the end.
        case wait
        /// The final response head arrived: build the response and reserve this many bytes for
        /// its body (from `Content-Length`, checked against the limit, at most 1 MiB).
        case forwardHead(reserveCapacity: Int)
        /// Append the body part to the body.
        case appendBody
        /// The response is complete: resume the caller with it.
        case succeedRequest
        /// Fail the exchange with the error, then close the channel (the connection over
        /// HTTP/1.1, the stream over HTTP/2) when `close` says so.
        case failRequest(SecureHTTPError, close: Bool)
    }

    private(set) var state = State.idle
    let wire: Wire

    init(wire: Wire) {
        self.wire = wire
    }

    /// The exchange starts: the request is to be written.
    mutating func start(method: String, maximumBodySize: Int) -> Action {
        guard case .idle = self.state else { return .wait }
        self.state = .awaitingHead(method: method, maximumBodySize: maximumBodySize)
        return .writeRequest
    }

    /// A header block arrived: a response head (interim or final) or, after the head, trailers.
    ///
    /// - Parameters:
    ///   - status: the status code (0 when it is missing or not a number).
    ///   - contentLength: the `Content-Length` field's value, if any.
    ///   - endsStream: whether the block ends the response (HTTP/2's END_STREAM). A final
    ///     head that ends the stream is followed by ``receivedEnd()`` once the handler has
    ///     built the response.
    mutating func receivedHeaders(status: Int, contentLength: String?, endsStream: Bool = false) -> Action {
        switch self.state {
        case .awaitingHead(let method, let maximumBodySize):
            if self.isInterim(status) {
                guard !endsStream else {
                    return self.fail(SecureHTTPError(.invalidResponse, "the stream ended with an interim response"))
                }
                return .wait
            }
            let length = ResponseBodyRule.announcedLength(method: method, status: status, contentLength: contentLength)
            if let length, length > maximumBodySize {
                return self.fail(.tooLarge(maximumBodySize))
            }
            self.state = .receivingBody(maximumBodySize: maximumBodySize, received: 0)
            return .forwardHead(reserveCapacity: min(max(0, length ?? 0), 1 << 20))
        case .receivingBody where self.wire == .http2:
            // Trailers: accepted and not surfaced; they must end the stream (RFC 9113 §8.1).
            guard endsStream else {
                return self.fail(
                    SecureHTTPError(
                        .invalidResponse,
                        "the response has a header block after its body that does not end the stream"
                    )
                )
            }
            self.state = .finished
            return .succeedRequest
        case .idle, .receivingBody:
            return self.fail(self.outOfOrder)
        case .finished:
            return .wait
        }
    }

    /// `byteCount` bytes of body arrived.
    mutating func receivedBodyPart(byteCount: Int) -> Action {
        switch self.state {
        case .receivingBody(let maximumBodySize, let received):
            guard received + byteCount <= maximumBodySize else { return self.fail(.tooLarge(maximumBodySize)) }
            self.state = .receivingBody(maximumBodySize: maximumBodySize, received: received + byteCount)
            return .appendBody
        case .idle, .awaitingHead:
            return self.fail(self.outOfOrder)
        case .finished:
            return .wait
        }
    }

    /// The response ended (HTTP/1.1's end of message, with or without trailers; HTTP/2's
    /// END_STREAM on the head or on DATA).
    mutating func receivedEnd() -> Action {
        switch self.state {
        case .receivingBody:
            self.state = .finished
            return .succeedRequest
        case .idle, .awaitingHead:
            return self.fail(self.outOfOrder)
        case .finished:
            return .wait
        }
    }

    /// The exchange's deadline passed.
    mutating func deadlinePassed() -> Action {
        self.failed(SecureHTTPError(.deadlineExceeded, "the request deadline passed during the exchange"))
    }

    /// The exchange failed with `error` on this side (an error caught in the pipeline, a
    /// response that could not be read); the channel is to be closed.
    mutating func failed(_ error: SecureHTTPError) -> Action {
        self.fail(error)
    }

    /// The channel closed, or was closed on this side (a cancelled request, the pool closing
    /// the connection): the exchange in flight fails with `error`; nothing is left to close.
    mutating func closed(_ error: SecureHTTPError) -> Action {
        switch self.state {
        case .awaitingHead, .receivingBody:
            self.state = .finished
            return .failRequest(error, close: false)
        case .idle, .finished:
            self.state = .finished
            return .wait
        }
    }

    private mutating func fail(_ error: SecureHTTPError) -> Action {
        if case .finished = self.state { return .wait }
        self.state = .finished
        return .failRequest(error, close: true)
    }

    /// Whether a head with `status` is an interim response, the final one to follow.
    func isInterim(_ status: Int) -> Bool {
        (100..<200).contains(status) && !(self.wire == .http1 && status == 101)
    }

    private var outOfOrder: SecureHTTPError {
        switch self.wire {
        case .http1: SecureHTTPError(.invalidResponse, "the server sent a response part out of order")
        case .http2: SecureHTTPError(.invalidResponse, "the server sent a response frame out of order")
        }
    }
}

extension SecureHTTPError {
    static func tooLarge(_ limit: Int) -> SecureHTTPError {
        SecureHTTPError(.responseTooLarge, "the response body is larger than the limit of \(limit) bytes")
    }
}
