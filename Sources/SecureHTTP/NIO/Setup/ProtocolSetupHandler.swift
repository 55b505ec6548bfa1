import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOTLS

extension ConnectionSetup {

    /// The HTTP/1.1 handlers; the promise completes when the connection is ready (at once
    /// without TLS, when the handshake ends with it).
    static func addHTTP1Handlers(
        to channel: any Channel,
        negotiated: EventLoopPromise<Negotiated>,
        awaitsTLSHandshake: Bool,
        closeReason: NIOLockedValueBox<SecureHTTPError?>,
        timeouts: HTTPTransportConfiguration.Timeouts,
        mapError: @escaping @Sendable (any Error) -> SecureHTTPError
    ) throws {
        let ready = channel.eventLoop.makePromise(of: Void.self)
        // The request is written as bytes (HTTP1RequestBytes), so the pipeline has no request
        // encoder, and the response decoder learns each request's method from the handler.
        let decoder = HTTP1ResponseDecoder()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(decoder))
        let handler = HTTP1ClientHandler(
            handshakePromise: ready,
            awaitsTLSHandshake: awaitsTLSHandshake,
            closeReason: closeReason,
            idleTimeout: TimeAmount(timeouts.idle),
            responseDecoder: decoder,
            mapError: mapError
        )
        try channel.pipeline.syncOperations.addHandler(handler)
        let bound = NIOLoopBound(handler, eventLoop: channel.eventLoop)
        ready.futureResult.map { Negotiated.http1(bound) }.cascade(to: negotiated)
    }
}

/// Waits for the end of the TLS handshake, then installs the handlers of the protocol the
/// server chose in ALPN (`h2`, or HTTP/1.1 for `http/1.1` or no choice) and leaves the
/// pipeline. Until then it turns a failure of the handshake into the connection's error.
final class ProtocolSetupHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private var negotiated: EventLoopPromise<ConnectionSetup.Negotiated>?
    private let closeReason: NIOLockedValueBox<SecureHTTPError?>
    private let timeouts: HTTPTransportConfiguration.Timeouts
    private let http2: HTTPTransportConfiguration.HTTP2Options
    private let http2Events: HTTP2ConnectionEvents
    private let mapError: @Sendable (any Error) -> SecureHTTPError

    init(
        negotiated: EventLoopPromise<ConnectionSetup.Negotiated>,
        closeReason: NIOLockedValueBox<SecureHTTPError?>,
        timeouts: HTTPTransportConfiguration.Timeouts,
        http2: HTTPTransportConfiguration.HTTP2Options,
        http2Events: HTTP2ConnectionEvents,
        mapError: @escaping @Sendable (any Error) -> SecureHTTPError
    ) {
        self.negotiated = negotiated
        self.closeReason = closeReason
        self.timeouts = timeouts
        self.http2 = http2
        self.http2Events = http2Events
        self.mapError = mapError
    }

    /// The settings this client announces: no server push (RFC 9113 §8.4), each stream's
    /// receive window, NIO's header list limit.
    static func initialSettings(_ options: HTTPTransportConfiguration.HTTP2Options) -> HTTP2Settings {
        [
            HTTP2Setting(parameter: .enablePush, value: 0),
            HTTP2Setting(parameter: .maxConcurrentStreams, value: 100),
            HTTP2Setting(parameter: .maxHeaderListSize, value: HPACKDecoder.defaultMaxHeaderListSize),
            HTTP2Setting(parameter: .initialWindowSize, value: options.streamWindowSize),
        ]
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let tlsEvent = event as? TLSUserEvent, case .handshakeCompleted(let chosen) = tlsEvent,
            let promise = self.negotiated
        else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        self.negotiated = nil
        do {
            if chosen == "h2" {
                try self.installHTTP2(context: context, ready: promise)
            } else {
                try ConnectionSetup.addHTTP1Handlers(
                    to: context.channel,
                    negotiated: promise,
                    awaitsTLSHandshake: false,  // it has just ended
                    closeReason: self.closeReason,
                    timeouts: self.timeouts,
                    mapError: self.mapError
                )
            }
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        } catch {
            promise.fail(
                SecureHTTPError(
                    .connectFailed,
                    "the connection could not be set up: \(TransportErrorText.sentence(for: error))"
                )
            )
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func installHTTP2(
        context: ChannelHandlerContext,
        ready: EventLoopPromise<ConnectionSetup.Negotiated>
    ) throws {
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.initialSettings = Self.initialSettings(self.http2)
        connection.targetWindowSize = self.http2.connectionWindowSize
        var stream = NIOHTTP2Handler.StreamConfiguration()
        stream.targetWindowSize = self.http2.streamWindowSize
        let handler = NIOHTTP2Handler(
            mode: .client,
            eventLoop: context.eventLoop,
            connectionConfiguration: connection,
            streamConfiguration: stream
        ) { pushed in
            // Push is disabled in the settings; a server that pushes anyway is refused.
            pushed.close()
        }
        let sync = context.pipeline.syncOperations
        try sync.addHandler(FlushCoalescer())
        try sync.addHandler(handler)
        let multiplexer = try handler.syncMultiplexer()
        try sync.addHandler(
            HTTP2ConnectionHandler(
                ready: ready,
                multiplexer: multiplexer,
                events: self.http2Events,
                state: HTTP2ConnectionState(),
                mapError: self.mapError,
                idleTimeout: TimeAmount(self.timeouts.idle),
                pingInterval: self.http2.pingInterval.map(TimeAmount.init),
                pingTimeout: TimeAmount(self.http2.pingTimeout)
            )
        )
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let mapped = self.mapError(error)
        self.closeReason.withLockedValue { if $0 == nil { $0 = mapped } }
        self.fail(mapped)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.fail(
            self.closeReason.withLockedValue { $0 }
                ?? SecureHTTPError(.connectionClosed, "the server closed the connection during the handshake")
        )
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.fail(SecureHTTPError(.connectionClosed, "the connection closed during the handshake"))
    }

    private func fail(_ error: SecureHTTPError) {
        if let promise = self.negotiated {
            self.negotiated = nil
            promise.fail(error)
        }
    }
}
