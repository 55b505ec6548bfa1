import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import SecureNetworkingTesting
import Testing

@testable import SecureHTTP

/// Who reset an HTTP/2 stream, told apart (issue 40 item 7): a stream the client's HTTP/2 layer
/// reset because the server's response broke the protocol fails as ``SecureHTTPError/Code/invalidResponse``;
/// a stream the server reset with RST_STREAM fails as ``SecureHTTPError/Code/streamReset`` and the
/// connection carries on. Against a TLS HTTP/2 server on 127.0.0.1 whose own validation is off,
/// so that it sends what a hostile server would.
@Suite("HTTP/2: who reset the stream", .timeLimit(.minutes(1)))
struct ClientResetAttributionTests {
    @Test(arguments: InvalidResponseServer.Answer.invalid)
    func anInvalidResponseIsNotAServerReset(answer: InvalidResponseServer.Answer) async throws {
        let server = try await InvalidResponseServer.start(chain: try Live.pki.validChain())
        do {
            try await withTransport { transport in
                let base = "https://localhost:\(server.port)"
                let error = await expectFailure(transport, get(URL(string: base + "/" + answer.rawValue)!))
                // The stream's own account ("… the client reset the stream"): it names the
                // server's response, not a reset by the server.
                #expect(error?.code == .invalidResponse)
                #expect(error?.message.contains("reset the HTTP/2 stream") == false)
                // A stream error ends that stream only (RFC 9113 §5.4.2): the next request goes
                // on the same connection.
                let after = try await transport.send(get(URL(string: base + "/ok")!))
                #expect(after.response.status == .ok)
                #expect(transport.statistics.http2ConnectionsOpened == 1)
            }
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    @Test func anRSTStreamFromTheServerIsStillAStreamReset() async throws {
        let server = try await InvalidResponseServer.start(chain: try Live.pki.validChain())
        do {
            try await withTransport { transport in
                let base = "https://localhost:\(server.port)"
                let error = await expectFailure(transport, get(URL(string: base + "/reset")!))
                #expect(error?.code == .streamReset)
                #expect(error?.message.hasPrefix("the server reset the HTTP/2 stream") == true)
                let after = try await transport.send(get(URL(string: base + "/ok")!))
                #expect(after.response.status == .ok)
            }
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }
}

/// An HTTP/2 server over TLS on 127.0.0.1 (port 0), with NIOHTTP2's header-block and
/// Content-Length validation off, that answers each path with the response named after it.
final class InvalidResponseServer: Sendable {
    enum Answer: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// `content-length: 10` and 3 bytes of DATA (RFC 9113 §8.1.1).
        case contentLengthLie = "content-length-lie"
        /// A field name with an uppercase letter (§8.2.1).
        case uppercaseName = "uppercase-name"
        /// A connection-specific field, `connection` (§8.2.2).
        case connectionSpecific = "connection-specific"
        /// `:status` after a regular field (§8.3).
        case pseudoAfterRegular = "pseudo-after-regular"
        /// RST_STREAM (INTERNAL_ERROR) from the server.
        case reset
        case ok

        static let invalid: [Answer] = [.contentLengthLie, .uppercaseName, .connectionSpecific, .pseudoAfterRegular]
        var testDescription: String { self.rawValue }
    }

    let port: Int
    private let channel: any Channel

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    static func start(chain: TestPKI.Chain) async throws -> InvalidResponseServer {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try chain.nioCertificateChain(),
            privateKey: try chain.nioPrivateKey()
        )
        configuration.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: configuration)
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.headerBlockValidation = .disabled
        connection.contentLengthValidation = .disabled
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                do {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
                return channel.configureHTTP2Pipeline(
                    mode: .server,
                    connectionConfiguration: connection,
                    streamConfiguration: NIOHTTP2Handler.StreamConfiguration()
                ) { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandler(InvalidResponseStream())
                    }
                }.map { _ in }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return InvalidResponseServer(port: channel.localAddress?.port ?? 0, channel: channel)
    }

    func shutdown() async {
        try? await self.channel.close()
    }
}

private final class InvalidResponseStream: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .headers(let request) = self.unwrapInboundIn(data), request.endStream else { return }
        let path = String(request.headers.first(name: ":path")?.dropFirst() ?? "")
        let frames: [HTTP2Frame.FramePayload]
        switch InvalidResponseServer.Answer(rawValue: path) ?? .ok {
        case .contentLengthLie:
            frames = [
                .headers(.init(headers: [":status": "200", "content-length": "10"])),
                .data(.init(data: .byteBuffer(ByteBuffer(string: "abc")), endStream: true)),
            ]
        case .uppercaseName:
            frames = [.headers(.init(headers: [":status": "200", "X-Upper": "1"], endStream: true))]
        case .connectionSpecific:
            frames = [.headers(.init(headers: [":status": "200", "connection": "keep-alive"], endStream: true))]
        case .pseudoAfterRegular:
            frames = [.headers(.init(headers: HPACKHeaders([("x-a", "1"), (":status", "200")]), endStream: true))]
        case .reset:
            frames = [.rstStream(.internalError)]
        case .ok:
            frames = [.headers(.init(headers: [":status": "200"], endStream: true))]
        }
        for frame in frames { context.write(self.wrapOutboundOut(frame), promise: nil) }
        context.flush()
    }
}
