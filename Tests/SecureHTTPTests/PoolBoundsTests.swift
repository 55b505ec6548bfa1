import Foundation
import HTTPTypes
import SecureNetworkingTesting
import ServerTrust
import Testing

@testable import SecureHTTP

/// The pool's per-host state stays bounded: TLS contexts are shared by shape and capped, and a
/// key with nothing open and nobody waiting is forgotten.
@Suite("Connection pool: bounded state")
struct PoolBoundsTests {
    typealias Machine = ConnectionPoolStateMachine<String, Int, Int>

    @Test func aKeyWhoseLastHTTP1ConnectionClosesIsForgotten() {
        var machine = Machine(maximumPerKey: 2)
        #expect(machine.lease("a", waiter: 1) == .connect)
        machine.connected("a", 10)
        #expect(machine.release("a", 10, reusable: true) == .park(10))
        #expect(machine.keyCount == 1)
        // The idle connection times out (or the server closes it): nothing is left of "a".
        #expect(machine.idleConnectionGone("a", 10) == (true, .none))
        #expect(machine.keyCount == 0)
        // Closed on release, likewise.
        #expect(machine.lease("b", waiter: 2) == .connect)
        machine.connected("b", 11)
        #expect(machine.release("b", 11, reusable: false) == .close(11, then: .none))
        #expect(machine.keyCount == 0)
    }

    @Test func aKeyWhoseLastHTTP2ConnectionClosesIsForgotten() {
        var machine = Machine(maximumPerKey: 2)
        #expect(machine.lease("a", waiter: 1, mayMultiplex: true) == .connect)
        #expect(machine.connected("a", 10, .http2(maximumStreams: 10)) == [])
        #expect(machine.releaseStream("a", 10) == (false, true, .none))
        #expect(machine.keyCount == 1)
        #expect(machine.multiplexedConnectionGone("a", 10) == [])
        #expect(machine.keyCount == 0)
    }

    @Test func aKeyWithAWaiterOrAConnectionIsKept() {
        var machine = Machine(maximumPerKey: 1)
        #expect(machine.lease("a", waiter: 1) == .connect)
        machine.connected("a", 10)
        #expect(machine.lease("a", waiter: 2) == .wait)
        // The connection closes, and the waiter is let in to connect: the key stays.
        #expect(machine.release("a", 10, reusable: false) == .close(10, then: .connect(for: 2)))
        #expect(machine.keyCount == 1)
        #expect(machine.connectFailed("a") == .none)
        #expect(machine.keyCount == 0)
    }

    @Test func theTLSContextCacheKeepsTheMostRecentlyUsed() {
        var cache = LeastRecentlyUsedCache<Int, String>(capacity: 3)
        for key in 1...3 { cache.set("\(key)", for: key) }
        #expect(cache.value(for: 1) == "1")  // 1 is now the most recently used
        cache.set("4", for: 4)  // forgets 2, the least recently used
        #expect(cache.count == 3)
        #expect(cache.value(for: 2) == nil)
        #expect(cache.value(for: 1) == "1")
        #expect(cache.value(for: 3) == "3")
        #expect(cache.value(for: 4) == "4")
        for key in 5...100 { cache.set("\(key)", for: key) }
        #expect(cache.count == 3)
    }

    @Test func theTLSShapeIgnoresTheHostAndFollowsWhatShapesTheContext() throws {
        let policy = Live.policy
        let a = try policy.requirements(for: URL(string: "https://a.example:443/")!)
        let b = try policy.requirements(for: URL(string: "https://b.example:8443/")!)
        #expect(TLSSetup.ContextShape(a, offersHTTP2: true) == TLSSetup.ContextShape(b, offersHTTP2: true))
        #expect(TLSSetup.ContextShape(a, offersHTTP2: true) != TLSSetup.ContextShape(a, offersHTTP2: false))
        var legacy = a
        legacy.minimumTLSVersion = .v1_0
        #expect(TLSSetup.ContextShape(legacy, offersHTTP2: false) != TLSSetup.ContextShape(a, offersHTTP2: false))
        var ats = a
        ats.cipherSuites = .ats
        #expect(TLSSetup.ContextShape(ats, offersHTTP2: false) != TLSSetup.ContextShape(a, offersHTTP2: false))
    }

    /// Twenty origins (ten servers on their own ports, each as localhost and 127.0.0.1) with the same
    /// TLS shape: one TLS context, and once their connections close, no key left in the pool.
    @Test func requestsToManyOriginsLeaveBoundedPoolState() async throws {
        let servers = try await withThrowingTaskGroup(of: LoopbackHTTPServer.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    try await LoopbackHTTPServer.start(tls: Live.tls(try Live.pki.validChain())) { _ in .text("ok") }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        do {
            try await withTransport { transport in
                for server in servers {
                    for host in ["localhost", "127.0.0.1"] {
                        // `Connection: close`: the connection closes after the response, so the
                        // pool has nothing left open for the origin.
                        let request = get(url(server, "/", host: host), headers: [.connection: "close"])
                        let response = try await transport.send(request, body: nil)
                        #expect(response.response.status == .ok)
                    }
                }
                #expect(transport.statistics.connectionsOpened == 20)
                let footprint = transport.pool.footprint
                #expect(footprint.tlsContexts == 1)
                #expect(footprint.keys == 0)
                #expect(footprint.connections == 0)
            }
        } catch {
            for server in servers { await server.shutdown() }
            throw error
        }
        for server in servers { await server.shutdown() }
    }

    /// More TLS shapes than the cache holds: it stays at its capacity.
    @Test func theTLSContextCacheIsBoundedAcrossShapes() async throws {
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain())) { server in
            let (pool, _) = try makePool(for: server, Live.configuration())
            var requirements: [ConnectionRequirements] = []
            for version in [TLSVersion.v1_0, .v1_1, .v1_2, .v1_3] {
                for forwardSecrecy in [true, false] {
                    for suites in [CipherSuitePolicy.aeadOnly, .ats] {
                        var r = ConnectionRequirements(
                            host: "localhost",
                            port: server.port,
                            minimumTLSVersion: version,
                            requiresForwardSecrecy: forwardSecrecy,
                            trustAnchors: Live.pki.trustAnchors
                        )
                        r.cipherSuites = suites
                        requirements.append(r)
                    }
                }
            }
            let shapes = Set(
                requirements.map {
                    TLSSetup.ContextShape($0, offersHTTP2: TLSSetup.offersHTTP2($0, versions: .automatic))
                }
            )
            #expect(shapes.count > ConnectionPool.maximumTLSContexts)
            for requirement in requirements {
                let key = ConnectionPool.Key(origin: try #require(Origin(url(server))), requirements: requirement)
                if let (connection, _) = try? await pool.lease(key, deadline: .now + .seconds(30)) {
                    pool.release(connection, key: key, reusable: false)
                }
            }
            #expect(pool.footprint.tlsContexts == ConnectionPool.maximumTLSContexts)
            #expect(pool.footprint.keys == 0)
            await pool.shutdown()
        }
    }
}
