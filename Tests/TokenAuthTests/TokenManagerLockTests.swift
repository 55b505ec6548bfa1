#if TestServers
import Foundation
import NIOConcurrencyHelpers
import SecureHTTP
import SecureNetworkingTesting
import SecureStorage
import Testing

@testable import TokenAuth

/// Locking a session (nothing handed out, the store not read) and the sign-out reasons a
/// refusal can have: expired, revoked early, reuse detected.
@Suite("TokenManager: lock, and why a session ended")
struct TokenManagerLockTests {
    let clock = TestClock()
    let store = InMemoryStore()

    func manager(
        _ refresher: ScriptedRefresher,
        store: (any SecureStore)? = nil,
        inactivity: Duration? = nil
    )
        -> TokenManager
    {
        TokenManager(
            store: store ?? self.store,
            refresher: refresher,
            configuration: TokenManager.Configuration(inactivityTimeout: inactivity),
            now: self.clock.function
        )
    }

    static let refused = TokenAuthError(.invalidGrant, "refused", oauthError: "invalid_grant")

    @Test func aLockedSessionHandsOutNothingAndReadsNothingUntilUnlocked() async throws {
        let counting = CountingStore(base: self.store)
        let manager = self.manager(ScriptedRefresher([]), store: counting)
        try await manager.signIn(bundle(clock: self.clock))
        await manager.lock()
        #expect(await manager.isLocked)
        let reads = counting.reads
        #expect(manager.accessTokenForSending() == nil)
        await #expect(throws: TokenAuthError(.sessionLocked, "")) { try await manager.validAccessToken() }
        await #expect(throws: TokenAuthError(.sessionLocked, "")) { try await manager.currentBundle() }
        #expect(try await manager.hasSession())
        #expect(await manager.isSignedIn == false)
        #expect(counting.reads == reads)
        // Unlocking reads the tokens once (and the time of the last activity beside them).
        let tokenReads = counting.reads(of: "SecureNetworking.tokens")
        #expect(try await manager.unlock()?.accessToken == "access-1")
        #expect(counting.reads(of: "SecureNetworking.tokens") == tokenReads + 1)
        #expect(try await manager.validAccessToken() == "access-1")
        #expect(manager.accessTokenForSending() == "access-1")
    }

    @Test func aRefusedUnlockStaysLockedAndKeepsTheTokens() async throws {
        let gate = CountingGate(answers: [.authenticationCancelled, .authenticationFailed])
        let protected = UserPresenceProtectedStore(wrapping: self.store, gate: gate)
        let manager = self.manager(ScriptedRefresher([]), store: protected)
        try await manager.signIn(bundle(clock: self.clock))
        await manager.lock()
        for code in [SecureStoreError.Code.authenticationCancelled, .authenticationFailed] {
            do {
                _ = try await manager.unlock()
                Issue.record("unlocked")
            } catch {
                #expect(error.code == .storageFailure)
                #expect(error.storageError?.code == code)
            }
            #expect(await manager.isLocked)
            #expect(try await self.store.contains("SecureNetworking.tokens"))
        }
    }

    @Test func aSignOutOfALockedSessionEndsItWithoutReadingTheTokens() async throws {
        let counting = CountingStore(base: self.store)
        let manager = self.manager(ScriptedRefresher([]), store: counting)
        let log = EventLog(manager)
        try await manager.signIn(bundle(clock: self.clock))
        await manager.lock()
        let reads = counting.reads
        await manager.signOut()
        #expect(counting.reads == reads)
        #expect(await manager.isLocked == false)
        #expect(try await self.store.contains("SecureNetworking.tokens") == false)
        #expect(
            try await log.drain(manager, marker: bundle(access: "marker", clock: self.clock)) == [
                .signedIn, .signedOut(.requested),
            ]
        )
    }

    @Test func inactivityEndsALockedSessionWithoutReadingTheTokens() async throws {
        let counting = CountingStore(base: self.store)
        let first = self.manager(ScriptedRefresher([]), store: counting, inactivity: .seconds(600))
        try await first.signIn(bundle(clock: self.clock))
        self.clock.advance(601)
        // A relaunch that starts locked: the activity of the last launch is read, not the tokens.
        let second = self.manager(ScriptedRefresher([]), store: counting, inactivity: .seconds(600))
        await second.lock()
        let tokenReads = counting.reads(of: "SecureNetworking.tokens")
        #expect(await second.checkInactivity())
        #expect(counting.reads(of: "SecureNetworking.tokens") == tokenReads)
        #expect(try await self.store.contains("SecureNetworking.tokens") == false)
    }

    /// The guarantee "a locked session hands out and publishes nothing": from the call of
    /// `lock()` on, not once the refresh in flight has ended; that refresh is saved, and its
    /// result reaches no caller.
    @Test func aLockedSessionHandsOutAndPublishesNothingFromTheCall() async throws {
        let refresher = ScriptedRefresher(
            [.succeed(TokenResponse(accessToken: "access-2", expiresIn: 3600, refreshToken: "refresh-2"))],
            gated: true
        )
        let manager = self.manager(refresher)
        try await manager.signIn(bundle(clock: self.clock))
        self.clock.advance(3600)
        let request = Task { try await manager.validAccessToken() }
        await refresher.started.wait()
        let locking = Task { await manager.lock() }
        // Locked while the refresh is still held: nothing on requests, a typed error for callers,
        // and no refresh started.
        try await waitFor { manager.accessTokenForSending() == nil }
        try #require(manager.accessTokenForSending() == nil, "the lock waited for the refresh")
        #expect(await manager.isLocked)
        await #expect(throws: TokenAuthError(.sessionLocked, "")) { try await manager.validAccessToken() }
        await #expect(throws: TokenAuthError(.sessionLocked, "")) {
            try await manager.handleUnauthorized(sentToken: "access-1")
        }
        await refresher.release?.open()
        await locking.value
        // The refresh's result is not handed out to the caller that waited for it, nor published.
        await #expect(throws: TokenAuthError(.sessionLocked, "")) { try await request.value }
        #expect(manager.accessTokenForSending() == nil)
        #expect(manager.bundleForSending() == nil)
        #expect(await manager.isLocked)
        #expect(refresher.calls == ["refresh-1"])
        // The rotated refresh token was saved, not lost to the lock, and is handed out after the
        // unlock.
        let stored = try await self.store.value(TokenBundle.self, forKey: "SecureNetworking.tokens")
        #expect(stored?.refreshToken == "refresh-2")
        #expect(try await manager.unlock()?.accessToken == "access-2")
        #expect(manager.accessTokenForSending() == "access-2")
    }

    /// An unlock that comes while a lock waits for a refresh waits for the lock, then reads the
    /// tokens through the store's presence gate (never the ones in memory, without it).
    @Test func anUnlockDuringALockWaitsForItAndReadsThroughTheGate() async throws {
        let gate = CountingGate(answers: [])
        let protected = UserPresenceProtectedStore(wrapping: self.store, gate: gate)
        let refresher = ScriptedRefresher(
            [.succeed(TokenResponse(accessToken: "access-2", expiresIn: 3600, refreshToken: "refresh-2"))],
            gated: true
        )
        let manager = self.manager(refresher, store: protected)
        try await manager.signIn(bundle(clock: self.clock))
        self.clock.advance(3600)
        let request = Task { try await manager.validAccessToken() }
        await refresher.started.wait()
        let locking = Task { await manager.lock() }
        try await waitFor { manager.accessTokenForSending() == nil }
        let asked = gate.asked
        let unlocking = Task { try await manager.unlock() }
        try await waitUntilUnlocksJoined(manager, 1)
        #expect(gate.asked == asked, "the unlock read the tokens before the lock was done")
        await refresher.release?.open()
        await locking.value
        // The unlock read what the lock saved, through the gate.
        #expect(try await unlocking.value?.accessToken == "access-2")
        #expect(gate.asked == asked + 1)
        #expect(await manager.isLocked == false)
        await #expect(throws: TokenAuthError(.sessionLocked, "")) { try await request.value }
        #expect(try await manager.validAccessToken() == "access-2")
    }

    /// A lock that comes while an unlock reads the tokens wins: the session stays locked.
    @Test func aLockDuringAnUnlockKeepsTheSessionLocked() async throws {
        let store = HeldReadStore(base: self.store)
        let manager = self.manager(ScriptedRefresher([]), store: store)
        try await manager.signIn(bundle(clock: self.clock))
        await manager.lock()
        store.holdReads()
        let unlocking = Task { try await manager.unlock() }
        await store.readHeld.wait()
        await manager.lock()
        await store.release.open()
        await #expect(throws: TokenAuthError(.sessionLocked, "")) { try await unlocking.value }
        #expect(await manager.isLocked)
        #expect(manager.accessTokenForSending() == nil)
    }

    @Test func aTokenRefusedBeforeItExpiredThenARefusedRefreshIsARevocation() async throws {
        let manager = self.manager(ScriptedRefresher([.fail(Self.refused)]))
        let log = EventLog(manager)
        try await manager.signIn(bundle(clock: self.clock))
        await #expect(throws: TokenAuthError(.invalidGrant, "")) {
            try await manager.handleUnauthorized(sentToken: "access-1")
        }
        #expect(
            try await log.drain(manager, marker: bundle(access: "marker", clock: self.clock)) == [
                .signedIn, .signedOut(.revoked),
            ]
        )
    }

    @Test func aRefusedRefreshOfADueTokenIsAnExpiredSession() async throws {
        let manager = self.manager(ScriptedRefresher([.fail(Self.refused)]))
        let log = EventLog(manager)
        try await manager.signIn(bundle(clock: self.clock))
        self.clock.advance(3600)
        await #expect(throws: TokenAuthError(.invalidGrant, "")) {
            try await manager.handleUnauthorized(sentToken: "access-1")
        }
        #expect(
            try await log.drain(manager, marker: bundle(access: "marker", clock: self.clock)) == [
                .signedIn, .signedOut(.refreshRejected),
            ]
        )
    }

    @Test func aTokenRefusedAfterItsPresentationWentUnansweredIsReuse() async throws {
        let lost = TokenAuthError(
            .transportFailure,
            "the connection closed",
            transportError: SecureHTTPError(.connectionClosed, "closed before the answer")
        )
        let manager = self.manager(ScriptedRefresher([.fail(lost), .fail(Self.refused)]))
        let log = EventLog(manager)
        try await manager.signIn(bundle(clock: self.clock))
        self.clock.advance(3600)
        await #expect(throws: TokenAuthError(.transportFailure, "")) { try await manager.validAccessToken() }
        // The server may have redeemed refresh-1; presenting it again is its second use.
        await #expect(throws: TokenAuthError(.invalidGrant, "")) { try await manager.validAccessToken() }
        #expect(
            try await log.drain(manager, marker: bundle(access: "marker", clock: self.clock)) == [
                .signedIn, .signedOut(.reuseDetected),
            ]
        )
    }

    @Test func anAnsweredRefreshForgetsTheUnansweredToken() async throws {
        let lost = TokenAuthError(
            .transportFailure,
            "lost",
            transportError: SecureHTTPError(.connectionClosed, "closed")
        )
        let manager = self.manager(
            ScriptedRefresher([
                .fail(lost),
                .succeed(TokenResponse(accessToken: "access-2", expiresIn: 3600, refreshToken: "refresh-2")),
                .fail(Self.refused),
            ])
        )
        let log = EventLog(manager)
        try await manager.signIn(bundle(clock: self.clock))
        self.clock.advance(3600)
        _ = try? await manager.validAccessToken()
        #expect(try await manager.validAccessToken() == "access-2")
        self.clock.advance(3600)
        _ = try? await manager.validAccessToken()
        #expect(
            try await log.drain(manager, marker: bundle(access: "marker", clock: self.clock)) == [
                .signedIn, .refreshed, .signedOut(.refreshRejected),
            ]
        )
    }
}

/// A store that counts reads of item values.
final class CountingStore: SecureStore {
    let base: any SecureStore
    private let counts = NIOLockedValueBox<[String: Int]>([:])

    init(base: any SecureStore) {
        self.base = base
    }

    var reads: Int { self.counts.withLockedValue { $0.values.reduce(0, +) } }
    func reads(of key: String) -> Int { self.counts.withLockedValue { $0[key] ?? 0 } }

    func data(forKey key: String) async throws(SecureStoreError) -> Data? {
        self.counts.withLockedValue { $0[key, default: 0] += 1 }
        return try await self.base.data(forKey: key)
    }

    func set(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        try await self.base.set(data, forKey: key)
    }

    func removeValue(forKey key: String) async throws(SecureStoreError) {
        try await self.base.removeValue(forKey: key)
    }

    func contains(_ key: String) async throws(SecureStoreError) -> Bool {
        try await self.base.contains(key)
    }
}

/// A presence gate that answers with the scripted error codes in turn (success when empty),
/// and counts the checks.
final class CountingGate: UserPresenceGate {
    private let answers: NIOLockedValueBox<(codes: [SecureStoreError.Code], asked: Int)>

    init(answers: [SecureStoreError.Code]) {
        self.answers = NIOLockedValueBox((answers, 0))
    }

    /// How many checks the gate was asked for.
    var asked: Int { self.answers.withLockedValue { $0.asked } }

    func authenticate(reason: String) async throws(SecureStoreError) {
        let next = self.answers.withLockedValue { answers -> SecureStoreError.Code? in
            answers.asked += 1
            return answers.codes.isEmpty ? nil : answers.codes.removeFirst()
        }
        if let next { throw SecureStoreError(next, "scripted") }
    }
}

/// A store whose reads of item values wait, once ``holdReads()`` was called, until the test
/// opens ``release``; ``readHeld`` opens when one is waiting.
final class HeldReadStore: SecureStore {
    let base: any SecureStore
    let readHeld = Gate()
    let release = Gate()
    private let holding = NIOLockedValueBox(false)

    init(base: any SecureStore) {
        self.base = base
    }

    func holdReads() { self.holding.withLockedValue { $0 = true } }

    func data(forKey key: String) async throws(SecureStoreError) -> Data? {
        if self.holding.withLockedValue({ $0 }) {
            await self.readHeld.open()
            await self.release.wait()
        }
        return try await self.base.data(forKey: key)
    }

    func set(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        try await self.base.set(data, forKey: key)
    }

    func removeValue(forKey key: String) async throws(SecureStoreError) {
        try await self.base.removeValue(forKey: key)
    }

    func contains(_ key: String) async throws(SecureStoreError) -> Bool {
        try await self.base.contains(key)
    }
}

/// Waits (up to 10 s) until `count` unlocks have waited for a lock in progress.
func waitUntilUnlocksJoined(
    _ manager: TokenManager,
    _ count: Int,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    for _ in 0..<2000 {
        if await manager.lockJoins >= count { break }
        try await Task.sleep(for: .milliseconds(5))
    }
    let joined = await manager.lockJoins
    #expect(joined == count, "only \(joined) unlocks waited for the lock", sourceLocation: sourceLocation)
}
#endif
