import NIOCore
import NIOHTTP1

extension ConnectionSetup {
    /// Opens a `CONNECT` tunnel to `origin` through `proxy` (RFC 9110 §9.3.6) with NIO's HTTP/1
    /// codec and ``ProxyConnectHandler``; once the proxy answers 2xx, removes the codec
    /// and calls `then` to add TLS and HTTP on the bare tunnel. A refusal fails `negotiated`
    /// with ``SecureHTTPError/Code/proxyRefused``.
    static func addTunnelHandlers(
        to channel: any Channel,
        proxy: HTTPProxy,
        origin: Origin,
        budget: Duration,
        negotiated: EventLoopPromise<Negotiated>,
        then addConnectionHandlers: @escaping () throws -> Void
    ) throws {
        let target = HTTPProxy.connectTarget(host: origin.host, port: origin.port)
        var headers = HTTPHeaders([("Host", "\(target.host):\(target.port)")])
        if let authorization = proxy.authorization { headers.add(name: "Proxy-Authorization", value: authorization) }
        let tunnel = channel.eventLoop.makePromise(of: Void.self)
        let encoder = HTTPRequestEncoder()
        let decoder = ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes))
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(encoder)
        try sync.addHandler(decoder)
        try sync.addHandler(
            ProxyConnectHandler(
                target: "\(target.host):\(target.port)",
                headers: headers,
                deadline: .now() + TimeAmount(max(budget, .zero)),
                promise: tunnel
            )
        )
        let bound = NIOLoopBound((encoder, decoder, addConnectionHandlers), eventLoop: channel.eventLoop)
        tunnel.futureResult.assumeIsolated().whenComplete { result in
            switch result {
            case .success:
                // The codec leaves before TLS starts (the client speaks first in TLS). Its
                // decoder observes writes and leaves on a later tick, after delivering the answer:
                // TLS is added once it is gone.
                let (encoder, decoder, _) = bound.value
                let sync = channel.pipeline.syncOperations
                sync.removeHandler(encoder, promise: nil)
                let removed = channel.eventLoop.makePromise(of: Void.self)
                sync.removeHandler(decoder, promise: removed)
                removed.futureResult.assumeIsolated().whenComplete { result in
                    do {
                        try result.get()
                        try bound.value.2()
                    } catch {
                        negotiated.fail(
                            SecureHTTPError(
                                .connectFailed,
                                "the tunnel to \(origin) could not be set up: \(TransportErrorText.sentence(for: error))"
                            )
                        )
                        channel.close(promise: nil)
                    }
                }
            case .failure(let error):
                negotiated.fail(
                    SecureHTTPError(
                        .proxyRefused,
                        "the proxy \(proxy) did not open a tunnel to \(origin): \(Self.describe(proxyError: error))"
                    )
                )
                channel.close(promise: nil)
            }
        }
    }

    /// What a ``ProxyConnectHandler`` failure says, without the proxy's headers.
    private static func describe(proxyError error: any Error) -> String {
        guard let refusal = error as? ProxyConnectHandler.Refusal else {
            return TransportErrorText.sentence(for: error)
        }
        switch refusal {
        case .authenticationRequired: return "it asked for authentication (407)"
        case .status(let code) where code > 0: return "it answered with a status other than 2xx (\(code))"
        case .closed: return "it closed the connection"
        case .timedOut: return "it did not answer in time"
        case .status, .unexpectedBody: return "it did not answer as a proxy"
        }
    }
}
