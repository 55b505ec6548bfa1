package import Foundation
import NIOCore
import NIOPosix
import ServerTrust

extension NIOHTTPTransport {
    /// Opens a TLS connection to the origin of `url` exactly as a request would (the policy's
    /// requirements, ServerTrust inside the handshake, the connect and handshake timeouts, the
    /// proxy), and closes it with close_notify as soon as the handshake is over, without writing
    /// a byte of HTTP: for tools that need only the chain a server presents, against servers
    /// that speak no HTTP at all.
    ///
    /// The configuration's ``HTTPTransportConfiguration/handshakeObserver`` sees the presented
    /// chain and ServerTrust's decision, refused or not; the connection offers only
    /// `http/1.1` in ALPN (an `h2` connection would send its preface and SETTINGS at once).
    ///
    /// - Throws: ``SecureHTTPError/Code/invalidRequest`` for a URL that is not `https://` with a
    ///   host, ``SecureHTTPError/Code/policyViolation`` when the policy refuses it, and the
    ///   errors of opening a connection (``SecureHTTPError/Code/serverTrustFailure`` for a
    ///   refused chain, ``SecureHTTPError/Code/connectTimeout``,
    ///   ``SecureHTTPError/Code/tlsHandshakeTimeout``, …).
    package static func handshakeOnly(
        with url: URL,
        configuration: HTTPTransportConfiguration
    ) async throws(SecureHTTPError) {
        guard url.scheme?.lowercased() == "https", let origin = Origin(url) else {
            throw SecureHTTPError(.invalidRequest, "a handshake needs an https:// URL with a host")
        }
        let requirements: ConnectionRequirements
        do throws(ServerTrustError) {
            requirements = try configuration.policy.requirements(for: url)
        } catch {
            throw SecureHTTPError.policy(error)
        }
        var configuration = configuration
        configuration.httpVersions = .http1Only
        let transport = try NIOHTTPTransport(
            configuration: configuration,
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton
        )
        let key = ConnectionPool.Key(origin: origin, requirements: requirements)
        // The pool applies each timeout to its own phase; this deadline only bounds the sum.
        let deadline = ContinuousClock.now + configuration.timeouts.connect + configuration.timeouts.tlsHandshake
        let connection: PooledConnection
        do throws(SecureHTTPError) {
            connection = try await transport.pool.lease(key, deadline: deadline).connection
        } catch {
            await transport.shutdown()
            throw error
        }
        // Released as not reusable, the pool closes it: NIOSSL sends close_notify, then waits
        // for the peer's (or its shutdown timeout) before the socket closes.
        transport.pool.release(connection, key: key, reusable: false)
        try? await connection.closeFuture.get()
        await transport.shutdown()
    }
}
