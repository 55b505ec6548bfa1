import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SecureHTTP
import ServerTrust
import X509

/// The clients compared. Each is driven by the same harness; only `get` differs.
enum ClientKind: String, CaseIterable, Codable, Sendable {
    case project
    case projectOnPool = "project-pool"
    case asyncHTTPClient = "ahc"
    case limit
    case limitOnPool = "limit-pool"
    case wire

    var title: String {
        switch self {
        case .project:
            "SecureNetworking (NIOHTTPTransport: chain, Web PKI, pins), each worker task preferring `transport.makeTaskExecutor()` as the transport's documentation recommends for request loops"
        case .projectOnPool:
            "the same transport called from tasks on Swift's global concurrent executor (no executor preference), as AsyncHTTPClient is"
        case .asyncHTTPClient:
            "AsyncHTTPClient 1.37.0 (full verification; HTTP/1.1 only, or .automatic on the h2 workloads)"
        case .limit:
            "bare NIO + NIOSSL (+ NIOHTTP2 on the h2 workloads), each request awaited from a task on the event loop, like the project's, and resumed directly by the handler with no promise (the async limit: what awaiting a request costs, and nothing else)"
        case .limitOnPool:
            "the same bare client awaited from tasks on Swift's global concurrent executor (no executor preference), its continuation resumed straight from the handler: the honest floor for `project-pool`, the call path an app or a server handler writes"
        case .wire:
            "bare NIO + NIOSSL, each keep-alive request sent from the previous response on the event loop (the wire limit; keep-alive workloads only)"
        }
    }
}

protocol BenchClient: Sendable {
    /// Fetches `path`, returning the number of body bytes. `fresh` sends `Connection: close`,
    /// so the next request needs a new connection (and a full handshake).
    func get(_ path: String, fresh: Bool) async throws -> Int
    func shutdown() async throws
    /// The executor a worker task prefers (nil: the global concurrent executor).
    func makeTaskExecutor() -> (any TaskExecutor)?
}

extension BenchClient {
    func makeTaskExecutor() -> (any TaskExecutor)? { nil }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Where the server is and what to trust.
struct ServerEndpoint: Sendable {
    let host = "127.0.0.1"
    let port: Int
    let rootPEM: String
    let pins: [String]

    var authority: String { "\(self.host):\(self.port)" }
}

// MARK: - The project

struct ProjectClient: BenchClient {
    let transport: NIOHTTPTransport
    let endpoint: ServerEndpoint
    let onLoop: Bool

    init(endpoint: ServerEndpoint, group: any EventLoopGroup, connections: Int, onLoop: Bool = true) throws {
        self.onLoop = onLoop
        let root = try Certificate(pemEncoded: endpoint.rootPEM)
        var policy = TransportSecurityPolicy(trustAnchors: .only([root]))
        policy.pinning.pin(try HostPattern(endpoint.host), to: try PinSet(endpoint.pins))
        var configuration = HTTPTransportConfiguration(policy: policy)
        configuration.maximumConnectionsPerHost = connections
        // For measuring flow-control windows by hand (the defaults otherwise).
        let environment = ProcessInfo.processInfo.environment
        if let window = environment["SECURENET_BENCH_H2_STREAM_WINDOW"].flatMap(Int.init) {
            configuration.http2.streamWindowSize = window
        }
        if let window = environment["SECURENET_BENCH_H2_CONNECTION_WINDOW"].flatMap(Int.init) {
            configuration.http2.connectionWindowSize = window
        }
        self.transport = try NIOHTTPTransport(configuration: configuration, eventLoopGroup: group)
        self.endpoint = endpoint
    }

    func get(_ path: String, fresh: Bool) async throws -> Int {
        var request = HTTPRequest(method: .get, scheme: "https", authority: self.endpoint.authority, path: path)
        if fresh { request.headerFields[.connection] = "close" }
        let response = try await self.transport.send(request, body: nil)
        guard response.response.status == .ok else { throw BenchError("status \(response.response.status.code)") }
        return response.body.count
    }

    func shutdown() async throws {
        await self.transport.shutdown()
    }

    /// The transport's own event loops, as its documentation recommends for request loops
    /// (`project`), or none (`project-pool`).
    func makeTaskExecutor() -> (any TaskExecutor)? {
        self.onLoop ? self.transport.makeTaskExecutor() : nil
    }
}

// MARK: - AsyncHTTPClient

struct AHCClient: BenchClient {
    let client: HTTPClient
    let base: String

    init(endpoint: ServerEndpoint, group: any EventLoopGroup, connections: Int, http2: Bool = false) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(endpoint.rootPEM.utf8)))
        tls.certificateVerification = .fullVerification
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        // HTTP/2 when the workload asks for it (AsyncHTTPClient's default), else HTTP/1.1.
        configuration.httpVersion = http2 ? .automatic : .http1Only
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: connections
        )
        self.client = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: configuration)
        self.base = "https://\(endpoint.authority)"
    }

    func get(_ path: String, fresh: Bool) async throws -> Int {
        var request = HTTPClientRequest(url: self.base + path)
        if fresh { request.headers.add(name: "Connection", value: "close") }
        let response = try await self.client.execute(request, timeout: .seconds(60))
        guard response.status == .ok else { throw BenchError("status \(response.status.code)") }
        let body = try await response.body.collect(upTo: 1 << 20)
        return body.readableBytes
    }

    func shutdown() async throws {
        try await self.client.shutdown()
    }
}

// MARK: - The limit: bare NIO + NIOSSL, verification off

/// A minimal HTTP/1.1 client: one request at a time per connection, a list of idle connections,
/// each request awaited from a task that prefers the connection's event loop.
final class LimitClient: BenchClient {
    private let group: any EventLoopGroup
    private let endpoint: ServerEndpoint
    private let context: NIOSSLContext
    private let idle = NIOLockedValueBox<[any Channel]>([])
    private let onLoop: Bool

    init(endpoint: ServerEndpoint, group: any EventLoopGroup, onLoop: Bool = true) throws {
        self.onLoop = onLoop
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        tls.applicationProtocols = ["http/1.1"]
        self.context = try NIOSSLContext(configuration: tls)
        self.group = group
        self.endpoint = endpoint
    }

    func get(_ path: String, fresh: Bool) async throws -> Int {
        let channel: any Channel
        if let reused = self.idle.withLockedValue({ $0.popLast() }) {
            channel = reused
        } else {
            channel = try await self.connect()
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: self.endpoint.authority)
        if fresh { headers.add(name: "Connection", value: "close") }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
        let response = try await withUnsafeThrowingContinuation {
            (continuation: UnsafeContinuation<LimitHandler.Response, any Error>) in
            channel.writeAndFlush(LimitHandler.Request(head: head, continuation: continuation), promise: nil)
        }
        if response.keepAlive && !fresh {
            self.idle.withLockedValue { $0.append(channel) }
        } else {
            channel.close(promise: nil)
        }
        guard response.status == .ok else { throw BenchError("status \(response.status.code)") }
        return response.bytes
    }

    private func connect() async throws -> any Channel {
        let context = self.context
        return try await ClientBootstrap(group: self.group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        NIOSSLClientHandler(context: context, serverHostname: nil)
                    )
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(LimitHandler())
                }
            }
            .connect(host: self.endpoint.host, port: self.endpoint.port)
            .get()
    }

    /// The event loop, as for the project: the request is written from the task with no hop
    /// (`limit`); or none, the global executor (`limit-pool`).
    func makeTaskExecutor() -> (any TaskExecutor)? {
        self.onLoop ? EventLoopTaskExecutor(self.group.next()) : nil
    }

    func shutdown() async throws {
        for channel in self.idle.withLockedValue({ idle in
            defer { idle = [] }
            return idle
        }) {
            try? await channel.close()
        }
    }
}

final class LimitHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = Request
    typealias OutboundOut = HTTPClientRequestPart

    struct Request: Sendable {
        let head: HTTPRequestHead
        /// Resumed directly by the handler (no promise in between).
        let continuation: UnsafeContinuation<Response, any Error>
    }

    struct Response: Sendable {
        let status: HTTPResponseStatus
        let bytes: Int
        let keepAlive: Bool
    }

    private var pending: UnsafeContinuation<Response, any Error>?
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = self.unwrapOutboundIn(data)
        self.pending = request.continuation
        context.write(self.wrapOutboundOut(.head(request.head)), promise: nil)
        context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            self.body.clear()
        case .body(var part):
            self.body.writeBuffer(&part)
        case .end:
            guard let head = self.head, let pending = self.pending else { return }
            self.pending = nil
            pending.resume(
                returning: Response(status: head.status, bytes: self.body.readableBytes, keepAlive: head.isKeepAlive)
            )
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.pending?.resume(throwing: BenchError("connection closed"))
        self.pending = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.pending?.resume(throwing: error)
        self.pending = nil
        context.close(promise: nil)
    }
}

// MARK: - The wire limit: bare NIO + NIOSSL, next request sent from the previous response

/// The strictest honest HTTP/1.1 client: `concurrency` keep-alive connections, each sending its
/// next request from the end of the previous response, on the event loop. No task, continuation
/// or executor hop per request, no pool, no redirect state: what the protocol forces and nothing
/// else. Verification is off, as for ``LimitClient``.
enum WireClient {
    struct Tally: Sendable {
        var latencies: [Double] = []
        var bytes = 0
        var failures = 0
        var firstError: String?
    }

    /// Opens `concurrency` connections and runs `warmUp`, then `total`, requests over them.
    /// Returns the measured phase's tally, wall seconds and process CPU µs.
    static func run(
        endpoint: ServerEndpoint,
        group: any EventLoopGroup,
        path: String,
        warmUp: Int,
        total: Int,
        concurrency: Int
    ) async throws -> (tally: Tally, wall: Double, cpu: Double) {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        tls.applicationProtocols = ["http/1.1"]
        let context = try NIOSSLContext(configuration: tls)
        var channels: [any Channel] = []
        for _ in 0..<concurrency {
            channels.append(
                try await ClientBootstrap(group: group)
                    .channelOption(.socketOption(.tcp_nodelay), value: 1)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                NIOSSLClientHandler(context: context, serverHostname: nil)
                            )
                            try channel.pipeline.syncOperations.addHTTPClientHandlers()
                            try channel.pipeline.syncOperations.addHandler(
                                WireHandler(path: path, authority: endpoint.authority)
                            )
                        }
                    }
                    .connect(host: endpoint.host, port: endpoint.port)
                    .get()
            )
        }
        func phase(_ requests: Int) async throws -> Tally {
            var futures: [EventLoopFuture<Tally>] = []
            for (index, channel) in channels.enumerated() {
                let quota = requests / concurrency + (index < requests % concurrency ? 1 : 0)
                let promise = channel.eventLoop.makePromise(of: Tally.self)
                channel.writeAndFlush(WireHandler.Start(quota: quota, promise: promise), promise: nil)
                futures.append(promise.futureResult)
            }
            var tally = Tally()
            for future in futures {
                let part = try await future.get()
                tally.latencies += part.latencies
                tally.bytes += part.bytes
                tally.failures += part.failures
                tally.firstError = tally.firstError ?? part.firstError
            }
            return tally
        }
        _ = try await phase(warmUp)
        let cpuBefore = processCPUMicroseconds()
        let start = nowNanoseconds()
        let tally = try await phase(total)
        let wall = Double(nowNanoseconds() - start) / 1e9
        let cpu = processCPUMicroseconds() - cpuBefore
        for channel in channels { try? await channel.close() }
        return (tally, wall, cpu)
    }
}

final class WireHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = Start
    typealias OutboundOut = HTTPClientRequestPart

    struct Start: Sendable {
        let quota: Int
        let promise: EventLoopPromise<WireClient.Tally>
    }

    private let head: HTTPRequestHead
    private var remaining = 0
    private var promise: EventLoopPromise<WireClient.Tally>?
    private var tally = WireClient.Tally()
    private var sentAt = NIODeadline.now()
    private var status: HTTPResponseStatus = .ok
    private var bodyBytes = 0

    init(path: String, authority: String) {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: authority)
        self.head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let start = self.unwrapOutboundIn(data)
        self.promise = start.promise
        self.remaining = start.quota
        self.tally = WireClient.Tally()
        self.tally.latencies.reserveCapacity(start.quota)
        promise?.succeed(())
        if self.remaining > 0 { self.send(context) } else { self.finish() }
    }

    private func send(_ context: ChannelHandlerContext) {
        self.sentAt = .now()
        self.bodyBytes = 0
        context.write(self.wrapOutboundOut(.head(self.head)), promise: nil)
        context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
    }

    private func finish() {
        let promise = self.promise
        self.promise = nil
        promise?.succeed(self.tally)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            self.status = head.status
        case .body(let part):
            self.bodyBytes += part.readableBytes
        case .end:
            if self.status == .ok {
                self.tally.latencies.append(Double((NIODeadline.now() - self.sentAt).nanoseconds) / 1_000)
                self.tally.bytes += self.bodyBytes
            } else {
                self.tally.failures += 1
                self.tally.firstError = self.tally.firstError ?? "status \(self.status.code)"
            }
            self.remaining -= 1
            if self.remaining > 0 { self.send(context) } else { self.finish() }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.promise?.fail(BenchError("connection closed"))
        self.promise = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.promise?.fail(error)
        self.promise = nil
        context.close(promise: nil)
    }
}
