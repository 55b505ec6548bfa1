import NIOCore
import NIOHTTP1

/// Asks an HTTP proxy for a `CONNECT` tunnel (RFC 9110 §9.3.6) over NIO's HTTP/1 codec and
/// completes `promise` when the proxy has answered 2xx and ended its answer, or fails it with a
/// ``ProxyConnectHandler/Refusal`` and closes the channel.
///
/// The library's own handler rather than swift-nio-extras' `NIOHTTP1ProxyConnectHandler`: that
/// package brings swift-service-lifecycle, swift-async-algorithms and five more packages into
/// every app's dependency graph for these hundred lines. The tunnel carries nothing before it is
/// open (TLS is added once this handler and the codec have left), so a write before then fails;
/// the handler removes itself once the tunnel is open.
final class ProxyConnectHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = Never
    typealias OutboundOut = HTTPClientRequestPart

    /// Why the proxy did not open the tunnel; never carries the proxy's headers or body.
    enum Refusal: Error, Equatable {
        /// The proxy asked for credentials (407).
        case authenticationRequired
        /// The proxy answered with a status other than 2xx.
        case status(Int)
        /// The proxy sent a body with its 2xx answer, which a tunnel never has.
        case unexpectedBody
        /// The connection closed before the proxy had answered.
        case closed
        /// The proxy did not answer before the deadline.
        case timedOut
    }

    private enum State {
        case idle
        case requested
        case answered
        case done
    }

    private let target: String
    private let headers: HTTPHeaders
    private let deadline: NIODeadline
    private let promise: EventLoopPromise<Void>
    private var state = State.idle
    private var timeout: Scheduled<Void>?

    /// - Parameters:
    ///   - target: the request target, `host:port` (brackets around an IPv6 literal).
    ///   - headers: `Host`, and `Proxy-Authorization` when the proxy needs it.
    init(target: String, headers: HTTPHeaders, deadline: NIODeadline, promise: EventLoopPromise<Void>) {
        self.target = target
        self.headers = headers
        self.deadline = deadline
        self.promise = promise
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { self.sendRequest(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.sendRequest(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.fail(.closed, context: context)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.timeout?.cancel()
        self.fail(.closed, context: context)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        promise?.fail(ChannelError.ioOnClosedChannel)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard self.state != .done else { return context.fireErrorCaught(error) }
        self.state = .done
        self.timeout?.cancel()
        self.promise.fail(error)
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (self.unwrapInboundIn(data), self.state) {
        case (.head(let head), .requested):
            switch head.status.code {
            case 200..<300: self.state = .answered
            case 407: self.fail(.authenticationRequired, context: context)
            default: self.fail(.status(Int(head.status.code)), context: context)
            }
        case (.body, .answered):
            self.fail(.unexpectedBody, context: context)
        case (.end, .answered):
            // The tunnel is open: this handler leaves before TLS is added behind it.
            self.state = .done
            self.timeout?.cancel()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            self.promise.succeed(())
        case (_, .done):
            break  // what a refused proxy sends after its head
        default:
            self.fail(.status(0), context: context)
        }
    }

    private func sendRequest(context: ChannelHandlerContext) {
        guard self.state == .idle else { return }
        self.state = .requested
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        self.timeout = context.eventLoop.scheduleTask(deadline: self.deadline) {
            let (handler, context) = loopBound.value
            handler.fail(.timedOut, context: context)
        }
        var head = HTTPRequestHead(version: .http1_1, method: .CONNECT, uri: self.target)
        head.headers = self.headers
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
    }

    private func fail(_ refusal: Refusal, context: ChannelHandlerContext) {
        guard self.state != .done else { return }
        self.state = .done
        self.timeout?.cancel()
        self.promise.fail(refusal)
        context.close(promise: nil)
    }
}
