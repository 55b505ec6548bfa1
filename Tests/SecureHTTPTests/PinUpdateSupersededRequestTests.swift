import Foundation
import HTTPTypes
import SecureNetworkingTesting
import ServerTrust
import Testing

@testable import SecureHTTP

/// Issue 51 item 14: a request prepared before a pin update (waiting for a connection, or
/// retried after it was not sent) never opens a connection under the pins the update
/// replaced: the pool sends it back, and it is resolved again under the pins now in force.
@Suite("Pin updates: requests prepared before an update")
struct PinUpdateSupersededRequestTests {
    static let unrelatedPins = PinUpdateLiveTests.unrelatedPins

    /// The compiled-in pins: the server's leaf and a backup.
    static func policy(_ chain: TestPKI.Chain) throws -> TransportSecurityPolicy {
        var policy = TransportSecurityPolicy(trustAnchors: Live.pki.trustAnchors)
        policy.pinning.pin(
            try HostPattern("localhost"),
            to: try PinSet(pins: [chain.leafIdentity.pin, Self.unrelatedPins[0]])
        )
        return policy
    }

    @Test func aRequestWaitingForAConnectionWhenThePinsChangeIsVerifiedUnderTheNewPins() async throws {
        let chain = try Live.pki.validChain()
        let gate = LoopbackHTTPServer.Gate()
        let handler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { _ in
            .after(gate, .text("ok"))
        }
        try await withLoopbackHTTPServer(Live.tls(chain, over: .http1), handler: handler) { server in
            let configuration = Live.configuration(policy: try Self.policy(chain)) {
                $0.maximumConnectionsPerHost = 1
            }
            try await withTransport(configuration) { transport in
                // The only connection is busy; the second request queues for it.
                let first = Task { try await transport.send(get(url(server, "/first"))) }
                try await waitUntil { server.statistics.requests.count == 1 }
                let waiting = Task { try await transport.send(get(url(server, "/waiting"))) }
                try await waitUntil { transport.pool.waitingRequests == 1 }

                // Pins the server cannot satisfy. The request in flight finishes; the waiting
                // one, prepared under the old pins, is resolved again and refused in its
                // handshake instead of opening a connection under the old pins.
                transport.applyPinUpdate(try PinUpdateLiveTests.update(2, Self.unrelatedPins))
                gate.open()
                #expect(try await first.value.response.status == .ok)
                switch await waiting.result {
                case .success:
                    Issue.record("the waiting request was sent on a connection verified under the replaced pins")
                case .failure(let error):
                    #expect((error as? SecureHTTPError)?.serverTrustError?.code == .pinMismatch)
                }
                #expect(server.statistics.requests.map(\.uri) == ["/first"])
            }
        }
    }

    @Test func thePoolGivesNoConnectionToAKeyResolvedBeforeAPinUpdate() async throws {
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain())) { server in
            let (pool, key) = try makePool(for: server, Live.configuration())
            // A pin update (generation 1) that changed no key of this pool: a request resolved
            // under generation 0 (retried after it was not sent) is still sent back, before it
            // can open a connection.
            pool.retire(where: { _ in false }, generation: 1)
            let stale = try await pool.leaseUnlessSuperseded(key, deadline: .now + .seconds(10))
            #expect(stale == nil)
            #expect(pool.footprint.connections == 0)
            // Resolved again (generation 1), it gets one.
            let current = ConnectionPool.Key(
                target: ConnectionTarget(origin: key.origin, requirements: key.requirements, pinGeneration: 1)
            )
            let leased = try #require(try await pool.leaseUnlessSuperseded(current, deadline: .now + .seconds(10)))
            #expect(leased.isFresh)
            pool.release(leased.connection, key: current, reusable: false)
            await pool.shutdown()
        }
    }

    @Test func theDriverResolvesAHopPreparedBeforeAnUpdateAgain() throws {
        let chain = try Live.pki.validChain()
        let driver = RequestDriver(configuration: Live.configuration(policy: try Self.policy(chain)))
        let request = get(URL(string: "https://localhost:8443/")!)
        let hop = try driver.prepare(RedirectHop(request: request, body: nil))
        // No update: the hop as it is.
        #expect(try driver.current(hop).target === hop.target)

        _ = driver.applyPinUpdate(try PinUpdateLiveTests.update(2, Self.unrelatedPins))
        let resolved = try driver.current(hop)
        #expect(resolved.target.pinGeneration == 1)
        #expect(resolved.requirements.pins != hop.requirements.pins)
        #expect(
            resolved.requirements.pins
                == (try driver.prepare(RedirectHop(request: request, body: nil))).requirements.pins
        )
        #expect(resolved.request == hop.request)
    }
}
