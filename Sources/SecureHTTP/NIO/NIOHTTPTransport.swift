public import Foundation
public import HTTPTypes
public import NIOCore
public import NIOPosix
public import ServerTrust

/// The portable HTTPS transport: SwiftNIO and NIOSSL, with ServerTrust inside the handshake.
///
/// Every request goes through the same steps: the policy accepts the URL (plain `http` only
/// for excepted hosts) before any byte is sent; a pooled connection of the same origin and
/// requirements is reused or a new one is opened with the policy's minimum TLS version and
/// cipher list, SNI and the client identity; NIOSSL's custom verification runs ServerTrust
/// (path validation, certificate rules, pins), whose trusted decisions are cached per
/// (chain, host, policy) until the chain's earliest expiry; the response is read within the
/// size limit and the request deadline; redirects follow ``RedirectPolicy``.
///
/// ALPN offers `h2` then `http/1.1` (``HTTPTransportConfiguration/httpVersions``), and the
/// server's choice decides the connection: HTTP/2 carries many requests at once on one
/// connection per origin, each on its own stream, up to the server's
/// `SETTINGS_MAX_CONCURRENT_STREAMS`; HTTP/1.1 carries one at a time on up to
/// ``HTTPTransportConfiguration/maximumConnectionsPerHost`` connections. Both protocols share
/// the handshake, the trust evaluation and its cache, the client identity, the policy check on
/// every redirect hop, the header rules, the size limit, the deadline and cancellation (an
/// HTTP/2 stream is reset with RST_STREAM; its siblings carry on).
///
/// There is no response cache of any kind. A connection serves only the origin and requirements
/// it was verified for: no connection coalescing across hosts (RFC 9113 §9.1.1 allows reusing
/// an HTTP/2 connection for another name its certificate covers; this transport never does),
/// even when the certificate covers several names.
///
/// Call ``shutdown()`` when done, or use ``withNIOHTTPTransport(configuration:eventLoopGroup:isolation:_:)``.
public final class NIOHTTPTransport: PinUpdatableTransport {
    /// What the transport has done so far (for tests, diagnostics and benchmarks).
    public struct Statistics: Hashable, Sendable {
        /// TCP connections opened (each with a full TLS handshake when TLS is used).
        public var connectionsOpened = 0
        /// ServerTrust evaluations run (handshakes served from the decision cache do not count).
        public var trustEvaluations = 0
        /// Exchanges sent, one per hop (a redirect is a second exchange).
        public var exchanges = 0
        /// Exchanges retried once on a new connection because a reused one was closed by the server.
        public var staleConnectionRetries = 0
        /// Connections on which the server chose HTTP/2 (counted in ``connectionsOpened`` too).
        public var http2ConnectionsOpened = 0
        /// HTTP/2 streams opened (one per exchange on an HTTP/2 connection).
        public var http2Streams = 0
        /// Exchanges retried on a new connection because the server did not process them
        /// (GOAWAY, REFUSED_STREAM) or they never reached the wire.
        public var notProcessedRetries = 0
    }

    /// The configuration in force.
    public let configuration: HTTPTransportConfiguration
    private let driver: RequestDriver
    let pool: ConnectionPool
    private let counters: TransportCounters
    private let eventLoopGroup: any EventLoopGroup

    /// Creates a transport.
    ///
    /// Chains are validated by ServerTrust (swift-certificates) against the policy's roots, or
    /// the system roots where it can read them (Linux's CA bundle). On Apple platforms, where
    /// only Security.framework can read the system roots, a policy that trusts them
    /// (`.system`, `.system(adding:)`) has Security.framework validate the path inside the
    /// handshake (`SecTrustEvaluateWithError` with the SSL policy for the host and any roots the
    /// policy adds), then ServerTrust's key rules, CT and pins on the chain it validated.
    ///
    /// - Parameters:
    ///   - configuration: policy, limits, timeouts and client identity.
    ///   - eventLoopGroup: where connections run; by default NIO's shared singleton group.
    /// - Throws: ``SecureHTTPError/Code/invalidClientIdentity`` when the client identity
    ///   cannot be loaded.
    public convenience init(
        configuration: HTTPTransportConfiguration = HTTPTransportConfiguration(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) throws(SecureHTTPError) {
        try self.init(configuration: configuration, eventLoopGroup: eventLoopGroup, platformTrust: .current)
    }

    /// Creates a transport whose chain validation is `platformTrust`'s (tests stand in for
    /// Security.framework with it).
    init(
        configuration: HTTPTransportConfiguration,
        eventLoopGroup: any EventLoopGroup,
        platformTrust: PlatformTrust
    ) throws(SecureHTTPError) {
        if let problem = Self.rootStoreProblem(configuration.policy, platformTrust: platformTrust) {
            throw problem
        }
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.counters = TransportCounters(metrics: TransportMetrics(factory: configuration.metricsFactory))
        self.driver = RequestDriver(configuration: configuration)
        let identity = try configuration.clientIdentity.map { identity throws(SecureHTTPError) in
            try LoadedClientIdentity(identity)
        }
        let factory = ConnectionFactory(
            group: eventLoopGroup,
            configuration: configuration,
            identity: identity,
            platformTrust: platformTrust,
            cache: TrustDecisionCache(),
            counters: self.counters
        )
        self.pool = ConnectionPool(factory: factory, configuration: configuration, counters: self.counters)
    }

    /// Sends a request; see ``HTTPTransport/send(_:body:options:)``.
    ///
    /// A request of the ``HTTPRequestOptions/Lane/credentials`` lane uses connections of its own;
    /// the ``HTTPRequestOptions/credential`` is bound once a connection is leased (after any wait
    /// in the origin's queue), again if the request is retried on a new connection.
    public func send(
        _ request: HTTPRequest,
        body: Data?,
        options: HTTPRequestOptions
    ) async throws(SecureHTTPError) -> HTTPTransportResponse {
        let pool = self.pool
        let driver = self.driver
        let counters = self.counters
        let limit = self.configuration.maximumResponseBodySize
        let started = ContinuousClock.now
        do {
            let response = try await self.driver.send(
                request,
                body: body,
                options: options,
                exchangeWithinDeadline: { hop, deadline throws(SecureHTTPError) in
                    try await Self.exchange(
                        hop,
                        deadline: deadline,
                        pool: pool,
                        driver: driver,
                        counters: counters,
                        limit: limit
                    )
                }
            )
            counters.metrics.requestEnded(status: response.response.status.code, duration: started.duration(to: .now))
            return response
        } catch {
            counters.metrics.requestEnded(status: nil, duration: started.duration(to: .now))
            throw error
        }
    }

    /// One hop: a connection leased for it, its credential bound, the exchange, and a retry on
    /// a new connection when ``ExchangeRetryDecision`` says the request may be sent again.
    ///
    /// A hop prepared before a pin update (waiting for a connection, or retried after it was
    /// not sent) is resolved again under the pins now in force when the pool finds its key
    /// superseded, so it never opens a connection under the old pins; one whose URL the policy
    /// now refuses fails.
    private nonisolated(nonsending) static func exchange(
        _ prepared: PreparedHop,
        deadline: ContinuousClock.Instant,
        pool: ConnectionPool,
        driver: RequestDriver,
        counters: TransportCounters,
        limit: Int
    ) async throws(SecureHTTPError) -> (HTTPResponse, Data) {
        var hop = prepared
        var key = ConnectionPool.Key(target: hop.target, lane: hop.lane)
        var retry = ExchangeRetryDecision(.init(isIdempotent: hop.request.method.isIdempotent))
        while true {
            guard let leased = try await pool.leaseUnlessSuperseded(key, deadline: deadline) else {
                hop = try driver.current(hop)
                key = ConnectionPool.Key(target: hop.target, lane: hop.lane)
                continue
            }
            let (connection, isFresh) = leased
            counters.increment(.exchanges)
            do throws(SecureHTTPError) {
                // Bound now that the request has its connection.
                return try await Self.perform(
                    try hop.withBoundCredential(),
                    on: connection,
                    key: key,
                    pool: pool,
                    counters: counters,
                    limit: limit,
                    deadline: deadline
                )
            } catch {
                pool.release(connection, key: key, reusable: false)
                let failure = ExchangeRetryDecision.Failure(
                    error,
                    connectionWasFresh: isFresh,
                    isCancelled: Task.isCancelled
                )
                switch retry.decide(after: failure) {
                case .retry(.notSent), .retry(.notProcessed):
                    counters.increment(.notProcessedRetries)
                case .retry(.staleConnection):
                    counters.increment(.staleConnectionRetries)
                case .fail:
                    throw error
                }
            }
        }
    }

    /// Sends `hop` on the leased `connection` and gives the connection back once the response
    /// is read (the caller gives it back when this throws, and only then).
    private nonisolated(nonsending) static func perform(
        _ hop: PreparedHop,
        on connection: PooledConnection,
        key: ConnectionPool.Key,
        pool: ConnectionPool,
        counters: TransportCounters,
        limit: Int,
        deadline: ContinuousClock.Instant
    ) async throws(SecureHTTPError) -> (HTTPResponse, Data) {
        switch connection {
        case .http1(let http1):
            // Given back on the event loop as the response completes, before this task resumes.
            let (response, body, _) = try await http1.execute(hop, maximumBodySize: limit, deadline: deadline) {
                reusable in
                pool.release(connection, key: key, reusable: reusable)
            }
            return (response, body)
        case .http2(let http2, _):
            counters.increment(.http2Streams)
            let result = try await http2.execute(hop, maximumBodySize: limit, deadline: deadline)
            pool.release(connection, key: key, reusable: true)
            return result
        }
    }

    /// Puts the compiled-in pins with `update` applied in force (the compiled-in pins alone for
    /// nil); see ``PinUpdatableTransport``. Every request prepared from now on is verified under
    /// the new pins on a new connection; pooled connections verified under pins that changed
    /// take no new request: the idle ones close now, the others when their requests end
    /// (HTTP/2: after their last stream). A request prepared before, still waiting for a
    /// connection or retried after it was not sent, is resolved again under the new pins.
    public func applyPinUpdate(_ update: PinSetUpdate?) {
        let change = self.driver.applyPinUpdate(update)
        self.pool.retire(where: { change.isStale($0.requirements) }, generation: change.generation)
    }

    /// An executor on one of the transport's event loops, for tasks that send many requests.
    ///
    /// A task that prefers it runs on that event loop, and the transport opens and reuses
    /// connections there: each keep-alive request is written and its response resumes the task
    /// on one thread, with no wake-up of another. Give each task its own executor (this picks the
    /// group's next event loop on every call) so that concurrent tasks spread over the loops:
    ///
    /// ```swift
    /// try await withThrowingTaskGroup(of: Void.self) { group in
    ///     for path in paths {
    ///         group.addTask(executorPreference: transport.makeTaskExecutor()) {
    ///             _ = try await transport.send(HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: path), body: nil)
    ///         }
    ///     }
    ///     try await group.waitForAll()
    /// }
    /// ```
    ///
    /// The task's own work then runs on the event loop too, between its requests: keep it short.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    public func makeTaskExecutor() -> EventLoopTaskExecutor {
        EventLoopTaskExecutor(self.eventLoopGroup.next())
    }

    /// Closes idle connections (waiting until they are closed) and refuses new requests;
    /// requests in flight finish first and their connections close when they do.
    public func shutdown() async {
        await self.pool.shutdown()
    }

    /// What the transport has done so far.
    public var statistics: Statistics { self.counters.snapshot }
}

/// Runs `body` with a transport and shuts it down afterwards, however `body` ends.
public func withNIOHTTPTransport<Result>(
    configuration: HTTPTransportConfiguration = HTTPTransportConfiguration(),
    eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (NIOHTTPTransport) async throws -> Result
) async throws -> Result {
    let transport = try NIOHTTPTransport(configuration: configuration, eventLoopGroup: eventLoopGroup)
    do {
        let result = try await body(transport)
        await transport.shutdown()
        return result
    } catch {
        await transport.shutdown()
        throw error
    }
}

extension HTTPRequest.Method {
    var isIdempotent: Bool {
        [.get, .head, .put, .delete, .options, .trace].contains(self)
    }
}
