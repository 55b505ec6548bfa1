import Foundation
import HTTPTypes
import MetricsTestKit
import NIOConcurrencyHelpers
import SecureHTTP
import SecureNetworking
import SecureNetworkingTesting
import SecureStorage
import ServerTrust
import Testing

/// The backoff of checks after pin failures, without I/O.
@Suite("Pin update schedule")
struct PinUpdateScheduleTests {
    @Test func failuresBackOffUntilAnUpdateIsApplied() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var schedule = PinUpdateSchedule(minimumDelay: 30, maximumDelay: 100)
        schedule.start()
        let step1 = schedule.pinFailure(at: start)
        #expect(step1)
        // A second failure while the check runs joins it.
        let step2 = schedule.pinFailure(at: start)
        #expect(!step2)
        let step3 = schedule.checkStarting()
        #expect(!step3)
        schedule.checkFinished(at: start, applied: false, afterPinFailure: true)
        #expect(schedule.delay == 30)
        let step4 = schedule.pinFailure(at: start.addingTimeInterval(29))
        #expect(!step4)
        let step5 = schedule.pinFailure(at: start.addingTimeInterval(30))
        #expect(step5)
        schedule.checkFinished(at: start.addingTimeInterval(30), applied: false, afterPinFailure: true)
        #expect(schedule.delay == 60)
        let step6 = schedule.pinFailure(at: start.addingTimeInterval(90))
        #expect(step6)
        schedule.checkFinished(at: start.addingTimeInterval(90), applied: false, afterPinFailure: true)
        #expect(schedule.delay == 100)  // capped
        // A scheduled check that found nothing leaves the backoff as it is.
        let step7 = schedule.checkStarting()
        #expect(step7)
        schedule.checkFinished(at: start.addingTimeInterval(95), applied: false, afterPinFailure: false)
        #expect(schedule.delay == 100)
        #expect(schedule.notBefore == start.addingTimeInterval(190))
        // An applied update resets it: the next failure is checked at once.
        let step8 = schedule.checkStarting()
        #expect(step8)
        schedule.checkFinished(at: start.addingTimeInterval(100), applied: true, afterPinFailure: false)
        #expect(schedule.delay == 0)
        let step9 = schedule.pinFailure(at: start.addingTimeInterval(101))
        #expect(step9)
    }
}

/// `PinUpdater` against real TLS servers: a rotation to an intermediate the app did not ship,
/// fixed by a signed update fetched after the pin failure, kept across a restart; forged,
/// replayed and expired updates refused.
@Suite("Pin updater, live")
struct PinUpdaterLiveTests {
    /// Two servers for `localhost`: the one the app shipped pins for (intermediate I1), and the
    /// same service after a rotation to a new intermediate I2.
    struct World {
        let pki: TestPKI
        let rotatedIntermediate: TestPKI.Identity
        let oldChain: TestPKI.Chain
        let rotatedChain: TestPKI.Chain
        let updateKey = PinUpdateSigningKey.generate(.ed25519)
        let backupKey = PinUpdateSigningKey.generate(.p256)
        let clock: TestClock
        let compiled: PinningPolicy
        let served = NIOLockedValueBox(Data())

        init() throws {
            self.pki = try TestPKI(referenceTime: Date())
            self.rotatedIntermediate = try self.pki.makeCA(name: "Rotated Intermediate CA", issuer: self.pki.root)
            self.oldChain = try self.pki.validChain()
            let rotated = self.rotatedIntermediate
            self.rotatedChain = try self.pki.leaf { $0.issuer = .custom(rotated, presenting: [rotated]) }
            self.clock = TestClock(Date())
            self.compiled = PinningPolicy([
                try HostPattern("localhost"): try PinSet(
                    certificateAuthorityPins: [self.pki.intermediate.pin, self.pki.untrustedIntermediate.pin],
                    leafPins: []
                )
            ])
        }

        /// The updater's fetch: chain validation to the test root, no pins.
        var fetchConfiguration: HTTPTransportConfiguration {
            HTTPTransportConfiguration(policy: TransportSecurityPolicy(trustAnchors: self.pki.trustAnchors))
        }

        var policy: TransportSecurityPolicy {
            var policy = TransportSecurityPolicy(trustAnchors: self.pki.trustAnchors)
            policy.pinning = self.compiled
            return policy
        }

        func document(version: UInt64, caPins: [Pin], validFor days: Double = 30) throws -> PinSetUpdate {
            try PinSetUpdate(
                audience: "com.example.app",
                version: version,
                issuedAt: self.clock.now.addingTimeInterval(-60),
                notAfter: self.clock.now.addingTimeInterval(days * 86_400),
                entries: [
                    try HostPattern("localhost"): .pinned(
                        try PinSet(certificateAuthorityPins: caPins, leafPins: [])
                    )
                ]
            )
        }

        /// Publishes `update`, signed by `key` (the update key by default).
        func publish(_ update: PinSetUpdate, signedBy key: PinUpdateSigningKey? = nil) throws {
            let envelope = try SignedPinSetUpdate(signing: update.jsonData(), with: key ?? self.updateKey).envelope()
            self.served.withLockedValue { $0 = envelope }
        }

        var rotationUpdate: PinSetUpdate {
            get throws {
                try self.document(version: 2, caPins: [self.pki.intermediate.pin, self.rotatedIntermediate.pin])
            }
        }
    }

    /// A sleep the test ends: each ``tick()`` lets one waiter (or the next) go on.
    final class Ticker: Sendable {
        private let state = NIOLockedValueBox<(ticks: Int, waiting: [CheckedContinuation<Void, Never>])>((0, []))

        func wait() async throws {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let go = self.state.withLockedValue { state -> Bool in
                    if state.ticks > 0 {
                        state.ticks -= 1
                        return true
                    }
                    state.waiting.append(continuation)
                    return false
                }
                if go { continuation.resume() }
            }
            try Task.checkCancellation()
        }

        func tick() {
            let waiter = self.state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
                if state.waiting.isEmpty {
                    state.ticks += 1
                    return nil
                }
                return state.waiting.removeFirst()
            }
            waiter?.resume()
        }
    }

    final class Events: Sendable {
        let stream: AsyncStream<PinUpdateEvent>
        let continuation: AsyncStream<PinUpdateEvent>.Continuation
        init() { (self.stream, self.continuation) = AsyncStream<PinUpdateEvent>.makeStream() }
    }

    static func configuration(
        _ world: World,
        pinServer: LoopbackHTTPServer,
        store: any SecureStore,
        fetch: NIOHTTPTransport,
        events: Events,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { _ in
            try await Task.sleep(for: .seconds(3_600))
        }
    ) throws -> PinUpdater.Configuration {
        var configuration = PinUpdater.Configuration(
            url: URL(string: "https://localhost:\(pinServer.port)/pins.json")!,
            verifier: try PinUpdateVerifier(
                trustedKeys: [world.updateKey.publicKey, world.backupKey.publicKey],
                audience: "com.example.app"
            ),
            compiledPins: world.compiled,
            store: store,
            fetchTransport: fetch
        )
        configuration.now = world.clock.function
        configuration.sleep = sleep
        configuration.onEvent = { events.continuation.yield($0) }
        return configuration
    }

    static func get(_ server: LoopbackHTTPServer, _ path: String = "/") -> HTTPRequest {
        HTTPRequest(url: URL(string: "https://localhost:\(server.port)\(path)")!)
    }

    @Test func aRotationToAnUnshippedIntermediateIsFixedByASignedUpdateAndKeptAcrossARestart() async throws {
        let world = try World()
        let store = InMemoryStore()
        let pinsHandler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { request in
            guard request.uri == "/pins.json" else { return .text("old") }
            let served = world.served.withLockedValue { $0 }
            // Nothing published yet: not found.
            return served.isEmpty
                ? .status(404)
                : .status(200, headers: [("Content-Type", "application/json")], body: Array(served))
        }
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: world.oldChain), handler: pinsHandler) {
            pinServer in
            try await withLoopbackHTTPServer(
                LoopbackHTTPServer.TLS(chain: world.rotatedChain),
                handler: { _ in .text("rotated") }
            ) {
                rotated in
                let fetch = try NIOHTTPTransport(configuration: world.fetchConfiguration)
                defer { Task { await fetch.shutdown() } }
                let events = Events()
                var iterator = events.stream.makeAsyncIterator()
                let updater = PinUpdater(
                    configuration: try Self.configuration(
                        world,
                        pinServer: pinServer,
                        store: store,
                        fetch: fetch,
                        events: events
                    )
                )
                var transportConfiguration = HTTPTransportConfiguration(policy: world.policy)
                transportConfiguration.pinValidationReporter = updater.reportPinValidation
                let transport = try NIOHTTPTransport(configuration: transportConfiguration)
                defer { Task { await transport.shutdown() } }
                // The app starts: nothing stored, nothing published yet.
                await updater.start(applyingTo: [transport])
                guard case .fetchFailed? = await iterator.next() else {
                    Issue.record("the first check did not report the 404")
                    return
                }
                // The server rotates and publishes a signed update for its new intermediate.
                try world.publish(try world.rotationUpdate)

                // The server the app shipped pins for answers; the rotated one does not.
                #expect(try await transport.send(Self.get(pinServer)).body == Data("old".utf8))
                do throws(SecureHTTPError) {
                    _ = try await transport.send(Self.get(rotated))
                    Issue.record("the rotated server passed the compiled-in pins")
                } catch {
                    #expect(error.serverTrustError?.code == .pinMismatch)
                }
                // The pin failure started a check: the signed update is fetched and applied.
                #expect(await iterator.next() == .applied(version: 2))
                #expect(await updater.appliedVersion == 2)
                #expect(try await transport.send(Self.get(rotated)).body == Data("rotated".utf8))

                // A transport made later, with the compiled-in pins, gets the update in force
                // when it is attached (and attaching it again changes nothing).
                let later = try NIOHTTPTransport(configuration: HTTPTransportConfiguration(policy: world.policy))
                defer { Task { await later.shutdown() } }
                do throws(SecureHTTPError) {
                    _ = try await later.send(Self.get(rotated))
                    Issue.record("the later transport passed the compiled-in pins before it was attached")
                } catch {
                    #expect(error.serverTrustError?.code == .pinMismatch)
                }
                await updater.attach(later)
                await updater.attach(later)
                #expect(try await later.send(Self.get(rotated)).body == Data("rotated".utf8))

                // A forged update (another key) and a replayed older one are refused.
                let stranger = PinUpdateSigningKey.generate(.ed25519)
                try world.publish(
                    try world.document(
                        version: 3,
                        caPins: [world.pki.untrustedIntermediate.pin, world.pki.untrustedRoot.pin]
                    ),
                    signedBy: stranger
                )
                guard case .refused(let forged)? = await updater.checkNow() else {
                    Issue.record("the forged update was not refused")
                    return
                }
                #expect(forged.code == .unknownPinUpdateKey)
                _ = await iterator.next()
                try world.publish(
                    try world.document(
                        version: 1,
                        caPins: [world.pki.intermediate.pin, world.pki.untrustedIntermediate.pin]
                    )
                )
                guard case .refused(let replayed)? = await updater.checkNow() else {
                    Issue.record("the older update was not refused")
                    return
                }
                #expect(replayed.code == .pinUpdateRollback)
                _ = await iterator.next()
                #expect(await updater.appliedVersion == 2)
                #expect(try await transport.send(Self.get(rotated)).body == Data("rotated".utf8))
                // The same document again: unchanged.
                try world.publish(try world.rotationUpdate)
                #expect(await updater.checkNow() == .unchanged(version: 2))
                _ = await iterator.next()

                // A restart: a new updater and transport with the same store. The stored update
                // is verified again and applied before any request; the rotated server answers
                // at once.
                let events2 = Events()
                var iterator2 = events2.stream.makeAsyncIterator()
                try world.publish(try world.rotationUpdate)
                let restarted = PinUpdater(
                    configuration: try Self.configuration(
                        world,
                        pinServer: pinServer,
                        store: store,
                        fetch: fetch,
                        events: events2
                    )
                )
                let transport2 = try NIOHTTPTransport(configuration: HTTPTransportConfiguration(policy: world.policy))
                defer { Task { await transport2.shutdown() } }
                await restarted.start(applyingTo: [transport2])
                #expect(await iterator2.next() == .restored(version: 2))
                #expect(await iterator2.next() == .unchanged(version: 2))
                #expect(try await transport2.send(Self.get(rotated)).body == Data("rotated".utf8))
                await restarted.stop()
                await updater.stop()
            }
        }
    }

    @Test func anExpiredStoredUpdateFallsBackToTheCompiledPinsAndItsVersionStillBlocksReplays() async throws {
        let world = try World()
        let store = InMemoryStore()
        let pinsHandler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { _ in
            .status(200, body: Array(world.served.withLockedValue { $0 }))
        }
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: world.oldChain), handler: pinsHandler) {
            pinServer in
            let fetch = try NIOHTTPTransport(configuration: world.fetchConfiguration)
            defer { Task { await fetch.shutdown() } }
            let events = Events()
            var iterator = events.stream.makeAsyncIterator()
            let first = PinUpdater(
                configuration: try Self.configuration(
                    world,
                    pinServer: pinServer,
                    store: store,
                    fetch: fetch,
                    events: events
                )
            )
            try world.publish(
                try world.document(
                    version: 5,
                    caPins: [world.pki.intermediate.pin, world.rotatedIntermediate.pin],
                    validFor: 1
                )
            )
            await first.start(applyingTo: [])
            #expect(await iterator.next() == .applied(version: 5))
            await first.stop()

            // Two days later, at the next launch, the stored update has expired.
            world.clock.advance(2 * 86_400)
            try world.publish(
                try world.document(version: 4, caPins: [world.pki.intermediate.pin, world.rotatedIntermediate.pin])
            )
            let events2 = Events()
            var iterator2 = events2.stream.makeAsyncIterator()
            let metrics = TestMetrics()
            var secondConfiguration = try Self.configuration(
                world,
                pinServer: pinServer,
                store: store,
                fetch: fetch,
                events: events2
            )
            secondConfiguration.metricsFactory = metrics
            let second = PinUpdater(configuration: secondConfiguration)
            await second.start(applyingTo: [])
            guard case .refused(let expired)? = await iterator2.next() else {
                Issue.record("the expired stored update was not refused")
                return
            }
            #expect(expired.code == .pinUpdateExpired)
            // The compiled-in pins are in force, and the older version 4 is still a rollback.
            guard case .refused(let replay)? = await iterator2.next() else {
                Issue.record("version 4 was not refused")
                return
            }
            #expect(replay.code == .pinUpdateRollback)
            #expect(await second.appliedVersion == nil)
            #expect(await second.currentPins == world.compiled)
            // One count per outcome, by result.
            let refusals = metrics.counters(label: "securenet_pin_updates_total", dimensions: [("result", "refused")])
            #expect(refusals.reduce(0) { $0 + $1.totalValue } == 2)
            #expect(metrics.counters(label: "securenet_pin_updates_total", dimensions: [("result", "applied")]).isEmpty)
            await second.stop()
        }
    }

    @Test func scheduledChecksRunOnTheIntervalAndPinFailuresBackOff() async throws {
        let world = try World()
        let fetches = NIOLockedValueBox(0)
        let pinsHandler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { _ in
            fetches.withLockedValue { $0 += 1 }
            return .status(200, body: Array(world.served.withLockedValue { $0 }))
        }
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: world.oldChain), handler: pinsHandler) {
            pinServer in
            let fetch = try NIOHTTPTransport(configuration: world.fetchConfiguration)
            defer { Task { await fetch.shutdown() } }
            let ticker = Ticker()
            let interval: Duration = .seconds(6 * 3_600)  // the default Configuration.interval
            let sleep: @Sendable (Duration) async throws -> Void = { duration in
                // The interval passes when the test says so; an update's expiry (30 days
                // away) does not come within the test.
                guard duration == interval else { return try await Task.sleep(for: .seconds(3_600)) }
                try await ticker.wait()
            }
            let events = Events()
            var iterator = events.stream.makeAsyncIterator()
            let updater = PinUpdater(
                configuration: try Self.configuration(
                    world,
                    pinServer: pinServer,
                    store: InMemoryStore(),
                    fetch: fetch,
                    events: events,
                    sleep: sleep
                )
            )
            try world.publish(try world.rotationUpdate)
            await updater.start(applyingTo: [])
            #expect(await iterator.next() == .applied(version: 2))

            // The next version appears; the interval passes; it is applied.
            try world.publish(
                try world.document(version: 3, caPins: [world.pki.intermediate.pin, world.rotatedIntermediate.pin])
            )
            ticker.tick()
            #expect(await iterator.next() == .applied(version: 3))

            // Pin failures with nothing new to fetch: one check, then none until the backoff
            // delay has passed on the clock.
            let report = try JSONDecoder().decode(
                PinValidationReport.self,
                from: Data(
                    #"{"host":"localhost","port":443,"pattern":"localhost","servedChainPins":[],"knownPins":[],"result":"rejected","date":0}"#
                        .utf8
                )
            )
            updater.reportPinValidation(report)
            #expect(await iterator.next() == .unchanged(version: 3))
            let afterFirst = fetches.withLockedValue { $0 }
            updater.reportPinValidation(report)
            updater.reportPinValidation(report)
            world.clock.advance(31)
            updater.reportPinValidation(report)
            #expect(await iterator.next() == .unchanged(version: 3))
            #expect(fetches.withLockedValue { $0 } == afterFirst + 1)
            await updater.stop()
            ticker.tick()
        }
    }
}
