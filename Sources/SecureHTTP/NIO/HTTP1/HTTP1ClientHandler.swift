import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOSSL
import NIOTLS

/// One request at a time over an HTTP/1.1 connection: it reads each response by the rules of an
/// ``ExchangeStateMachine`` and carries out its actions. It also reports the end of the TLS
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
    ///
    /// The request is encoded by ``start(_:)``, on the event loop: the task hands it over a
    /// little sooner, often while the loop is still awake from the previous response, which
    /// then needs no wake-up to take it.
    final class Exchange: Sendable {
        let request: HTTPRequest
        let body: Data?
        let maximumBodySize: Int
        /// When the exchange fails with `deadlineExceeded` and the connection closes.
        let deadline: NIODeadline
        /// Called when the final response's head arrives.
        let onHead: (@Sendable () -> Void)?
        /// Called on the event loop once the response is complete, with whether the connection
        /// may carry another request, just before the task resumes: the connection is back in
        /// its pool by then, and the task's path to its next request is that much shorter.
        let release: (@Sendable (_ reusable: Bool) -> Void)?
        private let continuation: UnsafeContinuation<Completed, any Error>

        init(
            request: HTTPRequest,
            body: Data?,
            maximumBodySize: Int,
            deadline: NIODeadline,
            onHead: (@Sendable () -> Void)? = nil,
            release: (@Sendable (_ reusable: Bool) -> Void)? = nil,
            continuation: UnsafeContinuation<Completed, any Error>
        ) {
            self.onHead = onHead
            self.release = release
            self.request = request
            self.body = body
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

    /// The rules of the exchange in flight (a fresh machine for each exchange).
    private var machine = ExchangeStateMachine(wire: .http1)
    /// The exchange in flight.
    private var exchange: Exchange?
    /// Its response (converted from the head) and whether the server keeps the connection
    /// alive, once the final head arrived.
    private var response: (response: HTTPResponse, keepAlive: Bool)?
    /// Its body so far.
    private var body = ByteBuffer()
    /// The connection closed, or is closing: it takes no more exchanges.
    private var closed = false
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
        self.connectionEnded(error)
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
        guard let context = self.context, !self.closed, self.exchange == nil else {
            exchange.fail(
                self.closeReason ?? SecureHTTPError(.connectionClosed, "the connection is not available for a request")
            )
            return
        }
        let request: HTTP1RequestBytes
        do {
            request = try HTTP1RequestBytes(exchange.request, body: exchange.body, allocator: context.channel.allocator)
        } catch {
            // Nothing was written.
            exchange.fail(error)
            return
        }
        guard
            case .writeRequest = self.machine.start(
                method: exchange.request.method.rawValue,
                maximumBodySize: exchange.maximumBodySize
            )
        else {
            exchange.fail(
                self.closeReason ?? SecureHTTPError(.connectionClosed, "the connection is not available for a request")
            )
            return
        }
        self.exchange = exchange
        self.requestKeepAlive = request.keepAlive
        self.exchangeDeadline = exchange.deadline
        self.ensureTimer(context: context, firesBy: exchange.deadline)
        self.responseDecoder.requestSent(request.method)
        context.writeAndFlush(self.wrapOutboundOut(request.bytes), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            let status = Int(head.status.code)
            if case .awaitingHead = self.machine.state, !self.machine.isInterim(status) { self.exchange?.onHead?() }
            let action = self.machine.receivedHeaders(
                status: status,
                contentLength: head.headers.first(name: "content-length")
            )
            if case .forwardHead(let reserveCapacity) = action {
                self.forwardHead(head, reserveCapacity: reserveCapacity, context: context)
            } else {
                self.perform(action, context: context)
            }
        case .body(var bytes):
            let action = self.machine.receivedBodyPart(byteCount: bytes.readableBytes)
            if case .appendBody = action {
                // Appended in place (the handler holds the only reference), so the body is
                // never copied as it grows.
                self.body.writeBuffer(&bytes)
            } else {
                self.perform(action, context: context)
            }
        case .end:
            self.perform(self.machine.receivedEnd(), context: context)
        }
    }

    private func forwardHead(_ head: HTTPResponseHead, reserveCapacity: Int, context: ChannelHandlerContext) {
        do {
            self.response = (try HTTP1Connection.makeResponse(head, cache: &self.responseFields), head.isKeepAlive)
        } catch {
            self.perform(self.machine.failed(error), context: context)
            return
        }
        // One receive buffer per connection, kept across requests (its capacity is reused, so a
        // keep-alive connection does not allocate and fault in a fresh buffer for every large
        // body); reserved from Content-Length (checked against the limit), at most 1 MiB up
        // front so that a length the server only claims reserves no more.
        var body = self.receiveBuffer ?? context.channel.allocator.buffer(capacity: 0)
        self.receiveBuffer = nil
        body.clear()
        body.reserveCapacity(reserveCapacity)
        self.body = body
    }

    /// Carries out what the machine decided.
    private func perform(_ action: ExchangeStateMachine.Action, context: ChannelHandlerContext) {
        switch action {
        case .wait, .writeRequest, .forwardHead, .appendBody:
            break
        case .succeedRequest:
            self.succeed(context: context)
        case .failRequest(let error, let close):
            self.failExchange(error)
            if close {
                if self.closeReason == nil { self.closeReason = error }
                self.handshakePromise.fail(error)
                context.close(promise: nil)
            }
        }
    }

    private func succeed(context: ChannelHandlerContext) {
        guard let exchange = self.exchange, let (response, keepAlive) = self.response else { return }
        self.exchange = nil
        self.response = nil
        self.exchangeDeadline = nil
        let buffer = self.body
        self.body = ByteBuffer()
        let reusable = keepAlive && self.requestKeepAlive
        if reusable {
            self.machine = ExchangeStateMachine(wire: .http1)
            self.idleSince = .now()
            self.ensureTimer(context: context, firesBy: self.idleSince + self.idleTimeout)
        } else {
            // Closed before the caller resumes, so that its release finds the channel inactive
            // and need not close it again from off the loop.
            self.closed = true
            context.close(promise: nil)
        }
        // Kept for the next response only if modest: one huge body must not pin its capacity
        // for the life of the connection.
        self.receiveBuffer = buffer.capacity <= 256 * 1024 ? buffer : nil
        let body = Data(buffer: buffer, byteTransferStrategy: .copy)
        exchange.release?(reusable)
        exchange.succeed(Completed(response: response, body: body, reusable: reusable))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let mapped: SecureHTTPError
        if let error = error as? HTTPParserError {
            mapped = SecureHTTPError(.invalidResponse, "the response is not valid HTTP/1.1 (\(error))")
        } else {
            mapped = self.mapError(error)
        }
        self.perform(self.machine.failed(mapped), context: context)
    }

    /// A close asked for on this side (a cancelled request, the pool closing the connection)
    /// fails the exchange in flight at once: a TLS channel only becomes inactive once the
    /// peer's close_notify arrives or its timeout passes.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .all {
            let error =
                self.closeReason ?? SecureHTTPError(.connectionClosed, "the connection was closed during the exchange")
            self.connectionEnded(error)
        }
        context.close(mode: mode, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        let error = SecureHTTPError(
            .connectionClosed,
            "the server closed the connection before the response was complete"
        )
        self.handshakePromise.fail(error)
        self.connectionEnded(error)
        context.fireChannelInactive()
    }

    private func ensureTimer(context: ChannelHandlerContext, firesBy due: NIODeadline) {
        self.timer.ensure(firesBy: due, on: context.eventLoop) { self.timerFired(context: context) }
    }

    private func timerFired(context: ChannelHandlerContext) {
        guard !self.closed else { return }
        let now = NIODeadline.now()
        if self.exchange != nil {
            guard let deadline = self.exchangeDeadline else { return }
            if deadline <= now {
                self.perform(self.machine.deadlinePassed(), context: context)
            } else {
                self.ensureTimer(context: context, firesBy: deadline)
            }
        } else {
            let due = self.idleSince + self.idleTimeout
            if due <= now {
                self.closed = true
                context.close(promise: nil)
            } else {
                self.ensureTimer(context: context, firesBy: due)
            }
        }
    }

    /// The connection closed or is closing: the exchange in flight, if any, fails with `error`
    /// (unless it has ended already), and the connection takes no more exchanges.
    private func connectionEnded(_ error: SecureHTTPError) {
        if case .failRequest(let error, _) = self.machine.closed(error) {
            self.failExchange(error)
        } else {
            self.failExchange(nil)
        }
    }

    /// Ends the connection's part in the exchange in flight, failing it with `error`.
    private func failExchange(_ error: SecureHTTPError?) {
        self.closed = true
        self.timer.cancel()
        guard let exchange = self.exchange else { return }
        self.exchange = nil
        self.response = nil
        self.body = ByteBuffer()
        if let error { exchange.fail(error) }
    }
}
