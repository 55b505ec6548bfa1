public import CoreMetrics
public import Foundation
import SecureNetworkingInternal
public import SecureStorage

/// Holds a session's tokens and hands out valid access tokens.
///
/// - At most one refresh is in flight: every caller that needs a new token awaits the same task.
/// - Tokens are refreshed ahead of expiry (``Configuration/refreshLeeway``, or a fraction of the
///   lifetime for short-lived tokens), on the injected clock.
/// - A 401 triggers a refresh only if the request carried the current token
///   (``handleUnauthorized(sentToken:)``); otherwise the caller retries with the newer one.
/// - A rotated refresh token is persisted before the new access token is handed out. The bundle
///   is one store item, written atomically, so a crash leaves either the old or the new bundle.
/// - Terminal refresh failures clear the tokens and emit a signed-out event once; transient ones
///   keep the tokens and throw. A refresh-loop guard limits refreshes per window.
/// - An optional inactivity timeout ends the session after an idle period.
/// - A locked session hands out and publishes nothing: ``lock()`` takes effect before it waits
///   for a refresh in flight, whose rotated refresh token is saved but not handed out; no refresh
///   starts while locked; an ``unlock()`` during a lock waits for it, then reads the tokens
///   through the store's user-presence gate.
/// - A request is bound to the session generation it started in: a generation begins with each
///   sign-in and ends with the session. A request of a locked session or of an ended or replaced
///   one binds nothing and fails (``TokenAuthError/Code/sessionLocked``,
///   ``TokenAuthError/Code/signedOut``, ``TokenAuthError/Code/sessionChanged``); it never falls
///   back to the token it started with, nor carries the next session's.
///
/// `dump()`, debuggers and `Mirror` see the store item's name, never the session's state.
public actor TokenManager {
    /// How the manager refreshes and how long a session may idle.
    public struct Configuration: Sendable {
        /// The store item that holds the bundle. Default `SecureNetworking.tokens`.
        public var storageKey: String
        /// Refresh this long before expiry. Default 5 minutes.
        public var refreshLeeway: Duration
        /// For short-lived tokens: refresh when this fraction of the lifetime remains, if that is
        /// sooner than ``refreshLeeway`` allows. Default 0.25.
        public var shortLivedFraction: Double
        /// At most this many refreshes within ``refreshWindow``. Default 5 per 60 s.
        public var maximumRefreshes: Int
        /// The window of the refresh-loop guard.
        public var refreshWindow: Duration
        /// Sign out after this long without a call to ``validAccessToken()`` or
        /// ``recordActivity()``; nil (the default) never does.
        ///
        /// The time of the last activity is kept in the store beside the tokens (item
        /// `<storageKey>.lastActivity`) and judged when a relaunched app first loads the session,
        /// so quitting the app does not reset the clock. It is written at most once a minute (or
        /// once a tenth of the timeout, if shorter): after a relaunch a session may end up to
        /// that much early, never late.
        public var inactivityTimeout: Duration?
        /// How long a sign-out (requested, or after inactivity) waits for the refresh token's
        /// revocation (RFC 7009, through ``TokenRefresher/revoke(refreshToken:)``). The session
        /// ends locally first, whatever the revocation does; a revocation that fails or takes
        /// longer is abandoned. Default 5 seconds.
        public var revocationTimeout: Duration
        /// How long a refresh waits for another process that shares the store: for its
        /// cross-process lock (`SecureStore.lockAcrossProcesses(timeout:)`), which is only held
        /// for a read-check-write of the store, and for another process's live refresh lease
        /// (see ``refreshLeaseDuration``). Under the lock the stored bundle is read again: a
        /// bundle another process refreshed meanwhile is used as it is, so processes sharing a
        /// session never both spend one refresh token (which rotation with reuse detection would
        /// punish by signing the user out). On timeout the refresh fails with
        /// ``TokenAuthError/Code/storageFailure`` (`SecureStoreError.Code.lockTimeout`) and
        /// the tokens are kept. Default 10 seconds.
        public var crossProcessLockTimeout: Duration
        /// How long a refresh lease lasts without renewal, for stores shared across processes.
        ///
        /// A process refreshes under a lease recorded in the store (item
        /// `<storageKey>.refreshLease`), not under the store's lock, so that it never holds a
        /// lock while it waits on the network (iOS terminates a suspended app that holds a file
        /// lock in a shared container). The owner renews the lease every third of this duration
        /// while its request is in flight; a suspended or dead owner stops renewing, and once
        /// its lease lapses (at once, for an owner whose process is gone) the next process
        /// refreshes in its place.
        ///
        /// - Important: Keep it shorter than the server's refresh-token reuse grace window
        ///   (RFC 9700 §4.14.2; the reference server's is 10 s), so that a process that takes
        ///   over from a suspended owner whose request the server already redeemed presents the
        ///   spent token within the window and gets the same successor. With a server that
        ///   forgives no reuse, that takeover makes the server revoke the session: both
        ///   processes then end it, and nothing is stored. Default 6 seconds.
        public var refreshLeaseDuration: Duration
        /// Where the manager reports swift-metrics counters: refreshes by outcome (`success`,
        /// `adopted`, `refused`, `failed`) with the endpoint's time, and sign-outs by reason. Nil
        /// (the default) uses `MetricsSystem.factory`, which records nothing until the app
        /// bootstraps a backend.
        public var metricsFactory: (any MetricsFactory)?

        /// Creates a configuration.
        public init(
            storageKey: String = "SecureNetworking.tokens",
            refreshLeeway: Duration = .seconds(300),
            shortLivedFraction: Double = 0.25,
            maximumRefreshes: Int = 5,
            refreshWindow: Duration = .seconds(60),
            inactivityTimeout: Duration? = nil,
            revocationTimeout: Duration = .seconds(5),
            crossProcessLockTimeout: Duration = .seconds(10),
            refreshLeaseDuration: Duration = .seconds(6)
        ) {
            self.revocationTimeout = revocationTimeout
            self.crossProcessLockTimeout = crossProcessLockTimeout
            self.refreshLeaseDuration = max(refreshLeaseDuration, .milliseconds(300))
            self.storageKey = storageKey
            self.refreshLeeway = refreshLeeway
            self.shortLivedFraction = min(max(shortLivedFraction, 0), 1)
            self.maximumRefreshes = max(1, maximumRefreshes)
            self.refreshWindow = refreshWindow
            self.inactivityTimeout = inactivityTimeout
        }
    }

    /// Session events: signed in, refreshed, signed out (with the reason). One consumer.
    public nonisolated let events: AsyncStream<TokenEvent>

    let store: any SecureStore
    let refresher: any TokenRefresher
    let configuration: Configuration
    let metrics: TokenMetrics
    let now: @Sendable () -> Date
    let eventSink: AsyncStream<TokenEvent>.Continuation

    var bundle: TokenBundle?
    /// The bundle last handed out (saved, current), readable without a hop onto the actor; see
    /// ``accessTokenForSending()``.
    nonisolated let published = Locked(PublishedToken())
    var loaded = false
    /// A refreshed bundle the store could not save yet; it is saved before it is handed out.
    var unsaved = false
    var refreshTask: Task<TokenBundle, any Error>?
    var refreshTimes: [Date] = []
    /// How many times a caller has awaited a refresh in flight (for tests).
    var refreshJoins = 0
    var lastActivity: Date?
    /// When ``lastActivity`` was last written to the store.
    var lastPersistedActivity: Date?
    /// The session generation: bumped when a session starts or ends, so a refresh that finishes
    /// afterwards cannot revive it, and a request of one session is never sent in another.
    var generation = 0
    /// Until when the token endpoint asked not to be called again (`Retry-After`).
    var refreshNotBefore: Date?
    /// Revocations attempted and how they ended (for tests): completed, failed, abandoned.
    var revocationOutcomes: [RevocationOutcome] = []
    /// This manager's name in refresh leases (``RefreshLease/owner``).
    nonisolated let leaseOwner = UUID().uuidString
    /// The refresh token of the last refresh that failed on the way (no answer: the server may
    /// have redeemed it); a refusal of the same token is then reuse detection's.
    var unansweredRefreshToken: String?
    /// Whether the session is locked (``lock()``): nothing is handed out, the store is not read.
    var locked = false
    /// The rest of the lock in progress (a refresh in flight ends, a bundle not yet saved is
    /// saved), which an ``unlock()`` waits for.
    var locking: Task<Void, Never>?
    /// Bumped by every call of ``lock()``: an unlock that read the store meanwhile stays locked.
    var lockCalls = 0
    /// How many unlocks have waited for a lock in progress (for tests).
    var lockJoins = 0

    /// Creates a manager.
    ///
    /// - Parameters:
    ///   - store: where the bundle is kept (Keychain, an encrypted file store, memory).
    ///   - refresher: the token endpoint, normally an ``OAuthTokenEndpoint``.
    ///   - configuration: refresh timing, loop guard and inactivity timeout.
    ///   - now: the clock.
    public init(
        store: any SecureStore,
        refresher: any TokenRefresher,
        configuration: Configuration = Configuration(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.refresher = refresher
        self.configuration = configuration
        self.metrics = TokenMetrics(factory: configuration.metricsFactory)
        self.now = now
        (self.events, self.eventSink) = AsyncStream.makeStream(of: TokenEvent.self)
    }

    /// Stores a new session's tokens (after a login) and emits ``TokenEvent/signedIn``.
    ///
    /// - Throws: ``TokenAuthError/Code/storageFailure`` when the store refuses them.
    public func signIn(_ bundle: TokenBundle) async throws(TokenAuthError) {
        do {
            // Under the session lock where the store has one: a refresh lease of the old session
            // is cleared with it, so a refresh that ends afterwards adopts this bundle.
            let lock = try? await self.store.lockAcrossProcesses(timeout: self.configuration.crossProcessLockTimeout)
            defer { lock?.release() }
            if lock != nil { try? await self.store.removeValue(forKey: self.leaseKey) }
            try await self.store.set(bundle, forKey: self.configuration.storageKey)
        } catch {
            throw .storage(error, "the tokens could not be stored")
        }
        self.generation += 1
        self.refreshTask?.cancel()
        self.refreshTask = nil
        self.locked = false
        self.bundle = bundle
        self.loaded = true
        self.unsaved = false
        self.publish(bundle)
        self.refreshTimes = []
        self.lastActivity = nil
        self.lastPersistedActivity = nil
        await self.noteActivity()
        self.eventSink.yield(.signedIn)
    }

    /// Ends the session: clears the tokens and emits ``TokenEvent/signedOut(_:)`` with
    /// ``SignOutReason/requested`` (once; signing out twice emits nothing the second time), then
    /// revokes the refresh token when the refresher knows a revocation endpoint, waiting at most
    /// ``Configuration/revocationTimeout`` (best effort: the local sign-out never depends on it).
    public func signOut() async {
        await self.endSession(.requested)
    }

    /// Locks the session: the tokens stay in the store, but nothing is handed out (an
    /// `AuthenticatedTransport` request of the session fails unsent, ``validAccessToken()``
    /// throws ``TokenAuthError/Code/sessionLocked``, ``accessTokenForSending()`` is nil) and the
    /// store is not read until ``unlock()``.
    ///
    /// With a store that guards the tokens behind a user-presence check
    /// (`UserPresenceProtectedStore`), unlocking is what asks the user. The lock takes effect at
    /// once: from the call on nothing is handed out or published. A refresh in flight is then
    /// finished (its rotated refresh token saved, its callers answered with
    /// ``TokenAuthError/Code/sessionLocked``) before this returns, and an ``unlock()`` meanwhile
    /// waits for it. The inactivity timeout keeps counting while the session is locked, and
    /// ``checkInactivity()`` and ``signOut()`` work without reading the tokens, so they never ask
    /// the user; a sign-out of a locked session cannot revoke its refresh token, which it never
    /// reads.
    public func lock() async {
        self.lockCalls += 1
        guard !self.locked else {
            // Locked already, or being locked: done once that lock is.
            await self.locking?.value
            return
        }
        self.locked = true
        self.publish(nil)
        let generation = self.generation
        let locking = Task { await self.finishLocking(generation: generation) }
        self.locking = locking
        await locking.value
        if self.locking == locking { self.locking = nil }
    }

    /// The rest of a lock that has taken effect: a refresh in flight ends (its rotated refresh
    /// token saved, nothing published), a bundle the store refused before is saved, and the
    /// tokens are forgotten until ``unlock()`` reads them again.
    private func finishLocking(generation: Int) async {
        if let task = self.refreshTask { _ = try? await task.value }
        if self.unsaved, let bundle = self.bundle { try? await self.save(bundle) }
        // Ended (or replaced) meanwhile: nothing of this session is left to forget.
        guard self.locked, self.generation == generation else { return }
        // A refreshed bundle the store still refuses stays in memory, never handed out, until it
        // can be saved; anything else is read again at unlock.
        guard !self.unsaved else { return }
        self.bundle = nil
        self.loaded = false
    }

    /// Unlocks a locked session: reads the tokens from the store (through its user-presence
    /// check, if it has one) and hands them out again. A lock still in progress (waiting for a
    /// refresh in flight) is finished first, so the read always goes through the check. Does
    /// nothing to a session that is not locked.
    ///
    /// - Returns: the session's bundle, or nil when there is none.
    /// - Throws: ``TokenAuthError/Code/storageFailure`` when the store refused the read (a failed,
    ///   cancelled or locked-out presence check, a locked device; see
    ///   ``TokenAuthError/storageError``). The session stays locked and the tokens are kept.
    ///   ``TokenAuthError/Code/sessionLocked`` when ``lock()`` was called again during the read:
    ///   the session stays locked.
    @discardableResult
    public func unlock() async throws(TokenAuthError) -> TokenBundle? {
        if let locking = self.locking {
            self.lockJoins += 1
            await locking.value
            if self.locking == locking { self.locking = nil }
        }
        guard self.locked else { return try await self.loadIfNeeded() }
        let generation = self.generation
        let lockCalls = self.lockCalls
        let (stored, persisted) = try await self.readStored()
        guard self.locked, self.generation == generation else { return try await self.loadIfNeeded() }
        guard self.lockCalls == lockCalls else {
            throw TokenAuthError(.sessionLocked, "the session was locked again while it was being unlocked")
        }
        self.locked = false
        if self.unsaved {
            // Kept in memory until the store takes it; handed out once saved.
            self.publish(nil)
        } else {
            self.install(stored, persistedActivity: persisted)
        }
        return self.bundle
    }

    /// The store item that holds the session's tokens (``Configuration/storageKey``).
    public nonisolated var storageKey: String { self.configuration.storageKey }

    /// Whether the session is locked (``lock()``).
    public var isLocked: Bool { self.locked }

    /// Whether there is a session: for a locked session, whether the store holds tokens (without
    /// reading them, so without asking the user); otherwise the loaded session, read from the
    /// store on first use.
    public func hasSession() async throws(TokenAuthError) -> Bool {
        guard self.locked else { return try await self.loadIfNeeded() != nil }
        if self.bundle != nil { return true }
        do {
            return try await self.store.contains(self.configuration.storageKey)
        } catch {
            throw .storage(error, "the store could not be asked for the tokens")
        }
    }

    /// Whether there is a session.
    public var isSignedIn: Bool {
        get async {
            (try? await self.loadIfNeeded()) != nil
        }
    }

    /// The current bundle (for its token type and scope), without refreshing.
    public func currentBundle() async throws(TokenAuthError) -> TokenBundle? {
        try await self.loadIfNeeded()
    }

    /// Notes user activity for the inactivity timeout (``validAccessToken()`` does this too).
    /// Nothing is noted while the session is locked: using a lock screen is not using the session.
    public func recordActivity() async {
        guard !self.locked else { return }
        await self.noteActivity()
    }

    /// Notes activity now, and keeps it in the store when an inactivity timeout is set (throttled:
    /// every write of an encrypted store is a file write and an fsync).
    func noteActivity() async {
        let now = self.now()
        self.lastActivity = now
        guard let timeout = self.configuration.inactivityTimeout else { return }
        let interval = min(60, timeout.timeInterval / 10)
        if let persisted = self.lastPersistedActivity, now.timeIntervalSince(persisted) < interval { return }
        self.lastPersistedActivity = now
        // A store that cannot keep it only makes a relaunch judge from the previous write.
        try? await self.store.set(now, forKey: self.activityKey)
    }

    /// The store item that keeps the time of the last activity.
    var activityKey: String { self.configuration.storageKey + ".lastActivity" }

    /// Ends the session if it has been idle longer than the inactivity timeout.
    ///
    /// - Returns: whether the session was ended now.
    @discardableResult
    public func checkInactivity() async -> Bool {
        guard let timeout = self.configuration.inactivityTimeout, self.bundle != nil || self.locked else {
            return false
        }
        if self.locked, self.lastActivity == nil {
            // Locked since launch: the activity a previous launch kept (not a secret, no prompt).
            self.lastActivity = try? await self.store.value(Date.self, forKey: self.activityKey)
        }
        guard let last = self.lastActivity else { return false }
        let idle = self.now().timeIntervalSince(last)
        guard idle >= timeout.timeInterval else { return false }
        await self.endSession(.inactivity)
        return true
    }

    /// A valid access token: the current one, or a refreshed one when it expires soon.
    ///
    /// - Throws: ``TokenAuthError``; ``TokenAuthError/isTerminal`` errors mean the session ended.
    public func validAccessToken() async throws(TokenAuthError) -> String {
        try await self.validBundle().accessToken
    }

    /// The valid bundle behind ``validAccessToken()`` (for `Authorization: <type> <token>`).
    ///
    /// - Throws: ``TokenAuthError``; ``TokenAuthError/Code/sessionLocked`` when the session is
    ///   (or was, on the way) locked, ``TokenAuthError/Code/sessionChanged`` when another sign-in
    ///   replaced the session on the way.
    public func validBundle() async throws(TokenAuthError) -> TokenBundle {
        try await self.validSessionBundle().bundle
    }

    /// ``validBundle()`` and the session generation it belongs to, for a request bound to that
    /// session (`bundleForSending(session:)`).
    package func validSessionBundle() async throws(TokenAuthError) -> (bundle: TokenBundle, generation: Int) {
        let generation = self.generation
        let bundle = try await self.currentValidBundle()
        try self.checkHandOut(generation: generation)
        return (bundle, generation)
    }

    /// Throws unless a bundle obtained for session `generation` may be handed out now: not while
    /// locked, not once the session ended or was replaced.
    func checkHandOut(generation: Int) throws(TokenAuthError) {
        if self.locked { throw Self.lockedError }
        guard self.generation == generation else {
            throw self.bundle == nil
                ? TokenAuthError(.signedOut, "the session ended while its token was being obtained")
                : Self.changedError
        }
    }

    /// The error of anything asked of a locked session.
    static let lockedError = TokenAuthError(.sessionLocked, "the session is locked until the user unlocks it")
    /// The error of a request whose session another sign-in replaced.
    static let changedError = TokenAuthError(
        .sessionChanged,
        "another sign-in replaced the session the request belongs to"
    )

    private func currentValidBundle() async throws(TokenAuthError) -> TokenBundle {
        // Loaded first, so that a relaunched app judges the activity kept in the store.
        _ = try await self.loadIfNeeded()
        if await self.checkInactivity() {
            throw TokenAuthError(.signedOut, "the session ended after a period of inactivity")
        }
        await self.noteActivity()
        guard let bundle = try await self.loadIfNeeded() else {
            throw TokenAuthError(.signedOut, "there is no session")
        }
        if self.unsaved {
            try await self.save(bundle)
        }
        if let task = self.refreshTask {
            return try await self.join(task)
        }
        guard self.needsRefresh(bundle) else { return bundle }
        return try await self.refresh(from: bundle)
    }

    /// The access token to put on a request that is about to be written, without waiting: the
    /// token most recently handed out, or nil when there is no session.
    ///
    /// A transport calls it (through `HTTPRequestOptions.credential`) when a request has its
    /// connection, so a request that waited in a queue while the token was refreshed carries the
    /// new one. It never waits, so it can run where waiting for a connection would deadlock.
    ///
    /// The refresh ahead of expiry (``Configuration/refreshLeeway``) happens when a request asks
    /// for its token (``validAccessToken()``), before it queues. A request that has queued is sent
    /// with the current token while it is valid; once it has expired, the first call starts the
    /// refresh in the background (on the token endpoint's own lane) and returns the expired token,
    /// which the server answers with a 401 that the client retries with the new one. So a storm of
    /// requests made at once costs one refresh per token lifetime, not one per leeway.
    public nonisolated func accessTokenForSending() -> String? {
        self.bundleForSending()?.accessToken
    }

    /// The bundle behind ``accessTokenForSending()`` (for its token type: `Bearer`, or `DPoP`
    /// for a token bound to a ``DPoPKey``), with the same rules.
    public nonisolated func bundleForSending() -> TokenBundle? {
        (try? self.published(session: nil).get()) ?? nil
    }

    /// The bundle to bind now to a request of session `generation` (from
    /// `validSessionBundle()`), with the rules of ``bundleForSending()``; nil when the session
    /// publishes none (a refreshed bundle the store has not taken yet).
    ///
    /// - Throws: ``TokenAuthError/Code/sessionLocked`` while the session is locked;
    ///   ``TokenAuthError/Code/signedOut`` once it ended, ``TokenAuthError/Code/sessionChanged``
    ///   once another sign-in replaced it.
    package nonisolated func bundleForSending(session generation: Int) throws(TokenAuthError) -> TokenBundle? {
        try self.published(session: generation).get()
    }

    /// Throws unless a request of session `generation` may still be sent: the rules of
    /// `bundleForSending(session:)`, for a request whose token is already on it.
    package nonisolated func checkSending(session generation: Int) throws(TokenAuthError) {
        if let refusal = self.published.withLock({ Self.refusal(of: $0, session: generation) }) { throw refusal }
    }

    /// Why a request of session `generation` may not be sent with what `published` says.
    private static func refusal(of published: PublishedToken, session generation: Int) -> TokenAuthError? {
        if published.locked { return Self.lockedError }
        guard published.generation != generation else { return nil }
        return published.bundle == nil
            ? TokenAuthError(.signedOut, "the session the request belongs to ended")
            : Self.changedError
    }

    /// The published bundle, for a request of session `generation` (nil: any), starting the
    /// background refresh of an expired one.
    private nonisolated func published(session generation: Int?) -> Result<TokenBundle?, TokenAuthError> {
        let now = self.now()
        let (result, startRefresh) = self.published.withLock {
            published -> (Result<TokenBundle?, TokenAuthError>, Bool) in
            if let generation, let refusal = Self.refusal(of: published, session: generation) {
                return (.failure(refusal), false)
            }
            guard let bundle = published.bundle else { return (.success(nil), false) }
            if !published.refreshStarted, now >= bundle.expiresAt {
                published.refreshStarted = true
                return (.success(bundle), true)
            }
            return (.success(bundle), false)
        }
        if startRefresh {
            Task { _ = try? await self.validBundle() }
        }
        return result
    }

    /// Publishes the bundle handed out from now on (nil: none), with the session's generation
    /// and whether it is locked.
    func publish(_ bundle: TokenBundle?) {
        let generation = self.generation
        let locked = self.locked
        self.published.withLock { $0 = PublishedToken(bundle: bundle, generation: generation, locked: locked) }
    }

    /// Decides what to do after a request got 401: refresh only if it carried the current token.
    ///
    /// - Parameter sentToken: the access token the refused request carried.
    /// - Returns: the token to retry with (a newer one, or a refreshed one). Retry once; a
    ///   second 401 is the server's final answer.
    public func handleUnauthorized(sentToken: String) async throws(TokenAuthError) -> String {
        switch try await self.successor(of: sentToken) {
        case .newer(let token): token
        case .none(let current):
            // A token refused before it was due says the server ended the session early, if the
            // refresh token is refused too.
            try await self.refresh(from: current, refusal: self.needsRefresh(current) ? .refreshRejected : .revoked)
                .accessToken
        }
    }

    /// Decides about a further 401, after the one refresh-and-retry of
    /// ``handleUnauthorized(sentToken:)``: a token that was replaced, or that expired (or came
    /// within its refresh leeway) on the way, says nothing about the session, so the request may
    /// try again with the current one; the current token refused while still valid is the
    /// server's final answer.
    ///
    /// - Parameter sentToken: the access token the refused request carried.
    /// - Returns: the token to retry with, refreshed if `sentToken` is the current one and due;
    ///   nil when `sentToken` is current and valid.
    public func replacement(forRefused sentToken: String) async throws(TokenAuthError) -> String? {
        switch try await self.successor(of: sentToken) {
        case .newer(let token): return token
        case .none(let current):
            return self.needsRefresh(current) ? try await self.refresh(from: current).accessToken : nil
        }
    }

    private enum Successor {
        /// The token of the refresh in flight, or one newer than the refused token.
        case newer(String)
        /// The refused token is still the current one.
        case none(current: TokenBundle)
    }

    /// What replaced `sentToken`: the refresh in flight, a newer token, or nothing yet.
    private func successor(of sentToken: String) async throws(TokenAuthError) -> Successor {
        guard let bundle = try await self.loadIfNeeded() else {
            throw TokenAuthError(.signedOut, "there is no session")
        }
        if let task = self.refreshTask {
            return .newer(try await self.join(task).accessToken)
        }
        return bundle.accessToken != sentToken ? .newer(bundle.accessToken) : .none(current: bundle)
    }

    /// Whether `bundle` should be refreshed now.
    func needsRefresh(_ bundle: TokenBundle) -> Bool {
        var leeway = self.configuration.refreshLeeway.timeInterval
        if let issued = bundle.issuedAt {
            let lifetime = bundle.expiresAt.timeIntervalSince(issued)
            if lifetime > 0 { leeway = min(leeway, lifetime * self.configuration.shortLivedFraction) }
        }
        return self.now() >= bundle.expiresAt.addingTimeInterval(-leeway)
    }
}

/// The bundle a ``TokenManager`` hands out, kept where a transport can read it without awaiting.
struct PublishedToken: Sendable {
    var bundle: TokenBundle?
    /// Whether ``TokenManager/accessTokenForSending()`` has started the refresh of this bundle.
    var refreshStarted = false
    /// The session generation the bundle belongs to.
    var generation = 0
    /// Whether the session is locked (the bundle is then nil).
    var locked = false

    init(bundle: TokenBundle? = nil, generation: Int = 0, locked: Bool = false) {
        self.bundle = bundle
        self.generation = generation
        self.locked = locked
    }
}

extension TokenManager: CustomReflectable {
    /// What `dump()`, debuggers and `Mirror` see: the store item's name, never the session's
    /// state (its tokens, and the refresh token of a refresh that got no answer). An actor's
    /// state cannot be read without a hop, so the shape is fixed.
    public nonisolated var customMirror: Mirror {
        Mirror(self, children: ["storageKey": self.storageKey, "session": "<redacted>"], displayStyle: .class)
    }
}
