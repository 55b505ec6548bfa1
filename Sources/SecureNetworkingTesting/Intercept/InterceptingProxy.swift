#if TestServers
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// A man-in-the-middle on loopback: it terminates TLS with a certificate from the
/// interception CA (as a debugging proxy or an attacker whose CA the device trusts would) and
/// relays the decrypted bytes over a second TLS connection to the real server.
///
/// Clients reach it as they would the real server (as after DNS spoofing): connect to
/// `localhost:port` of the proxy. It validates the real server against `upstreamRoots`.
public final class InterceptingProxy: Sendable {
    /// The port the proxy listens on (127.0.0.1).
    public let port: Int
    private let channel: any Channel
    private let intercepted: NIOLockedValueBox<Int>

    /// Connections the proxy has accepted and relayed.
    public var interceptedConnections: Int { self.intercepted.withLockedValue { $0 } }

    init(port: Int, channel: any Channel, intercepted: NIOLockedValueBox<Int>) {
        self.port = port
        self.channel = channel
        self.intercepted = intercepted
    }

    /// Starts a proxy in front of `upstreamPort` on 127.0.0.1.
    ///
    /// - Parameters:
    ///   - upstreamPort: the real server's port.
    ///   - interceptionChain: what the proxy presents, such as `TestPKI.interceptionChain()`.
    ///   - upstreamRoots: the anchors the proxy trusts for the real server.
    public static func start(
        upstreamPort: Int,
        interceptionChain: TestPKI.Chain,
        upstreamRoots: [TestPKI.Identity]
    ) async throws -> InterceptingProxy {
        let serverContext = try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: try interceptionChain.nioCertificateChain(),
                privateKey: try interceptionChain.nioPrivateKey()
            )
        )
        var clientConfiguration = TLSConfiguration.makeClientConfiguration()
        clientConfiguration.trustRoots = .certificates(try upstreamRoots.map { try $0.nioCertificate() })
        clientConfiguration.certificateVerification = .fullVerification
        let clientContext = try NIOSSLContext(configuration: clientConfiguration)
        let intercepted = NIOLockedValueBox(0)
        let group = MultiThreadedEventLoopGroup.singleton

        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                intercepted.withLockedValue { $0 += 1 }
                // Open the upstream leg first, then glue the two decrypted streams together.
                return ClientBootstrap(group: inbound.eventLoop)
                    .channelInitializer { outbound in
                        outbound.eventLoop.makeCompletedFuture {
                            try outbound.pipeline.syncOperations.addHandler(
                                NIOSSLClientHandler(context: clientContext, serverHostname: "localhost")
                            )
                        }
                    }
                    .connect(host: "127.0.0.1", port: upstreamPort)
                    .flatMapThrowing { outbound in
                        let (toUpstream, toClient) = RelayHandler.pair()
                        try inbound.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: serverContext))
                        try inbound.pipeline.syncOperations.addHandler(toUpstream)
                        try outbound.pipeline.syncOperations.addHandler(toClient)
                    }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw ChannelError.unknownLocalAddress
        }
        return InterceptingProxy(port: port, channel: channel, intercepted: intercepted)
    }

    /// Stops listening.
    public func shutdown() async {
        try? await self.channel.close()
    }
}

/// Forwards every byte read on its channel to the partner's channel, and closes the partner
/// when its own channel closes (NIO's "glue handler" pattern, without back-pressure: test
/// traffic is small).
// SAFETY: `partner` is set once, in `pair()`, before either handler is added to a pipeline;
// afterwards it is only read, and every write to the partner's channel goes through
// `Channel.writeAndFlush`, which is thread-safe. The lock guards the one write and the reads.
final class RelayHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let lock = NIOLock()
    private weak var _partner: RelayHandler?
    private var channel: (any Channel)?

    private var partner: RelayHandler? { self.lock.withLock { self._partner } }

    static func pair() -> (RelayHandler, RelayHandler) {
        let first = RelayHandler()
        let second = RelayHandler()
        first.lock.withLock { first._partner = second }
        second.lock.withLock { second._partner = first }
        return (first, second)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.lock.withLock { self.channel = context.channel }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = self.unwrapInboundIn(data)
        self.partner?.send(buffer)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.partner?.closeChannel()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func send(_ buffer: ByteBuffer) {
        self.lock.withLock { self.channel }?.writeAndFlush(buffer, promise: nil)
    }

    private func closeChannel() {
        self.lock.withLock { self.channel }?.close(promise: nil)
    }
}
#endif
