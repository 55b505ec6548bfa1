#if canImport(Security)
import Foundation
import HTTPTypes
import SecureHTTP
import SecureNetworkingTesting
import ServerTrust
import Testing

/// `NIOHTTPTransport` with a policy that trusts the system roots and adds the app's own
/// (`TrustAnchors.system(adding:)`), on Apple platforms: the chain is validated by
/// Security.framework inside the handshake (the system roots plus the added test root), then
/// ServerTrust's key rules and pins run on the chain it validated. Each refusal comes back with
/// ServerTrust's code and the server never sees a request.
@Suite("NIOHTTPTransport with the system roots and an added root (Apple platforms)")
struct NIOSystemRootsAppleTests {
    /// The system roots and the test root; pinned for localhost when `pins` is given.
    static func policy(pins: [Pin]? = nil) throws -> TransportSecurityPolicy {
        let anchors = TrustAnchors.system(adding: [Live.pki.root.certificate])
        guard let pins else { return TransportSecurityPolicy(trustAnchors: anchors) }
        return try PinningLiveTests.policy(pins: pins, anchors: anchors)
    }

    @Test(arguments: WireProtocol.allCases)
    func chainToTheAddedRootIsAccepted(over wire: WireProtocol) async throws {
        let chain = try Live.pki.validChain()
        try await withLoopbackHTTPServer(Live.tls(chain, over: wire), handler: { _ in .text("hello") }) { server in
            try await withTransport(Live.configuration(policy: try Self.policy())) { transport in
                let response = try await transport.send(get(url(server, "/hello")))
                #expect(response.response.status == .ok)
                #expect(String(decoding: response.body, as: UTF8.self) == "hello")
                #expect(server.statistics.requests.map(\.uri) == ["/hello"])
                #expect(server.statistics.handshakesCompleted == 1)
                expectNegotiated(wire, on: server)
            }
        }
    }

    @Test func matchingPinIsAccepted() async throws {
        let policy = try Self.policy(pins: [Live.pki.intermediate.pin, PinningLiveTests.unrelatedPins[0]])
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain())) { server in
            try await withTransport(Live.configuration(policy: policy)) { transport in
                let response = try await transport.send(get(url(server)))
                #expect(response.response.status == .ok)
                #expect(server.statistics.requests.count == 1)
            }
        }
    }

    /// Chains Security.framework refuses, each with the ServerTrust code of its OSStatus: no path
    /// to the system roots or the added root (errSecNotTrusted), an expired leaf
    /// (errSecCertificateExpired), a leaf for another host (errSecHostNameMismatch).
    static let refusedChains: [(String, @Sendable (TestPKI) throws -> TestPKI.Chain, ServerTrustError.Code)] = [
        ("another root", { try $0.untrustedRootChain() }, .untrustedRoot),
        ("expired", { try $0.expiredChain() }, .expired),
        ("wrong host", { try $0.wrongHostChain() }, .hostnameMismatch),
    ]

    @Test(arguments: 0..<Self.refusedChains.count)
    func chainSecurityFrameworkRefusesIsRefused(case index: Int) async throws {
        let (name, make, expected) = Self.refusedChains[index]
        try await withLoopbackHTTPServer(Live.tls(try make(Live.pki))) { server in
            try await withTransport(Live.configuration(policy: try Self.policy())) { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.code == .serverTrustFailure, "\(name): \(String(describing: error))")
                #expect(error?.serverTrustError?.code == expected, "\(name): \(String(describing: error))")
                #expect(server.statistics.requests.isEmpty, "\(name): a request reached the server")
                #expect(transport.statistics.connectionsOpened == 0)
            }
        }
    }

    @Test func pinMismatchIsRefusedAndListsTheServedPins() async throws {
        let chain = try Live.pki.validChain()
        try await withLoopbackHTTPServer(Live.tls(chain)) { server in
            let policy = try Self.policy(pins: PinningLiveTests.unrelatedPins)
            try await withTransport(Live.configuration(policy: policy)) { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.code == .serverTrustFailure, "\(String(describing: error))")
                #expect(error?.serverTrustError?.code == .pinMismatch)
                #expect(error?.serverTrustError?.message.contains(chain.leafIdentity.pin.description) == true)
                #expect(error?.pinReport?.result == .rejected)
                #expect(server.statistics.requests.isEmpty)
            }
        }
    }
}
#endif
