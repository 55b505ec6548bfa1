import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2

/// The outcome of one HTTP/2 exchange, settled exactly once by whichever side gets there first:
/// the stream's handler (the response, or why the stream failed), the connection (it failed),
/// the cancelled task, or the stream that could not be opened. It resumes the waiting task
/// directly, with no promise in between.
///
/// It also holds the exchange's stream while the exchange is unsettled, so that cancelling the
/// task closes the stream (RST_STREAM with CANCEL); one lock per exchange for both jobs.
final class HTTP2Exchange: Sendable {
    private enum Outcome {
        case pending
        case waiting(UnsafeContinuation<HTTP2StreamHandler.Completed, any Error>)
        /// The outcome, until the waiting task takes it (nil once it has).
        case settled(Result<HTTP2StreamHandler.Completed, SecureHTTPError>?)
    }

    private struct State {
        var outcome = Outcome.pending
        /// The stream, from when it is set up until the exchange settles (dropped then: the
        /// stream's handler holds the exchange, and the stream must not outlive its use).
        var stream: (any Channel)?
    }

    private let state = NIOLockedValueBox(State())

    /// Waits with `continuation`, resumed at once if the outcome is already known.
    func wait(_ continuation: UnsafeContinuation<HTTP2StreamHandler.Completed, any Error>) {
        let settled = self.state.withLockedValue { state -> Result<HTTP2StreamHandler.Completed, SecureHTTPError>? in
            switch state.outcome {
            case .pending:
                state.outcome = .waiting(continuation)
                return nil
            case .settled(let result):
                state.outcome = .settled(nil)
                return result
            case .waiting:
                preconditionFailure("an HTTP/2 exchange is awaited once")
            }
        }
        if let settled { continuation.resume(with: settled.mapError { $0 as any Error }) }
    }

    /// Records the exchange's stream; false when the exchange has settled already (cancelled,
    /// or its connection failed), and the caller then drops the stream.
    func attach(_ stream: any Channel) -> Bool {
        self.state.withLockedValue { state in
            if case .settled = state.outcome { return false }
            state.stream = stream
            return true
        }
    }

    /// Settles the exchange; does nothing when it was settled already.
    func settle(_ result: Result<HTTP2StreamHandler.Completed, SecureHTTPError>) {
        _ = self.settle(result, takingStream: false)
    }

    func fail(_ error: SecureHTTPError) {
        self.settle(.failure(error))
    }

    /// The task was cancelled: fails the exchange with `cancelled` and closes its stream, if it
    /// has one (RST_STREAM with CANCEL; the connection and its other streams carry on).
    func cancel() {
        let stream = self.settle(.failure(SecureHTTPError(.cancelled, "the request was cancelled")), takingStream: true)
        stream?.close(promise: nil)
    }

    private func settle(
        _ result: Result<HTTP2StreamHandler.Completed, SecureHTTPError>,
        takingStream: Bool
    ) -> (any Channel)? {
        let (waiting, stream) = self.state.withLockedValue {
            state -> (UnsafeContinuation<HTTP2StreamHandler.Completed, any Error>?, (any Channel)?) in
            let stream = state.stream
            state.stream = nil
            switch state.outcome {
            case .pending:
                state.outcome = .settled(result)
                return (nil, stream)
            case .waiting(let continuation):
                state.outcome = .settled(nil)
                return (continuation, stream)
            case .settled:
                return (nil, nil)
            }
        }
        waiting?.resume(with: result.mapError { $0 as any Error })
        return takingStream ? stream : nil
    }
}

/// One exchange on its own HTTP/2 stream: writes the request's HEADERS (and DATA), reads the
/// response by the rules of an ``ExchangeStateMachine`` (the ones ``HTTP1ClientHandler`` follows),
/// carrying out its actions, and enforces the exchange's deadline. Failing a stream closes only
/// that stream (RST_STREAM).
final class HTTP2StreamHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundIn = Never
    typealias OutboundOut = HTTP2Frame.FramePayload

    /// A complete response.
    struct Completed: Sendable {
        let response: HTTPResponse
        let body: ByteBuffer
    }

    /// The rules of the exchange.
    private var machine = ExchangeStateMachine(wire: .http2)
    /// The response, once the final head arrived.
    private var response: HTTPResponse?
    /// The body so far.
    private var receiveBody = ByteBuffer()
    /// The error code of the RST_STREAM the server sent, if it sent one: a stream closed with
    /// an error code and no RST_STREAM from the server was reset by this side's HTTP/2 layer.
    private var serverReset: NIOHTTP2.HTTP2ErrorCode?
    private let headers: HPACKHeaders
    private let body: ByteBuffer?
    private let maximumBodySize: Int
    private let deadline: NIODeadline
    private let exchange: HTTP2Exchange
    /// The connection's state: its close reason and the server's GOAWAY.
    private let connection: HTTP2ConnectionState
    /// What the connection's streams share on the loop: the deadlines (which hold this
    /// exchange's while it runs) and the response fields seen.
    private let shared: HTTP2StreamsShared
    private var deadlineToken: Int?
    /// The exchange's entry in the connection's registry (the exchanges a failure of the whole
    /// connection fails at once), until the exchange finishes.
    private var registration: Int?
    /// Called when the final response's HEADERS arrive.
    private let onHead: (@Sendable () -> Void)?

    init(
        headers: HPACKHeaders,
        body: ByteBuffer?,
        maximumBodySize: Int,
        deadline: NIODeadline,
        exchange: HTTP2Exchange,
        connection: HTTP2ConnectionState,
        shared: HTTP2StreamsShared,
        registration: Int? = nil,
        onHead: (@Sendable () -> Void)? = nil
    ) {
        self.registration = registration
        self.onHead = onHead
        self.shared = shared
        self.headers = headers
        self.body = body
        self.maximumBodySize = maximumBodySize
        self.deadline = deadline
        self.exchange = exchange
        self.connection = connection
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { self.start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.start(context: context)
        context.fireChannelActive()
    }

    private func start(context: ChannelHandlerContext) {
        let method = self.headers.first(name: ":method") ?? ""
        guard case .writeRequest = self.machine.start(method: method, maximumBodySize: self.maximumBodySize) else {
            return
        }
        self.deadlineToken = self.shared.deadlines.add(self.deadline) {
            self.deadlineToken = nil
            self.perform(self.machine.deadlinePassed(), context: context)
        }
        let hasBody = (self.body?.readableBytes ?? 0) > 0
        // The HEADERS frame opens the stream; a failure to write it means nothing was sent.
        let opened = context.eventLoop.makePromise(of: Void.self)
        opened.futureResult.assumeIsolated().whenFailure { error in
            var reason =
                self.connection.snapshot.closeReason
                ?? SecureHTTPError(
                    .connectionClosed,
                    "the HTTP/2 stream could not be opened: \(TransportErrorText.sentence(for: error))"
                )
            reason.requestWasNotSent = true
            self.perform(self.machine.failed(reason), context: context)
        }
        context.write(
            self.wrapOutboundOut(.headers(.init(headers: self.headers, endStream: !hasBody))),
            promise: opened
        )
        if hasBody, let body = self.body {
            context.write(self.wrapOutboundOut(.data(.init(data: .byteBuffer(body), endStream: true))), promise: nil)
        }
        context.flush()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .headers(let frame):
            let status = frame.headers.first(name: ":status").flatMap(Int.init) ?? 0
            if case .awaitingHead = self.machine.state, !self.machine.isInterim(status) { self.onHead?() }
            let action = self.machine.receivedHeaders(
                status: status,
                contentLength: frame.headers.first(name: "content-length"),
                endsStream: frame.endStream
            )
            guard case .forwardHead(let reserveCapacity) = action else {
                self.perform(action, context: context)
                return
            }
            do {
                self.response = try self.shared.response(frame.headers)
            } catch {
                self.perform(self.machine.failed(error), context: context)
                return
            }
            self.receiveBody = context.channel.allocator.buffer(capacity: reserveCapacity)
            if frame.endStream { self.perform(self.machine.receivedEnd(), context: context) }
        case .data(let frame):
            guard case .byteBuffer(var part) = frame.data else {
                self.perform(
                    self.machine.failed(
                        SecureHTTPError(.invalidResponse, "the response body arrived in an unexpected form")
                    ),
                    context: context
                )
                return
            }
            let action = self.machine.receivedBodyPart(byteCount: part.readableBytes)
            guard case .appendBody = action else {
                self.perform(action, context: context)
                return
            }
            // Appended in place (the handler holds the only reference), so the body is never
            // copied as it grows.
            self.receiveBody.writeBuffer(&part)
            if frame.endStream { self.perform(self.machine.receivedEnd(), context: context) }
        case .rstStream(let code):
            self.serverReset = code
        default:
            break  // WINDOW_UPDATE, PRIORITY and the like: NIOHTTP2's business
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let mapped: SecureHTTPError
        if let closed = error as? NIOHTTP2Errors.StreamClosed {
            let aboveGoAway = self.connection.snapshot.goAwayLastStream.map { closed.streamID > $0 } ?? false
            if closed.errorCode == .refusedStream || aboveGoAway {
                // RFC 9113 §8.7: REFUSED_STREAM, and the streams above a GOAWAY's last stream
                // id (§6.8; NIOHTTP2 closes those with CANCEL), were not processed.
                mapped = SecureHTTPError(
                    .requestNotProcessed,
                    "the server did not process the request (HTTP/2 GOAWAY or REFUSED_STREAM)"
                )
            } else if let code = self.serverReset {
                mapped = SecureHTTPError(.streamReset, "the server reset the HTTP/2 stream (\(code))")
            } else {
                // No RST_STREAM came from the server: NIOHTTP2 reset the stream on this side
                // because the response broke HTTP/2's rules (RFC 9113 §8.1.1, §8.2: a
                // Content-Length the DATA frames contradict, an uppercase field name, a
                // connection-specific field, a pseudo-header after regular fields).
                mapped = SecureHTTPError(
                    .invalidResponse,
                    "the server's response is not valid HTTP/2 (\(closed.errorCode)); the client reset the stream"
                )
            }
        } else if let error = error as? SecureHTTPError {
            mapped = error
        } else {
            mapped = SecureHTTPError(
                .invalidResponse,
                "the HTTP/2 stream failed: \(TransportErrorText.sentence(for: error))"
            )
        }
        self.perform(self.machine.failed(mapped), context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.perform(
            self.machine.closed(
                self.connection.snapshot.closeReason
                    ?? SecureHTTPError(.connectionClosed, "the HTTP/2 stream closed before the response was complete")
            ),
            context: context
        )
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.perform(
            self.machine.closed(
                SecureHTTPError(.connectionClosed, "the HTTP/2 stream closed before the response was complete")
            ),
            context: context
        )
        self.finished()
    }

    /// Carries out what the machine decided. Failing the exchange with `close` resets the
    /// stream (closing a stream that has not ended sends RST_STREAM with CANCEL); the
    /// connection carries on.
    private func perform(_ action: ExchangeStateMachine.Action, context: ChannelHandlerContext) {
        switch action {
        case .wait, .writeRequest, .forwardHead, .appendBody:
            break
        case .succeedRequest:
            guard let response = self.response else { return }
            self.finished()
            self.exchange.settle(.success(Completed(response: response, body: self.receiveBody)))
        case .failRequest(let error, let close):
            self.finished()
            self.exchange.settle(.failure(error))
            if close { context.close(promise: nil) }
        }
    }

    private func finished() {
        if let token = self.deadlineToken {
            self.shared.deadlines.remove(token)
            self.deadlineToken = nil
        }
        if let registration = self.registration {
            self.connection.unregister(registration)
            self.registration = nil
        }
    }
}

/// What the streams of one HTTP/2 connection share on its event loop: one ``DeadlineQueue`` for
/// their deadlines, and the last response's fields, so that a response whose header block is
/// byte for byte the one before shares its `HTTPResponse` instead of building it again (as the
/// HTTP/1.1 handler does). Used on the connection's event loop only.
final class HTTP2StreamsShared {
    let deadlines: DeadlineQueue
    private var last: (head: HPACKHeaders, response: HTTPResponse)?

    init(loop: any EventLoop) {
        self.deadlines = DeadlineQueue(loop: loop)
    }

    /// The response for `head`.
    ///
    /// - Throws: ``SecureHTTPError/Code/invalidResponse`` (no valid `:status`, a field name that
    ///   is not a token).
    func response(_ head: HPACKHeaders) throws(SecureHTTPError) -> HTTPResponse {
        if let last = self.last, FieldBytes.identical(last.head, head, { ($0.name, $0.value) }) { return last.response }
        let response = try HTTP2Connection.makeResponse(head)
        self.last = (head, response)
        return response
    }
}
