import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import SecureHTTP
import SecureNetworkingTesting
import ServerTrust
import Testing

/// A verified pin-set update applied to a running transport: new handshakes are verified under
/// the new pins at once, and pooled connections verified under pins that changed take no new
/// request (the idle ones close, the busy ones after their requests).
@Suite("Live TLS: pin updates applied to a running transport")
struct PinUpdateLiveTests {
    static let unrelatedPins = [Live.pki.untrustedRoot.pin, Live.pki.untrustedIntermediate.pin]

    static func update(_ version: UInt64, _ pins: [Pin]) throws -> PinSetUpdate {
        try PinSetUpdate(
            audience: "com.example.app",
            version: version,
            issuedAt: Date(timeIntervalSinceNow: -60),
            notAfter: Date(timeIntervalSinceNow: 86_400),
            entries: [try HostPattern("localhost"): .pinned(try PinSet(pins: pins))]
        )
    }

    /// Waits for `condition`, polling the server's statistics, for at most 30 s.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    @Test(arguments: WireProtocol.allCases)
    func anUpdateRetiresPooledConnectionsAndNewHandshakesUseTheNewPins(over wire: WireProtocol) async throws {
        let chain = try Live.pki.validChain()
        var policy = TransportSecurityPolicy(trustAnchors: Live.pki.trustAnchors)
        policy.pinning.pin(
            try HostPattern("localhost"),
            to: try PinSet(pins: [chain.leafIdentity.pin, Self.unrelatedPins[0]])
        )
        let gate = LoopbackHTTPServer.Gate()
        let (arrivals, arrived) = AsyncStream<String>.makeStream()
        let handler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { request in
            arrived.yield(request.uri)
            return request.uri == "/slow" ? .after(gate, .text("slow")) : .text("ok")
        }
        try await withLoopbackHTTPServer(Live.tls(chain, over: wire), handler: handler) { server in
            try await withTransport(Live.configuration(policy: policy)) { transport in
                var arrivalsIterator = arrivals.makeAsyncIterator()
                #expect(try await transport.send(get(url(server))).response.status == .ok)
                _ = await arrivalsIterator.next()
                // A request in flight on the first connection when the update comes.
                let slow = Task { try await transport.send(get(url(server, "/slow"))) }
                #expect(await arrivalsIterator.next() == "/slow")

                // New pins that the server's chain also satisfies (its intermediate).
                transport.applyPinUpdate(try Self.update(2, [Live.pki.intermediate.pin, Self.unrelatedPins[1]]))
                #expect(try await transport.send(get(url(server, "/after"))).response.status == .ok)
                // On a new connection, with its own handshake and trust evaluation.
                #expect(server.statistics.connectionsAccepted == 2)
                #expect(transport.statistics.trustEvaluations == 2)

                // The request in flight ends normally; then its connection closes.
                gate.open()
                #expect(try await slow.value.response.status == .ok)
                #expect(await Self.eventually { server.statistics.openConnections == 1 })

                // Pins the server cannot satisfy: the idle connection verified under the
                // previous pins is not reused, and the new handshake is refused.
                transport.applyPinUpdate(try Self.update(3, Self.unrelatedPins))
                let refused = await expectFailure(transport, get(url(server, "/refused")))
                #expect(refused?.serverTrustError?.code == .pinMismatch)
                #expect(!server.statistics.requests.contains { $0.uri == "/refused" })

                // Back to the compiled-in pins (nil): accepted again, on a new connection.
                transport.applyPinUpdate(nil)
                #expect(try await transport.send(get(url(server, "/compiled"))).response.status == .ok)
                expectNegotiated(wire, on: server)
            }
        }
    }

    /// An update that the server's chain does not satisfy, applied while 32 tasks send
    /// requests over HTTP/2: no request started after the update returned succeeds, so none was
    /// sent on a connection verified under the previous pins.
    @Test func anUpdateDuringARequestStormSendsNothingOnAConnectionTheNewPinsReject() async throws {
        let chain = try Live.pki.validChain()
        var policy = TransportSecurityPolicy(trustAnchors: Live.pki.trustAnchors)
        policy.pinning.pin(
            try HostPattern("localhost"),
            to: try PinSet(pins: [Live.pki.intermediate.pin, Self.unrelatedPins[0]])
        )
        try await withLoopbackHTTPServer(Live.tls(chain, over: .http2)) { server in
            try await withTransport(Live.configuration(policy: policy)) { transport in
                struct Tally {
                    var applied = false
                    var successes = 0
                    var violations = 0
                    var refusedAfter = 0
                    var otherFailures: [String] = []
                    /// Waits for the storm to be under way (100 requests answered).
                    var underWay: CheckedContinuation<Void, Never>?
                }
                let tally = NIOLockedValueBox(Tally())
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<32 {
                        group.addTask {
                            for _ in 0..<15 {
                                let startedAfter = tally.withLockedValue { $0.applied }
                                do throws(SecureHTTPError) {
                                    _ = try await transport.send(get(url(server)))
                                    let underWay = tally.withLockedValue { tally in
                                        tally.successes += 1
                                        if startedAfter { tally.violations += 1 }
                                        guard tally.successes >= 100 else {
                                            return nil as CheckedContinuation<Void, Never>?
                                        }
                                        defer { tally.underWay = nil }
                                        return tally.underWay
                                    }
                                    underWay?.resume()
                                } catch {
                                    tally.withLockedValue { tally in
                                        if startedAfter, error.serverTrustError?.code == .pinMismatch {
                                            tally.refusedAfter += 1
                                        } else {
                                            tally.otherFailures.append("\(error)")
                                        }
                                    }
                                }
                            }
                        }
                    }
                    group.addTask {
                        // The storm is under way: a gate the requests open, not a poll.
                        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                            let now = tally.withLockedValue { tally in
                                if tally.successes >= 100 { return true }
                                tally.underWay = continuation
                                return false
                            }
                            if now { continuation.resume() }
                        }
                        transport.applyPinUpdate(try Self.update(2, Self.unrelatedPins))
                        tally.withLockedValue { $0.applied = true }
                    }
                    try await group.waitForAll()
                }
                let result = tally.withLockedValue { $0 }
                #expect(result.violations == 0)
                #expect(result.refusedAfter > 0)
                // Requests that started before the update may have failed in the change, but
                // only as refused by the new pins (a retry of theirs opened a new connection).
                for failure in result.otherFailures {
                    #expect(failure.contains("pin"), "\(failure)")
                }
            }
        }
    }
}
