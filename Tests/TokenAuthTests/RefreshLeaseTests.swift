#if TestServers
import Foundation
import NIOConcurrencyHelpers
import SecureStorage
import Testing

@testable import TokenAuth

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The refresh lease: processes that share a store refresh one at a time without holding the
/// store's lock while they wait on the network. Its decisions as a table, then two token managers
/// on two handles of one encrypted store (the lock and the lease between them are the ones two
/// processes share).
@Suite("The refresh lease")
struct RefreshLeaseTests {
    static let key = "SecureNetworking.tokens"
    static let leaseKey = "SecureNetworking.tokens.refreshLease"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let stale = TokenBundle(accessToken: "a0", refreshToken: "r0", expiresAt: now.addingTimeInterval(-1))
    static let fresh = TokenBundle(accessToken: "a1", refreshToken: "r1", expiresAt: now.addingTimeInterval(300))
    static let expiredElsewhere = TokenBundle(
        accessToken: "a1",
        refreshToken: "r1",
        expiresAt: now.addingTimeInterval(-1)
    )

    struct StepCase: Sendable, CustomTestStringConvertible {
        let name: String
        var stored: TokenBundle? = RefreshLeaseTests.stale
        var lease: RefreshLease? = nil
        var alive = true
        var waitingSince: Date? = nil
        let step: RefreshLease.Step
        var testDescription: String { self.name }
    }

    static func lease(owner: String = "other", expiresIn: TimeInterval) -> RefreshLease {
        RefreshLease(owner: owner, processID: 4242, expires: now.addingTimeInterval(expiresIn))
    }

    static let stepCases: [StepCase] = [
        StepCase(name: "no lease: take it, spending the stored token", step: .take(spending: "r0")),
        StepCase(name: "the store is empty: ended elsewhere", stored: nil, step: .endedElsewhere),
        StepCase(name: "another process refreshed: adopt", stored: fresh, step: .adopt(fresh)),
        StepCase(
            name: "another process refreshed and the result is due again: spend its token, not ours",
            stored: expiredElsewhere,
            step: .take(spending: "r1")
        ),
        StepCase(name: "a live lease of another process: wait", lease: lease(expiresIn: 3), step: .wait),
        StepCase(
            name: "a live lease, waited up to the patience: give up",
            lease: lease(expiresIn: 3),
            waitingSince: now.addingTimeInterval(-10),
            step: .giveUp
        ),
        StepCase(
            name: "a live lease, waited less than the patience: wait",
            lease: lease(expiresIn: 3),
            waitingSince: now.addingTimeInterval(-9.9),
            step: .wait
        ),
        StepCase(name: "a lapsed lease: take over", lease: lease(expiresIn: -0.001), step: .take(spending: "r0")),
        StepCase(name: "a lease lapsing now: take over", lease: lease(expiresIn: 0), step: .take(spending: "r0")),
        StepCase(
            name: "a live lease whose process is gone: take over",
            lease: lease(expiresIn: 3),
            alive: false,
            step: .take(spending: "r0")
        ),
        StepCase(
            name: "our own lease, left behind: take it",
            lease: lease(owner: "me", expiresIn: 3),
            step: .take(spending: "r0")
        ),
        StepCase(
            name: "a lease, and another process refreshed meanwhile: adopt",
            stored: fresh,
            lease: lease(expiresIn: 3),
            step: .adopt(fresh)
        ),
    ]

    @Test(arguments: stepCases)
    func theStep(_ testCase: StepCase) {
        let step = RefreshLease.step(
            stored: testCase.stored,
            lease: testCase.lease,
            stale: Self.stale,
            owner: "me",
            needsRefresh: { $0.expiresAt <= Self.now },
            ownerIsAlive: { _ in testCase.alive },
            now: Self.now,
            waitingSince: testCase.waitingSince,
            patience: 10
        )
        #expect(step == testCase.step)
    }

    @Test func theCompletionStoresOnlyOverTheSpentToken() {
        #expect(RefreshLease.completion(stored: Self.stale, spent: "r0") == .own)
        #expect(RefreshLease.completion(stored: Self.fresh, spent: "r0") == .adopt(Self.fresh))
        #expect(RefreshLease.completion(stored: nil, spent: "r0") == .endedElsewhere)
    }

    @Test func aProcessIsAliveUntilItIsGone() throws {
        #expect(RefreshLease.processIsAlive(getpid()))
        #expect(RefreshLease.processIsAlive(getppid()))
        #expect(!RefreshLease.processIsAlive(try Self.goneProcessID()))
    }

    // MARK: Two managers on one store

    /// A folder with a key file, removed afterwards.
    typealias Folder = SharedSessionRefreshTests.Folder

    /// The identifier of a process that has exited and been reaped.
    static func goneProcessID() throws -> Int32 {
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/sh")
        gone.arguments = ["-c", "exit 0"]
        try gone.run()
        gone.waitUntilExit()
        return gone.processIdentifier
    }

    /// A store holding an expired session and `lease`, as another process left them.
    static func expiredSession(in folder: Folder, leasedBy lease: RefreshLease) async throws -> EncryptedFileStore {
        let store = folder.store()
        try await store.set(Self.expired(), forKey: Self.key)
        try await store.set(lease, forKey: Self.leaseKey)
        return store
    }

    static func expired(_ access: String = "a0", _ refresh: String = "r0") -> TokenBundle {
        TokenBundle(accessToken: access, refreshToken: refresh, expiresAt: Date().addingTimeInterval(-1))
    }

    static func answer(_ access: String, _ refresh: String) -> ScriptedRefresher.Step {
        .succeed(TokenResponse(accessToken: access, expiresIn: 300, refreshToken: refresh))
    }

    @Test func aRefreshInFlightHoldsNoLockAndClearsItsLease() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let (mine, other) = (folder.store(), folder.store())
        try await mine.set(Self.expired(), forKey: Self.key)
        let refresher = ScriptedRefresher([Self.answer("a1", "r1")], gated: true)
        let manager = TokenManager(store: mine, refresher: refresher)
        let result = Task { try await manager.validAccessToken() }
        await refresher.started.wait()

        // Before the lease, this lock was held across the refresh and this timed out.
        let lock = try #require(try await other.lockAcrossProcesses(timeout: .milliseconds(200)))
        let lease = try #require(try await other.value(RefreshLease.self, forKey: Self.leaseKey))
        #expect(lease.owner == manager.leaseOwner)
        #expect(lease.processID == getpid())
        #expect(lease.expires > Date())
        lock.release()

        await refresher.release?.open()
        #expect(try await result.value == "a1")
        #expect(try await other.value(TokenBundle.self, forKey: Self.key)?.refreshToken == "r1")
        #expect(try await !other.contains(Self.leaseKey))
    }

    @Test func aSlowRefreshRenewsItsLeaseAndTheOtherManagerWaits() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let (first, second) = (folder.store(), folder.store())
        try await first.set(Self.expired(), forKey: Self.key)
        // 2 s, renewed every 2/3 s: long enough that a busy machine (the suite beside a build)
        // does not starve a renewal past the deadline, which a 300 ms lease did.
        let configuration = TokenManager.Configuration(
            crossProcessLockTimeout: .seconds(30),
            refreshLeaseDuration: .seconds(2)
        )
        let slow = ScriptedRefresher([Self.answer("a1", "r1")], gated: true)
        let waiting = ScriptedRefresher([Self.answer("x", "y")])
        let owner = TokenManager(store: first, refresher: slow, configuration: configuration)
        let other = TokenManager(store: second, refresher: waiting, configuration: configuration)
        let owned = Task { try await owner.validAccessToken() }
        await slow.started.wait()
        let waited = Task { try await other.validAccessToken() }

        // The endpoint is held past the lease's first deadline; meanwhile the deadline moves
        // (renewals) and the other manager never calls its endpoint.
        let initial = try #require(try await second.value(RefreshLease.self, forKey: Self.leaseKey)).expires
        let renewals = NIOLockedValueBox(Set<Date>())
        // Watched until past the first deadline and two renewals were seen (a renewal delayed
        // by a busy machine is waited for, up to 30 s).
        let watchedEnough = { Date() >= initial.addingTimeInterval(0.5) && renewals.withLockedValue { $0.count } >= 2 }
        for _ in 0..<6000 where !watchedEnough() {
            if let lease = try? await second.value(RefreshLease.self, forKey: Self.leaseKey), lease.expires > initial {
                renewals.withLockedValue { _ = $0.insert(lease.expires) }
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(Date() >= initial.addingTimeInterval(0.5))
        #expect(renewals.withLockedValue { $0.count } >= 2)
        let live = try #require(try await second.value(RefreshLease.self, forKey: Self.leaseKey))
        #expect(live.owner == owner.leaseOwner)
        #expect(live.expires > Date())
        #expect(waiting.calls.isEmpty)

        await slow.release?.open()
        #expect(try await owned.value == "a1")
        #expect(try await waited.value == "a1")
        #expect(slow.calls == ["r0"])
        #expect(waiting.calls.isEmpty)
    }

    @Test func aLeaseOfAProcessThatIsGoneIsTakenOverAtOnce() async throws {
        let folder = Folder()
        defer { folder.remove() }
        // A lease for another hour, of a process that died mid-refresh.
        let store = try await Self.expiredSession(
            in: folder,
            leasedBy: RefreshLease(
                owner: "crashed",
                processID: try Self.goneProcessID(),
                expires: Date().addingTimeInterval(3600)
            )
        )
        let refresher = ScriptedRefresher([Self.answer("a1", "r1")])
        // Patience of 200 ms: waiting for the hour-long lease would give up.
        let manager = TokenManager(
            store: store,
            refresher: refresher,
            configuration: TokenManager.Configuration(crossProcessLockTimeout: .milliseconds(200))
        )
        #expect(try await manager.validAccessToken() == "a1")
        #expect(refresher.calls == ["r0"])
        #expect(try await !store.contains(Self.leaseKey))
    }

    @Test func aLiveLeaseIsWaitedForUntilItLapsesThenTakenOver() async throws {
        let folder = Folder()
        defer { folder.remove() }
        // A live process (the test runner's parent) that stopped renewing: suspended.
        let lapses = Date().addingTimeInterval(0.4)
        let store = try await Self.expiredSession(
            in: folder,
            leasedBy: RefreshLease(owner: "suspended", processID: getppid(), expires: lapses)
        )
        let refresher = ScriptedRefresher([Self.answer("a1", "r1")])
        let manager = TokenManager(store: store, refresher: refresher)
        let token = Task { try await manager.validAccessToken() }
        await refresher.started.wait()
        #expect(Date() >= lapses)
        #expect(try await token.value == "a1")
    }

    @Test func aLiveLeaseThatOutlastsThePatienceIsAClearErrorThatKeepsTheTokens() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let store = try await Self.expiredSession(
            in: folder,
            leasedBy: RefreshLease(owner: "busy", processID: getppid(), expires: Date().addingTimeInterval(3600))
        )
        let refresher = ScriptedRefresher([Self.answer("a1", "r1")])
        let manager = TokenManager(
            store: store,
            refresher: refresher,
            configuration: TokenManager.Configuration(crossProcessLockTimeout: .milliseconds(150))
        )
        do throws(TokenAuthError) {
            _ = try await manager.validAccessToken()
            Issue.record("refreshed under another process's live lease")
        } catch {
            #expect(error.code == .storageFailure)
            #expect(error.storageError?.code == .lockTimeout)
        }
        #expect(refresher.calls.isEmpty)
        #expect(try await store.value(TokenBundle.self, forKey: Self.key)?.refreshToken == "r0")
    }

    @Test func theStoredRefreshTokenIsSpentNotAStaleCopy() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let (mine, other) = (folder.store(), folder.store())
        try await mine.set(Self.expired("a0", "r0"), forKey: Self.key)
        let refresher = ScriptedRefresher([Self.answer("a2", "r2")])
        let manager = TokenManager(store: mine, refresher: refresher)
        _ = try await manager.currentBundle()
        // Another process refreshed (r0 → r1) and that bundle has expired too.
        try await other.set(Self.expired("a1", "r1"), forKey: Self.key)
        #expect(try await manager.validAccessToken() == "a2")
        #expect(refresher.calls == ["r1"])
    }

    @Test func aRefusalAfterAnotherProcessStoredANewerBundleKeepsThatBundle() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let (mine, other) = (folder.store(), folder.store())
        try await mine.set(Self.expired(), forKey: Self.key)
        let refresher = ScriptedRefresher([.fail(TokenAuthError(.invalidGrant, "reused"))], gated: true)
        let manager = TokenManager(store: mine, refresher: refresher)
        let events = EventLog(manager)
        let token = Task { try await manager.validAccessToken() }
        await refresher.started.wait()
        // Another process took the lease over (A looked suspended) and stored its own refresh.
        let newer = TokenBundle(accessToken: "a9", refreshToken: "r9", expiresAt: Date().addingTimeInterval(300))
        let taker = RefreshLease(owner: "taker", processID: getppid(), expires: Date().addingTimeInterval(60))
        try await other.setCoordinationData(try JSONEncoder().encode(taker), forKey: Self.leaseKey)
        try await other.set(newer, forKey: Self.key)
        await refresher.release?.open()
        #expect(try await token.value == "a9")
        #expect(try await other.value(TokenBundle.self, forKey: Self.key) == newer)
        let seen = try await events.drain(manager, marker: newer)
        #expect(seen.allSatisfy { !$0.isSignedOut })
    }

    @Test func aRefreshThatEndsAfterASignOutElsewhereStoresNothing() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let (mine, other) = (folder.store(), folder.store())
        try await mine.set(Self.expired(), forKey: Self.key)
        let refresher = ScriptedRefresher([Self.answer("a1", "r1")], gated: true)
        let manager = TokenManager(store: mine, refresher: refresher)
        let events = EventLog(manager)
        let token = Task { try await manager.validAccessToken() }
        await refresher.started.wait()
        // Another process signs out.
        let elsewhere = TokenManager(store: other, refresher: ScriptedRefresher([]))
        await elsewhere.signOut()
        await refresher.release?.open()
        do {
            _ = try await token.value
            Issue.record("a session another process ended came back")
        } catch let error as TokenAuthError {
            #expect(error.code == .signedOut)
        }
        #expect(try await other.value(TokenBundle.self, forKey: Self.key) == nil)
        try await waitFor { events.all.contains(.signedOut(.endedElsewhere)) }
    }

    /// A gate that counts the checks it was asked for and always succeeds.
    final class CountingGate: UserPresenceGate {
        let checks = NIOLockedValueBox(0)
        func authenticate(reason: String) async throws(SecureStoreError) {
            self.checks.withLockedValue { $0 += 1 }
        }
    }

    /// Behind a user-presence gate that asks on every protected read (the default), a shared
    /// session's refresh asks as often as it did before leases: once to load the session, once
    /// to read it again under the lock. The lease is read, written and renewed without a prompt.
    @Test func theLeaseNeverAsksForUserPresence() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let base = folder.store()
        try await base.set(Self.expired(), forKey: Self.key)
        let gate = CountingGate()
        let store = UserPresenceProtectedStore(wrapping: base, gate: gate)
        let refresher = ScriptedRefresher([Self.answer("a1", "r1")], gated: true)
        let manager = TokenManager(
            store: store,
            refresher: refresher,
            configuration: TokenManager.Configuration(refreshLeaseDuration: .milliseconds(300))
        )
        let token = Task { try await manager.validAccessToken() }
        await refresher.started.wait()
        // Renewed at least twice while the endpoint is held.
        let initial = try #require(await manager.storedLease()).expires
        for _ in 0..<2000 {
            if let lease = await manager.storedLease(), lease.expires.timeIntervalSince(initial) >= 0.2 { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(try #require(await manager.storedLease()).expires.timeIntervalSince(initial) >= 0.2)
        await refresher.release?.open()
        #expect(try await token.value == "a1")
        #expect(gate.checks.withLockedValue { $0 } == 2)
        #expect(try await base.value(TokenBundle.self, forKey: Self.key)?.refreshToken == "r1")
    }
}
#endif
