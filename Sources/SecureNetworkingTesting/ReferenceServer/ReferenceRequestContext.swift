#if TestServers
import Hummingbird
import NIOCore
import NIOSSL
import X509

/// The per-request context of the reference server: the connection the request came on, so a
/// handler can ask its TLS handler for the client certificate.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
struct ReferenceRequestContext: InitializableFromSource {
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.channel = source.channel
    }

    /// The client's IP address, for per-address limits.
    var remoteAddress: String? { self.channel.remoteAddress?.ipAddress }

    /// The client certificate of this connection, if the client presented one.
    ///
    /// NIOSSL only completes the handshake when a presented certificate chains to the
    /// configured client CAs, so a certificate here has been verified.
    func clientCertificate() async -> Certificate? {
        guard let peer = try? await self.channel.nioSSL_peerCertificate().get(),
            let der = try? peer.toDERBytes()
        else { return nil }
        return try? Certificate(derEncoded: der)
    }
}
#endif
