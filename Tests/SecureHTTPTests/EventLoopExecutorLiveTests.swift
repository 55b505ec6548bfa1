import Foundation
import NIOCore
import NIOPosix
import SecureNetworkingTesting
import ServerTrust
import Testing

@testable import SecureHTTP

/// `EventLoopTaskExecutor` and the transport's event-loop affinity: a task preferring the
/// transport's executor opens and reuses connections on that loop, is resumed there, and can
/// still be cancelled mid-exchange.
@Suite("Event-loop task executor")
struct EventLoopExecutorLiveTests {
    /// The live configuration with an idle timeout these tests never reach: they read the pool's
    /// connections after the requests, and on a loaded machine the test task was resumed more
    /// than the usual 20 s after the last response, when the idle connection had rightly closed.
    static var configuration: HTTPTransportConfiguration {
        var configuration = Live.configuration()
        configuration.timeouts.idle = .seconds(600)
        return configuration
    }

    /// Runs `body` with a two-loop group of its own (so that "the caller's loop" and "another
    /// loop" both exist), shut down afterwards.
    private func withTwoLoops<R: Sendable>(_ body: (MultiThreadedEventLoopGroup) async throws -> R) async throws -> R {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        do {
            let result = try await body(group)
            try await group.shutdownGracefully()
            return result
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    @Test func aTaskPreferringTheExecutorRunsOnItsEventLoop() async throws {
        try await self.withTwoLoops { group in
            let loops = Array(group.makeIterator())
            let executor = EventLoopTaskExecutor(loops[1])
            let onLoop = await Task(executorPreference: executor) { () async -> [Bool] in
                var seen = [loops[1].inEventLoop, loops[0].inEventLoop]
                await Task.yield()
                seen.append(loops[1].inEventLoop)
                return seen
            }.value
            #expect(onLoop == [true, false, true])
        }
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    @Test func theTransportOpensTheConnectionOnTheCallersLoopAndResumesItThere() async throws {
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain())) { server in
            try await self.withTwoLoops { group in
                let transport = try NIOHTTPTransport(configuration: Self.configuration, eventLoopGroup: group)
                // Two executors, so the group's round robin has moved past the first loop: a
                // transport that picked `next()` for its connection would land on the other one.
                _ = transport.makeTaskExecutor()
                let executor = transport.makeTaskExecutor()
                let resumedOnLoop = try await Task(executorPreference: executor) { () async throws -> [Bool] in
                    var resumed: [Bool] = []
                    for index in 0..<5 {
                        let response = try await transport.send(get(url(server, "/n/\(index)")))
                        #expect(response.response.status == .ok)
                        resumed.append(executor.eventLoop.inEventLoop)
                    }
                    return resumed
                }.value
                #expect(resumedOnLoop == [true, true, true, true, true])
                #expect(transport.statistics.connectionsOpened == 1)
                let loops = transport.pool.connectionEventLoops
                #expect(loops.count == 1)
                #expect(loops.allSatisfy { $0 === executor.eventLoop })
                await transport.shutdown()
            }
        }
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    @Test func anIdleConnectionOnTheCallersLoopIsPreferredOverANewerOneElsewhere() async throws {
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain())) { server in
            try await self.withTwoLoops { group in
                let loops = Array(group.makeIterator())
                let (pool, key) = try makePool(for: server, Self.configuration, group: group)
                // One connection opened from each loop: each lands on its caller's loop.
                let first = try await Task(executorPreference: EventLoopTaskExecutor(loops[0])) {
                    try await pool.lease(key, deadline: .now + .seconds(10))
                }.value
                let second = try await Task(executorPreference: EventLoopTaskExecutor(loops[1])) {
                    try await pool.lease(key, deadline: .now + .seconds(10))
                }.value
                #expect(first.isFresh && second.isFresh)
                #expect(first.connection.eventLoop === loops[0])
                #expect(second.connection.eventLoop === loops[1])

                // Parked loop 1's first, then loop 0's: the most recently parked is loop 0's,
                // which a caller with no loop gets; a caller on loop 1 gets loop 1's.
                pool.release(second.connection, key: key, reusable: true)
                pool.release(first.connection, key: key, reusable: true)
                let fromLoopOne = try await Task(executorPreference: EventLoopTaskExecutor(loops[1])) {
                    try await pool.lease(key, deadline: .now + .seconds(10))
                }.value
                #expect(!fromLoopOne.isFresh)
                #expect(fromLoopOne.connection.id == second.connection.id)
                let fromNoLoop = try await Task.detached { try await pool.lease(key, deadline: .now + .seconds(10)) }
                    .value
                #expect(!fromNoLoop.isFresh)
                #expect(fromNoLoop.connection.id == first.connection.id)
                pool.release(fromLoopOne.connection, key: key, reusable: true)
                pool.release(fromNoLoop.connection, key: key, reusable: true)
                await pool.shutdown()
            }
        }
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    @Test(arguments: WireProtocol.allCases)
    func aRequestSentFromTheLoopIsCancelledMidExchange(over wire: WireProtocol) async throws {
        let gate = LoopbackHTTPServer.Gate()
        let tls = Live.tls(try Live.pki.validChain(), over: wire)
        try await withLoopbackHTTPServer(
            tls,
            handler: { request in request.uri == "/held" ? .after(gate, .text("late")) : .text("ok") }
        ) { server in
            try await self.withTwoLoops { group in
                let transport = try NIOHTTPTransport(configuration: Self.configuration, eventLoopGroup: group)
                let executor = transport.makeTaskExecutor()
                // Warm: the connection exists, so the held request is written from the loop at once.
                _ = try await Task(executorPreference: executor) { try await transport.send(get(url(server, "/warm"))) }
                    .value
                let held = Task(executorPreference: executor) { try await transport.send(get(url(server, "/held"))) }
                try await waitUntil { server.statistics.requests.contains { $0.uri == "/held" } }
                held.cancel()
                let error = (await held.result).error as? SecureHTTPError
                #expect(error?.code == .cancelled)
                gate.open()
                // The transport still serves the loop's tasks afterwards.
                let after = try await Task(executorPreference: executor) {
                    try await transport.send(get(url(server, "/after")))
                }.value
                #expect(String(decoding: after.body, as: UTF8.self) == "ok")
                await transport.shutdown()
            }
        }
    }
}
