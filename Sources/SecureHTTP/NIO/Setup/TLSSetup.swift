import NIOCore
import NIOSSL
import ServerTrust

/// The client identity loaded into NIOSSL types.
struct LoadedClientIdentity: Sendable {
    let certificateChain: [NIOSSLCertificate]
    let privateKey: NIOSSLPrivateKey

    init(_ identity: ClientIdentity) throws(SecureHTTPError) {
        do {
            switch identity.storage {
            case .pem(let chain, let key):
                self.certificateChain = try NIOSSLCertificate.fromPEMBytes(chain)
                self.privateKey = try NIOSSLPrivateKey(bytes: key, format: .pem)
            case .pkcs12(let bundle, let passphrase):
                let loaded = try NIOSSLPKCS12Bundle(buffer: bundle, passphrase: passphrase)
                self.certificateChain = loaded.certificateChain
                self.privateKey = loaded.privateKey
            }
        } catch {
            // The NIOSSL error may quote BoringSSL reasons but never key material; still, keep
            // only a fixed message.
            throw SecureHTTPError(.invalidClientIdentity, "the client certificate or key could not be loaded")
        }
        if self.certificateChain.isEmpty {
            throw SecureHTTPError(.invalidClientIdentity, "the client identity holds no certificate")
        }
    }
}

enum TLSSetup {
    /// AEAD suites with ECDHE key exchange: forward secret (TLS 1.2; TLS 1.3 suites always are).
    static let forwardSecretSuites: [NIOTLSCipher] = [
        .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    ]
    /// CBC suites, only offered when an exception allows TLS below 1.2 (which has no AEAD).
    static let legacyForwardSecretSuites: [NIOTLSCipher] = [
        .TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, .TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
        .TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, .TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
    ]
    /// RSA key exchange: no forward secrecy; only offered when an exception turns it off.
    static let staticRSASuites: [NIOTLSCipher] = [.TLS_RSA_WITH_AES_128_GCM_SHA256, .TLS_RSA_WITH_AES_256_GCM_SHA384]
    static let legacyStaticRSASuites: [NIOTLSCipher] = [.TLS_RSA_WITH_AES_128_CBC_SHA, .TLS_RSA_WITH_AES_256_CBC_SHA]

    /// The CBC suites of ATS's forward-secret list that BoringSSL implements (its two
    /// AES-256-CBC-SHA384 suites it does not), offered for ``CipherSuitePolicy/ats``.
    static let atsCBCSuites: [NIOTLSCipher] = [
        NIOTLSCipher(rawValue: 0xC023),  // TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256
        .TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, .TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
        NIOTLSCipher(rawValue: 0xC027),  // TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256
        .TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
    ]

    static func cipherSuites(for requirements: ConnectionRequirements) -> [NIOTLSCipher] {
        let legacy = requirements.minimumTLSVersion < .v1_2
        var suites = Self.forwardSecretSuites
        if requirements.cipherSuites == .ats {
            suites += Self.atsCBCSuites
        }
        if legacy {
            suites += Self.legacyForwardSecretSuites.filter { !suites.contains($0) }
        }
        if !requirements.requiresForwardSecrecy {
            suites += Self.staticRSASuites + (legacy ? Self.legacyStaticRSASuites : [])
        }
        return suites
    }

    /// Whether connections of `requirements` may offer `h2` in ALPN: only when every suite they
    /// offer for TLS 1.2 is one RFC 9113 §9.2.2 (and its Appendix A list) allows, ECDHE with an
    /// AEAD cipher, and the minimum TLS version is 1.2 (§9.2). NIOSSL does not report which suite
    /// the server chose, so a connection that could land on a prohibited one never offers `h2`.
    ///
    /// Asked on every request: it reads the requirements rather than building the suite list.
    /// At TLS 1.2 and above only ATS's CBC suites and RSA key exchange widen the list beyond
    /// ``forwardSecretSuites`` (a test checks this against ``cipherSuites(for:)``).
    static func offersHTTP2(
        _ requirements: ConnectionRequirements,
        versions: HTTPTransportConfiguration.HTTPVersions
    ) -> Bool {
        versions.offersHTTP2 && requirements.usesTLS && requirements.minimumTLSVersion >= .v1_2
            && requirements.cipherSuites != .ats && requirements.requiresForwardSecrecy
    }

    static func nioVersion(wireValue: UInt16) -> NIOSSL.TLSVersion {
        switch wireValue {
        case 0x0301: .tlsv1
        case 0x0302: .tlsv11
        case 0x0303: .tlsv12
        default: .tlsv13
        }
    }

    /// The NIOSSL client configuration for a connection's requirements.
    ///
    /// The peer must present a certificate, and the custom callback installed on the handler
    /// replaces BoringSSL's checks with ServerTrust: path validation, the Web PKI rules, the host
    /// name (RFC 6125, IP SANs) and the pins (NIOSSL skips the callback only for `.none`, which is
    /// never used here). No trust roots are loaded: ServerTrust owns them.
    ///
    /// The mode is `.noHostnameVerification` rather than `.fullVerification` because the only
    /// difference between the two is NIOSSL's own name check after the handshake, which repeats
    /// the one ServerTrust has already made inside the callback (and refused with
    /// `hostnameMismatch`, as the live trust matrix shows) at the price of parsing the leaf again
    /// on every new connection.
    static func configuration(
        for requirements: ConnectionRequirements,
        identity: LoadedClientIdentity?,
        offersHTTP2: Bool = false
    ) -> TLSConfiguration {
        Self.configuration(for: ContextShape(requirements, offersHTTP2: offersHTTP2), identity: identity)
    }

    /// What of a connection's requirements shapes its `NIOSSLContext`: the TLS floor and
    /// ceiling, the cipher suites and the ALPN offer. The host, port, pins, anchors and CT are
    /// not in it: the context loads no roots and checks no name (ServerTrust does, per
    /// connection, in the verification callback), and the client identity is the pool's, the
    /// same for every connection. So every origin with the same shape shares one context.
    struct ContextShape: Hashable, Sendable {
        let minimumTLSVersion: NIOSSL.TLSVersion
        /// Nil: the newest version BoringSSL speaks (the policy sets no ceiling).
        let maximumTLSVersion: NIOSSL.TLSVersion?
        let cipherSuites: [NIOTLSCipher]
        let applicationProtocols: [String]

        init(_ requirements: ConnectionRequirements, offersHTTP2: Bool) {
            self.minimumTLSVersion = TLSSetup.nioVersion(wireValue: requirements.minimumTLSVersion.wireValue)
            self.maximumTLSVersion = nil
            self.cipherSuites = TLSSetup.cipherSuites(for: requirements)
            // RFC 9113 §3.2: `h2` first when HTTP/2 is wanted; the server's choice decides.
            self.applicationProtocols = offersHTTP2 ? ["h2", "http/1.1"] : ["http/1.1"]
        }
    }

    /// The NIOSSL client configuration for a context shape and the pool's client identity.
    static func configuration(for shape: ContextShape, identity: LoadedClientIdentity?) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = shape.minimumTLSVersion
        tls.maximumTLSVersion = shape.maximumTLSVersion
        tls.cipherSuiteValues = shape.cipherSuites
        // SECURITY: not a relaxation. The host name is checked by ServerTrust in the callback
        // (see above); this only drops NIOSSL's duplicate check.
        tls.certificateVerification = .noHostnameVerification
        tls.trustRoots = .certificates([])
        tls.applicationProtocols = shape.applicationProtocols
        // RFC 9113 §9.2.1: no renegotiation on HTTP/2 (and none on HTTP/1.1 either).
        tls.renegotiationSupport = .none
        if let identity {
            tls.certificateChain = identity.certificateChain.map { .certificate($0) }
            tls.privateKey = .privateKey(identity.privateKey)
        }
        return tls
    }

    /// Maps a TLS error to the transport's error, preferring the ServerTrust reason.
    static func mapError(_ error: any Error, trust: HandshakeTrust?, host: String) -> SecureHTTPError {
        if let failure = trust?.failure {
            return .trust(failure.error, host: host, report: failure.report)
        }
        if let error = error as? SecureHTTPError { return error }
        let text = String(describing: error)
        if text.contains("WRONG_VERSION_NUMBER") && trust?.serverPresentedCertificate != true {
            return SecureHTTPError(.tlsFailure, "\(host) did not answer with TLS (a plain HTTP port?)")
        }
        if text.contains("CERTIFICATE_REQUIRED") {
            return SecureHTTPError(.clientCertificateRequired, "\(host) requires a client certificate")
        }
        if text.contains("PROTOCOL_VERSION") || text.contains("UNSUPPORTED_PROTOCOL") {
            return SecureHTTPError(
                .tlsVersionRefused,
                "\(host) and this client share no TLS version the policy allows"
            )
        }
        // BoringSSL names a cipher mismatch it sees itself; a server's handshake_failure alert
        // before it presented any certificate refused the ClientHello, whose cipher suites are
        // what a policy narrows (groups and signature algorithms are BoringSSL's broad defaults).
        if text.contains("NO_SHARED_CIPHER") || text.contains("NO_CIPHERS_AVAILABLE")
            || text.contains("WRONG_CIPHER_RETURNED")
            || (text.contains("HANDSHAKE_FAILURE") && trust?.serverPresentedCertificate == false)
        {
            let offered =
                trust.map { trust in
                    trust.requirements.cipherSuites == .ats
                        ? "ATS's forward-secret list"
                        : (trust.requirements.requiresForwardSecrecy
                            ? "ECDHE with AES-GCM or ChaCha20-Poly1305; a domain exception with \"cipherSuites\": \"ats\" adds ATS's CBC suites"
                            : "AEAD suites with and without forward secrecy")
                } ?? "the policy's"
            return SecureHTTPError(
                .cipherSuiteRefused,
                "\(host) accepts none of the TLS 1.2 cipher suites the policy offers (\(offered))"
            )
        }
        if text.contains("HANDSHAKE_FAILURE") {
            return SecureHTTPError(
                .tlsHandshakeFailure,
                "\(host) refused the handshake (no cipher suite in common, or a client certificate it requires)"
            )
        }
        if text.contains("BAD_CERTIFICATE") || text.contains("UNKNOWN_CA") || text.contains("CERTIFICATE_UNKNOWN") {
            return SecureHTTPError(.clientCertificateRequired, "\(host) refused the client certificate")
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return SecureHTTPError(.tlsFailure, "TLS with \(host) failed: \(TransportErrorText.sentence(for: error))")
        }
        return SecureHTTPError(
            .connectFailed,
            "the connection to \(host) failed: \(TransportErrorText.sentence(for: error))"
        )
    }
}
