#if TestServers
import Foundation
public import HTTPTypes
import NIOConcurrencyHelpers
public import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOPosix
import NIOSSL
import NIOTLS

extension InterceptingProxy {
    /// What the proxy saw of one client connection: one per `CONNECT`.
    public struct Connection: Sendable, Hashable, Codable {
        /// Whether the client let the proxy read its traffic.
        public enum Outcome: String, Sendable, Hashable, Codable {
            /// The client completed the TLS handshake with the minted certificate: it trusts the
            /// interception CA and pins nothing (or pins the CA), and the proxy read its requests.
            case intercepted
            /// The client aborted the handshake: pinning or trust held, nothing was read.
            case held
            /// The host is one the proxy passes through: its bytes were relayed untouched, TLS
            /// ran end to end between the client and the server.
            case tunneled
        }

        /// The host the client asked for in `CONNECT`.
        public var host: String
        /// The port it asked for.
        public var port: Int
        /// Intercepted or held.
        public var outcome: Outcome
        /// For a held connection, how the client ended the handshake (its TLS alert, or a close).
        public var reason: String?
        /// For an intercepted connection, its first request line with credentials redacted:
        /// credential query parameters' values replaced and credential header fields named, never
        /// shown (`GET /v1/me?access_token=REDACTED HTTP/1.1 [Authorization]`).
        public var request: String?
        /// The status sent back for that request: the upstream's, or 502 when the upstream failed.
        public var status: Int?
        /// Why the upstream failed, for a 502.
        public var upstreamError: String?

        /// Creates a record.
        public init(
            host: String,
            port: Int,
            outcome: Outcome,
            reason: String? = nil,
            request: String? = nil,
            status: Int? = nil,
            upstreamError: String? = nil
        ) {
            self.host = host
            self.port = port
            self.outcome = outcome
            self.reason = reason
            self.request = request
            self.status = status
            self.upstreamError = upstreamError
        }
    }

    /// Sends a decrypted request to the real server (its URL is the host and port the client
    /// asked for in `CONNECT`, whatever its `Host` field says) and returns the response.
    public typealias Forward = @Sendable (HTTPRequest, ByteBuffer) async throws -> (HTTPResponse, ByteBuffer)

    /// The largest request body the proxy relays; a larger one is answered 413.
    public static let maximumRequestBodySize = 16 * 1024 * 1024

    /// Starts a Charles-style HTTP `CONNECT` proxy on 127.0.0.1 (`securenet intercept`).
    ///
    /// For each `CONNECT host:port` (RFC 9110 §9.3.6) it answers 200, then terminates the
    /// client's TLS with a certificate for `host` minted by `authority` (offering only
    /// `http/1.1` in ALPN). A client that completes the handshake is reported `intercepted` and
    /// its requests are relayed through `forward` (the CLI sends them with the project's
    /// transport, over verified TLS, to where the client asked); one that aborts it is reported
    /// `held`. `onConnection` is called once per connection: after its first exchange, when the
    /// handshake fails, or when it closes.
    ///
    /// - Parameters:
    ///   - port: the port to listen on; 0 picks a free one.
    ///   - authority: the CA that mints the certificates.
    ///   - passThrough: hosts whose tunnels are relayed untouched, without interception
    ///     (reported ``Connection/Outcome/tunneled``), as Charles's SSL-proxying exclusions.
    ///   - forward: how requests reach the real server.
    ///   - onConnection: what the proxy saw of each connection.
    public static func startConnectProxy(
        port: Int = 0,
        authority: InterceptionAuthority,
        passThrough: Set<String> = [],
        forward: @escaping Forward,
        onConnection: @escaping @Sendable (Connection) -> Void
    ) async throws -> InterceptingProxy {
        let contexts = MintedContexts(authority: authority)
        let intercepted = NIOLockedValueBox(0)
        let report: @Sendable (Connection) -> Void = { connection in
            if connection.outcome == .intercepted { intercepted.withLockedValue { $0 += 1 } }
            onConnection(connection)
        }
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    let sync = child.pipeline.syncOperations
                    let decoder = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes))
                    let encoder = HTTPResponseEncoder()
                    try sync.addHandler(decoder)
                    try sync.addHandler(encoder)
                    try sync.addHandler(
                        ConnectRequestHandler(
                            decoder: decoder,
                            encoder: encoder,
                            contexts: contexts,
                            passThrough: Set(passThrough.map { $0.lowercased() }),
                            forward: forward,
                            report: report
                        )
                    )
                }
            }
            .bind(host: "127.0.0.1", port: port)
            .get()
        guard let boundPort = channel.localAddress?.port else {
            try? await channel.close()
            throw ChannelError.unknownLocalAddress
        }
        return InterceptingProxy(port: boundPort, channel: channel, intercepted: intercepted)
    }

    /// The request line of `request` as the proxy reports it: the values of credential query
    /// parameters replaced by `REDACTED`, and the names of the credential fields it carried.
    public static func redactedRequestLine(_ request: HTTPRequest) -> String {
        var target = request.path ?? "/"
        if let mark = target.firstIndex(of: "?") {
            let query = target[target.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: false)
            let redacted = query.map { item -> String in
                guard let equals = item.firstIndex(of: "=") else { return String(item) }
                let name = item[..<equals].lowercased()
                return Self.credentialWords.contains(where: { name.contains($0) })
                    ? "\(item[..<equals])=REDACTED" : String(item)
            }
            target = String(target[..<mark]) + "?" + redacted.joined(separator: "&")
        }
        var line = "\(request.method.rawValue) \(target) HTTP/1.1"
        let credentials = Self.credentialFields.filter { request.headerFields[$0] != nil }.map(Self.displayName)
        if !credentials.isEmpty { line += " [\(credentials.joined(separator: ", "))]" }
        return line
    }

    /// `Authorization`, `X-Api-Key`: each word capitalised.
    static func displayName(_ name: HTTPField.Name) -> String {
        name.canonicalName.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(
            separator: "-"
        )
    }

    static let credentialWords = ["token", "password", "passwd", "secret", "key", "code", "session", "auth", "sig"]
    static let credentialFields: [HTTPField.Name] = [
        .authorization, .proxyAuthorization, .cookie, HTTPField.Name("DPoP")!, HTTPField.Name("X-Api-Key")!,
        HTTPField.Name("X-Auth-Token")!,
    ]
}

/// The TLS server contexts of the minted certificates, one per host.
private final class MintedContexts: Sendable {
    private let authority: InterceptionAuthority
    private let contexts = NIOLockedValueBox<[String: NIOSSLContext]>([:])

    init(authority: InterceptionAuthority) { self.authority = authority }

    func context(for host: String) throws -> NIOSSLContext {
        let key = host.lowercased()
        if let context = self.contexts.withLockedValue({ $0[key] }) { return context }
        let chain = try self.authority.chain(for: host)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try chain.nioCertificateChain(),
            privateKey: try chain.nioPrivateKey()
        )
        configuration.applicationProtocols = ["http/1.1"]
        configuration.minimumTLSVersion = .tlsv12
        let context = try NIOSSLContext(configuration: configuration)
        return self.contexts.withLockedValue { contexts in
            if let existing = contexts[key] { return existing }
            contexts[key] = context
            return context
        }
    }
}

/// What one connection has reported; only touched on its event loop.
private final class ConnectionReport {
    let host: String
    let port: Int
    private let report: @Sendable (InterceptingProxy.Connection) -> Void
    private var sent = false
    var handshakeCompleted = false

    init(host: String, port: Int, report: @escaping @Sendable (InterceptingProxy.Connection) -> Void) {
        self.host = host
        self.port = port
        self.report = report
    }

    func send(
        _ outcome: InterceptingProxy.Connection.Outcome,
        _ configure: (inout InterceptingProxy.Connection) -> Void = { _ in }
    ) {
        guard !self.sent else { return }
        self.sent = true
        var connection = InterceptingProxy.Connection(host: self.host, port: self.port, outcome: outcome)
        configure(&connection)
        self.report(connection)
    }
}

/// Reads the `CONNECT`, answers 200, and turns the connection into a TLS server for the host.
private final class ConnectRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let decoder: ByteToMessageHandler<HTTPRequestDecoder>
    private let encoder: HTTPResponseEncoder
    private let contexts: MintedContexts
    private let passThrough: Set<String>
    private let forward: InterceptingProxy.Forward
    private let report: @Sendable (InterceptingProxy.Connection) -> Void
    private var target: (host: String, port: Int)?
    private var refused = false

    init(
        decoder: ByteToMessageHandler<HTTPRequestDecoder>,
        encoder: HTTPResponseEncoder,
        contexts: MintedContexts,
        passThrough: Set<String>,
        forward: @escaping InterceptingProxy.Forward,
        report: @escaping @Sendable (InterceptingProxy.Connection) -> Void
    ) {
        self.decoder = decoder
        self.encoder = encoder
        self.contexts = contexts
        self.passThrough = passThrough
        self.forward = forward
        self.report = report
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            guard head.method == .CONNECT else {
                self.refuse(context: context, .methodNotAllowed, "securenet intercept relays CONNECT tunnels only\n")
                return
            }
            guard let target = Self.authorityForm(head.uri) else {
                self.refuse(context: context, .badRequest, "CONNECT needs host:port\n")
                return
            }
            self.target = target
        case .body:
            break
        case .end:
            guard !self.refused, let target = self.target else { return }
            if self.passThrough.contains(target.host.lowercased()) {
                self.relay(context: context, to: target)
            } else {
                self.startTunnel(context: context, to: target)
            }
        }
    }

    /// A pass-through host: connects to it, answers 200, then relays bytes both ways.
    private func relay(context: ChannelHandlerContext, to target: (host: String, port: Int)) {
        let inbound = context.channel
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let report = self.report
        ClientBootstrap(group: context.eventLoop)
            .connectTimeout(.seconds(10))
            .connect(host: target.host, port: target.port)
            .assumeIsolated()
            .whenComplete { result in
                let handler = handler.value
                switch result {
                case .failure:
                    // No such upstream: the client learns it from a 502, nothing is reported.
                    handler.refuseUpstream(channel: inbound, target)
                case .success(let outbound):
                    let (toUpstream, toClient) = RelayHandler.pair()
                    let sync = inbound.pipeline.syncOperations
                    do {
                        handler.answerEstablished(on: inbound)
                        try outbound.pipeline.syncOperations.addHandler(toClient)
                        try sync.addHandler(toUpstream)
                        sync.removeHandler(handler, promise: nil)
                        sync.removeHandler(handler.decoder, promise: nil)
                        report(.init(host: target.host, port: target.port, outcome: .tunneled))
                    } catch {
                        inbound.close(promise: nil)
                        outbound.close(promise: nil)
                    }
                }
            }
    }

    /// Answers the CONNECT with 200. A 2xx answer to CONNECT has no body and no framing fields
    /// (RFC 9110 §9.3.6), which the response encoder would add: the encoder leaves first and the
    /// line goes raw.
    private func answerEstablished(on channel: any Channel) {
        channel.pipeline.syncOperations.removeHandler(self.encoder, promise: nil)
        channel.writeAndFlush(ByteBuffer(string: "HTTP/1.1 200 Connection Established\r\n\r\n"), promise: nil)
    }

    private func refuseUpstream(channel: any Channel, _ target: (host: String, port: Int)) {
        let text = "securenet intercept: no connection to \(target.host):\(target.port)\n"
        channel.pipeline.syncOperations.removeHandler(self.encoder, promise: nil)
        channel.writeAndFlush(
            ByteBuffer(
                string:
                    "HTTP/1.1 502 Bad Gateway\r\nContent-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n\(text)"
            )
        ).whenComplete { _ in channel.close(promise: nil) }
    }

    private func refuse(context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ text: String) {
        guard !self.refused else { return }
        self.refused = true
        var headers = HTTPHeaders([("Content-Length", "\(text.utf8.count)"), ("Connection", "close")])
        if status == .methodNotAllowed { headers.add(name: "Allow", value: "CONNECT") }
        context.write(
            self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
            promise: nil
        )
        context.write(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(self.wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// `host:port` (RFC 9110 §9.3.6, RFC 3986 §3.2.2: an IPv6 literal in brackets).
    static func authorityForm(_ uri: String) -> (host: String, port: Int)? {
        guard let colon = uri.lastIndex(of: ":"), let port = Int(uri[uri.index(after: colon)...]),
            (1...65_535).contains(port)
        else { return nil }
        var host = String(uri[..<colon])
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return nil }
            host = String(host.dropFirst().dropLast())
        }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:_")
        guard !host.isEmpty, host.allSatisfy({ allowed.contains($0) }) else { return nil }
        return (host, port)
    }

    private func startTunnel(context: ChannelHandlerContext, to target: (host: String, port: Int)) {
        let sslContext: NIOSSLContext
        do {
            sslContext = try self.contexts.context(for: target.host)
        } catch {
            self.refuse(context: context, .internalServerError, "no certificate could be minted for \(target.host)\n")
            return
        }
        self.answerEstablished(on: context.channel)
        let connection = ConnectionReport(host: target.host, port: target.port, report: self.report)
        let channel = context.channel
        let forward = self.forward
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let bound = NIOLoopBound(connection, eventLoop: context.eventLoop)
        let decoder = NIOLoopBound(self.decoder, eventLoop: context.eventLoop)
        // The CONNECT's codec leaves on the next tick (its decoder is still delivering this
        // request); bytes the client sent early stay in it and are forwarded to TLS.
        context.eventLoop.assumeIsolated().execute {
            do {
                let sync = channel.pipeline.syncOperations
                try sync.addHandler(NIOSSLServerHandler(context: sslContext))
                try sync.addHandler(HandshakeOutcomeHandler(connection: bound.value))
                try sync.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
                try sync.addHandler(HTTPResponseEncoder())
                try sync.addHandler(HTTP1ToHTTPServerCodec(secure: true))
                try sync.addHandler(
                    ForwardingHandler(target: target, connection: bound.value, forward: forward)
                )
                sync.removeHandler(handler.value, promise: nil)
                sync.removeHandler(decoder.value, promise: nil)
            } catch {
                channel.close(promise: nil)
            }
        }
    }
}

/// Decides the outcome: a completed handshake is intercepted; an error or a close before it is held.
private final class HandshakeOutcomeHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let connection: ConnectionReport

    init(connection: ConnectionReport) { self.connection = connection }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            self.connection.handshakeCompleted = true
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !self.connection.handshakeCompleted {
            self.connection.send(.held) { $0.reason = Self.reason(error) }
            context.close(promise: nil)
            return
        }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if self.connection.handshakeCompleted {
            self.connection.send(.intercepted) { $0.request = nil }
        } else {
            self.connection.send(.held) { $0.reason = "the client closed the connection during the TLS handshake" }
        }
        context.fireChannelInactive()
    }

    /// How the client ended the handshake: the TLS alert it sent (BoringSSL names it
    /// `…ALERT_BAD_CERTIFICATE`), a close or reset, else BoringSSL's reason codes.
    static func reason(_ error: any Error) -> String {
        let text = String(describing: error)
        if let range = text.range(of: "ALERT_") {
            let name = text[range.upperBound...].prefix { $0.isLetter || $0 == "_" }.lowercased()
            return "the client aborted the TLS handshake with a \(name) alert"
        }
        if case NIOSSLError.uncleanShutdown = error {
            return "the client closed the connection during the TLS handshake"
        }
        if let error = error as? IOError, error.errnoCode == ECONNRESET {
            return "the client reset the connection during the TLS handshake"
        }
        if text.contains("EOF during handshake") { return "the client closed the connection during the TLS handshake" }
        // `error:10000070:SSL routines:OPENSSL_internal:BAD_PACKET_LENGTH at file:line`
        let codes = text.components(separatedBy: "OPENSSL_internal:").dropFirst().map {
            String($0.prefix { $0.isUppercase || $0.isNumber || $0 == "_" })
        }
        guard !codes.isEmpty else { return "the client aborted the TLS handshake" }
        return "the client aborted the TLS handshake (\(codes.joined(separator: ", ")))"
    }
}

/// Relays the decrypted requests, one at a time, through `forward`.
private final class ForwardingHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private let target: (host: String, port: Int)
    private let connection: ConnectionReport
    private let forward: InterceptingProxy.Forward
    private var head: HTTPRequest?
    private var body = ByteBuffer()
    private var tooLarge = false
    private var queue: [(HTTPRequest, ByteBuffer, Bool)] = []
    private var busy = false

    init(target: (host: String, port: Int), connection: ConnectionReport, forward: @escaping InterceptingProxy.Forward)
    {
        self.target = target
        self.connection = connection
        self.forward = forward
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(var request):
            // The upstream is where the client asked in CONNECT, never what `Host` says; the
            // hop-by-hop fields (RFC 9110 §7.6.1) end here.
            for name in Self.hopByHop { request.headerFields[name] = nil }
            request.scheme = "https"
            request.authority =
                self.target.port == 443
                ? Self.hostText(self.target.host) : "\(Self.hostText(self.target.host)):\(self.target.port)"
            self.head = request
            self.body.clear()
            self.tooLarge = false
        case .body(var part):
            if self.body.readableBytes + part.readableBytes > InterceptingProxy.maximumRequestBodySize {
                self.tooLarge = true
            } else {
                self.body.writeBuffer(&part)
            }
        case .end:
            guard let head = self.head else { return }
            self.head = nil
            self.queue.append((head, self.body, self.tooLarge))
            self.body = ByteBuffer()
            self.next(context: context)
        }
    }

    static let hopByHop: [HTTPField.Name] = [
        .connection, HTTPField.Name("Keep-Alive")!, HTTPField.Name("Proxy-Connection")!, .te, .transferEncoding,
        .upgrade, .proxyAuthorization,
    ]

    static func hostText(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

    private func next(context: ChannelHandlerContext) {
        guard !self.busy, !self.queue.isEmpty else { return }
        self.busy = true
        let (request, body, tooLarge) = self.queue.removeFirst()
        let line = InterceptingProxy.redactedRequestLine(request)
        if tooLarge {
            self.respond(
                context: context,
                line: line,
                HTTPResponse(status: .contentTooLarge),
                ByteBuffer(string: "securenet intercept relays request bodies up to 16 MiB\n"),
                upstreamError: nil
            )
            return
        }
        let forward = self.forward
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let loop = context.eventLoop
        Task {
            let result: Result<(HTTPResponse, ByteBuffer), any Error>
            do { result = .success(try await forward(request, body)) } catch { result = .failure(error) }
            loop.execute {
                let (handler, context) = bound.value
                switch result {
                case .success(let (response, body)):
                    handler.respond(context: context, line: line, response, body, upstreamError: nil)
                case .failure(let error):
                    let text =
                        "securenet intercept: the upstream \(handler.target.host):\(handler.target.port) failed: \(error)\n"
                    handler.respond(
                        context: context,
                        line: line,
                        HTTPResponse(status: .badGateway),
                        ByteBuffer(string: text),
                        upstreamError: "\(error)"
                    )
                }
            }
        }
    }

    private func respond(
        context: ChannelHandlerContext,
        line: String,
        _ response: HTTPResponse,
        _ body: ByteBuffer,
        upstreamError: String?
    ) {
        self.connection.send(.intercepted) {
            $0.request = line
            $0.status = response.status.code
            $0.upstreamError = upstreamError
        }
        var head = response
        // The body is relayed whole: framing and hop-by-hop fields are the proxy's own.
        for name in [HTTPField.Name.transferEncoding, .connection, .contentLength] { head.headerFields[name] = nil }
        head.headerFields[.contentLength] = "\(body.readableBytes)"
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        if body.readableBytes > 0 { context.write(self.wrapOutboundOut(.body(body)), promise: nil) }
        context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
        self.busy = false
        self.next(context: context)
    }
}
#endif
