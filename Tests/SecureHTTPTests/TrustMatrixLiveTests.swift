import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import SecureHTTP
import SecureNetworkingTesting
import ServerTrust
import Testing

/// The certificate matrix against real TLS on 127.0.0.1, over HTTP/1.1 and HTTP/2 (the server
/// offers `h2` or nothing in ALPN): each bad chain is refused in the handshake with its own
/// ServerTrust code, and the server never sees a request; a good one is served over the
/// protocol the server chose.
@Suite("Live TLS: certificate matrix")
struct TrustMatrixLiveTests {
    @Test(arguments: WireProtocol.allCases)
    func validChainIsAccepted(over wire: WireProtocol) async throws {
        let chain = try Live.pki.validChain()
        try await withLoopbackHTTPServer(Live.tls(chain, over: wire), handler: { _ in .text("hello") }) { server in
            try await withTransport { transport in
                let response = try await transport.send(get(url(server, "/hello")))
                #expect(response.response.status == .ok)
                #expect(String(decoding: response.body, as: UTF8.self) == "hello")
                #expect(server.statistics.requests.map(\.uri) == ["/hello"])
                #expect(server.statistics.handshakesCompleted == 1)
                #expect(transport.statistics.http2ConnectionsOpened == (wire == .http2 ? 1 : 0))
                expectNegotiated(wire, on: server)
            }
        }
    }

    @Test(arguments: WireProtocol.allCases)
    func validChainOverAnIPAddressIsAccepted(over wire: WireProtocol) async throws {
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain(), over: wire)) { server in
            try await withTransport { transport in
                let response = try await transport.send(get(url(server, host: "127.0.0.1")))
                #expect(response.response.status == .ok)
                expectNegotiated(wire, on: server)
            }
        }
    }

    static let badChains: [(String, @Sendable (TestPKI) throws -> TestPKI.Chain, ServerTrustError.Code)] = [
        ("expired", { try $0.expiredChain() }, .expired),
        ("not yet valid", { try $0.notYetValidChain() }, .notYetValid),
        ("wrong host", { try $0.wrongHostChain() }, .hostnameMismatch),
        ("self-signed", { try $0.selfSignedChain() }, .selfSigned),
        ("untrusted root", { try $0.untrustedRootChain() }, .untrustedRoot),
        ("missing intermediate", { try $0.missingIntermediateChain() }, .missingIntermediate),
        ("SHA-1 leaf", { try $0.sha1Chain() }, .weakSignatureAlgorithm),
        ("RSA-1024 leaf", { try $0.rsa1024Chain() }, .weakKey),
    ]

    @Test(arguments: 0..<Self.badChains.count, WireProtocol.allCases)
    func badChainIsRefused(case index: Int, over wire: WireProtocol) async throws {
        let (name, make, expected) = Self.badChains[index]
        let chain = try make(Live.pki)
        try await withLoopbackHTTPServer(Live.tls(chain, over: wire)) { server in
            try await withTransport { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.code == .serverTrustFailure, "\(name)")
                #expect(error?.serverTrustError?.code == expected, "\(name): \(String(describing: error))")
                #expect(server.statistics.requests.isEmpty, "\(name): a request reached the server")
                #expect(server.statistics.http2Streams == 0)
                #expect(transport.statistics.connectionsOpened == 0)
            }
        }
    }
}

/// Certificate Transparency over real TLS: a host whose exception requires CT (ATS's
/// `NSRequiresCertificateTransparency`) is reached only with a certificate whose embedded SCTs
/// satisfy the CT policy; the check runs in the handshake, before any request.
@Suite("Live TLS: Certificate Transparency")
struct TransparencyLiveTests {
    static let logs = [
        TestPKI.CTLog(description: "Live Argon", operatorName: "Operator A"),
        TestPKI.CTLog(description: "Live Oak", operatorName: "Operator B"),
    ]

    static func policy() throws -> TransportSecurityPolicy {
        var policy = Live.policy
        policy.setException(DomainException(requiresCertificateTransparency: true), for: "localhost")
        policy.certificateTransparency.logList = try TestPKI.logList(
            Self.logs,
            timestamp: Date().addingTimeInterval(-86_400)
        )
        return policy
    }

    static func sctTime() -> Date { Live.pki.referenceTime.addingTimeInterval(-3600) }

    @Test(arguments: WireProtocol.allCases)
    func aCertificateWithEnoughSCTsIsAccepted(over wire: WireProtocol) async throws {
        let chain = try Live.pki.leafWithSCTs(scts: Self.logs.map { .init($0, time: Self.sctTime()) }).chain
        try await withLoopbackHTTPServer(Live.tls(chain, over: wire)) { server in
            try await withTransport(Live.configuration(policy: try Self.policy())) { transport in
                let response = try await transport.send(get(url(server, "/ct")))
                #expect(response.response.status == .ok)
                #expect(server.statistics.requests.map(\.uri) == ["/ct"])
                expectNegotiated(wire, on: server)
            }
        }
    }

    @Test func aStaleLogListLetsTheConnectionThroughAndReportsIt() async throws {
        var policy = try Self.policy()
        policy.certificateTransparency.logList = try TestPKI.logList(
            Self.logs,
            timestamp: Date().addingTimeInterval(-71 * 86_400)
        )
        let reports = NIOLockedValueBox<[CertificateTransparencyReport]>([])
        let configuration = Live.configuration(policy: policy) {
            $0.transparencyReporter = { report in reports.withLockedValue { $0.append(report) } }
        }
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain(), over: .http1)) { server in
            try await withTransport(configuration) { transport in
                let first = try await transport.send(get(url(server, "/a")))
                #expect(first.response.status == .ok)
                let second = try await transport.send(get(url(server, "/b")))
                #expect(second.response.status == .ok)
            }
        }
        let seen = reports.withLockedValue { $0 }
        #expect(seen.map(\.result) == [.notEnforcedStaleLogList])
        #expect(seen.first?.host == "localhost")
        #expect(policy.securityWarnings.contains { $0.contains("is stale: CT is not enforced") })
    }

    @Test func aRefusalIsReported() async throws {
        let reports = NIOLockedValueBox<[CertificateTransparencyReport]>([])
        let configuration = Live.configuration(policy: try Self.policy()) {
            $0.transparencyReporter = { report in reports.withLockedValue { $0.append(report) } }
        }
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain(), over: .http2)) { server in
            try await withTransport(configuration) { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.serverTrustError?.code == .ctNoSCTs)
            }
        }
        let seen = reports.withLockedValue { $0 }
        #expect(seen.map(\.result) == [.notCompliant])
        #expect(seen.first?.failureCode == "ctNoSCTs")
    }

    static let refused: [(String, @Sendable () throws -> TestPKI.Chain, ServerTrustError.Code)] = [
        ("no SCTs", { try Live.pki.validChain() }, .ctNoSCTs),
        (
            "an SCT over another certificate",
            {
                try Live.pki.leafWithSCTs(scts: [
                    .init(logs[0], time: sctTime(), signsWrongTBS: true), .init(logs[1], time: sctTime()),
                ]).chain
            }, .ctBadSignature
        ),
        (
            "one operator only",
            {
                try Live.pki.leafWithSCTs(scts: [
                    .init(logs[0], time: sctTime()), .init(logs[0], time: sctTime().addingTimeInterval(-60)),
                ]).chain
            }, .ctTooFewSCTs
        ),
    ]

    @Test(arguments: 0..<Self.refused.count, WireProtocol.allCases)
    func aCertificateWithoutEnoughSCTsIsRefusedInTheHandshake(case index: Int, over wire: WireProtocol) async throws {
        let (name, make, expected) = Self.refused[index]
        try await withLoopbackHTTPServer(Live.tls(try make(), over: wire)) { server in
            try await withTransport(Live.configuration(policy: try Self.policy())) { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.code == .serverTrustFailure, "\(name)")
                #expect(error?.serverTrustError?.code == expected, "\(name): \(String(describing: error))")
                #expect(server.statistics.requests.isEmpty, "\(name): a request reached the server")
            }
            // The same chain is fine for a policy that does not require CT.
            try await withTransport { transport in
                let response = try await transport.send(get(url(server)))
                #expect(response.response.status == .ok, "\(name)")
            }
        }
    }
}
