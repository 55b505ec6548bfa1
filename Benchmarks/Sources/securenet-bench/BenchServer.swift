import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS

/// What the benchmark server counts; the runner reads it between runs (over stdin/stdout, so
/// that asking never opens a connection of its own).
struct ServerCounters: Codable, Sendable {
    var connections = 0
    var handshakes = 0
    var requests = 0
    var tokenCalls = 0
    var unauthorized = 0
    var http2Connections = 0
}

/// The token state the token endpoint and `/protected` share.
struct TokenState: Sendable {
    var accessToken = "access-0"
    var refreshToken = "refresh-0"
    var generation = 0
}

final class BenchServerState: Sendable {
    let counters = NIOLockedValueBox(ServerCounters())
    let tokens = NIOLockedValueBox(TokenState())
    let small: ByteBuffer
    let large: ByteBuffer

    init() {
        // 1 KiB of JSON.
        var json = #"{"id":42,"name":"benchmark","items":["#
        var index = 0
        while json.utf8.count < 1024 - 40 {
            json += (index == 0 ? "" : ",") + #""item-\#(index)""#
            index += 1
        }
        json += #"],"pad":""#
        json += String(repeating: "x", count: 1024 - json.utf8.count - 2) + #""}"#
        precondition(json.utf8.count == 1024)
        self.small = ByteBuffer(string: json)
        self.large = ByteBuffer(repeating: UInt8(ascii: "a"), count: 100 * 1024)
    }
}

/// HTTP/1.1 keep-alive over TLS: `/small` (1 KiB JSON), `/large` (100 KiB), `POST /oauth/token`
/// (refresh-token grant, rotating) and `/protected` (bearer token required).
final class BenchHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let state: BenchServerState
    private let countsHandshakes: Bool
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(state: BenchServerState, countsHandshakes: Bool = true) {
        self.state = state
        self.countsHandshakes = countsHandshakes
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if self.countsHandshakes, let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            self.state.counters.withLockedValue { $0.handshakes += 1 }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            self.body.clear()
        case .body(var part):
            self.body.writeBuffer(&part)
        case .end:
            guard let head = self.head else { return }
            self.head = nil
            self.respond(context: context, head: head)
        }
    }

    private func respond(context: ChannelHandlerContext, head: HTTPRequestHead) {
        self.state.counters.withLockedValue { $0.requests += 1 }
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        switch (head.method, path) {
        case (.GET, "/small"):
            self.send(context: context, head: head, status: .ok, type: "application/json", body: self.state.small)
        case (.GET, "/large"):
            self.send(
                context: context,
                head: head,
                status: .ok,
                type: "application/octet-stream",
                body: self.state.large
            )
        case (.GET, "/protected"):
            let sent = head.headers.first(name: "authorization") ?? ""
            let current = self.state.tokens.withLockedValue { $0.accessToken }
            if sent == "Bearer \(current)" {
                self.send(context: context, head: head, status: .ok, type: "application/json", body: self.state.small)
            } else {
                self.state.counters.withLockedValue { $0.unauthorized += 1 }
                var extra = HTTPHeaders()
                extra.add(name: "WWW-Authenticate", value: #"Bearer realm="bench", error="invalid_token""#)
                self.send(
                    context: context,
                    head: head,
                    status: .unauthorized,
                    type: "application/json",
                    body: ByteBuffer(string: #"{"error":"invalid_token"}"#),
                    extra: extra
                )
            }
        case (.POST, "/oauth/token"):
            self.state.counters.withLockedValue { $0.tokenCalls += 1 }
            let form = Self.form(String(buffer: self.body))
            let answer: String? = self.state.tokens.withLockedValue { tokens in
                guard form["grant_type"] == "refresh_token", form["refresh_token"] == tokens.refreshToken else {
                    return nil
                }
                tokens.generation += 1
                tokens.accessToken = "access-\(tokens.generation)"
                tokens.refreshToken = "refresh-\(tokens.generation)"
                return
                    #"{"access_token":"\#(tokens.accessToken)","token_type":"Bearer","expires_in":3600,"refresh_token":"\#(tokens.refreshToken)"}"#
            }
            if let answer {
                self.send(
                    context: context,
                    head: head,
                    status: .ok,
                    type: "application/json",
                    body: ByteBuffer(string: answer)
                )
            } else {
                self.send(
                    context: context,
                    head: head,
                    status: .badRequest,
                    type: "application/json",
                    body: ByteBuffer(string: #"{"error":"invalid_grant"}"#)
                )
            }
        default:
            self.send(
                context: context,
                head: head,
                status: .notFound,
                type: "text/plain",
                body: ByteBuffer(string: "not found")
            )
        }
    }

    private func send(
        context: ChannelHandlerContext,
        head: HTTPRequestHead,
        status: HTTPResponseStatus,
        type: String,
        body: ByteBuffer,
        extra: HTTPHeaders = HTTPHeaders()
    ) {
        let keepAlive = head.isKeepAlive
        var headers = HTTPHeaders()
        headers.reserveCapacity(4 + extra.count)
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        headers.add(contentsOf: extra)
        context.write(
            self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
            promise: nil
        )
        context.write(self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        if keepAlive {
            context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
        } else {
            context.writeAndFlush(self.wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
        }
    }

    private static func form(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard let name = parts.first?.removingPercentEncoding else { continue }
            let value =
                parts.count > 1 ? String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding : ""
            result[name] = value ?? ""
        }
        return result
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Counts TLS handshakes on the HTTP/2 port (where the request handler sits on a stream).
final class BenchHandshakeCounter: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let state: BenchServerState

    init(state: BenchServerState) {
        self.state = state
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            self.state.counters.withLockedValue { $0.handshakes += 1 }
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// Runs the server until stdin closes. Prints `READY <port>` once listening; then answers
/// `stats` with a JSON line of counters and `tokens <access> <refresh>` by setting the token state.
enum BenchServer {
    static func run(pkiDirectory: URL) async throws {
        let chain = try NIOSSLCertificate.fromPEMFile(pkiDirectory.appendingPathComponent("server-chain.pem").path)
        let key = try NIOSSLPrivateKey(file: pkiDirectory.appendingPathComponent("server-key.pem").path, format: .pem)
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) },
            privateKey: .privateKey(key)
        )
        tls.applicationProtocols = ["http/1.1"]
        let context = try NIOSSLContext(configuration: tls)
        let state = BenchServerState()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                state.counters.withLockedValue { $0.connections += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(BenchHTTPHandler(state: state))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        // The same server with ALPN `h2`, `http/1.1` on a second port: the HTTP/2 workloads. Up
        // to 1,000 concurrent streams, so that concurrency 128 fits on one connection.
        var h2TLS = tls
        h2TLS.applicationProtocols = ["h2", "http/1.1"]
        let h2Context = try NIOSSLContext(configuration: h2TLS)
        let h2Channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                state.counters.withLockedValue { $0.connections += 1 }
                do {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: h2Context))
                    try channel.pipeline.syncOperations.addHandler(BenchHandshakeCounter(state: state))
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
                return channel.configureHTTP2SecureUpgrade(
                    h2ChannelConfigurator: { channel in
                        state.counters.withLockedValue { $0.http2Connections += 1 }
                        return channel.eventLoop.makeCompletedFuture {
                            var connection = NIOHTTP2Handler.ConnectionConfiguration()
                            connection.initialSettings = [
                                HTTP2Setting(parameter: .maxConcurrentStreams, value: 1_000),
                                HTTP2Setting(parameter: .maxHeaderListSize, value: 16_384),
                            ]
                            _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                                mode: .server,
                                connectionConfiguration: connection,
                                streamConfiguration: NIOHTTP2Handler.StreamConfiguration()
                            ) { stream in
                                stream.eventLoop.makeCompletedFuture {
                                    try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                                    try stream.pipeline.syncOperations.addHandler(
                                        BenchHTTPHandler(state: state, countsHandshakes: false)
                                    )
                                }
                            }
                        }
                    },
                    http1ChannelConfigurator: { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                            try channel.pipeline.syncOperations.addHandler(
                                BenchHTTPHandler(state: state, countsHandshakes: false)
                            )
                        }
                    }
                )
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let port = channel.localAddress?.port ?? 0
        let h2Port = h2Channel.localAddress?.port ?? 0
        reply("READY \(port) \(h2Port)")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            switch words.first {
            case "stats":
                let counters = state.counters.withLockedValue { $0 }
                reply(String(decoding: try encoder.encode(counters), as: UTF8.self))
            case "tokens" where words.count == 3:
                state.tokens.withLockedValue {
                    $0.accessToken = words[1]
                    $0.refreshToken = words[2]
                }
                reply("OK")
            case "quit":
                reply("BYE")
            default:
                reply("ERROR unknown command")
            }
            if words.first == "quit" { break }
        }
        try await channel.close()
        try await h2Channel.close()
        try await group.shutdownGracefully()
    }
}

/// Writes one line to stdout at once (unbuffered, so the runner sees it through the pipe).
func reply(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
