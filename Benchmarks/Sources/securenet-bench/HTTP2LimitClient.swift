import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import SecureHTTP

/// The HTTP/2 async limit: bare NIO + NIOSSL + NIOHTTP2 with verification off, one connection,
/// a stream per request opened straight from the awaiting task, which prefers the connection's
/// event loop as the project's do; no pool, no header checks, no size limit: what HTTP/2 itself
/// costs a client that awaits each request.
final class HTTP2LimitClient: BenchClient {
    private let endpoint: ServerEndpoint
    private let channel: any Channel
    private let multiplexer: NIOHTTP2Handler.StreamMultiplexer
    private let onLoop: Bool

    init(endpoint: ServerEndpoint, group: any EventLoopGroup, onLoop: Bool = true) async throws {
        self.onLoop = onLoop
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        tls.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        NIOSSLClientHandler(context: context, serverHostname: nil)
                    )
                }
            }
            .connect(host: endpoint.host, port: endpoint.port)
            .get()
        self.multiplexer = try await channel.eventLoop.submit {
            var connection = NIOHTTP2Handler.ConnectionConfiguration()
            connection.initialSettings = [
                HTTP2Setting(parameter: .enablePush, value: 0),
                HTTP2Setting(parameter: .initialWindowSize, value: 1 << 20),
            ]
            connection.targetWindowSize = 8 << 20
            var stream = NIOHTTP2Handler.StreamConfiguration()
            stream.targetWindowSize = 1 << 20
            let handler = NIOHTTP2Handler(
                mode: .client,
                eventLoop: channel.eventLoop,
                connectionConfiguration: connection,
                streamConfiguration: stream
            ) {
                $0.close()
            }
            try channel.pipeline.syncOperations.addHandler(handler)
            return try handler.syncMultiplexer()
        }.get()
        self.channel = channel
        self.endpoint = endpoint
    }

    func get(_ path: String, fresh: Bool) async throws -> Int {
        var headers = HPACKHeaders()
        headers.add(name: ":method", value: "GET")
        headers.add(name: ":scheme", value: "https")
        headers.add(name: ":authority", value: self.endpoint.authority)
        headers.add(name: ":path", value: path)
        let loop = self.channel.eventLoop
        let multiplexer = self.multiplexer
        // Resumed directly by the stream's handler: no promise, no future callback.
        let (status, bytes) = try await withUnsafeThrowingContinuation {
            (continuation: UnsafeContinuation<(Int, Int), any Error>) in
            let open: @Sendable () -> Void = {
                let created = loop.makePromise(of: (any Channel).self)
                // A stream that cannot be opened fails the request instead of leaving it waiting.
                created.futureResult.whenFailure { continuation.resume(throwing: $0) }
                multiplexer.createStreamChannel(promise: created) { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandler(
                            HTTP2LimitStreamHandler(headers: headers, continuation: continuation)
                        )
                    }
                }
            }
            if loop.inEventLoop { open() } else { loop.execute(open) }
        }
        guard status == 200 else { throw BenchError("status \(status)") }
        return bytes
    }

    func makeTaskExecutor() -> (any TaskExecutor)? {
        self.onLoop ? EventLoopTaskExecutor(self.channel.eventLoop) : nil
    }

    func shutdown() async throws {
        try? await self.channel.close()
    }
}

final class HTTP2LimitStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let headers: HPACKHeaders
    /// Resumed exactly once, then dropped.
    private var continuation: UnsafeContinuation<(Int, Int), any Error>?
    private var status = 0
    private var bytes = 0

    init(headers: HPACKHeaders, continuation: UnsafeContinuation<(Int, Int), any Error>) {
        self.headers = headers
        self.continuation = continuation
    }

    private func complete(_ result: Result<(Int, Int), any Error>) {
        self.continuation?.resume(with: result)
        self.continuation = nil
    }

    private var sent = false

    /// The request goes out once the stream is active, whether it already was when this handler
    /// was added (then `channelActive` never comes) or becomes so later.
    private func send(_ context: ChannelHandlerContext) {
        guard !self.sent else { return }
        self.sent = true
        context.writeAndFlush(
            self.wrapOutboundOut(.headers(.init(headers: self.headers, endStream: true))),
            promise: nil
        )
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { self.send(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.send(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .headers(let frame):
            if let status = frame.headers.first(name: ":status").flatMap(Int.init) { self.status = status }
            if frame.endStream { self.complete(.success((self.status, self.bytes))) }
        case .data(let frame):
            self.bytes += frame.data.readableBytes
            if frame.endStream { self.complete(.success((self.status, self.bytes))) }
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.complete(.failure(BenchError("the stream closed early")))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.complete(.failure(error))
        context.close(promise: nil)
    }
}
