import Foundation
import NIOCore
import NIOPosix
import SecureNetworkingTesting
import ServerTrust
import Testing

@testable import SecureHTTP

/// The pool itself against a live server: the deadline of a request queued for a connection.
@Suite("Connection pool: deadlines")
struct ConnectionPoolLiveTests {
    @Test func aRequestQueuedForAConnectionGivesUpAtItsDeadlineAndLeavesTheQueue() async throws {
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain())) { server in
            let (pool, key) = try makePool(for: server, Live.configuration { $0.maximumConnectionsPerHost = 1 })
            let (held, heldIsFresh) = try await pool.lease(key, deadline: .now + .seconds(10))
            #expect(heldIsFresh)

            // The only connection is leased: the next request queues, and gives up at its deadline.
            let started = ContinuousClock.now
            let queued = Task { try await pool.lease(key, deadline: started + .milliseconds(300)) }
            // Without a deadline of its own the waiter would wait for ever: cancel it after 5 s
            // so that the failure shows as a wrong code (cancelled), not as a hung test.
            let watchdog = Task {
                try await Task.sleep(for: .seconds(5))
                queued.cancel()
            }
            switch await queued.result {
            case .success:
                Issue.record("a lease beyond the per-host cap was granted")
            case .failure(let error):
                #expect((error as? SecureHTTPError)?.code == .deadlineExceeded)
            }
            watchdog.cancel()
            let waited = ContinuousClock.now - started
            #expect(waited >= .milliseconds(300))
            // Loose: beside a parallel build the 300 ms timer once fired after 5.8 s. The code
            // above already tells the deadline (deadlineExceeded) from the watchdog (cancelled).
            #expect(waited < .seconds(30))

            // The expired waiter left the queue: the released connection goes to the next lease,
            // not to a request that is gone.
            pool.release(held, key: key, reusable: true)
            let (again, againIsFresh) = try await pool.lease(key, deadline: .now + .seconds(5))
            #expect(!againIsFresh)
            #expect(again.id == held.id)
            pool.release(again, key: key, reusable: true)
            await pool.shutdown()
            #expect(!again.isActive)
        }
    }

    /// No connection coalescing: a connection serves the origin (and requirements) it was
    /// verified for, even when its certificate also covers another origin of the same server.
    /// RFC 9113 §9.1.1 would allow an HTTP/2 connection to serve another name its certificate
    /// covers; this transport does not, on either protocol.
    @Test(arguments: WireProtocol.allCases)
    func aConnectionServesOnlyTheOriginItWasVerifiedFor(over wire: WireProtocol) async throws {
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain(), over: wire)) { server in
            let transport = try NIOHTTPTransport(configuration: Live.configuration())
            // The leaf covers both `localhost` and `127.0.0.1`; both reach the same server.
            for _ in 0..<3 {
                for host in ["localhost", "127.0.0.1"] {
                    let response = try await transport.send(get(url(server, "/\(host)", host: host)), body: nil)
                    #expect(response.response.status == .ok)
                }
            }
            await transport.shutdown()
            expectNegotiated(wire, on: server)
            let statistics = server.statistics
            #expect(statistics.handshakesCompleted == 2)
            let connections = Dictionary(grouping: statistics.requests, by: \.uri).mapValues {
                Set($0.map(\.connection))
            }
            #expect(connections["/localhost"]?.count == 1)
            #expect(connections["/127.0.0.1"]?.count == 1)
            #expect(connections["/localhost"] != connections["/127.0.0.1"])
        }
    }
}

/// A pool of its own (no transport around it) and the key of `server`'s origin.
func makePool(
    for server: LoopbackHTTPServer,
    _ configuration: HTTPTransportConfiguration,
    group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
) throws -> (ConnectionPool, ConnectionPool.Key) {
    let pool = ConnectionPool(
        group: group,
        configuration: configuration,
        identity: nil,
        cache: TrustDecisionCache(),
        counters: TransportCounters()
    )
    let target = url(server)
    let key = ConnectionPool.Key(
        origin: try #require(Origin(target)),
        requirements: try configuration.policy.requirements(for: target)
    )
    return (pool, key)
}
