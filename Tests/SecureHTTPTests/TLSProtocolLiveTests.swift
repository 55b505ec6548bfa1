import Foundation
import HTTPTypes
import NIOSSL
import SecureHTTP
import SecureNetworkingTesting
import ServerTrust
import Testing
import X509

/// TLS versions, cipher suites and mutual TLS against real servers on loopback.
@Suite("Live TLS: versions, ciphers, client certificates")
struct TLSProtocolLiveTests {
    @Test(arguments: [NIOSSL.TLSVersion.tlsv1, .tlsv11])
    func legacyOnlyServerIsRefused(version: NIOSSL.TLSVersion) async throws {
        let tls = Live.tls(try Live.pki.validChain()) {
            $0.minimumVersion = version
            $0.maximumVersion = version
        }
        try await withLoopbackHTTPServer(tls) { server in
            try await withTransport { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.code == .tlsVersionRefused, "\(String(describing: error))")
                #expect(server.statistics.handshakesCompleted == 0)
            }
        }
    }

    @Test(arguments: WireProtocol.allCases)
    func tls13IsAccepted(over wire: WireProtocol) async throws {
        let tls = Live.tls(try Live.pki.validChain(), over: wire) { $0.minimumVersion = .tlsv13 }
        try await withLoopbackHTTPServer(tls) { server in
            try await withTransport { transport in
                let response = try await transport.send(get(url(server)))
                #expect(response.response.status == .ok)
                #expect(server.statistics.handshakesCompleted == 1)
                expectNegotiated(wire, on: server)
            }
        }
    }

    /// RFC 9113 §9.2: HTTP/2 over TLS 1.2 with an ECDHE AEAD suite (the policy's default list).
    @Test(arguments: WireProtocol.allCases)
    func tls12WithForwardSecrecyIsAccepted(over wire: WireProtocol) async throws {
        let tls = Live.tls(try Live.pki.validChain(), over: wire) { $0.maximumVersion = .tlsv12 }
        try await withLoopbackHTTPServer(tls) { server in
            try await withTransport { transport in
                let response = try await transport.send(get(url(server)))
                #expect(response.response.status == .ok)
                expectNegotiated(wire, on: server)
            }
        }
    }

    /// A TLS 1.2 server that only offers TLS_RSA_WITH_AES_128_GCM_SHA256 (RSA key exchange,
    /// no forward secrecy) needs an RSA certificate.
    static func staticRSAServer() throws -> LoopbackHTTPServer.TLS {
        let chain = try Live.pki.leaf {
            $0.issuer = .rsaIntermediate
            $0.key = .rsa(bits: 2048)
            $0.keyUsage = KeyUsageFixture.digitalSignatureAndKeyEncipherment
        }
        return Live.tls(chain) {
            $0.maximumVersion = .tlsv12
            $0.cipherSuites = [.TLS_RSA_WITH_AES_128_GCM_SHA256]
        }
    }

    @Test func nonForwardSecretCipherIsRefused() async throws {
        try await withLoopbackHTTPServer(try Self.staticRSAServer()) { server in
            try await withTransport { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.code == .cipherSuiteRefused, "\(String(describing: error))")
                #expect(server.statistics.handshakesCompleted == 0)
            }
        }
    }

    /// A TLS 1.2 server offering only ECDHE-ECDSA-AES128-SHA: forward secret and on ATS's list,
    /// but CBC, so outside the AEAD-only default.
    static func cbcOnlyServer() throws -> LoopbackHTTPServer.TLS {
        Live.tls(try Live.pki.validChain()) {
            $0.maximumVersion = .tlsv12
            $0.cipherSuites = [.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA]
        }
    }

    @Test func aCBCOnlyServerIsRefusedByNameUnderTheAEADDefault() async throws {
        try await withLoopbackHTTPServer(try Self.cbcOnlyServer()) { server in
            try await withTransport { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.code == .cipherSuiteRefused, "\(String(describing: error))")
                #expect(error?.message.contains("\"cipherSuites\": \"ats\"") == true)
                #expect(server.statistics.handshakesCompleted == 0)
            }
        }
    }

    @Test func aCBCOnlyServerIsReachedWithTheATSCipherList() async throws {
        var policy = Live.policy
        policy.setException(DomainException(cipherSuites: .ats), for: "localhost")
        #expect(policy.securityWarnings.contains("localhost: ATS's CBC cipher suites are offered"))
        try await withLoopbackHTTPServer(try Self.cbcOnlyServer()) { server in
            try await withTransport(Live.configuration(policy: policy)) { transport in
                let response = try await transport.send(get(url(server)))
                #expect(response.response.status == .ok)
                #expect(server.statistics.handshakesCompleted == 1)
            }
        }
        // The ATS list stays forward secret: a static-RSA server is still refused.
        try await withLoopbackHTTPServer(try Self.staticRSAServer()) { server in
            try await withTransport(Live.configuration(policy: policy)) { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.code == .cipherSuiteRefused, "\(String(describing: error))")
            }
        }
    }

    @Test func nonForwardSecretCipherIsAcceptedWithADomainException() async throws {
        var policy = Live.policy
        policy.setException(DomainException(requiresForwardSecrecy: false), for: "localhost")
        try await withLoopbackHTTPServer(try Self.staticRSAServer()) { server in
            try await withTransport(Live.configuration(policy: policy)) { transport in
                let response = try await transport.send(get(url(server)))
                #expect(response.response.status == .ok)
                #expect(server.statistics.handshakesCompleted == 1)
            }
        }
    }

    static func mutualTLSServer(over wire: WireProtocol = .http1) throws -> LoopbackHTTPServer.TLS {
        Live.tls(try Live.pki.validChain(), over: wire) { $0.requiredClientCertificateIssuers = [Live.pki.clientCA] }
    }

    @Test(arguments: WireProtocol.allCases)
    func clientCertificateFromPEMIsPresented(over wire: WireProtocol) async throws {
        let client = try Live.pki.clientIdentity()
        let configuration = Live.configuration {
            $0.clientIdentity = .pem(certificateChain: client.pem, privateKey: client.leafIdentity.privateKeyPEM)
        }
        try await withLoopbackHTTPServer(try Self.mutualTLSServer(over: wire)) { server in
            try await withTransport(configuration) { transport in
                let response = try await transport.send(get(url(server)))
                #expect(response.response.status == .ok)
                #expect(server.statistics.requests.count == 1)
                expectNegotiated(wire, on: server)
            }
        }
    }

    @Test func clientCertificateFromPKCS12IsPresented() async throws {
        let client = try Live.pki.clientIdentity(commonName: "p12-client")
        let bundle = try PKCS12Fixture.make(client, passphrase: "correct horse")
        let configuration = Live.configuration { $0.clientIdentity = .pkcs12(bundle, passphrase: "correct horse") }
        try await withLoopbackHTTPServer(try Self.mutualTLSServer()) { server in
            try await withTransport(configuration) { transport in
                let response = try await transport.send(get(url(server)))
                #expect(response.response.status == .ok)
            }
        }
    }

    @Test func pkcs12WithTheWrongPassphraseIsRefused() throws {
        let client = try Live.pki.clientIdentity()
        let bundle = try PKCS12Fixture.make(client, passphrase: "right")
        let configuration = Live.configuration { $0.clientIdentity = .pkcs12(bundle, passphrase: "wrong") }
        do {
            _ = try NIOHTTPTransport(configuration: configuration)
            Issue.record("a PKCS#12 bundle opened with the wrong passphrase")
        } catch {
            #expect(error.code == .invalidClientIdentity)
            #expect(!error.description.contains("wrong"))
        }
        #expect(!String(describing: configuration.clientIdentity!).contains("wrong"))
    }

    @Test(arguments: WireProtocol.allCases)
    func missingClientCertificateIsRefused(over wire: WireProtocol) async throws {
        try await withLoopbackHTTPServer(try Self.mutualTLSServer(over: wire)) { server in
            try await withTransport { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.code == .clientCertificateRequired, "\(String(describing: error))")
                #expect(server.statistics.requests.isEmpty)
            }
        }
    }
}

enum KeyUsageFixture {
    /// RSA key exchange encrypts the premaster secret to the leaf key: keyEncipherment.
    static let digitalSignatureAndKeyEncipherment = KeyUsage(
        digitalSignature: true,
        keyEncipherment: true
    )
}
