import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
import ServerTrust

/// Makes the transport's connections: made once per transport from its configuration (the TLS
/// contexts, the trust evaluator and its decision cache, the client identity, the proxy, the
/// observers), with one ``makeConnection(id:to:deadline:events:onClose:)`` (AsyncHTTPClient's
/// `HTTPConnectionPool+Factory.swift` has the same shape).
///
/// A connection is TCP (through the proxy's `CONNECT` tunnel when one is configured), TLS with
/// ServerTrust inside the handshake, then HTTP/1.1 or HTTP/2 as the server chose in ALPN: one
/// code path for both protocols, so trust is decided the same way.
final class ConnectionFactory: Sendable {
    /// The most TLS contexts kept (distinct TLS shapes; a policy rarely has more than a few).
    static let maximumTLSContexts = 8

    private let group: any EventLoopGroup
    private let configuration: HTTPTransportConfiguration
    private let identity: LoadedClientIdentity?
    private let evaluator: ServerTrust
    /// Who validates the chains of each requirements' connections (ServerTrust, or the
    /// platform's verifier for roots only it can read).
    private let platformTrust: PlatformTrust
    private let cache: TrustDecisionCache
    private let counters: TransportCounters
    /// One context per TLS shape, not per host: origins with the same floor, suites and ALPN
    /// share it, and the least recently used is dropped past a few shapes (connections keep
    /// the context they were made with).
    private let sslContexts = NIOLockedValueBox(
        LeastRecentlyUsedCache<TLSSetup.ContextShape, NIOSSLContext>(capacity: ConnectionFactory.maximumTLSContexts)
    )

    init(
        group: any EventLoopGroup,
        configuration: HTTPTransportConfiguration,
        identity: LoadedClientIdentity?,
        platformTrust: PlatformTrust = .current,
        cache: TrustDecisionCache,
        counters: TransportCounters
    ) {
        self.group = group
        self.configuration = configuration
        self.identity = identity
        self.evaluator = ServerTrust(configuration: configuration.serverTrust)
        self.platformTrust = platformTrust
        self.cache = cache
        self.counters = counters
    }

    /// The TLS contexts kept (for tests that the cache stays bounded).
    var tlsContextCount: Int { self.sslContexts.withLockedValue { $0.count } }

    /// Whether connections with `requirements` offer `h2` in ALPN (and so may be HTTP/2).
    func offersHTTP2(_ requirements: ConnectionRequirements) -> Bool {
        TLSSetup.offersHTTP2(requirements, versions: self.configuration.httpVersions)
    }

    /// Opens a connection to `target` and completes the handshake within the timeouts and
    /// before the request's `deadline` (whichever comes first; the error names the one that
    /// passed). An HTTP/2 connection tells its pool of changes through `events`; `onClose` runs
    /// once the connection has closed.
    func makeConnection(
        id: PooledConnection.ID,
        to target: ConnectionTarget,
        deadline: ContinuousClock.Instant,
        events http2Events: HTTP2ConnectionEvents,
        onClose: @escaping @Sendable () -> Void
    ) async throws(SecureHTTPError) -> PooledConnection {
        let (origin, requirements) = (target.origin, target.requirements)
        let proxy = self.configuration.proxy
        try proxy?.validate()
        let sslContext = try self.sslContext(for: requirements)
        let offersHTTP2 = self.offersHTTP2(requirements)
        let (group, timeouts, http2) = (self.group, self.configuration.timeouts, self.configuration.http2)
        let observer = self.configuration.connectionObserver
        let started = ContinuousClock.now
        let host = requirements.host
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else {
            throw SecureHTTPError(.deadlineExceeded, "the request deadline passed before connecting")
        }
        let connectBudget = min(timeouts.connect, remaining)
        let trust: HandshakeTrust? = requirements.usesTLS ? self.makeTrust(for: requirements) : nil
        // Observed connections note when TCP was established and read the ServerHello.
        let tcpEstablished: NIOLockedValueBox<ContinuousClock.Instant?>? = observer == nil ? nil : .init(nil)
        let sniffsServerHello = observer != nil || trust?.observesHandshake == true
        let mapError: @Sendable (any Error) -> SecureHTTPError = { error in
            TLSSetup.mapError(error, trust: trust, host: host)
        }
        let handshakeBox = HandshakeBox()
        let closeReason = NIOLockedValueBox<SecureHTTPError?>(nil)
        // The caller's own event loop when it runs on one of the group's (a task that prefers an
        // `EventLoopTaskExecutor`): its requests then need no thread hop.
        let loop = group.any()
        let makeBootstrap: @Sendable () -> ClientBootstrap = {
            ClientBootstrap(group: loop)
                .connectTimeout(TimeAmount(connectBudget))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let promise = channel.eventLoop.makePromise(of: ConnectionSetup.Negotiated.self)
                        handshakeBox.future = promise.futureResult
                        // TLS (with ServerTrust in the handshake), then the HTTP handlers.
                        let addConnectionHandlers: () throws -> Void = {
                            if let sslContext, let trust {
                                if sniffsServerHello {
                                    try channel.pipeline.syncOperations.addHandler(
                                        ServerHelloSniffer(found: trust.negotiated)
                                    )
                                }
                                let serverName = IPAddress(host) != nil ? nil : host
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
                                        timeouts: timeouts,
                                        http2: http2,
                                        http2Events: http2Events,
                                        mapError: mapError
                                    )
                                )
                            } else {
                                try ConnectionSetup.addHTTP1Handlers(
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
                            try ConnectionSetup.addTunnelHandlers(
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
        let negotiated: ConnectionSetup.Negotiated
        do {
            (channel, negotiated) = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation {
                    (continuation: CheckedContinuation<(any Channel, ConnectionSetup.Negotiated), any Error>) in
                    loop.execute {
                        // Through a proxy, TCP goes to the proxy and the tunnel to the origin.
                        let (connectHost, connectPort) = proxy.map { ($0.host, $0.port) } ?? (origin.host, origin.port)
                        makeBootstrap().connect(host: connectHost, port: connectPort).whenComplete { result in
                            switch result {
                            case .failure(let error):
                                continuation.resume(
                                    throwing: ConnectionSetup.connectError(
                                        error,
                                        origin: origin,
                                        proxy: proxy,
                                        budget: connectBudget,
                                        timeouts: timeouts
                                    )
                                )
                            case .success(let channel):
                                tcpEstablished?.withLockedValue { $0 = .now }
                                ConnectionSetup.awaitHandshake(
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
        case .http2(let multiplexer, let state, let maximumStreams):
            return .http2(
                HTTP2Connection(
                    id: id,
                    channel: channel,
                    multiplexer: multiplexer,
                    state: state
                ),
                maximumStreams: maximumStreams
            )
        }
    }

    /// The trust evaluation of one TLS handshake with `requirements`.
    private func makeTrust(for requirements: ConnectionRequirements) -> HandshakeTrust {
        HandshakeTrust(
            requirements: requirements,
            evaluator: self.evaluator,
            platformValidator: self.platformTrust.validator(for: requirements),
            cache: self.cache,
            counters: self.counters,
            reporter: self.configuration.pinValidationReporter,
            transparencyReporter: self.configuration.transparencyReporter,
            observer: self.configuration.handshakeObserver,
            now: self.configuration.now
        )
    }

    private func sslContext(for requirements: ConnectionRequirements) throws(SecureHTTPError) -> NIOSSLContext? {
        guard requirements.usesTLS else { return nil }
        let shape = TLSSetup.ContextShape(requirements, offersHTTP2: self.offersHTTP2(requirements))
        if let context = self.sslContexts.withLockedValue({ $0.value(for: shape) }) { return context }
        do {
            let context = try NIOSSLContext(configuration: TLSSetup.configuration(for: shape, identity: self.identity))
            // Two first connections may both build one; either serves.
            self.sslContexts.withLockedValue { $0.set(context, for: shape) }
            return context
        } catch {
            if self.identity != nil {
                throw SecureHTTPError(
                    .invalidClientIdentity,
                    "the client certificate and key do not form a usable identity"
                )
            }
            throw SecureHTTPError(
                .tlsFailure,
                "the TLS context could not be created: \(TransportErrorText.sentence(for: error))"
            )
        }
    }
}
