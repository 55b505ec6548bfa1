import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS
import SecureNetworkingTesting
import Testing

@testable import SecureHTTP

/// RFC 9113 §6.8: a GOAWAY with NO_ERROR is how a server shuts down gracefully, and a stream
/// above its last stream id was not processed. A server that sends it right after its
/// SETTINGS, before the client opened a stream, did nothing wrong: the request is retry-safe
/// ("not processed"), not a protocol violation of the server's.
@Suite("HTTP/2: GOAWAY before the stream opened")
struct GoAwayBeforeStreamTests {
    @Test(arguments: [HTTPRequest.Method.get, .post])
    func aGracefulGoAwayBeforeTheStreamIsRetriedOnANewConnection(_ method: HTTPRequest.Method) async throws {
        let server = try await GoAwayHTTP2Server.start(chain: try Live.pki.validChain(), goAwayConnections: 1)
        do {
            try await withTransport { transport in
                var request = get(URL(string: "https://localhost:\(server.port)/")!)
                request.method = method
                let response = try await transport.send(request, body: method == .post ? Data("x".utf8) : nil)
                #expect(response.response.status == .ok)
                #expect(server.connectionsAccepted == 2)
                #expect(transport.statistics.notProcessedRetries == 1)
            }
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    @Test func aServerThatAlwaysGoesAwayEndsInNotProcessed() async throws {
        let server = try await GoAwayHTTP2Server.start(chain: try Live.pki.validChain(), goAwayConnections: .max)
        do {
            try await withTransport { transport in
                let error = await expectFailure(transport, get(URL(string: "https://localhost:\(server.port)/")!))
                #expect(error?.code == .requestNotProcessed)
                // Sent again while the retry decision allows it, then reported.
                #expect(transport.statistics.notProcessedRetries == ExchangeRetryDecision.maximumNotSentRetries + 1)
            }
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }
}

/// An HTTP/2 server over TLS on 127.0.0.1 (port 0) whose first `goAwayConnections` connections
/// send GOAWAY (last stream id 0, NO_ERROR) right behind their SETTINGS, so the client learns
/// of it before it opens a stream; the later ones answer every request `200`.
final class GoAwayHTTP2Server: Sendable {
    let port: Int
    private let channel: any Channel
    private let accepted: NIOLockedValueBox<Int>

    var connectionsAccepted: Int { self.accepted.withLockedValue { $0 } }

    private init(port: Int, channel: any Channel, accepted: NIOLockedValueBox<Int>) {
        self.port = port
        self.channel = channel
        self.accepted = accepted
    }

    static func start(chain: TestPKI.Chain, goAwayConnections: Int) async throws -> GoAwayHTTP2Server {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try chain.nioCertificateChain(),
            privateKey: try chain.nioPrivateKey()
        )
        configuration.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: configuration)
        let accepted = NIOLockedValueBox(0)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let number = accepted.withLockedValue { count in
                    count += 1
                    return count
                }
                do {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
                return channel.configureHTTP2Pipeline(mode: .server) { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandler(OKStream())
                    }
                }.flatMapThrowing { _ in
                    guard number <= goAwayConnections else { return }
                    try channel.pipeline.syncOperations.addHandler(GoAwayAfterHandshake())
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return GoAwayHTTP2Server(port: channel.localAddress?.port ?? 0, channel: channel, accepted: accepted)
    }

    func shutdown() async {
        try? await self.channel.close()
    }
}

/// Sends GOAWAY (last stream id 0, NO_ERROR) when the TLS handshake ends: right behind the
/// server's SETTINGS, which NIOHTTP2 wrote when the connection became active.
private final class GoAwayAfterHandshake: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent {
            let goAway = HTTP2Frame(
                streamID: .rootStream,
                payload: .goAway(lastStreamID: .rootStream, errorCode: .noError, opaqueData: nil)
            )
            context.writeAndFlush(self.wrapOutboundOut(goAway), promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// Answers each request `200` with no body once its headers arrive.
private final class OKStream: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .headers(let headers) where headers.endStream:
            self.respond(context: context)
        case .data(let data) where data.endStream:
            self.respond(context: context)
        default:
            break
        }
    }

    private func respond(context: ChannelHandlerContext) {
        let response = HTTP2Frame.FramePayload.headers(.init(headers: [":status": "200"], endStream: true))
        context.writeAndFlush(self.wrapOutboundOut(response), promise: nil)
    }
}
