import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOExtras
import NIOHPACK
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS
import ServerTrust

/// A pooled connection: HTTP/1.1 (one exchange at a time) or HTTP/2 (many streams).
enum PooledConnection: Sendable {
    typealias ID = Int

    case http1(HTTP1Connection)
    case http2(HTTP2Connection, maximumStreams: Int)

    var id: ID {
        switch self {
        case .http1(let connection): connection.id
        case .http2(let connection, _): connection.id
        }
    }

    var isHTTP2: Bool {
        if case .http2 = self { return true }
        return false
    }

    var isActive: Bool {
        switch self {
        case .http1(let connection): connection.isActive
        case .http2(let connection, _): connection.isActive
        }
    }

    /// A request was granted this connection (an HTTP/2 stream of it).
    func beginExchange() {
        if case .http2(let connection, _) = self { connection.beginExchange() }
    }

    /// The request is done with it.
    func endExchange() {
        if case .http2(let connection, _) = self { connection.endExchange() }
    }

    /// The event loop the connection runs on.
    var eventLoop: any EventLoop {
        switch self {
        case .http1(let connection): connection.channel.eventLoop
        case .http2(let connection, _): connection.channel.eventLoop
        }
    }

    var closeFuture: EventLoopFuture<Void> {
        switch self {
        case .http1(let connection): connection.channel.closeFuture
        case .http2(let connection, _): connection.channel.closeFuture
        }
    }

    func close() {
        switch self {
        case .http1(let connection): connection.close()
        case .http2(let connection, _): connection.close()
        }
    }
}

/// Opening a connection: TCP, TLS with ServerTrust in the handshake, then HTTP/1.1 or HTTP/2 as
/// the server chose in ALPN. One code path for both protocols, so trust is decided the same way.
enum ConnectionSetup {
    /// What the handshake settled.
    enum Negotiated: Sendable {
        /// The connection's HTTP/1.1 handler, which the connection hands its exchanges to
        /// directly (on the event loop).
        case http1(NIOLoopBound<HTTP1ClientHandler>)
        case http2(NIOHTTP2Handler.StreamMultiplexer, maximumStreams: Int)
    }

    /// Opens a connection and completes the handshake within the timeouts and before the
    /// request's `deadline` (whichever comes first; the error names the one that passed).
    static func connect(
        id: PooledConnection.ID,
        origin: Origin,
        requirements: ConnectionRequirements,
        sslContext: NIOSSLContext?,
        offersHTTP2: Bool,
        makeTrust: @Sendable () -> HandshakeTrust,
        group: any EventLoopGroup,
        timeouts: HTTPTransportConfiguration.Timeouts,
        http2: HTTPTransportConfiguration.HTTP2Options,
        http2Events: HTTP2ConnectionEvents,
        deadline: ContinuousClock.Instant,
        proxy: HTTPProxy? = nil,
        observer: (@Sendable (ConnectionObservation) -> Void)? = nil,
        onClose: @escaping @Sendable () -> Void
    ) async throws(SecureHTTPError) -> PooledConnection {
        let started = ContinuousClock.now
        let host = requirements.host
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else {
            throw SecureHTTPError(.deadlineExceeded, "the request deadline passed before connecting")
        }
        let connectBudget = min(timeouts.connect, remaining)
        let trust: HandshakeTrust? = requirements.usesTLS ? makeTrust() : nil
        // Observed connections note when TCP was established and read the ServerHello.
        let tcpEstablished: NIOLockedValueBox<ContinuousClock.Instant?>? = observer == nil ? nil : .init(nil)
        let sniffsServerHello = observer != nil || trust?.observesHandshake == true
        let mapError: @Sendable (any Error) -> SecureHTTPError = { error in
            TLSSetup.mapError(error, trust: trust, host: host)
        }
        let handshakeBox = HandshakeBox()
        let closeReason = NIOLockedValueBox<SecureHTTPError?>(nil)
        let goAwayLastStream = NIOLockedValueBox<HTTP2StreamID?>(nil)
        let activity = HTTP2StreamActivity()
        // The caller's own event loop when it runs on one of the group's (a task that prefers an
        // `EventLoopTaskExecutor`): its requests then need no thread hop.
        let loop = group.any()
        let makeBootstrap: @Sendable () -> ClientBootstrap = {
            ClientBootstrap(group: loop)
                .connectTimeout(TimeAmount(connectBudget))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let promise = channel.eventLoop.makePromise(of: Negotiated.self)
                        handshakeBox.future = promise.futureResult
                        // TLS (with ServerTrust in the handshake), then the HTTP handlers.
                        let addConnectionHandlers: () throws -> Void = {
                            if let sslContext, let trust {
                                if sniffsServerHello {
                                    try channel.pipeline.syncOperations.addHandler(
                                        ServerHelloSniffer(found: trust.negotiated)
                                    )
                                }
                                let serverName = IPAddressLiteral.isIPAddress(host) ? nil : host
                                let tls = try NIOSSLClientHandler(
                                    context: sslContext,
                                    serverHostname: serverName,
                                    customVerificationCallbackWithMetadata: trust.verify
                                )
                                try channel.pipeline.syncOperations.addHandler(tls)
                            }
                            if offersHTTP2 {
                                // The server's ALPN choice, known at the end of the handshake,
                                // decides which handlers follow.
                                try channel.pipeline.syncOperations.addHandler(
                                    ProtocolSetupHandler(
                                        negotiated: promise,
                                        closeReason: closeReason,
                                        goAwayLastStream: goAwayLastStream,
                                        activity: activity,
                                        timeouts: timeouts,
                                        http2: http2,
                                        http2Events: http2Events,
                                        mapError: mapError
                                    )
                                )
                            } else {
                                try Self.addHTTP1Handlers(
                                    to: channel,
                                    negotiated: promise,
                                    awaitsTLSHandshake: sslContext != nil,
                                    closeReason: closeReason,
                                    timeouts: timeouts,
                                    mapError: mapError
                                )
                            }
                        }
                        if let proxy {
                            try Self.addTunnelHandlers(
                                to: channel,
                                proxy: proxy,
                                origin: origin,
                                budget: min(timeouts.tlsHandshake, remaining),
                                negotiated: promise,
                                then: addConnectionHandlers
                            )
                        } else {
                            try addConnectionHandlers()
                        }
                    }
                }
        }

        // The whole setup (connect, handshake timer, completion) runs on the connection's event
        // loop, entered once: each future callback or timer registered from off the loop would
        // cost a hop, and a new connection would pay half a dozen of them.
        let attempt = ChannelCancellation()
        let channel: any Channel
        let negotiated: Negotiated
        do {
            (channel, negotiated) = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation {
                    (continuation: CheckedContinuation<(any Channel, Negotiated), any Error>) in
                    loop.execute {
                        // Through a proxy, TCP goes to the proxy and the tunnel to the origin.
                        let (connectHost, connectPort) = proxy.map { ($0.host, $0.port) } ?? (origin.host, origin.port)
                        makeBootstrap().connect(host: connectHost, port: connectPort).whenComplete { result in
                            switch result {
                            case .failure(let error):
                                continuation.resume(
                                    throwing: Self.connectError(
                                        error,
                                        origin: origin,
                                        proxy: proxy,
                                        budget: connectBudget,
                                        timeouts: timeouts
                                    )
                                )
                            case .success(let channel):
                                tcpEstablished?.withLockedValue { $0 = .now }
                                Self.awaitHandshake(
                                    channel: channel,
                                    handshake: handshakeBox.future,
                                    attempt: attempt,
                                    origin: origin,
                                    budget: min(timeouts.tlsHandshake, ContinuousClock.now.duration(to: deadline)),
                                    timeouts: timeouts,
                                    mapError: mapError,
                                    onClose: onClose,
                                    continuation: continuation
                                )
                            }
                        }
                    }
                }
            } onCancel: {
                attempt.cancel()
            }
        } catch {
            if Task.isCancelled { throw SecureHTTPError(.cancelled, "the request was cancelled during the handshake") }
            if let error = error as? SecureHTTPError { throw error }
            throw mapError(error)
        }
        if let observer, let tcpEstablished = tcpEstablished?.withLockedValue({ $0 }) {
            let isHTTP2: Bool
            if case .http2 = negotiated { isHTTP2 = true } else { isHTTP2 = false }
            observer(
                ConnectionObservation(
                    host: origin.host,
                    port: origin.port,
                    connect: started.duration(to: tcpEstablished),
                    tlsHandshake: trust == nil ? nil : tcpEstablished.duration(to: .now),
                    httpVersion: isHTTP2 ? "HTTP/2" : "HTTP/1.1",
                    negotiated: trust?.negotiated.withLockedValue { $0 }
                )
            )
        }
        switch negotiated {
        case .http1(let handler):
            return .http1(HTTP1Connection(id: id, channel: channel, handler: handler))
        case .http2(let multiplexer, let maximumStreams):
            return .http2(
                HTTP2Connection(
                    id: id,
                    channel: channel,
                    multiplexer: multiplexer,
                    closeReason: closeReason,
                    goAwayLastStream: goAwayLastStream,
                    activity: activity
                ),
                maximumStreams: maximumStreams
            )
        }
    }

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

    private static func connectError(
        _ error: any Error,
        origin: Origin,
        proxy: HTTPProxy?,
        budget: Duration,
        timeouts: HTTPTransportConfiguration.Timeouts
    ) -> SecureHTTPError {
        let target = proxy.map { "the proxy \($0) for \(origin)" } ?? "\(origin)"
        if case ChannelError.connectTimeout = error {
            if budget < timeouts.connect {
                return SecureHTTPError(.deadlineExceeded, "the request deadline passed while connecting to \(target)")
            }
            return SecureHTTPError(
                .connectTimeout,
                "connecting to \(target) timed out after \(TransportErrorText.seconds(timeouts.connect))"
            )
        }
        let peer = proxy.map { "\($0.host):\($0.port)" } ?? "\(origin.host):\(origin.port)"
        return SecureHTTPError(
            .connectFailed,
            "could not connect to \(target): \(TransportErrorText.sentence(for: error, peer: peer))"
        )
    }

    /// Opens a `CONNECT` tunnel to `origin` through `proxy` (RFC 9110 §9.3.6) with NIO's HTTP/1
    /// codec and `NIOHTTP1ProxyConnectHandler`; once the proxy answers 2xx, removes the codec
    /// and calls `then` to add TLS and HTTP on the bare tunnel. A refusal fails `negotiated`
    /// with ``SecureHTTPError/Code/proxyRefused``.
    private static func addTunnelHandlers(
        to channel: any Channel,
        proxy: HTTPProxy,
        origin: Origin,
        budget: Duration,
        negotiated: EventLoopPromise<Negotiated>,
        then addConnectionHandlers: @escaping () throws -> Void
    ) throws {
        let target = HTTPProxy.connectTarget(host: origin.host, port: origin.port)
        var headers = HTTPHeaders([("Host", "\(target.host):\(target.port)")])
        if let authorization = proxy.authorization { headers.add(name: "Proxy-Authorization", value: authorization) }
        let tunnel = channel.eventLoop.makePromise(of: Void.self)
        let encoder = HTTPRequestEncoder()
        let decoder = ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes))
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(encoder)
        try sync.addHandler(decoder)
        try sync.addHandler(
            NIOHTTP1ProxyConnectHandler(
                targetHost: target.host,
                targetPort: target.port,
                headers: headers,
                deadline: .now() + TimeAmount(max(budget, .zero)),
                promise: tunnel
            )
        )
        let bound = NIOLoopBound((encoder, decoder, addConnectionHandlers), eventLoop: channel.eventLoop)
        tunnel.futureResult.assumeIsolated().whenComplete { result in
            switch result {
            case .success:
                // The codec leaves before TLS starts (the client speaks first in TLS). Its
                // decoder observes writes and leaves on a later tick, after delivering the answer:
                // TLS is added once it is gone.
                let (encoder, decoder, _) = bound.value
                let sync = channel.pipeline.syncOperations
                sync.removeHandler(encoder, promise: nil)
                let removed = channel.eventLoop.makePromise(of: Void.self)
                sync.removeHandler(decoder, promise: removed)
                removed.futureResult.assumeIsolated().whenComplete { result in
                    do {
                        try result.get()
                        try bound.value.2()
                    } catch {
                        negotiated.fail(
                            SecureHTTPError(
                                .connectFailed,
                                "the tunnel to \(origin) could not be set up: \(TransportErrorText.sentence(for: error))"
                            )
                        )
                        channel.close(promise: nil)
                    }
                }
            case .failure(let error):
                negotiated.fail(
                    SecureHTTPError(
                        .proxyRefused,
                        "the proxy \(proxy) did not open a tunnel to \(origin): \(Self.describe(proxyError: error))"
                    )
                )
                channel.close(promise: nil)
            }
        }
    }

    /// What a `NIOHTTP1ProxyConnectHandler` failure says, without the proxy's headers.
    private static func describe(proxyError error: any Error) -> String {
        guard let error = error as? NIOHTTP1ProxyConnectHandler.Error else {
            return TransportErrorText.sentence(for: error)
        }
        switch error {
        case .proxyAuthenticationRequired(): return "it asked for authentication (407)"
        case .invalidProxyResponseHead(HTTPResponseHead(version: .http1_1, status: .ok)):
            return "it answered with a status other than 2xx"
        case .remoteConnectionClosed(), .channelUnexpectedlyInactive(): return "it closed the connection"
        case .httpProxyHandshakeTimeout(): return "it did not answer in time"
        default: break
        }
        return "it did not answer as a proxy"
    }

    /// On the event loop, once connected: arms the handshake timer and resumes `continuation`
    /// when the handshake ends. The timer and the handshake's completion run on the same loop,
    /// so exactly one of them decides.
    private static func awaitHandshake(
        channel: any Channel,
        handshake: EventLoopFuture<Negotiated>?,
        attempt: ChannelCancellation,
        origin: Origin,
        budget: Duration,
        timeouts: HTTPTransportConfiguration.Timeouts,
        mapError: @escaping @Sendable (any Error) -> SecureHTTPError,
        onClose: @escaping @Sendable () -> Void,
        continuation: CheckedContinuation<(any Channel, Negotiated), any Error>
    ) {
        guard let handshake else {
            channel.close(promise: nil)
            continuation.resume(throwing: SecureHTTPError(.connectFailed, "the connection to \(origin) was not set up"))
            return
        }
        guard attempt.attach(channel) else {
            channel.close(promise: nil)
            continuation.resume(throwing: SecureHTTPError(.cancelled, "the request was cancelled during the handshake"))
            return
        }
        let timer = HandshakeTimer()
        let loop = channel.eventLoop.assumeIsolated()
        let scheduled = loop.scheduleTask(in: TimeAmount(max(budget, .zero))) {
            timer.timedOut = true
            channel.close(promise: nil)
        }
        handshake.assumeIsolated().whenComplete { result in
            scheduled.cancel()
            switch result {
            case .success(let negotiated):
                channel.closeFuture.whenComplete { _ in onClose() }
                continuation.resume(returning: (channel, negotiated))
            case .failure(let error):
                channel.close(promise: nil)
                if timer.timedOut {
                    if budget < timeouts.tlsHandshake {
                        continuation.resume(
                            throwing: SecureHTTPError(
                                .deadlineExceeded,
                                "the request deadline passed during the TLS handshake with \(origin)"
                            )
                        )
                    } else {
                        continuation.resume(
                            throwing: SecureHTTPError(
                                .tlsHandshakeTimeout,
                                "the TLS handshake with \(origin) timed out after \(TransportErrorText.seconds(timeouts.tlsHandshake))"
                            )
                        )
                    }
                } else {
                    continuation.resume(throwing: mapError(error))
                }
            }
        }
    }

}

/// Carries the handshake future out of the channel initializer to the connect callback (both
/// run on the connection's event loop, the initializer first).
// SAFETY: written once in the channel initializer and read in the callback of the connect
// future, which completes after the initializer ran; the lock makes that ordering explicit.
private final class HandshakeBox: @unchecked Sendable {
    private let lock = NIOLock()
    private var _future: EventLoopFuture<ConnectionSetup.Negotiated>?

    var future: EventLoopFuture<ConnectionSetup.Negotiated>? {
        get { self.lock.withLock { self._future } }
        set { self.lock.withLock { self._future = newValue } }
    }
}

/// Whether the handshake timer fired; only touched on the connection's event loop.
private final class HandshakeTimer {
    var timedOut = false
}

/// Lets a cancelled task close a channel that is still being set up: a connection in its
/// handshake, or an HTTP/2 stream (closing one that is open sends RST_STREAM with CANCEL).
// SAFETY: both fields are read and written only under `lock`.
final class ChannelCancellation: @unchecked Sendable {
    private let lock = NIOLock()
    private var channel: (any Channel)?
    private var cancelled = false

    /// Records the channel; false when the task was cancelled first (the caller then drops it).
    func attach(_ channel: any Channel) -> Bool {
        self.lock.withLock {
            self.channel = channel
            return !self.cancelled
        }
    }

    /// Cancels: closes the channel if there is one (which fails whatever waits on it).
    func cancel() {
        let channel = self.lock.withLock { () -> (any Channel)? in
            self.cancelled = true
            return self.channel
        }
        channel?.close(promise: nil)
    }
}

/// Waits for the end of the TLS handshake, then installs the handlers of the protocol the
/// server chose in ALPN (`h2`, or HTTP/1.1 for `http/1.1` or no choice) and leaves the
/// pipeline. Until then it turns a failure of the handshake into the connection's error.
final class ProtocolSetupHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private var negotiated: EventLoopPromise<ConnectionSetup.Negotiated>?
    private let closeReason: NIOLockedValueBox<SecureHTTPError?>
    private let goAwayLastStream: NIOLockedValueBox<HTTP2StreamID?>
    private let activity: HTTP2StreamActivity
    private let timeouts: HTTPTransportConfiguration.Timeouts
    private let http2: HTTPTransportConfiguration.HTTP2Options
    private let http2Events: HTTP2ConnectionEvents
    private let mapError: @Sendable (any Error) -> SecureHTTPError

    init(
        negotiated: EventLoopPromise<ConnectionSetup.Negotiated>,
        closeReason: NIOLockedValueBox<SecureHTTPError?>,
        goAwayLastStream: NIOLockedValueBox<HTTP2StreamID?>,
        activity: HTTP2StreamActivity,
        timeouts: HTTPTransportConfiguration.Timeouts,
        http2: HTTPTransportConfiguration.HTTP2Options,
        http2Events: HTTP2ConnectionEvents,
        mapError: @escaping @Sendable (any Error) -> SecureHTTPError
    ) {
        self.negotiated = negotiated
        self.goAwayLastStream = goAwayLastStream
        self.activity = activity
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
                closeReason: self.closeReason,
                goAwayLastStream: self.goAwayLastStream,
                activity: self.activity,
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
