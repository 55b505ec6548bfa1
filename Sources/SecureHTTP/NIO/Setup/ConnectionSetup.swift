import NIOCore
import NIOHTTP2

/// The steps of opening a connection that ``ConnectionFactory`` runs: the proxy tunnel
/// (`ConnectionSetup+ProxyTunnel.swift`), the handshake wait (`ConnectionSetup+Handshake.swift`)
/// and the protocol the server chose in ALPN (`ProtocolSetupHandler.swift`).
enum ConnectionSetup {
    /// What the handshake settled.
    enum Negotiated: Sendable {
        /// The connection's HTTP/1.1 handler, which the connection hands its exchanges to
        /// directly (on the event loop).
        case http1(NIOLoopBound<HTTP1ClientHandler>)
        /// The connection's stream multiplexer, the state its connection handler publishes,
        /// and the server's first stream limit.
        case http2(NIOHTTP2Handler.StreamMultiplexer, HTTP2ConnectionState, maximumStreams: Int)
    }

    /// The error for a failed TCP connect, naming the proxy when there is one.
    static func connectError(
        _ error: any Error,
        origin: Origin,
        proxy: HTTPProxy?,
        budget: Duration,
        timeouts: HTTPTransportConfiguration.Timeouts
    ) -> SecureHTTPError {
        let target = proxy.map { "the proxy \($0) for \(origin)" } ?? "\(origin)"
        if case ChannelError.connectTimeout = error {
            if budget < timeouts.connect {
                return SecureHTTPError(.deadlineExceeded, "the request deadline passed while connecting to \(target)")
            }
            return SecureHTTPError(
                .connectTimeout,
                "connecting to \(target) timed out after \(TransportErrorText.seconds(timeouts.connect))"
            )
        }
        let peer = proxy.map { "\($0.host):\($0.port)" } ?? "\(origin.host):\(origin.port)"
        return SecureHTTPError(
            .connectFailed,
            "could not connect to \(target): \(TransportErrorText.sentence(for: error, peer: peer))"
        )
    }

}
