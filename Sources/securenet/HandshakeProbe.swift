#if Tools
import Foundation
import NIOConcurrencyHelpers
import SecureHTTP
import ServerTrust

/// The TLS handshake alone, for the commands that need only the chain a server presents
/// (`pins URL`): NIOHTTPTransport's connection setup, with ServerTrust deciding inside the
/// handshake, and no HTTP, so any TLS server answers in the time its handshake takes.
enum HandshakeProbe {
    /// The handshake with the server of `url` under `policy`: the presented chain and
    /// ServerTrust's decision, a refused chain included (that is what a diagnosis is for).
    ///
    /// - Throws: ``SecureHTTPError`` for everything but a refused chain: the host unreachable,
    ///   a port without TLS, the connect or handshake timeout, a server that presented no
    ///   certificate.
    static func chain(
        of url: URL,
        policy: TransportSecurityPolicy,
        timeouts: HTTPTransportConfiguration.Timeouts = HTTPTransportConfiguration.Timeouts()
    ) async throws(SecureHTTPError) -> HandshakeObservation {
        let observed = NIOLockedValueBox<HandshakeObservation?>(nil)
        var configuration = HTTPTransportConfiguration(policy: policy)
        configuration.handshakeObserver = { observation in observed.withLockedValue { $0 = observation } }
        configuration.timeouts = timeouts
        do {
            try await NIOHTTPTransport.handshakeOnly(with: url, configuration: configuration)
        } catch {
            // A refused chain is what the commands report; anything else is an error.
            guard error.code == .serverTrustFailure, observed.withLockedValue({ $0 }) != nil else { throw error }
        }
        guard let observation = observed.withLockedValue({ $0 }) else {
            throw SecureHTTPError(.connectionClosed, "the server presented no certificate")
        }
        return observation
    }
}
#endif
