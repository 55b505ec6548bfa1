import Dispatch
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import SecureNetworkingTesting
import ServerTrust
import Testing

@testable import SecureHTTP

/// A TLS handshake must not wait for Swift's cooperative thread pool: an app whose pool is busy
/// (CPU-bound work, or code that blocks a thread) still completes its handshakes.
@Suite("Handshakes with a blocked cooperative pool")
struct HandshakeStarvationTests {
    /// Completes when the TLS handshake does (or fails with the handshake's error).
    final class HandshakeWatcher: ChannelInboundHandler, Sendable {
        typealias InboundIn = Any
        let promise: EventLoopPromise<Void>

        init(promise: EventLoopPromise<Void>) { self.promise = promise }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case TLSUserEvent.handshakeCompleted = event { self.promise.succeed(()) }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            self.promise.fail(error)
        }

        func channelInactive(context: ChannelHandlerContext) {
            self.promise.fail(ChannelError.eof)
            context.fireChannelInactive()
        }
    }

    /// Connects with the transport's TLS setup and `HandshakeTrust` in the callback, and waits
    /// for the handshake on this thread (no task, no cooperative thread needed): the outcome,
    /// or nil when it did not finish within `timeout`.
    static func handshake(
        port: Int,
        trust: HandshakeTrust,
        group: any EventLoopGroup,
        timeout: DispatchTimeInterval
    ) throws -> (result: Result<Void, any Error>, elapsed: Duration, channel: (any Channel)?)? {
        let context = try NIOSSLContext(configuration: TLSSetup.configuration(for: trust.requirements, identity: nil))
        let done = DispatchSemaphore(value: 0)
        let outcome = NIOLockedValueBox<(Result<Void, any Error>, (any Channel)?)?>(nil)
        let start = ContinuousClock.now
        ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handshake = channel.eventLoop.makePromise(of: Void.self)
                    try channel.pipeline.syncOperations.addHandler(
                        NIOSSLClientHandler(
                            context: context,
                            serverHostname: "localhost",
                            customVerificationCallbackWithMetadata: trust.verify
                        )
                    )
                    try channel.pipeline.syncOperations.addHandler(HandshakeWatcher(promise: handshake))
                    handshake.futureResult.whenComplete { result in
                        outcome.withLockedValue { $0 = (result, channel) }
                        done.signal()
                    }
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .whenFailure { error in
                outcome.withLockedValue { $0 = (.failure(error), nil) }
                done.signal()
            }
        guard done.wait(timeout: .now() + timeout) == .success, let (result, channel) = outcome.withLockedValue({ $0 })
        else {
            return nil
        }
        return (result, ContinuousClock.now - start, channel)
    }

    /// Fills the cooperative pool with tasks that block their thread until `gate` opens: far
    /// more than the pool has threads, all enqueued before the handshake starts, so any job the
    /// handshake would need from the pool waits behind them.
    static func blockCooperativePool(gate: DispatchSemaphore, tasks: Int) -> [Task<Void, Never>] {
        (0..<tasks).map { _ in
            Task.detached {
                Self.block(on: gate)
            }
        }
    }

    static func block(on gate: DispatchSemaphore) {
        gate.wait()
        gate.signal()
    }

    @Test(arguments: [true, false])
    func theHandshakeCompletesWhileEveryCooperativeThreadIsBlocked(trusted: Bool) async throws {
        let chain = trusted ? try Live.pki.validChain() : try Live.pki.untrustedRootChain()
        try await withLoopbackHTTPServer(Live.tls(chain)) { server in
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let requirements = try Live.policy.requirements(for: url(server))
            let trust = HandshakeTrust(
                requirements: requirements,
                evaluator: ServerTrust(),
                cache: TrustDecisionCache(),
                counters: TransportCounters(),
                reporter: nil,
                now: { Date() }
            )
            let gate = DispatchSemaphore(value: 0)
            let blockers = Self.blockCooperativePool(gate: gate, tasks: 64)
            // This thread blocks too: from here on no cooperative thread is free.
            let outcome = try Self.handshake(port: server.port, trust: trust, group: group, timeout: .seconds(5))
            gate.signal()
            for blocker in blockers { await blocker.value }

            // The blockers hold every cooperative thread until the handshake has returned, so a
            // handshake that needed one could never finish: finishing at all is the proof. (Its
            // time is not: beside a release build, load 7 on two cores, one took 2.5 s.)
            let (result, _, channel) = try #require(
                outcome,
                "the handshake did not finish while the cooperative pool was blocked"
            )
            switch result {
            case .success:
                #expect(trusted)
            case .failure:
                #expect(!trusted)
                #expect(trust.failure?.error.code == .untrustedRoot)
            }
            try? await channel?.close()
            try await group.shutdownGracefully()
        }
    }
}
