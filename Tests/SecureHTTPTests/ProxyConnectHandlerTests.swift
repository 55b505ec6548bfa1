import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import SecureHTTP

/// The CONNECT handler on an embedded channel: what it sends, and each way a proxy can answer.
@Suite("ProxyConnectHandler")
struct ProxyConnectHandlerTests {
    /// A connected channel with the handler added; its request already written.
    static func connected(
        headers: HTTPHeaders = ["Host": "api.example.com:443"],
        deadline: NIODeadline = .now() + .seconds(60)
    ) throws -> (EmbeddedChannel, EventLoopFuture<Void>) {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 3128)).wait()
        let promise = channel.eventLoop.makePromise(of: Void.self)
        try channel.pipeline.syncOperations.addHandler(
            ProxyConnectHandler(target: "api.example.com:443", headers: headers, deadline: deadline, promise: promise)
        )
        return (channel, promise.futureResult)
    }

    static func refusal(of future: EventLoopFuture<Void>) -> ProxyConnectHandler.Refusal? {
        do {
            try future.wait()
            return nil
        } catch {
            return error as? ProxyConnectHandler.Refusal
        }
    }

    @Test func itAsksForTheTunnelAndLeavesOnceItIsOpen() throws {
        let (channel, tunnel) = try Self.connected(headers: [
            "Host": "api.example.com:443", "Proxy-Authorization": "Basic eA==",
        ])
        guard case .head(let head) = try #require(try channel.readOutbound(as: HTTPClientRequestPart.self)) else {
            Issue.record("no request head")
            return
        }
        #expect(head.method == .CONNECT)
        #expect(head.uri == "api.example.com:443")
        #expect(head.headers["Proxy-Authorization"] == ["Basic eA=="])
        #expect(try channel.readOutbound(as: HTTPClientRequestPart.self) == .end(nil))
        try channel.writeInbound(HTTPClientResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
        try channel.writeInbound(HTTPClientResponsePart.end(nil))
        try tunnel.wait()
        // Gone from the pipeline, so the TLS added next writes straight into the tunnel.
        #expect(throws: ChannelPipelineError.notFound) {
            try channel.pipeline.syncOperations.context(handlerType: ProxyConnectHandler.self)
        }
        #expect(channel.isActive)
    }

    @Test(arguments: [
        (HTTPResponseStatus.proxyAuthenticationRequired, ProxyConnectHandler.Refusal.authenticationRequired),
        (.forbidden, .status(403)),
        (.badGateway, .status(502)),
    ])
    func aStatusOtherThan2xxIsRefusedAndCloses(status: HTTPResponseStatus, refusal: ProxyConnectHandler.Refusal) throws
    {
        let (channel, tunnel) = try Self.connected()
        try channel.writeInbound(HTTPClientResponsePart.head(HTTPResponseHead(version: .http1_1, status: status)))
        #expect(Self.refusal(of: tunnel) == refusal)
        #expect(!channel.isActive)
    }

    @Test func aBodyWithThe2xxIsRefused() throws {
        let (channel, tunnel) = try Self.connected()
        try channel.writeInbound(HTTPClientResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
        try channel.writeInbound(HTTPClientResponsePart.body(ByteBuffer(string: "hello")))
        #expect(Self.refusal(of: tunnel) == .unexpectedBody)
        #expect(!channel.isActive)
    }

    @Test func aProxyThatClosesFirstIsRefused() throws {
        let (channel, tunnel) = try Self.connected()
        channel.pipeline.fireChannelInactive()
        #expect(Self.refusal(of: tunnel) == .closed)
    }

    @Test func aProxyThatDoesNotAnswerByTheDeadlineIsRefused() throws {
        let (channel, tunnel) = try Self.connected(deadline: .uptimeNanoseconds(0) + .seconds(5))
        channel.embeddedEventLoop.advanceTime(to: .uptimeNanoseconds(0) + .seconds(6))
        #expect(Self.refusal(of: tunnel) == .timedOut)
        #expect(!channel.isActive)
    }

    @Test func nothingIsWrittenThroughATunnelNotYetOpen() throws {
        let (channel, _) = try Self.connected()
        _ = try channel.readOutbound(as: HTTPClientRequestPart.self)
        _ = try channel.readOutbound(as: HTTPClientRequestPart.self)
        #expect(throws: ChannelError.ioOnClosedChannel) {
            try channel.writeOutbound(ByteBuffer(string: "early"))
        }
    }
}
