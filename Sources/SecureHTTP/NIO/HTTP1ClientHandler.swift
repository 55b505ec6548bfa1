import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOSSL
import NIOTLS

/// One request at a time over an HTTP/1.1 connection. It also reports the end of the TLS
/// handshake, so connection setup can wait for it, enforces each exchange's deadline, and
/// closes the connection once it has been idle for the idle timeout. All state, timers
/// included, lives on the event loop: a keep-alive request arms no timer off the loop.
final class HTTP1ClientHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    /// Exchanges come through ``start(_:)``, not down the pipeline.
    typealias OutboundIn = Never
    typealias OutboundOut = ByteBuffer

    /// A request to write and the continuation its response resumes, exactly once, by this
    /// handler: with the response, the error that ended the exchange, or why the connection
    /// could not take it. A class, so that the state machine moves one
    /// reference instead of copying the request head at every step.
    final class Exchange: Sendable {
        let request: HTTP1RequestBytes
        let maximumBodySize: Int
        /// When the exchange fails with `deadlineExceeded` and the connection closes.
        let deadline: NIODeadline
        /// Called when the final response's head arrives.
        let onHead: (@Sendable () -> Void)?
        private let continuation: UnsafeContinuation<Completed, any Error>

        init(
            request: HTTP1RequestBytes,
            maximumBodySize: Int,
            deadline: NIODeadline,
            onHead: (@Sendable () -> Void)? = nil,
            continuation: UnsafeContinuation<Completed, any Error>
        ) {
            self.onHead = onHead
            self.request = request
            self.maximumBodySize = maximumBodySize
            self.deadline = deadline
            self.continuation = continuation
        }

        func succeed(_ completed: Completed) {
            self.continuation.resume(returning: completed)
        }

        func fail(_ error: SecureHTTPError) {
            self.continuation.resume(throwing: error)
        }
    }

    /// A complete response and whether the connection may carry another request.
    struct Completed: Sendable {
        let response: HTTPResponse
        /// The body, copied out of the connection's receive buffer on the event loop: the buffer
        /// is reused for the next response and never leaves the loop. (Handing the caller the
        /// buffer itself, to copy after it resumed, shared the buffer's storage with a thread the
        /// loop only synchronises with through the continuation; ThreadSanitizer reported the
        /// copy racing the loop's `reserveCapacity` once in a run of the whole suite.)
        let body: Data
        let reusable: Bool
    }

    private enum State {
        case idle
        case awaitingHead(Exchange)
        /// The exchange, its response (converted from the head) and whether the server keeps
        /// the connection alive, and the body so far.
        case receivingBody(Exchange, HTTPResponse, keepAlive: Bool, ByteBuffer)
        case closed
    }

    private var state = State.idle
    private let handshakePromise: EventLoopPromise<Void>
    private let awaitsTLSHandshake: Bool
    private let mapError: @Sendable (any Error) -> SecureHTTPError
    private var requestKeepAlive = true
    private var receiveBuffer: ByteBuffer?
    private var responseFields = ResponseFieldsCache()
    /// The response decoder below, told the method of each request written.
    private let responseDecoder: HTTP1ResponseDecoder
    private let idleTimeout: TimeAmount
    private var idleSince = NIODeadline.now()
    /// The deadline of the exchange in flight.
    private var exchangeDeadline: NIODeadline?
    /// One timer per connection serves both the exchange deadline and the idle timeout.
    private let timer = CoalescingTimer()
    /// Why the connection ended, for a request written after the fact (a TLS 1.3 server's
    /// alert can arrive before the first request is written).
    private var closeReason: SecureHTTPError? {
        get { self.sharedCloseReason.withLockedValue { $0 } }
        set { self.sharedCloseReason.withLockedValue { $0 = newValue } }
    }
    /// Shared with the connection, which reads it when a write never reached this handler
    /// (the channel had already closed).
    private let sharedCloseReason: NIOLockedValueBox<SecureHTTPError?>

    init(
        handshakePromise: EventLoopPromise<Void>,
        awaitsTLSHandshake: Bool,
        closeReason: NIOLockedValueBox<SecureHTTPError?>,
        idleTimeout: TimeAmount,
        responseDecoder: HTTP1ResponseDecoder,
        mapError: @escaping @Sendable (any Error) -> SecureHTTPError
    ) {
        self.responseDecoder = responseDecoder
        self.idleTimeout = idleTimeout
        self.handshakePromise = handshakePromise
        self.sharedCloseReason = closeReason
        self.awaitsTLSHandshake = awaitsTLSHandshake
        self.mapError = mapError
    }

    func channelActive(context: ChannelHandlerContext) {
        if !self.awaitsTLSHandshake { self.handshakePromise.succeed(()) }
        context.fireChannelActive()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if !self.awaitsTLSHandshake && context.channel.isActive { self.handshakePromise.succeed(()) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        // A connect that fails tears the pipeline down without channelInactive: complete the
        // promises (NIO reports a promise that is never completed).
        let error = self.closeReason ?? SecureHTTPError(.connectionClosed, "the connection closed")
        self.handshakePromise.fail(error)
        self.failPending(error)
        self.state = .closed
        self.cancelTimers()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            self.handshakePromise.succeed(())
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// The handler's place in the pipeline, while it is in one.
    private var context: ChannelHandlerContext?

    /// Starts `exchange` (on the event loop), without wrapping it for the pipeline: this is
    /// the pipeline's last handler. On a connection that has closed, or with an exchange
    /// already in flight, the exchange fails with the reason recorded.
    func start(_ exchange: Exchange) {
        guard let context = self.context, case .idle = self.state else {
            exchange.fail(
                self.closeReason ?? SecureHTTPError(.connectionClosed, "the connection is not available for a request")
            )
            return
        }
        self.state = .awaitingHead(exchange)
        self.requestKeepAlive = exchange.request.keepAlive
        self.exchangeDeadline = exchange.deadline
        self.ensureTimer(context: context, firesBy: exchange.deadline)
        self.responseDecoder.requestSent(exchange.request.method)
        context.writeAndFlush(self.wrapOutboundOut(exchange.request.bytes), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = self.unwrapInboundIn(data)
        // A body part first and apart: a `switch` over `(part, self.state)` would keep a second
        // reference to the body buffer for the whole case, so every append would copy the body
        // received so far (quadratic in its size).
        if case .body(let bytes) = part, case .receivingBody = self.state {
            self.receiveBody(bytes, context: context)
            return
        }
        switch (part, self.state) {
        case (.head(let head), .awaitingHead(let exchange)):
            if head.status.code >= 100 && head.status.code < 200 && head.status.code != 101 {
                return  // interim response; the final one follows
            }
            exchange.onHead?()
            let length = ResponseBodyRule.announcedLength(
                method: exchange.request.method.rawValue,
                status: Int(head.status.code),
                contentLength: head.headers.first(name: "content-length")
            )
            if let length, length > exchange.maximumBodySize {
                self.fail(context: context, SecureHTTPError.tooLarge(exchange.maximumBodySize))
                return
            }
            let response: HTTPResponse
            do {
                response = try HTTP1Connection.makeResponse(head, cache: &self.responseFields)
            } catch {
                self.fail(context: context, error)
                return
            }
            // One receive buffer per connection, kept across requests (its capacity is reused,
            // so a keep-alive connection does not allocate and fault in a fresh buffer for
            // every large body); reserved from Content-Length (checked against the limit), at
            // most 1 MiB up front so that a length the server only claims reserves no more.
            var body = self.receiveBuffer ?? context.channel.allocator.buffer(capacity: 0)
            self.receiveBuffer = nil
            body.clear()
            body.reserveCapacity(min(max(0, length ?? 0), 1 << 20))
            self.state = .receivingBody(exchange, response, keepAlive: head.isKeepAlive, body)
        case (.end, .receivingBody(let exchange, let response, let keepAlive, let buffer)):
            self.state = .idle
            self.exchangeDeadline = nil
            let reusable = keepAlive && self.requestKeepAlive
            if reusable {
                self.idleSince = .now()
                self.ensureTimer(context: context, firesBy: self.idleSince + self.idleTimeout)
            } else {
                // Closed before the caller resumes, so that its release finds the channel
                // inactive and need not close it again from off the loop.
                context.close(promise: nil)
            }
            // Kept for the next response only if modest: one huge body must not pin its
            // capacity for the life of the connection.
            self.receiveBuffer = buffer.capacity <= 256 * 1024 ? buffer : nil
            let body = Data(buffer: buffer, byteTransferStrategy: .copy)
            exchange.succeed(Completed(response: response, body: body, reusable: reusable))
        default:
            self.fail(
                context: context,
                SecureHTTPError(.invalidResponse, "the server sent a response part out of order")
            )
        }
    }

    private func receiveBody(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        guard case .receivingBody(let exchange, let response, let keepAlive, var buffer) = self.state else { return }
        // The state lets go of the buffer before it grows, so the append never copies it.
        self.state = .receivingBody(exchange, response, keepAlive: keepAlive, ByteBuffer())
        var bytes = bytes
        guard buffer.readableBytes + bytes.readableBytes <= exchange.maximumBodySize else {
            self.fail(context: context, SecureHTTPError.tooLarge(exchange.maximumBodySize))
            return
        }
        buffer.writeBuffer(&bytes)
        self.state = .receivingBody(exchange, response, keepAlive: keepAlive, buffer)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let mapped: SecureHTTPError
        if let error = error as? HTTPParserError {
            mapped = SecureHTTPError(.invalidResponse, "the response is not valid HTTP/1.1 (\(error))")
        } else {
            mapped = self.mapError(error)
        }
        self.fail(context: context, mapped)
    }

    /// A close asked for on this side (a cancelled request, the pool closing the connection)
    /// fails the exchange in flight at once: a TLS channel only becomes inactive once the
    /// peer's close_notify arrives or its timeout passes.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .all {
            let error =
                self.closeReason ?? SecureHTTPError(.connectionClosed, "the connection was closed during the exchange")
            self.failPending(error)
            self.state = .closed
            self.cancelTimers()
        }
        context.close(mode: mode, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        let error = SecureHTTPError(
            .connectionClosed,
            "the server closed the connection before the response was complete"
        )
        self.handshakePromise.fail(error)
        self.failPending(error)
        self.state = .closed
        self.cancelTimers()
        context.fireChannelInactive()
    }

    private func fail(context: ChannelHandlerContext, _ error: SecureHTTPError) {
        if self.closeReason == nil { self.closeReason = error }
        self.handshakePromise.fail(error)
        self.failPending(error)
        self.state = .closed
        self.cancelTimers()
        context.close(promise: nil)
    }

    private func ensureTimer(context: ChannelHandlerContext, firesBy due: NIODeadline) {
        self.timer.ensure(firesBy: due, on: context.eventLoop) { self.timerFired(context: context) }
    }

    private func timerFired(context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        switch self.state {
        case .awaitingHead, .receivingBody:
            guard let deadline = self.exchangeDeadline else { return }
            if deadline <= now {
                self.fail(
                    context: context,
                    SecureHTTPError(.deadlineExceeded, "the request deadline passed during the exchange")
                )
            } else {
                self.ensureTimer(context: context, firesBy: deadline)
            }
        case .idle:
            let due = self.idleSince + self.idleTimeout
            if due <= now {
                self.state = .closed
                context.close(promise: nil)
            } else {
                self.ensureTimer(context: context, firesBy: due)
            }
        case .closed:
            break
        }
    }

    private func cancelTimers() {
        self.timer.cancel()
    }

    private func failPending(_ error: SecureHTTPError) {
        switch self.state {
        case .awaitingHead(let exchange), .receivingBody(let exchange, _, _, _):
            self.state = .closed
            exchange.fail(error)
        case .idle, .closed:
            break
        }
    }
}

extension SecureHTTPError {
    static func tooLarge(_ limit: Int) -> SecureHTTPError {
        SecureHTTPError(.responseTooLarge, "the response body is larger than the limit of \(limit) bytes")
    }
}
