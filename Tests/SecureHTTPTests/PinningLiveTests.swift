#if TestServers
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import SecureHTTP
import SecureNetworkingTesting
import ServerTrust
import Testing

/// Public-key pinning in the handshake, including a man in the middle whose CA the device trusts.
@Suite("Live TLS: pinning and interception")
struct PinningLiveTests {
    static func policy(pins: [Pin], anchors: TrustAnchors = Live.pki.trustAnchors) throws -> TransportSecurityPolicy {
        var policy = TransportSecurityPolicy(trustAnchors: anchors)
        policy.pinning.pin(try HostPattern("localhost"), to: try PinSet(pins: pins))
        return policy
    }

    /// Pins of keys that no test server uses.
    static let unrelatedPins = [Live.pki.untrustedRoot.pin, Live.pki.untrustedIntermediate.pin]

    @Test(arguments: WireProtocol.allCases)
    func matchingPinIsAccepted(over wire: WireProtocol) async throws {
        let chain = try Live.pki.validChain()
        let policy = try Self.policy(pins: [Live.pki.intermediate.pin, Self.unrelatedPins[0]])
        try await withLoopbackHTTPServer(Live.tls(chain, over: wire)) { server in
            try await withTransport(Live.configuration(policy: policy)) { transport in
                let response = try await transport.send(get(url(server)))
                #expect(response.response.status == .ok)
                expectNegotiated(wire, on: server)
            }
        }
    }

    @Test(arguments: WireProtocol.allCases)
    func mismatchIsRefusedAndListsTheServedPins(over wire: WireProtocol) async throws {
        let chain = try Live.pki.validChain()
        let reports = NIOLockedValueBox<[PinValidationReport]>([])
        let configuration = Live.configuration(policy: try Self.policy(pins: Self.unrelatedPins)) {
            $0.pinValidationReporter = { report in reports.withLockedValue { $0.append(report) } }
        }
        try await withLoopbackHTTPServer(Live.tls(chain, over: wire)) { server in
            try await withTransport(configuration) { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.code == .serverTrustFailure)
                #expect(server.statistics.http2Streams == 0)
                #expect(error?.serverTrustError?.code == .pinMismatch)
                let message = error?.serverTrustError?.message ?? ""
                #expect(message.contains(chain.leafIdentity.pin.description))
                #expect(message.contains(Live.pki.intermediate.pin.description))
                #expect(error?.pinReport?.result == .rejected)
                #expect(reports.withLockedValue { $0.map(\.host) } == ["localhost"])
                #expect(server.statistics.requests.isEmpty)
            }
        }
    }

    @Test(arguments: WireProtocol.allCases)
    func backupPinIsAcceptedAfterRotation(over wire: WireProtocol) async throws {
        let retired = try Live.pki.validChain()
        let rotated = try Live.pki.validChain()
        #expect(retired.leafIdentity.pin != rotated.leafIdentity.pin)
        // The app shipped with the retired key's pin and the new key's pin as the backup.
        let policy = try Self.policy(pins: [retired.leafIdentity.pin, rotated.leafIdentity.pin])
        try await withLoopbackHTTPServer(Live.tls(rotated, over: wire)) { server in
            try await withTransport(Live.configuration(policy: policy)) { transport in
                let response = try await transport.send(get(url(server)))
                #expect(response.response.status == .ok)
                expectNegotiated(wire, on: server)
            }
        }
    }

    /// The device trusts the interception CA (a corporate or debugging proxy, or an attacker who
    /// got a CA installed): without pins the intercepted connection validates.
    @Test func interceptionWithATrustedCAAndNoPinsIsAccepted() async throws {
        let anchors = TrustAnchors.only([Live.pki.root.certificate, Live.pki.interceptionCA.certificate])
        try await withInterception { server, proxy in
            try await withTransport(Live.configuration(policy: TransportSecurityPolicy(trustAnchors: anchors))) {
                transport in
                let response = try await transport.send(get(URL(string: "https://localhost:\(proxy.port)/secret")!))
                #expect(String(decoding: response.body, as: UTF8.self) == "from the real server")
                #expect(proxy.interceptedConnections == 1)
                #expect(server.statistics.requests.map(\.uri) == ["/secret"])
            }
        }
    }

    /// The same interception is refused when the host is pinned to its real keys.
    @Test func interceptionIsRefusedWithPins() async throws {
        let anchors = TrustAnchors.only([Live.pki.root.certificate, Live.pki.interceptionCA.certificate])
        let policy = try Self.policy(pins: [Live.pki.intermediate.pin, Live.pki.root.pin], anchors: anchors)
        try await withInterception { server, proxy in
            try await withTransport(Live.configuration(policy: policy)) { transport in
                let error = await expectFailure(transport, get(URL(string: "https://localhost:\(proxy.port)/secret")!))
                #expect(error?.serverTrustError?.code == .pinMismatch)
                #expect(error?.serverTrustError?.message.contains(Live.pki.interceptionCA.pin.description) == true)
                #expect(server.statistics.requests.isEmpty)
            }
        }
    }

    private func withInterception(
        _ body: (LoopbackHTTPServer, InterceptingProxy) async throws -> Void
    ) async throws {
        let chain = try Live.pki.validChain()
        try await withLoopbackHTTPServer(Live.tls(chain), handler: { _ in .text("from the real server") }) { server in
            let proxy = try await InterceptingProxy.start(
                upstreamPort: server.port,
                interceptionChain: try Live.pki.interceptionChain(),
                upstreamRoots: [Live.pki.root]
            )
            do {
                try await body(server, proxy)
                await proxy.shutdown()
            } catch {
                await proxy.shutdown()
                throw error
            }
        }
    }
}
#endif
