import Foundation
import HTTPTypes
import NIOCore
import NIOPosix
import SecureNetworkingTesting
import ServerTrust
import Testing

@testable import SecureHTTP

/// Responses that carry no body whatever their Content-Length says (RFC 9110 §6.4.1): to HEAD
/// (§9.3.2), 204 (§15.3.5) and 304 (§15.4.5). Their Content-Length describes the representation a
/// GET would have had (§8.6), so it is not held against the response body limit.
@Suite("Bodiless responses")
struct BodylessResponseLiveTests {
    /// The limit, and a representation four times larger.
    static let limit = 1024
    static let representation = [UInt8](repeating: UInt8(ascii: "x"), count: 4 * 1024)

    static func configuration(policy: TransportSecurityPolicy = Live.policy) -> HTTPTransportConfiguration {
        Live.configuration(policy: policy) { $0.maximumResponseBodySize = Self.limit }
    }

    @Test(arguments: WireProtocol.allCases)
    func aHEADResponseAnnouncingMoreThanTheLimitSucceeds(over wire: WireProtocol) async throws {
        let tls = Live.tls(try Live.pki.validChain(), over: wire)
        // The server answers as to a GET; its HTTP stack sends the head (Content-Length: 4096)
        // and no body, as HEAD requires.
        try await withLoopbackHTTPServer(tls, handler: { _ in .status(200, body: Self.representation) }) { server in
            try await withTransport(Self.configuration()) { transport in
                var request = get(url(server, "/report"))
                request.method = .head
                let response = try await transport.send(request, body: nil)
                #expect(response.response.status == .ok)
                #expect(response.response.headerFields[.contentLength] == "\(Self.representation.count)")
                #expect(response.body.isEmpty)
                // The limit still holds for a body: the same resource by GET is refused.
                let error = await expectFailure(transport, get(url(server, "/report")))
                #expect(error?.code == .responseTooLarge)
            }
            expectNegotiated(wire, on: server)
            #expect(server.statistics.requests.map(\.method) == ["HEAD", "GET"])
        }
    }

    /// Over HTTP/2 the server's stack sends a 304's head with its Content-Length and no DATA.
    @Test func a304OverHTTP2AnnouncingMoreThanTheLimitSucceeds() async throws {
        let tls = Live.tls(try Live.pki.validChain(), over: .http2)
        try await withLoopbackHTTPServer(tls, handler: { _ in .status(304, body: Self.representation) }) { server in
            try await withTransport(Self.configuration()) { transport in
                let response = try await transport.send(get(url(server, "/cached")), body: nil)
                #expect(response.response.status == .notModified)
                #expect(response.response.headerFields[.contentLength] == "\(Self.representation.count)")
                #expect(response.body.isEmpty)
            }
            expectNegotiated(.http2, on: server)
        }
    }

    /// Over HTTP/1.1 a server's 204 or 304 head with a large Content-Length, written byte for byte
    /// (LoopbackHTTPServer's HTTP stack drops the field from those statuses, so a raw server
    /// sends it), then a 200 on the same connection: no body was read from it, and it is reused.
    @Test(arguments: [(204, "No Content"), (304, "Not Modified")])
    func aBodilessStatusOverHTTP1AnnouncingMoreThanTheLimitSucceeds(status: Int, reason: String) async throws {
        let head = "HTTP/1.1 \(status) \(reason)\r\nContent-Length: \(Self.representation.count)\r\n\r\n"
        let server = try await RawHTTP1Server.start(responses: [head, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"])
        let policy = TransportSecurityPolicy(allowsLocalNetworking: true)
        do {
            try await withTransport(Self.configuration(policy: policy)) { transport in
                let base = "http://127.0.0.1:\(server.port)"
                let first = try await transport.send(get(URL(string: base + "/first")!), body: nil)
                #expect(first.response.status.code == status)
                #expect(first.body.isEmpty)
                let second = try await transport.send(get(URL(string: base + "/second")!), body: nil)
                #expect(second.response.status == .ok)
                #expect(second.body == Data("ok".utf8))
                #expect(transport.statistics.connectionsOpened == 1)
            }
        } catch {
            try? await server.channel.close()
            throw error
        }
        try? await server.channel.close()
    }

    @Test func theRuleIsOneForBothProtocols() {
        for method in ["GET", "POST"] {
            #expect(ResponseBodyRule.announcedLength(method: method, status: 200, contentLength: "4096") == 4096)
            for status in [204, 304, 100] {
                #expect(ResponseBodyRule.announcedLength(method: method, status: status, contentLength: "4096") == nil)
            }
        }
        #expect(ResponseBodyRule.announcedLength(method: "HEAD", status: 200, contentLength: "4096") == nil)
        #expect(ResponseBodyRule.announcedLength(method: "GET", status: 205, contentLength: "4096") == 4096)
    }
}

/// A plain HTTP/1.1 server on 127.0.0.1 that answers the n-th request on a connection with the
/// n-th canned response, byte for byte.
private struct RawHTTP1Server {
    let channel: any Channel
    let port: Int

    static func start(responses: [String]) async throws -> RawHTTP1Server {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(CannedResponder(responses: responses))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return RawHTTP1Server(channel: channel, port: channel.localAddress?.port ?? 0)
    }
}

private final class CannedResponder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let responses: [String]
    private var received = ""
    private var answered = 0

    init(responses: [String]) {
        self.responses = responses
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = self.unwrapInboundIn(data)
        self.received += buffer.readString(length: buffer.readableBytes) ?? ""
        // Requests without a body: each ends with an empty line.
        while let end = self.received.range(of: "\r\n\r\n") {
            self.received.removeSubrange(..<end.upperBound)
            guard self.answered < self.responses.count else {
                context.close(promise: nil)
                return
            }
            let response = context.channel.allocator.buffer(string: self.responses[self.answered])
            self.answered += 1
            context.writeAndFlush(self.wrapOutboundOut(response), promise: nil)
        }
    }
}
