public import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
public import NIOSSL
import NIOTLS

/// An in-process HTTP server on 127.0.0.1 with an ephemeral port, over TLS with any TestPKI
/// chain, TLS version range and cipher list, or over plain HTTP. Over TLS it speaks HTTP/1.1,
/// HTTP/2, or either as ALPN decides (``TLS/httpVersions``).
///
/// It records every request and counts connections, completed TLS handshakes, HTTP/2 connections
/// and streams, so tests can assert what reached the server (or that nothing did). Use ``withLoopbackHTTPServer(_:handler:isolation:_:)``
/// so it always stops.
public final class LoopbackHTTPServer: Sendable {
    /// How the server speaks TLS.
    public struct TLS: Sendable {
        /// The chain presented (leaf first) and the leaf's key.
        public var chain: TestPKI.Chain
        /// The lowest TLS version served. Default TLS 1.2.
        public var minimumVersion: NIOSSL.TLSVersion = .tlsv12
        /// The highest TLS version served; nil means the newest.
        public var maximumVersion: NIOSSL.TLSVersion?
        /// The TLS 1.2-and-below cipher suites served; nil means NIOSSL's defaults.
        public var cipherSuites: [NIOTLSCipher]?
        /// When set, a client certificate issued by one of these CAs is required.
        public var requiredClientCertificateIssuers: [TestPKI.Identity]?
        /// Which HTTP versions are served; ``HTTPVersions/http1Only`` (no ALPN) by default.
        public var httpVersions: HTTPVersions = .http1Only
        /// HTTP/2's `SETTINGS_MAX_CONCURRENT_STREAMS`. Default 100.
        public var maximumConcurrentStreams = 100
        /// HTTP/2: when and how the first connection sends GOAWAY. Nil (the default): never.
        public var goAway: GoAway?
        /// HTTP/2: when false, a stream stops reading once its request's HEADERS arrived, so the
        /// server grants no flow-control window beyond the initial 65,535 bytes and a larger
        /// request body stalls (a request without a body is still answered). Default true.
        public var readsStreams = true

        /// Serves `chain` with TLS 1.2 and 1.3 and NIOSSL's default suites.
        public init(chain: TestPKI.Chain) {
            self.chain = chain
        }
    }

    /// A GOAWAY plan: once the client has opened ``afterStreams`` streams on the server's first
    /// HTTP/2 connection, the server sends GOAWAY (NO_ERROR) whose last stream id is that of the
    /// ``processedStreams``-th stream, telling the client that the streams after it were not
    /// processed (RFC 9113 §6.8).
    ///
    /// The frame is written below the server's HTTP/2 handler, which therefore keeps the later
    /// streams open instead of resetting them: the test's handler must not answer them (the
    /// request's ``RecordedRequest/stream`` tells which they are), as a server that keeps its
    /// word would not.
    public struct GoAway: Sendable, Hashable {
        /// The streams opened before GOAWAY is sent.
        public var afterStreams: Int
        /// The streams the GOAWAY keeps (the first ones); at most ``afterStreams``.
        public var processedStreams: Int

        /// A plan; `processedStreams` defaults to `afterStreams`.
        public init(afterStreams: Int, processedStreams: Int? = nil) {
            self.afterStreams = afterStreams
            self.processedStreams = min(processedStreams ?? afterStreams, afterStreams)
        }
    }

    /// Which HTTP versions a TLS server speaks, and so what it offers in ALPN.
    public struct HTTPVersions: Sendable, Hashable, CustomStringConvertible {
        /// The ALPN identifiers offered, most preferred first; empty: no ALPN.
        public let applicationProtocols: [String]

        /// HTTP/1.1 without ALPN (what the server always did).
        public static let http1Only = HTTPVersions(applicationProtocols: [])
        /// `h2` only: a client that offers other protocols only fails the handshake
        /// (`no_application_protocol`); one that offers none is disconnected after it.
        public static let http2Only = HTTPVersions(applicationProtocols: ["h2"])
        /// `h2` or `http/1.1`, as the client's ALPN offer decides (no offer: HTTP/1.1).
        public static let http2OrHTTP1 = HTTPVersions(applicationProtocols: ["h2", "http/1.1"])

        public var description: String {
            self.applicationProtocols.isEmpty ? "http/1.1" : self.applicationProtocols.joined(separator: ",")
        }
    }

    /// A request as the server received it.
    public struct RecordedRequest: Sendable {
        /// The method, such as `GET`.
        public let method: String
        /// The request target, such as `/path?query`.
        public let uri: String
        /// The header fields in order.
        public let headers: [(name: String, value: String)]
        /// The body.
        public let body: [UInt8]
        /// The connection it arrived on (1 for the first connection accepted).
        public let connection: Int
        /// `HTTP/1.1` or `HTTP/2`.
        public var httpVersion: String = "HTTP/1.1"
        /// The HTTP/2 stream it arrived on; nil over HTTP/1.1.
        public var stream: Int?

        /// The first value of a header, compared case-insensitively.
        public func header(_ name: String) -> String? {
            self.headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// What the server answers.
    public struct Response: Sendable {
        indirect enum Kind: Sendable {
            case respond(status: Int, headers: [(String, String)], body: [UInt8])
            case stall
            case freeze
            case close
            case streamed(chunks: Int, chunkSize: Int)
            case delayed(milliseconds: Int64, Response)
            case gated(Gate, Response)
        }

        let kind: Kind

        /// A response with a status, header fields and body.
        public static func status(_ code: Int, headers: [(String, String)] = [], body: [UInt8] = []) -> Response {
            Response(kind: .respond(status: code, headers: headers, body: body))
        }

        /// `200 OK` with a text body.
        public static func text(_ text: String, status: Int = 200) -> Response {
            .status(status, headers: [("Content-Type", "text/plain")], body: Array(text.utf8))
        }

        /// A redirect to `location`.
        public static func redirect(_ status: Int = 302, to location: String) -> Response {
            .status(status, headers: [("Location", location)])
        }

        /// `200 OK` with a body sent in chunks and no `Content-Length`, so a client only
        /// learns its size by reading it.
        public static func streamed(chunks: Int, chunkSize: Int) -> Response {
            Response(kind: .streamed(chunks: chunks, chunkSize: chunkSize))
        }

        /// `response`, sent after a delay (the connection stays busy meanwhile).
        public static func delayed(milliseconds: Int64, _ response: Response) -> Response {
            Response(kind: .delayed(milliseconds: milliseconds, response))
        }

        /// Never answer (the connection stays open): for deadline tests.
        public static let stall = Response(kind: .stall)

        /// Never answer, and stop reading the connection: the server then acknowledges nothing
        /// the client sends afterwards, an HTTP/2 PING included. For liveness tests.
        public static let freeze = Response(kind: .freeze)

        /// `response`, once the test opens `gate` (at once if it is open already).
        public static func after(_ gate: Gate, _ response: Response) -> Response {
            Response(kind: .gated(gate, response))
        }

        /// Close the connection without answering; over HTTP/2, close the request's stream
        /// (`RST_STREAM` with `CANCEL`) and leave the connection and its other streams alone.
        public static let close = Response(kind: .close)
    }

    /// A gate a test opens to release the responses waiting on it (``Response/after(_:_:)``).
    public final class Gate: Sendable {
        private let state = NIOLockedValueBox<(open: Bool, waiting: [@Sendable () -> Void])>((false, []))

        /// A closed gate.
        public init() {}

        /// Opens the gate: the responses waiting on it are sent.
        public func open() {
            let waiting = self.state.withLockedValue { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for release in waiting { release() }
        }

        /// Returns once the gate is open.
        func opened() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                self.whenOpen { continuation.resume() }
            }
        }

        func whenOpen(_ release: @escaping @Sendable () -> Void) {
            let now = self.state.withLockedValue { state in
                if state.open { return true }
                state.waiting.append(release)
                return false
            }
            if now { release() }
        }
    }

    /// Counters of what the server saw.
    public struct Statistics: Sendable {
        /// TCP connections accepted.
        public var connectionsAccepted = 0
        /// TLS handshakes completed.
        public var handshakesCompleted = 0
        /// The most connections open at the same time.
        public var peakOpenConnections = 0
        /// Connections open now.
        public var openConnections = 0
        /// Connections that negotiated HTTP/2.
        public var http2Connections = 0
        /// HTTP/2 streams the clients opened.
        public var http2Streams = 0
        /// The most HTTP/2 streams open at once on any one connection.
        public var peakConcurrentStreamsOnAConnection = 0
        /// HTTP/2 streams the client reset (RST_STREAM) before they ended.
        public var streamsResetByClient = 0
        /// GOAWAY frames sent.
        public var goAwaysSent = 0
        /// HTTP/2 PING frames received (not acknowledgements; NIOHTTP2 answers each).
        public var pingsReceived = 0
        /// Open HTTP/2 streams by connection number.
        var openStreams: [Int: Int] = [:]
        /// HTTP/2 streams opened so far, by connection number.
        var streamsOpened: [Int: Int] = [:]
        /// Requests received, in order.
        public var requests: [RecordedRequest] = []
    }

    /// The port the server listens on (127.0.0.1).
    public let port: Int
    /// Whether the server speaks TLS.
    public let usesTLS: Bool
    private let channel: any Channel
    let state: NIOLockedValueBox<Statistics>

    /// `https://localhost:PORT` or `http://localhost:PORT`.
    public var baseURL: URL {
        URL(string: "\(self.usesTLS ? "https" : "http")://localhost:\(self.port)")!
    }

    /// What the server has seen so far.
    public var statistics: Statistics { self.state.withLockedValue { $0 } }

    private init(port: Int, usesTLS: Bool, channel: any Channel, state: NIOLockedValueBox<Statistics>) {
        self.port = port
        self.usesTLS = usesTLS
        self.channel = channel
        self.state = state
    }

    /// Starts a server.
    ///
    /// - Parameters:
    ///   - tls: how to speak TLS; nil serves plain HTTP.
    ///   - handler: answers each request (runs on the event loop: keep it quick).
    public static func start(
        tls: TLS?,
        handler: @escaping @Sendable (RecordedRequest) -> Response
    ) async throws -> LoopbackHTTPServer {
        let sslContext = try tls.map { try NIOSSLContext(configuration: Self.serverConfiguration($0)) }
        let versions = tls?.httpVersions ?? .http1Only
        let maximumConcurrentStreams = tls?.maximumConcurrentStreams ?? 100
        let goAwayPlan = tls?.goAway
        let readsStreams = tls?.readsStreams ?? true
        let state = NIOLockedValueBox(Statistics())
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                let number = state.withLockedValue { state in
                    state.connectionsAccepted += 1
                    state.openConnections += 1
                    state.peakOpenConnections = max(state.peakOpenConnections, state.openConnections)
                    return state.connectionsAccepted
                }
                channel.closeFuture.whenComplete { _ in state.withLockedValue { $0.openConnections -= 1 } }
                @Sendable func http1(_ channel: any Channel) -> EventLoopFuture<Void> {
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(
                            RequestHandler(connection: number, stream: nil, state: state, handler: handler)
                        )
                    }
                }
                @Sendable func http2(_ channel: any Channel) -> EventLoopFuture<Void> {
                    state.withLockedValue { $0.http2Connections += 1 }
                    return channel.eventLoop.makeCompletedFuture {
                        var connection = NIOHTTP2Handler.ConnectionConfiguration()
                        connection.initialSettings =
                            nioDefaultSettings.filter { $0.parameter != .maxConcurrentStreams }
                            + [HTTP2Setting(parameter: .maxConcurrentStreams, value: maximumConcurrentStreams)]
                        try channel.pipeline.syncOperations.addHandler(RawFrameWriter())
                        _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                            mode: .server,
                            connectionConfiguration: connection,
                            streamConfiguration: NIOHTTP2Handler.StreamConfiguration()
                        ) { stream in
                            stream.eventLoop.makeCompletedFuture {
                                let id = try stream.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)
                                let goAway = state.withLockedValue { state in
                                    state.http2Streams += 1
                                    state.openStreams[number, default: 0] += 1
                                    state.streamsOpened[number, default: 0] += 1
                                    state.peakConcurrentStreamsOnAConnection = max(
                                        state.peakConcurrentStreamsOnAConnection,
                                        state.openStreams[number, default: 0]
                                    )
                                    let opened = state.streamsOpened[number, default: 0]
                                    let goAway = opened == goAwayPlan?.afterStreams && state.goAwaysSent == 0
                                    if goAway { state.goAwaysSent += 1 }
                                    return goAway
                                }
                                stream.closeFuture.whenComplete { _ in
                                    state.withLockedValue { $0.openStreams[number, default: 1] -= 1 }
                                }
                                if goAway, let goAwayPlan, let parent = stream.parent {
                                    // Client streams are odd: the n-th is 2n - 1.
                                    let last = UInt32(2 * goAwayPlan.processedStreams - 1)
                                    try parent.pipeline.syncOperations.handler(type: RawFrameWriter.self).goAway(
                                        lastStreamID: last
                                    )
                                }
                                if !readsStreams {
                                    try stream.pipeline.syncOperations.addHandler(StopReadingAfterHeaders())
                                }
                                try stream.pipeline.syncOperations.addHandler(ResetCounter(state: state))
                                try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                                try stream.pipeline.syncOperations.addHandler(
                                    RequestHandler(
                                        connection: number,
                                        stream: id.map { Int($0) },
                                        state: state,
                                        handler: handler
                                    )
                                )
                            }
                        }
                        try channel.pipeline.syncOperations.addHandler(PingCounter(state: state))
                    }
                }
                guard let sslContext else { return http1(channel) }
                do {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    try channel.pipeline.syncOperations.addHandler(HandshakeCounter(state: state))
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
                if versions.applicationProtocols.isEmpty { return http1(channel) }
                if versions == .http2Only {
                    // No ALPN offer (or `http/1.1`): this server speaks HTTP/2 only.
                    return channel.configureHTTP2SecureUpgrade(h2ChannelConfigurator: http2) { channel in
                        channel.close()
                    }
                }
                return channel.configureHTTP2SecureUpgrade(
                    h2ChannelConfigurator: http2,
                    http1ChannelConfigurator: http1
                )
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw ChannelError.unknownLocalAddress
        }
        return LoopbackHTTPServer(port: port, usesTLS: tls != nil, channel: channel, state: state)
    }

    /// Stops listening and closes the listening socket.
    public func shutdown() async {
        try? await self.channel.close()
    }

    static func serverConfiguration(_ tls: TLS) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try tls.chain.nioCertificateChain(),
            privateKey: try tls.chain.nioPrivateKey()
        )
        configuration.minimumTLSVersion = tls.minimumVersion
        configuration.maximumTLSVersion = tls.maximumVersion
        if let suites = tls.cipherSuites { configuration.cipherSuiteValues = suites }
        configuration.applicationProtocols = tls.httpVersions.applicationProtocols
        if let issuers = tls.requiredClientCertificateIssuers {
            // Client certificates carry no host name to check: the chain is still verified
            // against the given issuers, and a client without one is refused.
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates(try issuers.map { try $0.nioCertificate() })
        }
        return configuration
    }
}

/// Runs `body` with a started server and stops it afterwards, however `body` ends.
public func withLoopbackHTTPServer<Result>(
    _ tls: LoopbackHTTPServer.TLS?,
    handler: @escaping @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { _ in
        .text("ok")
    },
    isolation: isolated (any Actor)? = #isolation,
    _ body: (LoopbackHTTPServer) async throws -> Result
) async throws -> Result {
    let server = try await LoopbackHTTPServer.start(tls: tls, handler: handler)
    do {
        let result = try await body(server)
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}

private final class HandshakeCounter: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let state: NIOLockedValueBox<LoopbackHTTPServer.Statistics>

    init(state: NIOLockedValueBox<LoopbackHTTPServer.Statistics>) {
        self.state = state
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            self.state.withLockedValue { $0.handshakesCompleted += 1 }
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// Counts the streams a client resets (NIOHTTP2 reports them as `StreamClosed` errors).
/// Writes frames below the HTTP/2 handler, so that its state machine does not act on them.
private final class RawFrameWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// GOAWAY with NO_ERROR (RFC 9113 §6.8): a 9-byte frame header, then the last stream id and
    /// the error code.
    func goAway(lastStreamID: UInt32) {
        guard let context = self.context else { return }
        var frame = context.channel.allocator.buffer(capacity: 17)
        frame.writeInteger(UInt32(8) << 8 | 0x07)  // length 8 (24 bits), type GOAWAY
        frame.writeInteger(UInt8(0))  // flags
        frame.writeInteger(UInt32(0))  // stream 0
        frame.writeInteger(lastStreamID & 0x7FFF_FFFF)
        frame.writeInteger(UInt32(0))  // NO_ERROR
        context.writeAndFlush(self.wrapOutboundOut(frame), promise: nil)
    }
}

/// Stops reading a stream after its HEADERS: the DATA that follows is left unread, so no
/// WINDOW_UPDATE reopens the window.
private final class StopReadingAfterHeaders: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTP2Frame.FramePayload

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .headers = self.unwrapInboundIn(data) {
            context.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
        }
        context.fireChannelRead(data)
    }
}

/// Counts the PING frames a client sends (frames of stream 0 pass NIOHTTP2's handler).
private final class PingCounter: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTP2Frame
    let state: NIOLockedValueBox<LoopbackHTTPServer.Statistics>

    init(state: NIOLockedValueBox<LoopbackHTTPServer.Statistics>) {
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .ping(_, ack: false) = self.unwrapInboundIn(data).payload {
            self.state.withLockedValue { $0.pingsReceived += 1 }
        }
        context.fireChannelRead(data)
    }
}

private final class ResetCounter: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTP2Frame.FramePayload
    let state: NIOLockedValueBox<LoopbackHTTPServer.Statistics>

    init(state: NIOLockedValueBox<LoopbackHTTPServer.Statistics>) {
        self.state = state
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is NIOHTTP2Errors.StreamClosed {
            self.state.withLockedValue { $0.streamsResetByClient += 1 }
        }
        context.fireErrorCaught(error)
    }
}

private final class RequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let connection: Int
    /// The HTTP/2 stream this handler serves; nil on an HTTP/1.1 connection.
    let stream: Int?
    let state: NIOLockedValueBox<LoopbackHTTPServer.Statistics>
    let handler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(
        connection: Int,
        stream: Int?,
        state: NIOLockedValueBox<LoopbackHTTPServer.Statistics>,
        handler: @escaping @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response
    ) {
        self.connection = connection
        self.stream = stream
        self.state = state
        self.handler = handler
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            self.body = []
        case .body(let buffer):
            self.body += buffer.readableBytesView
        case .end:
            guard let head = self.head else { return }
            let request = LoopbackHTTPServer.RecordedRequest(
                method: head.method.rawValue,
                uri: head.uri,
                headers: head.headers.map { ($0.name, $0.value) },
                body: self.body,
                connection: self.connection,
                httpVersion: self.stream == nil ? "HTTP/1.1" : "HTTP/2",
                stream: self.stream
            )
            self.state.withLockedValue { $0.requests.append(request) }
            // An HTTP/2 stream ends with its response; the connection stays.
            self.respond(context: context, self.handler(request), keepAlive: self.stream != nil || head.isKeepAlive)
        }
    }

    private func respond(context: ChannelHandlerContext, _ response: LoopbackHTTPServer.Response, keepAlive: Bool) {
        switch response.kind {
        case .stall:
            return
        case .freeze:
            // Over HTTP/2 the connection is the stream's parent.
            (context.channel.parent ?? context.channel).setOption(ChannelOptions.autoRead, value: false).whenFailure {
                _ in
            }
        case .close:
            context.close(promise: nil)
        case .gated(let gate, let response):
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let loop = context.eventLoop
            gate.whenOpen {
                loop.execute {
                    let (handler, context) = loopBound.value
                    handler.respond(context: context, response, keepAlive: keepAlive)
                }
            }
        case .delayed(let milliseconds, let response):
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .milliseconds(milliseconds)) {
                let (handler, context) = loopBound.value
                handler.respond(context: context, response, keepAlive: keepAlive)
            }
        case .streamed(let chunks, let chunkSize):
            // HTTP/2 has no chunked coding (RFC 9113 §8.2.2): DATA frames carry the body as is.
            let head = HTTPResponseHead(
                version: .http1_1,
                status: .ok,
                headers: self.stream == nil ? ["Transfer-Encoding": "chunked"] : [:]
            )
            context.write(self.wrapOutboundOut(.head(head)), promise: nil)
            let chunk = context.channel.allocator.buffer(repeating: UInt8(ascii: "x"), count: chunkSize)
            for _ in 0..<chunks {
                context.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(chunk))), promise: nil)
            }
            context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
        case .respond(let status, let headers, let body):
            var fields = HTTPHeaders(headers)
            fields.replaceOrAdd(name: "Content-Length", value: String(body.count))
            if !keepAlive { fields.replaceOrAdd(name: "Connection", value: "close") }
            let head = HTTPResponseHead(
                version: .http1_1,
                status: HTTPResponseStatus(statusCode: status),
                headers: fields
            )
            context.write(self.wrapOutboundOut(.head(head)), promise: nil)
            if !body.isEmpty {
                context.write(
                    self.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))),
                    promise: nil
                )
            }
            let done = context.writeAndFlush(self.wrapOutboundOut(.end(nil)))
            if !keepAlive {
                done.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
            }
        }
    }
}
