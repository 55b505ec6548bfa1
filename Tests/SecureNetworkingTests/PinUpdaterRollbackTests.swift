import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import SecureHTTP
import SecureNetworking
import SecureNetworkingTesting
import SecureStorage
import ServerTrust
import Testing

/// A store whose reads fail while the test says so (a locked device at launch); writes go
/// through.
final class ReadFailingStore: SecureStore {
    let inner = InMemoryStore()
    let failsReads = NIOLockedValueBox(false)

    func data(forKey key: String) async throws(SecureStoreError) -> Data? {
        if self.failsReads.withLockedValue({ $0 }) {
            throw SecureStoreError(.deviceLocked, "the device is locked")
        }
        return try await self.inner.data(forKey: key)
    }

    func set(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        try await self.inner.set(data, forKey: key)
    }

    func removeValue(forKey key: String) async throws(SecureStoreError) {
        try await self.inner.removeValue(forKey: key)
    }

    func contains(_ key: String) async throws(SecureStoreError) -> Bool {
        try await self.inner.contains(key)
    }
}

/// Issue 51 items 1 and 2: no update is applied before the highest version applied has been
/// read from the store (a launch-time man in the middle cannot replay an older, still-valid
/// document), the store keeps the highest version through a read-modify-write, and an applied
/// update stops being enforced at its `notAfter` while the app runs (on its timer and on every
/// check), over the transports' shared `applyPinUpdate(nil)`.
@Suite("Pin updater: no rollback at launch, expiry while running")
struct PinUpdaterRollbackTests {
    typealias World = PinUpdaterLiveTests.World
    typealias Events = PinUpdaterLiveTests.Events
    typealias Ticker = PinUpdaterLiveTests.Ticker

    /// A pin failure, as a transport reports it.
    static func rejected() throws -> PinValidationReport {
        let json =
            #"{"host":"localhost","port":443,"pattern":"localhost","servedChainPins":[],"knownPins":[],"result":"rejected","date":0}"#
        return try JSONDecoder().decode(PinValidationReport.self, from: Data(json.utf8))
    }

    /// A sleep for the updater: the scheduled checks' interval does not pass within a test (as
    /// in ``PinUpdaterLiveTests``); every other wait (the expiry timer) passes when `expiry`
    /// ticks.
    static func sleep(interval: Duration, expiry: Ticker) -> @Sendable (Duration) async throws -> Void {
        { duration in
            if duration == interval {
                try await Task.sleep(for: .seconds(3_600))
            } else {
                try await expiry.wait()
            }
        }
    }

    /// The updater's next event, or nil when none comes within 30 s (a missing event fails the
    /// test rather than hanging it).
    static func next(_ events: Events) async -> PinUpdateEvent? {
        await withTaskGroup(of: PinUpdateEvent?.self) { group in
            group.addTask {
                var iterator = events.stream.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(30))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    static func pinsServer(
        _ world: World,
        gate: LoopbackHTTPServer.Gate? = nil,
        _ body: (LoopbackHTTPServer) async throws -> Void
    ) async throws {
        let handler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { request in
            guard request.uri == "/pins.json" else { return .text("old") }
            let served = world.served.withLockedValue { $0 }
            let response: LoopbackHTTPServer.Response =
                served.isEmpty ? .status(404) : .status(200, body: Array(served))
            return gate.map { .after($0, response) } ?? response
        }
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: world.oldChain), handler: handler, body)
    }

    func document(_ world: World, version: UInt64, validFor days: Double = 30) throws -> PinSetUpdate {
        try world.document(
            version: version,
            caPins: [world.pki.intermediate.pin, world.rotatedIntermediate.pin],
            validFor: days
        )
    }

    /// Applies version 5 through a first updater, so that `store` holds it as the highest.
    func storeVersion5(
        _ world: World,
        pinServer: LoopbackHTTPServer,
        store: any SecureStore,
        fetch: NIOHTTPTransport
    )
        async throws
    {
        let events = Events()
        let first = PinUpdater(
            configuration: try PinUpdaterLiveTests.configuration(
                world,
                pinServer: pinServer,
                store: store,
                fetch: fetch,
                events: events
            )
        )
        try world.publish(try self.document(world, version: 5))
        await first.start(applyingTo: [])
        #expect(await Self.next(events) == .applied(version: 5))
        await first.stop()
    }

    @Test func whileTheStoredRecordCannotBeReadNoCheckAppliesAnOlderValidUpdate() async throws {
        let world = try World()
        let store = ReadFailingStore()
        try await Self.pinsServer(world) { pinServer in
            let fetch = try NIOHTTPTransport(configuration: world.fetchConfiguration)
            defer { Task { await fetch.shutdown() } }
            try await self.storeVersion5(world, pinServer: pinServer, store: store, fetch: fetch)

            // The next launch: the device is locked, and a man in the middle serves version 3
            // (older, genuinely signed, still valid).
            store.failsReads.withLockedValue { $0 = true }
            try world.publish(try self.document(world, version: 3))
            let events = Events()
            let updater = PinUpdater(
                configuration: try PinUpdaterLiveTests.configuration(
                    world,
                    pinServer: pinServer,
                    store: store,
                    fetch: fetch,
                    events: events
                )
            )
            await updater.start(applyingTo: [])
            guard case .storageFailed(let atStart)? = await Self.next(events) else {
                Issue.record("the launch did not report the unreadable record")
                return
            }
            #expect(atStart.code == .deviceLocked)
            #expect(await updater.appliedVersion == nil)

            // A pin failure starts a check: the record is still unreadable, nothing is applied.
            updater.reportPinValidation(try Self.rejected())
            guard case .storageFailed(let afterFailure)? = await Self.next(events) else {
                Issue.record("the check after a pin failure applied something without the record")
                return
            }
            #expect(afterFailure.code == .deviceLocked)
            #expect(await updater.appliedVersion == nil)

            // The device unlocks: the next check reads the record first (version 5, restored),
            // and version 3 is a rollback.
            store.failsReads.withLockedValue { $0 = false }
            let event = await updater.checkNow()
            #expect(await Self.next(events) == .restored(version: 5))
            guard case .refused(let refusal)? = event else {
                Issue.record("version 3 was not refused: \(String(describing: event))")
                return
            }
            #expect(refusal.code == .pinUpdateRollback)
            #expect(await updater.appliedVersion == 5)
            await updater.stop()
        }
    }

    @Test func aPinFailureBeforeStartStartsNoCheck() async throws {
        // I/O-free: the schedule refuses failure-triggered checks until the updater starts.
        var schedule = PinUpdateSchedule()
        let before = schedule.pinFailure(at: Date())
        #expect(!before)
        #expect(!schedule.checking)
        schedule.start()
        let after = schedule.pinFailure(at: Date())
        #expect(after)

        // The updater: a pin failure reported before start() fetches nothing, and a check
        // asked for then reads the record first (here it cannot: nothing is applied).
        let world = try World()
        let store = ReadFailingStore()
        store.failsReads.withLockedValue { $0 = true }
        let gate = LoopbackHTTPServer.Gate()
        try await Self.pinsServer(world, gate: gate) { pinServer in
            let fetch = try NIOHTTPTransport(configuration: world.fetchConfiguration)
            defer { Task { await fetch.shutdown() } }
            try world.publish(try self.document(world, version: 3))
            let updater = PinUpdater(
                configuration: try PinUpdaterLiveTests.configuration(
                    world,
                    pinServer: pinServer,
                    store: store,
                    fetch: fetch,
                    events: Events()
                )
            )
            updater.reportPinValidation(try Self.rejected())
            let event = await updater.checkNow()
            gate.open()
            guard case .storageFailed(let failure)? = event else {
                Issue.record("a check ran before the record was read: \(String(describing: event))")
                return
            }
            #expect(failure.code == .deviceLocked)
            #expect(pinServer.statistics.requests.isEmpty)
            #expect(await updater.appliedVersion == nil)
        }
    }

    @Test func theStoreKeepsTheHighestVersionAnyUpdaterApplied() async throws {
        let world = try World()
        let store = InMemoryStore()
        try await Self.pinsServer(world) { pinServer in
            let fetch = try NIOHTTPTransport(configuration: world.fetchConfiguration)
            defer { Task { await fetch.shutdown() } }
            // An app's updater starts with an empty store and nothing published.
            let appEvents = Events()
            let app = PinUpdater(
                configuration: try PinUpdaterLiveTests.configuration(
                    world,
                    pinServer: pinServer,
                    store: store,
                    fetch: fetch,
                    events: appEvents
                )
            )
            await app.start(applyingTo: [])
            guard case .fetchFailed? = await Self.next(appEvents) else {
                Issue.record("the first check did not report the 404")
                return
            }
            // An extension sharing the store applies version 5.
            try await self.storeVersion5(world, pinServer: pinServer, store: store, fetch: fetch)

            // The app is then served version 3: newer than anything it applied, older than
            // the store's. Refused, and the store still says 5.
            try world.publish(try self.document(world, version: 3))
            guard case .refused(let refusal)? = await app.checkNow() else {
                Issue.record("version 3 was applied over the stored version 5")
                return
            }
            #expect(refusal.code == .pinUpdateRollback)
            #expect(await app.appliedVersion == nil)
            await app.stop()

            let events = Events()
            let relaunched = PinUpdater(
                configuration: try PinUpdaterLiveTests.configuration(
                    world,
                    pinServer: pinServer,
                    store: store,
                    fetch: fetch,
                    events: events
                )
            )
            await relaunched.start(applyingTo: [])
            #expect(await Self.next(events) == .restored(version: 5))
            await relaunched.stop()
        }
    }

    /// Serves `world`'s old chain for the pins and the rotated chain for the API, and hands an
    /// updater whose transport starts with the compiled-in pins.
    func withRotation(
        _ world: World,
        expiry: Ticker,
        _ body: (PinUpdater, NIOHTTPTransport, LoopbackHTTPServer, Events) async throws -> Void
    ) async throws {
        try await Self.pinsServer(world) { pinServer in
            try await withLoopbackHTTPServer(
                LoopbackHTTPServer.TLS(chain: world.rotatedChain),
                handler: { _ in .text("rotated") }
            ) { rotated in
                let fetch = try NIOHTTPTransport(configuration: world.fetchConfiguration)
                defer { Task { await fetch.shutdown() } }
                let events = Events()
                var configuration = try PinUpdaterLiveTests.configuration(
                    world,
                    pinServer: pinServer,
                    store: InMemoryStore(),
                    fetch: fetch,
                    events: events
                )
                configuration.sleep = Self.sleep(interval: configuration.interval, expiry: expiry)
                let updater = PinUpdater(configuration: configuration)
                let transport = try NIOHTTPTransport(configuration: HTTPTransportConfiguration(policy: world.policy))
                defer { Task { await transport.shutdown() } }
                try world.publish(try self.document(world, version: 2, validFor: 1))
                await updater.start(applyingTo: [transport])
                #expect(await Self.next(events) == .applied(version: 2))
                #expect(
                    try await transport.send(PinUpdaterLiveTests.get(rotated)).body == Data("rotated".utf8)
                )
                try await body(updater, transport, rotated, events)
                await updater.stop()
                // Lets an expiry timer still waiting end (it was cancelled, or finds nothing).
                expiry.tick()
            }
        }
    }

    static func expectPinMismatch(_ transport: NIOHTTPTransport, _ server: LoopbackHTTPServer) async {
        do throws(SecureHTTPError) {
            _ = try await transport.send(PinUpdaterLiveTests.get(server))
            Issue.record("the rotated server passed the compiled-in pins")
        } catch {
            #expect(error.serverTrustError?.code == .pinMismatch)
        }
    }

    @Test func anAppliedUpdateExpiresAtItsNotAfterWhileTheAppRuns() async throws {
        let world = try World()
        let expiry = Ticker()
        try await self.withRotation(world, expiry: expiry) { updater, transport, rotated, events in
            // Two days later (the update was valid for one), with no check in between: the
            // timer armed for notAfter fires.
            world.clock.advance(2 * 86_400)
            expiry.tick()
            #expect(await Self.next(events) == .expired(version: 2))
            #expect(await updater.appliedVersion == nil)
            #expect(await updater.currentPins == world.compiled)
            // The transport is back on the compiled-in pins.
            await Self.expectPinMismatch(transport, rotated)
            // A transport attached now gets the compiled-in pins too.
            let later = try NIOHTTPTransport(configuration: HTTPTransportConfiguration(policy: world.policy))
            defer { Task { await later.shutdown() } }
            await updater.attach(later)
            await Self.expectPinMismatch(later, rotated)
            // The highest version is kept: the expired document served again is a rollback.
            guard case .refused(let replay)? = await updater.checkNow() else {
                Issue.record("the expired document was accepted again")
                return
            }
            #expect(replay.code == .pinUpdateRollback)
        }
    }

    @Test func everyCheckExpiresAnUpdatePastItsNotAfterEvenWhenTheFetchFails() async throws {
        let world = try World()
        // The timer never fires in this test: the checks alone expire the update.
        try await self.withRotation(world, expiry: Ticker()) { updater, transport, rotated, events in
            world.clock.advance(2 * 86_400)
            // The same document is still served: not "unchanged", expired.
            let sameDocument = await updater.checkNow()
            #expect(await Self.next(events) == .expired(version: 2))
            guard case .refused(let replay)? = sameDocument else {
                Issue.record("the expired update was kept: \(String(describing: sameDocument))")
                return
            }
            #expect(replay.code == .pinUpdateRollback)
            #expect(await updater.appliedVersion == nil)
            await Self.expectPinMismatch(transport, rotated)
        }
        let world2 = try World()
        try await self.withRotation(world2, expiry: Ticker()) { updater, transport, rotated, events in
            // A man in the middle blocks the fetch (404 here): the update expires all the same.
            world2.served.withLockedValue { $0 = Data() }
            world2.clock.advance(2 * 86_400)
            let blocked = await updater.checkNow()
            #expect(await Self.next(events) == .expired(version: 2))
            guard case .fetchFailed? = blocked else {
                Issue.record("the fetch was not blocked: \(String(describing: blocked))")
                return
            }
            #expect(await updater.appliedVersion == nil)
            await Self.expectPinMismatch(transport, rotated)
        }
    }
}
