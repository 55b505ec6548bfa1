import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2

/// The outcome of one HTTP/2 exchange, settled exactly once by whichever side gets there first:
/// the stream's handler (the response, or why the stream failed), the connection (it failed),
/// the cancelled task, or the stream that could not be opened. It resumes the waiting task
/// directly, with no promise in between.
final class HTTP2Exchange: Sendable {
    private enum State {
        case pending
        case waiting(UnsafeContinuation<HTTP2StreamHandler.Completed, any Error>)
        /// The outcome, until the waiting task takes it (nil once it has).
        case settled(Result<HTTP2StreamHandler.Completed, SecureHTTPError>?)
    }

    private let state = NIOLockedValueBox(State.pending)

    /// Waits with `continuation`, resumed at once if the outcome is already known.
    func wait(_ continuation: UnsafeContinuation<HTTP2StreamHandler.Completed, any Error>) {
        let settled = self.state.withLockedValue { state -> Result<HTTP2StreamHandler.Completed, SecureHTTPError>? in
            switch state {
            case .pending:
                state = .waiting(continuation)
                return nil
            case .settled(let result):
                state = .settled(nil)
                return result
            case .waiting:
                preconditionFailure("an HTTP/2 exchange is awaited once")
            }
        }
        if let settled { continuation.resume(with: settled.mapError { $0 as any Error }) }
    }

    /// Settles the exchange; does nothing when it was settled already.
    func settle(_ result: Result<HTTP2StreamHandler.Completed, SecureHTTPError>) {
        let waiting = self.state.withLockedValue {
            state -> UnsafeContinuation<HTTP2StreamHandler.Completed, any Error>? in
            switch state {
            case .pending:
                state = .settled(result)
                return nil
            case .waiting(let continuation):
                state = .settled(nil)
                return continuation
            case .settled:
                return nil
            }
        }
        waiting?.resume(with: result.mapError { $0 as any Error })
    }

    func fail(_ error: SecureHTTPError) {
        self.settle(.failure(error))
    }
}

/// One exchange on its own HTTP/2 stream: writes the request's HEADERS (and DATA), reads the
/// response within the size limit, and enforces the exchange's deadline. Every rule of the
/// HTTP/1.1 handler holds per stream; failing a stream closes only that stream (RST_STREAM).
final class HTTP2StreamHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundIn = Never
    typealias OutboundOut = HTTP2Frame.FramePayload

    /// A complete response.
    struct Completed: Sendable {
        let response: HTTPResponse
        let body: ByteBuffer
    }

    private enum State {
        case idle
        case awaitingHead
        case receivingBody(HPACKHeaders, ByteBuffer)
        case done
    }

    private var state = State.idle
    private let headers: HPACKHeaders
    private let body: ByteBuffer?
    private let maximumBodySize: Int
    private let deadline: NIODeadline
    private let exchange: HTTP2Exchange
    private let connectionCloseReason: NIOLockedValueBox<SecureHTTPError?>
    private let goAwayLastStream: NIOLockedValueBox<HTTP2StreamID?>
    /// What the connection's streams share on the loop: the deadlines (which hold this
    /// exchange's while it runs) and the response fields seen.
    private let shared: HTTP2StreamsShared
    private var deadlineToken: Int?
    /// Called when the final response's HEADERS arrive.
    private let onHead: (@Sendable () -> Void)?

    init(
        headers: HPACKHeaders,
        body: ByteBuffer?,
        maximumBodySize: Int,
        deadline: NIODeadline,
        exchange: HTTP2Exchange,
        connectionCloseReason: NIOLockedValueBox<SecureHTTPError?>,
        goAwayLastStream: NIOLockedValueBox<HTTP2StreamID?>,
        shared: HTTP2StreamsShared,
        onHead: (@Sendable () -> Void)? = nil
    ) {
        self.onHead = onHead
        self.shared = shared
        self.goAwayLastStream = goAwayLastStream
        self.headers = headers
        self.body = body
        self.maximumBodySize = maximumBodySize
        self.deadline = deadline
        self.exchange = exchange
        self.connectionCloseReason = connectionCloseReason
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { self.start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.start(context: context)
        context.fireChannelActive()
    }

    private func start(context: ChannelHandlerContext) {
        guard case .idle = self.state else { return }
        self.state = .awaitingHead
        self.deadlineToken = self.shared.deadlines.add(self.deadline) {
            self.deadlineToken = nil
            self.fail(
                context: context,
                SecureHTTPError(.deadlineExceeded, "the request deadline passed during the exchange")
            )
        }
        let hasBody = (self.body?.readableBytes ?? 0) > 0
        // The HEADERS frame opens the stream; a failure to write it means nothing was sent.
        let opened = context.eventLoop.makePromise(of: Void.self)
        opened.futureResult.assumeIsolated().whenFailure { error in
            var reason =
                self.connectionCloseReason.withLockedValue { $0 }
                ?? SecureHTTPError(
                    .connectionClosed,
                    "the HTTP/2 stream could not be opened: \(TransportErrorText.sentence(for: error))"
                )
            reason.requestWasNotSent = true
            self.fail(context: context, reason)
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
        let payload = self.unwrapInboundIn(data)
        // DATA first and apart: a `switch` over `(payload, self.state)` would keep a second
        // reference to the body buffer for the whole case, so every append would copy the body
        // received so far (quadratic in its size).
        if case .data(let frame) = payload, case .receivingBody = self.state {
            self.receiveData(frame, context: context)
            return
        }
        switch (payload, self.state) {
        case (.headers(let frame), .awaitingHead):
            let status = frame.headers.first(name: ":status").flatMap(Int.init) ?? 0
            if status >= 100 && status < 200 {
                // An interim response; the final one follows (RFC 9113 §8.1).
                if frame.endStream {
                    self.fail(
                        context: context,
                        SecureHTTPError(.invalidResponse, "the stream ended with an interim response")
                    )
                }
                return
            }
            self.onHead?()
            let length = ResponseBodyRule.announcedLength(
                method: self.headers.first(name: ":method") ?? "",
                status: status,
                contentLength: frame.headers.first(name: "content-length")
            )
            if let length, length > self.maximumBodySize {
                self.fail(context: context, SecureHTTPError.tooLarge(self.maximumBodySize))
                return
            }
            // Reserved from Content-Length (checked against the limit), at most 1 MiB up front.
            let buffer = context.channel.allocator.buffer(capacity: min(max(0, length ?? 0), 1 << 20))
            self.state = .receivingBody(frame.headers, buffer)
            if frame.endStream { self.succeed(context: context) }
        case (.headers(let frame), .receivingBody):
            // Trailers: accepted and not surfaced; they must end the stream (RFC 9113 §8.1).
            if frame.endStream {
                self.succeed(context: context)
            } else {
                self.fail(
                    context: context,
                    SecureHTTPError(
                        .invalidResponse,
                        "the response has a header block after its body that does not end the stream"
                    )
                )
            }
        case (.headers, _), (.data, _):
            self.fail(
                context: context,
                SecureHTTPError(.invalidResponse, "the server sent a response frame out of order")
            )
        default:
            break  // WINDOW_UPDATE, PRIORITY and the like: NIOHTTP2's business
        }
    }

    private func receiveData(_ frame: HTTP2Frame.FramePayload.Data, context: ChannelHandlerContext) {
        guard case .receivingBody(let head, var buffer) = self.state else { return }
        // The state lets go of the buffer before it grows, so the append never copies it.
        self.state = .receivingBody(head, ByteBuffer())
        guard case .byteBuffer(var part) = frame.data else {
            self.fail(
                context: context,
                SecureHTTPError(.invalidResponse, "the response body arrived in an unexpected form")
            )
            return
        }
        guard buffer.readableBytes + part.readableBytes <= self.maximumBodySize else {
            self.fail(context: context, SecureHTTPError.tooLarge(self.maximumBodySize))
            return
        }
        buffer.writeBuffer(&part)
        self.state = .receivingBody(head, buffer)
        if frame.endStream { self.succeed(context: context) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let mapped: SecureHTTPError
        if let closed = error as? NIOHTTP2Errors.StreamClosed {
            let aboveGoAway = self.goAwayLastStream.withLockedValue { $0.map { closed.streamID > $0 } ?? false }
            if closed.errorCode == .refusedStream || aboveGoAway {
                // RFC 9113 §8.7: REFUSED_STREAM, and the streams above a GOAWAY's last stream
                // id (§6.8; NIOHTTP2 closes those with CANCEL), were not processed.
                mapped = SecureHTTPError(
                    .requestNotProcessed,
                    "the server did not process the request (HTTP/2 GOAWAY or REFUSED_STREAM)"
                )
            } else {
                mapped = SecureHTTPError(.streamReset, "the server reset the HTTP/2 stream (\(closed.errorCode))")
            }
        } else if let error = error as? SecureHTTPError {
            mapped = error
        } else {
            mapped = SecureHTTPError(
                .invalidResponse,
                "the HTTP/2 stream failed: \(TransportErrorText.sentence(for: error))"
            )
        }
        self.fail(context: context, mapped)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.finish(
            .failure(
                self.connectionCloseReason.withLockedValue { $0 }
                    ?? SecureHTTPError(.connectionClosed, "the HTTP/2 stream closed before the response was complete")
            )
        )
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.finish(
            .failure(SecureHTTPError(.connectionClosed, "the HTTP/2 stream closed before the response was complete"))
        )
    }

    private func succeed(context: ChannelHandlerContext) {
        guard case .receivingBody(let head, let body) = self.state else { return }
        let response: HTTPResponse
        do {
            response = try self.shared.response(head)
        } catch {
            self.fail(context: context, error)
            return
        }
        self.finish(.success(Completed(response: response, body: body)))
    }

    /// Fails the exchange and resets the stream (closing a stream that has not ended sends
    /// RST_STREAM with CANCEL); the connection carries on.
    private func fail(context: ChannelHandlerContext, _ error: SecureHTTPError) {
        guard self.finish(.failure(error)) else { return }
        context.close(promise: nil)
    }

    @discardableResult
    private func finish(_ result: Result<Completed, SecureHTTPError>) -> Bool {
        if case .done = self.state { return false }
        self.state = .done
        if let token = self.deadlineToken {
            self.shared.deadlines.remove(token)
            self.deadlineToken = nil
        }
        self.exchange.settle(result)
        return true
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
