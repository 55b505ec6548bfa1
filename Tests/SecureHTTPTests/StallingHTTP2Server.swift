import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
import SecureNetworkingTesting

/// An HTTP/2 server over TLS on 127.0.0.1 (port 0) that answers a request without a body with
/// `200`, and of a request body reads ``readLimit`` bytes and then stops reading the stream: it
/// grants no more flow-control window, so a larger upload stalls, and it never answers. It
/// counts what it read, so a test can tell "received part of the upload, then stopped" from
/// "never received the upload".
final class StallingHTTP2Server: Sendable {
    struct Observed: Sendable {
        /// Request body bytes the server read, over all streams.
        var bodyBytesRead = 0
        /// Streams whose request ended (END_STREAM) as the server read them.
        var requestsEnded = 0
        /// Request header blocks received.
        var requestHeads = 0
    }

    let port: Int
    let readLimit: Int
    private let channel: any Channel
    private let box: NIOLockedValueBox<Observed>

    var observed: Observed { self.box.withLockedValue { $0 } }

    private init(port: Int, readLimit: Int, channel: any Channel, box: NIOLockedValueBox<Observed>) {
        self.port = port
        self.readLimit = readLimit
        self.channel = channel
        self.box = box
    }

    static func start(chain: TestPKI.Chain, readLimit: Int) async throws -> StallingHTTP2Server {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try chain.nioCertificateChain(),
            privateKey: try chain.nioPrivateKey()
        )
        configuration.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: configuration)
        let box = NIOLockedValueBox(Observed())
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                do {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
                return channel.configureHTTP2Pipeline(mode: .server) { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandler(StallingStream(readLimit: readLimit, box: box))
                    }
                }.map { _ in }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return StallingHTTP2Server(
            port: channel.localAddress?.port ?? 0,
            readLimit: readLimit,
            channel: channel,
            box: box
        )
    }

    func shutdown() async {
        try? await self.channel.close()
    }
}

private final class StallingStream: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let readLimit: Int
    private let box: NIOLockedValueBox<StallingHTTP2Server.Observed>
    private var read = 0

    init(readLimit: Int, box: NIOLockedValueBox<StallingHTTP2Server.Observed>) {
        self.readLimit = readLimit
        self.box = box
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .headers(let headers):
            self.box.withLockedValue { $0.requestHeads += 1 }
            if headers.endStream {
                self.box.withLockedValue { $0.requestsEnded += 1 }
                let response = HTTP2Frame.FramePayload.headers(.init(headers: [":status": "200"], endStream: true))
                context.writeAndFlush(self.wrapOutboundOut(response), promise: nil)
            }
        case .data(let data):
            self.read += data.data.readableBytes
            self.box.withLockedValue {
                $0.bodyBytesRead += data.data.readableBytes
                if data.endStream { $0.requestsEnded += 1 }
            }
            if self.read >= self.readLimit {
                // Stop reading: no more frames are consumed, so no more window is granted.
                context.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
            }
        default:
            break
        }
    }
}
