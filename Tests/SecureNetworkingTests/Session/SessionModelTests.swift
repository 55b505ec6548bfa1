import Crypto
import Foundation
import NIOConcurrencyHelpers
import Observation
import SecureNetworking
import SecureNetworkingTesting
import SecureStorage
import Testing

@testable import SecureSession
@testable import TokenAuth

/// The model over a real token manager and store, with a presence gate and a token endpoint the
/// test drives.
@Suite("The session model", .timeLimit(.minutes(2)))
@MainActor
struct SessionModelTests {
    static let catalog = UserMessageCatalog()

    /// One app launch: a token manager and a model on `base`, with presence unlock through `gate`.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    struct Launch {
        let tokens: TokenManager
        let presence: PresenceUnlock
        let model: SessionModel<String>
    }

    let base = InMemoryStore()
    let gate = TestPresenceGate()
    let refresher = ScriptedRefresher()
    let clock = SessionTestClock()

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    func launch(
        store: (any SecureStore)? = nil,
        lockAfter: Duration = .zero,
        inactivityTimeout: Duration? = nil,
        maximumFailures: Int = 5,
        user: (@Sendable (TokenManager, TokenBundle) async throws -> String)? = nil
    ) -> Launch {
        let clock = self.clock
        let presence = PresenceUnlock(
            wrapping: store ?? self.base,
            gate: self.gate,
            configuration: UserPresenceProtectedStore.Configuration(
                reason: "Unlock your account",
                maximumFailures: maximumFailures,
                lockoutDuration: .seconds(60)
            ),
            now: { clock.instant }
        )
        let tokens = TokenManager(
            store: presence.store,
            refresher: self.refresher,
            configuration: TokenManager.Configuration(inactivityTimeout: inactivityTimeout),
            now: { clock.date }
        )
        let model = SessionModel<String>(
            tokens: tokens,
            presence: presence,
            configuration: .init(lockAfter: lockAfter, now: { clock.instant }),
            signIn: { username, password in
                guard password == "correct horse" else { throw TokenAuthError(.invalidGrant, "refused") }
                try await tokens.signIn(
                    TokenBundle(
                        TokenResponse(
                            accessToken: "access-0",
                            expiresIn: 3600,
                            refreshToken: "refresh-0",
                            scope: username
                        ),
                        receivedAt: clock.date
                    )
                )
            },
            user: { bundle in
                if let user { return try await user(tokens, bundle) }
                return bundle.scope ?? "nobody"
            }
        )
        return Launch(tokens: tokens, presence: presence, model: model)
    }

    /// Launched, signed in as ada, presence unlock on.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    func signedInWithPresence(lockAfter: Duration = .zero, maximumFailures: Int = 5) async -> Launch {
        let launch = self.launch(lockAfter: lockAfter, maximumFailures: maximumFailures)
        await launch.model.start()
        await launch.model.signIn(username: "ada", password: "correct horse")
        await self.gate.answer(.passed)
        #expect(await launch.model.enablePresenceUnlock())
        #expect(launch.model.presenceUnlock == .enabled)
        return launch
    }

    // MARK: - Launch and sign-in

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aFirstLaunchIsSignedOutAndASignInSignsIn() async throws {
        let launch = self.launch()
        #expect(launch.model.state == .starting)
        await launch.model.start()
        #expect(launch.model.state == .signedOut(reason: .neverSignedIn, message: nil))
        #expect(launch.model.presenceUnlock == .unavailable)

        await launch.model.signIn(username: "ada", password: "correct horse")
        #expect(launch.model.state == .signedIn("ada"))
        #expect(try await launch.tokens.validAccessToken() == "access-0")
        // Offered after the sign-in, because the gate can evaluate; nothing was asked yet.
        #expect(launch.model.presenceUnlock == .offered)
        #expect(await self.gate.asked == 0)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aRefusedSignInSaysSoAndACancelledOneSaysNothing() async {
        let launch = self.launch()
        await launch.model.start()
        await launch.model.signIn(username: "ada", password: "wrong")
        #expect(
            launch.model.state
                == .signedOut(reason: .neverSignedIn, message: Self.catalog.message(for: .invalidCredentials))
        )
        await launch.model.signIn(browser: { throw TokenAuthError(.authorizationCancelled, "closed") })
        #expect(launch.model.state == .signedOut(reason: .neverSignedIn, message: nil))
        // A server's own text is never shown.
        await launch.model.signIn(browser: {
            throw NSError(domain: "server", code: 1, userInfo: [NSLocalizedDescriptionKey: "ORA-00942 at db7"])
        })
        #expect(launch.model.state == .signedOut(reason: .neverSignedIn, message: Self.catalog.fallback))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aModelWithoutAPasswordSignInSaysSomethingWentWrongNotWrongPassword() async {
        let tokens = TokenManager(store: InMemoryStore(), refresher: self.refresher)
        let model = SessionModel<String>(tokens: tokens, user: { _ in "ada" })
        await model.start()
        await model.signIn(username: "ada", password: "correct horse")
        #expect(model.state == .signedOut(reason: .neverSignedIn, message: Self.catalog.fallback))
        #expect(model.presenceUnlock == .unavailable)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func presenceUnlockThatGuardsAnotherItemIsNeverOffered() async {
        let presence = PresenceUnlock(wrapping: self.base, gate: self.gate, tokensKey: "app.tokens")
        let tokens = TokenManager(store: presence.store, refresher: self.refresher)
        let model = SessionModel<String>(
            tokens: tokens,
            presence: presence,
            signIn: { _, _ in
                try await tokens.signIn(
                    TokenBundle(TokenResponse(accessToken: "a", expiresIn: 3600, refreshToken: "r"), receivedAt: Date())
                )
            },
            user: { _ in "ada" }
        )
        await model.start()
        await model.signIn(username: "ada", password: "correct horse")
        #expect(model.state == .signedIn("ada"))
        #expect(model.presenceUnlock == .unavailable)
        #expect(await model.enablePresenceUnlock() == false)
        #expect(await self.gate.asked == 0)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func presenceUnlockIsNotOfferedWhenTheGateCannotEvaluate() async {
        await self.gate.setEvaluable(false)
        let launch = self.launch()
        await launch.model.start()
        await launch.model.signIn(username: "ada", password: "correct horse")
        #expect(launch.model.state == .signedIn("ada"))
        #expect(launch.model.presenceUnlock == .unavailable)
        #expect(await launch.model.enablePresenceUnlock() == false)
        #expect(await self.gate.asked == 0)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func turningPresenceUnlockOnNeedsTheUserToPassTheGate() async {
        let launch = self.launch()
        await launch.model.start()
        await launch.model.signIn(username: "ada", password: "correct horse")
        await self.gate.answer(.cancelled)
        #expect(await launch.model.enablePresenceUnlock() == false)
        #expect(launch.model.presenceUnlock == .offered)
        #expect(launch.presence.isEnabled == false)
        await self.gate.answer(.passed)
        #expect(await launch.model.enablePresenceUnlock())
        #expect(launch.presence.isEnabled)
    }

    // MARK: - Lock and unlock

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theSessionLocksInTheBackgroundAndUnlocksThroughTheGate() async throws {
        let launch = await self.signedInWithPresence()
        launch.model.appDidEnterBackground()
        #expect(launch.model.state == .locked(message: nil))
        await launch.model.idle()
        #expect(await launch.tokens.isLocked)
        // Nothing is handed out while locked: no token on requests, a typed error for callers.
        #expect(launch.tokens.accessTokenForSending() == nil)
        await #expect(throws: TokenAuthError(.sessionLocked, "")) { try await launch.tokens.validAccessToken() }

        launch.model.appWillEnterForeground()
        #expect(launch.model.state == .locked(message: nil))
        let askedBefore = await self.gate.asked
        await self.gate.answer(.passed)
        await launch.model.unlock()
        #expect(launch.model.state == .signedIn("ada"))
        #expect(await self.gate.asked == askedBefore + 1)
        #expect(await self.gate.reasons.last == "Unlock your account")
        #expect(try await launch.tokens.validAccessToken() == "access-0")
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test(arguments: [
        (Result<Void, SecureStoreError>.cancelled, nil as String?),
        (.failed, UserMessageCatalog().message(for: .unlockFailed)),
        (.lockedOut, UserMessageCatalog().message(for: .unlockLockedOut)),
    ])
    func aFailedUnlockLeavesTheSessionLockedAndTheTokensKept(
        answer: Result<Void, SecureStoreError>,
        message: String?
    ) async throws {
        let launch = await self.signedInWithPresence()
        launch.model.appDidEnterBackground()
        await launch.model.idle()
        await self.gate.answer(answer)
        await launch.model.unlock()
        #expect(launch.model.state == .locked(message: message))
        #expect(try await self.base.contains("SecureNetworking.tokens"))
        #expect(await launch.tokens.isLocked)
        // The next try works.
        await self.gate.answer(.passed)
        await launch.model.unlock()
        #expect(launch.model.state == .signedIn("ada"))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theStoresLockoutStopsAskingTheGateAndKeepsTheSession() async throws {
        let launch = await self.signedInWithPresence(maximumFailures: 2)
        launch.model.appDidEnterBackground()
        await launch.model.idle()
        await self.gate.answer(.failed, .failed)
        await launch.model.unlock()
        await launch.model.unlock()
        #expect(launch.model.state == .locked(message: Self.catalog.message(for: .unlockFailed)))
        let asked = await self.gate.asked
        // Locked out now: the gate is not asked, the state says so, nothing is deleted.
        await launch.model.unlock()
        #expect(launch.model.state == .locked(message: Self.catalog.message(for: .unlockLockedOut)))
        #expect(await self.gate.asked == asked)
        #expect(try await self.base.contains("SecureNetworking.tokens"))
        // After the lockout, the gate is asked again.
        self.clock.advance(.seconds(61))
        await self.gate.answer(.passed)
        await launch.model.unlock()
        #expect(launch.model.state == .signedIn("ada"))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theSessionLocksOnlyAfterTheConfiguredTimeAway() async {
        let launch = await self.signedInWithPresence(lockAfter: .seconds(300))
        launch.model.appDidEnterBackground()
        #expect(launch.model.state == .signedIn("ada"))
        self.clock.advance(.seconds(299))
        launch.model.appWillEnterForeground()
        await launch.model.idle()
        #expect(launch.model.state == .signedIn("ada"))
        #expect(await launch.tokens.isLocked == false)

        launch.model.appDidEnterBackground()
        self.clock.advance(.seconds(300))
        launch.model.appWillEnterForeground()
        #expect(launch.model.state == .locked(message: nil))
        await launch.model.idle()
        #expect(await launch.tokens.isLocked)
    }

    /// With a store shared with other processes (an app extension), a refresh reads the
    /// stored tokens under the session lock. While the session is unlocked that read must not
    /// ask for Face ID in the middle of a request; once it is locked, the gate is back.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aSharedSessionRefreshesWithoutAPromptWhileUnlocked() async throws {
        let directory = try TemporaryDirectory()
        let shared = EncryptedFileStore(directory: directory.url, keySource: .key(SymmetricKey(size: .bits256)))
        #expect(try await shared.lockAcrossProcesses(timeout: .seconds(5)).map { $0.release() } != nil)
        let launch = self.launch(store: shared)
        await launch.model.start()
        await launch.model.signIn(username: "ada", password: "correct horse")
        await self.gate.answer(.passed)
        #expect(await launch.model.enablePresenceUnlock())
        #expect(await self.gate.asked == 1)

        #expect(try await self.refreshAnHourLater(launch, to: 1) == "access-1")
        #expect(await self.gate.asked == 1, "the refresh asked for the user's presence")
        #expect(await self.refresher.presented == ["refresh-0"])

        launch.model.appDidEnterBackground()
        await launch.model.idle()
        #expect(launch.model.state == .locked(message: nil))
        // Locked: the stored tokens are behind the gate again (read here as another reader would).
        // (No answer is scripted, so the gate refuses: authenticationFailed.)
        await #expect(throws: SecureStoreError(.authenticationFailed, "")) {
            try await launch.presence.store.data(forKey: launch.tokens.storageKey)
        }
        #expect(await self.gate.asked == 2)

        await self.gate.answer(.passed)
        await launch.model.unlock()
        #expect(launch.model.state == .signedIn("ada"))
        #expect(await self.gate.asked == 3)
        #expect(try await self.refreshAnHourLater(launch, to: 2) == "access-2")
        #expect(await self.gate.asked == 3, "the refresh after the unlock asked again")
        #expect(await self.refresher.presented == ["refresh-0", "refresh-1"])
    }

    /// Scripts the refresh to `access-<n>`/`refresh-<n>`, moves the clock past the access
    /// token's hour and asks for a valid access token.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    func refreshAnHourLater(_ launch: Launch, to n: Int) async throws -> String {
        await self.refresher.answer(
            .success(TokenResponse(accessToken: "access-\(n)", expiresIn: 3600, refreshToken: "refresh-\(n)"))
        )
        self.clock.advance(.seconds(3600))
        return try await launch.tokens.validAccessToken()
    }

    /// A view that reads `state` is redrawn when the state changes, not whenever the machine
    /// notes something (here the time the app went to background, which leaves the user
    /// signed in).
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func observersHearOfAChangeOnlyWhenTheStateChanges() async {
        let launch = await self.signedInWithPresence(lockAfter: .seconds(300))
        let changes = NIOLockedValueBox(0)
        withObservationTracking {
            _ = launch.model.state
            _ = launch.model.presenceUnlock
        } onChange: {
            changes.withLockedValue { $0 += 1 }
        }
        launch.model.appDidEnterBackground()
        self.clock.advance(.seconds(10))
        launch.model.appWillEnterForeground()
        await launch.model.idle()
        #expect(launch.model.state == .signedIn("ada"))
        #expect(changes.withLockedValue { $0 } == 0)

        launch.model.appDidEnterBackground()
        self.clock.advance(.seconds(300))
        launch.model.appWillEnterForeground()
        #expect(launch.model.state == .locked(message: nil))
        #expect(changes.withLockedValue { $0 } == 1)
        await launch.model.idle()
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aRelaunchWithPresenceUnlockOnStartsLockedWithoutAsking() async throws {
        let first = await self.signedInWithPresence()
        _ = first
        let asked = await self.gate.asked
        let second = self.launch()
        await second.model.start()
        #expect(second.model.state == .locked(message: nil))
        #expect(second.model.presenceUnlock == .enabled)
        #expect(await self.gate.asked == asked)
        // The refresh token is released only through the gate.
        await self.gate.answer(.failed)
        await second.model.unlock()
        #expect(second.model.state == .locked(message: Self.catalog.message(for: .unlockFailed)))
        await self.gate.answer(.passed)
        await second.model.unlock()
        #expect(second.model.state == .signedIn("ada"))
        #expect(await self.gate.asked == asked + 2)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aDeviceLockedStoreHasItsOwnStateAndIsReadAgainInTheForeground() async throws {
        let store = DeviceLockableStore()
        let first = self.launch(store: store)
        await first.model.start()
        await first.model.signIn(username: "ada", password: "correct horse")

        store.deviceLocked.withLockedValue { $0 = true }
        let second = self.launch(store: store)
        await second.model.start()
        #expect(second.model.state == .deviceLocked(message: Self.catalog.message(for: .deviceLocked)))
        #expect(try await store.base.contains("SecureNetworking.tokens"))

        store.deviceLocked.withLockedValue { $0 = false }
        second.model.appWillEnterForeground()
        await second.model.idle()
        #expect(second.model.state == .signedIn("ada"))
    }

    // MARK: - Launching without the server

    static let unreachable = TokenAuthError(
        .transportFailure,
        "the token endpoint could not be reached",
        transportError: SecureHTTPError(.connectFailed, "connection refused")
    )

    static let refreshed = TokenResponse(accessToken: "access-1", expiresIn: 3600, refreshToken: "refresh-1")

    /// A `user` closure that needs the server: it asks for a valid access token (refreshing the
    /// one that is due) as a request for the profile would.
    static let userFromTheServer: @Sendable (TokenManager, TokenBundle) async throws -> String = { tokens, bundle in
        _ = try await tokens.validAccessToken()
        return bundle.scope ?? "nobody"
    }

    /// Signed in as ada on a first launch; an hour later the access token is due.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    func signedInAnHourAgo() async {
        let first = self.launch()
        await first.model.start()
        await first.model.signIn(username: "ada", password: "correct horse")
        #expect(first.model.state == .signedIn("ada"))
        self.clock.advance(.seconds(3600))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aLaunchThatCannotRefreshKeepsTheSessionOfflineUntilARetryGetsThrough() async throws {
        await self.signedInAnHourAgo()
        await self.refresher.answer(.failure(Self.unreachable), .failure(Self.unreachable))
        let launch = self.launch(user: Self.userFromTheServer)
        await launch.model.start()
        #expect(launch.model.state == .offline(message: Self.catalog.message(for: .unreachable)))
        #expect(try await self.base.contains("SecureNetworking.tokens"))
        #expect(launch.model.presenceUnlock == .unavailable)

        // Back in the foreground, the server still unreachable: read again, still offline.
        launch.model.appWillEnterForeground()
        await launch.model.idle()
        #expect(launch.model.state == .offline(message: Self.catalog.message(for: .unreachable)))
        #expect(await self.refresher.presented == ["refresh-0", "refresh-0"])

        // The server answers again: the kept refresh token opens the session.
        await self.refresher.answer(.success(Self.refreshed))
        await launch.model.retry()
        #expect(launch.model.state == .signedIn("ada"))
        #expect(try await launch.tokens.validAccessToken() == "access-1")
        #expect(await self.refresher.presented == ["refresh-0", "refresh-0", "refresh-0"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aRefreshThatGetsThroughOpensASessionKeptOffline() async throws {
        await self.signedInAnHourAgo()
        await self.refresher.answer(.failure(Self.unreachable))
        let launch = self.launch(user: Self.userFromTheServer)
        await launch.model.start()
        #expect(launch.model.state == .offline(message: Self.catalog.message(for: .unreachable)))
        // A request of the app's own gets through and refreshes: the model hears of it.
        await self.refresher.answer(.success(Self.refreshed))
        #expect(try await launch.tokens.validAccessToken() == "access-1")
        await waitForState(launch.model) { $0.isSignedIn }
        #expect(launch.model.state == .signedIn("ada"))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aUserClosureThatNeedsNoServerSignsInWithoutIt() async throws {
        await self.signedInAnHourAgo()
        await self.refresher.answer(.failure(Self.unreachable))
        let launch = self.launch()
        await launch.model.start()
        #expect(launch.model.state == .signedIn("ada"))
        #expect(await self.refresher.presented.isEmpty)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aRefreshTokenRefusedAtLaunchEndsTheSessionAsExpired() async throws {
        await self.signedInAnHourAgo()
        await self.refresher.answer(.failure(TokenAuthError(.invalidGrant, "refused", oauthError: "invalid_grant")))
        let launch = self.launch(user: Self.userFromTheServer)
        await launch.model.start()
        #expect(
            launch.model.state
                == .signedOut(reason: .sessionExpired, message: Self.catalog.message(for: .sessionExpired))
        )
        #expect(try await self.base.contains("SecureNetworking.tokens") == false)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aStoredSessionTheUserClosureCannotUseIsUnusableAndKept() async throws {
        await self.signedInAnHourAgo()
        let launch = self.launch(user: { _, _ in throw APIError(.notFound, "no profile", status: 404) })
        await launch.model.start()
        #expect(launch.model.state == .signedOut(reason: .sessionUnusable, message: Self.catalog.fallback))
        #expect(try await self.base.contains("SecureNetworking.tokens"))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func anUnlockWithoutTheServerLocksAgainAndSaysWhy() async throws {
        _ = await self.signedInWithPresence()
        self.clock.advance(.seconds(3600))
        let launch = self.launch(user: Self.userFromTheServer)
        await launch.model.start()
        #expect(launch.model.state == .locked(message: nil))

        await self.gate.answer(.passed)
        await self.refresher.answer(.failure(Self.unreachable))
        await launch.model.unlock()
        #expect(launch.model.state == .locked(message: Self.catalog.message(for: .unreachable)))
        await launch.model.idle()
        #expect(await launch.tokens.isLocked)
        #expect(try await self.base.contains("SecureNetworking.tokens"))

        await self.gate.answer(.passed)
        await self.refresher.answer(.success(Self.refreshed))
        await launch.model.unlock()
        #expect(launch.model.state == .signedIn("ada"))
    }

    // MARK: - The session ends by itself

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aDeadRefreshTokenSignsOutWithItsReason() async {
        let launch = self.launch()
        await launch.model.start()
        await launch.model.signIn(username: "ada", password: "correct horse")
        await self.refresher.answer(.failure(TokenAuthError(.invalidGrant, "refused", oauthError: "invalid_grant")))
        self.clock.advance(.seconds(3600))
        await #expect(throws: TokenAuthError(.invalidGrant, "")) { try await launch.tokens.validAccessToken() }
        await waitForState(launch.model) { !$0.isSignedIn }
        #expect(
            launch.model.state
                == .signedOut(reason: .sessionExpired, message: Self.catalog.message(for: .sessionExpired))
        )
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aRefreshRefusedWhileTheSessionLocksSignsOut() async {
        let launch = await self.signedInWithPresence()
        await self.refresher.hold()
        await self.refresher.answer(.failure(TokenAuthError(.invalidGrant, "refused", oauthError: "invalid_grant")))
        self.clock.advance(.seconds(3600))
        let request = Task { try await launch.tokens.validAccessToken() }
        await self.refresher.waitForRefresh()
        // The app leaves while the refresh is in flight: the state locks at once, and the token
        // manager locks once the refresh has ended.
        launch.model.appDidEnterBackground()
        #expect(launch.model.state == .locked(message: nil))
        await self.refresher.release()
        _ = try? await request.value
        await waitForState(launch.model) { if case .signedOut = $0 { true } else { false } }
        #expect(
            launch.model.state
                == .signedOut(reason: .sessionExpired, message: Self.catalog.message(for: .sessionExpired))
        )
        await launch.model.idle()
        #expect(launch.model.presenceUnlock == .unavailable)
        #expect(launch.presence.isEnabled == false)
    }

    /// The app leaves while a refresh is in flight (the token manager's lock waits for it) and
    /// the user unlocks at once, before the lock is done: the unlock waits for the lock, then
    /// asks the gate. It never finds the token manager not yet locked and opens the session
    /// without asking.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func anUnlockBeforeTheLockIsDoneWaitsForItAndAsksTheGate() async throws {
        let launch = await self.signedInWithPresence()
        await self.refresher.hold()
        await self.refresher.answer(
            .success(TokenResponse(accessToken: "access-1", expiresIn: 3600, refreshToken: "refresh-1"))
        )
        self.clock.advance(.seconds(3600))
        let request = Task { try await launch.tokens.validAccessToken() }
        await self.refresher.waitForRefresh()
        // No `idle()`: the lock is still waiting for the refresh.
        launch.model.appDidEnterBackground()
        #expect(launch.model.state == .locked(message: nil))
        launch.model.appWillEnterForeground()
        let askedBefore = await self.gate.asked
        await self.gate.answer(.passed)
        let unlocking = Task { await launch.model.unlock() }
        try await self.waitUntil { launch.model.unlocksWaitingForWork == 1 }
        #expect(await self.gate.asked == askedBefore, "the unlock read the tokens before the lock was done")
        #expect(launch.model.state == .unlocking)
        await self.refresher.release()
        await unlocking.value
        #expect(await self.gate.asked == askedBefore + 1)
        #expect(launch.model.state == .signedIn("ada"))
        #expect(await launch.tokens.isLocked == false)
        // The refresh that ended during the lock was saved; its caller got nothing.
        await #expect(throws: TokenAuthError(.sessionLocked, "")) { try await request.value }
        #expect(try await launch.tokens.validAccessToken() == "access-1")
    }

    /// Polls `condition`, a value the model keeps for tests (not an interleaving hoped for), for
    /// up to 10 s.
    func waitUntil(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for _ in 0..<2000 where !condition() {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(condition(), "the condition did not hold within 10 s", sourceLocation: sourceLocation)
    }

    /// `dump()` of the model and of its token manager shows no token (a refresh that got no
    /// answer leaves its refresh token in the manager) and not the user.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aModelDumpsNoTokenAndNoUser() async throws {
        let launch = await self.signedInWithPresence()
        let lost = TokenAuthError(
            .transportFailure,
            "lost",
            transportError: SecureHTTPError(.connectionClosed, "closed before the answer")
        )
        await self.refresher.answer(.failure(lost))
        self.clock.advance(.seconds(3600))
        await #expect(throws: TokenAuthError(.transportFailure, "")) { try await launch.tokens.validAccessToken() }
        #expect(await launch.tokens.unansweredRefreshToken == "refresh-0")
        #expect(launch.model.state == .signedIn("ada"))
        for subject in [launch.model, launch.tokens] as [Any] {
            var dumped = ""
            dump(subject, to: &dumped)
            for secret in ["refresh-0", "access-0", "ada"] {
                #expect(!dumped.contains(secret), "\(dumped)")
            }
            #expect(dumped.contains("<redacted>"), "\(dumped)")
            let mirrored = Mirror(reflecting: subject).children.map { "\($0.label ?? ""): \($0.value)" }.joined()
            #expect(!mirrored.contains("refresh-0") && !mirrored.contains("ada"), "\(mirrored)")
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aSignOutWhileThePromptShowsWinsAndKeepsNothing() async throws {
        let launch = await self.signedInWithPresence()
        launch.model.appDidEnterBackground()
        await launch.model.idle()
        await self.gate.hold()
        let unlocking = Task { await launch.model.unlock() }
        await self.gate.waitForPrompt()
        #expect(launch.model.state == .unlocking)
        await launch.model.signOut()
        #expect(launch.model.state == .signedOut(reason: .userSignedOut, message: nil))
        await self.gate.release(.passed)
        await unlocking.value
        #expect(launch.model.state == .signedOut(reason: .userSignedOut, message: nil))
        #expect(try await self.base.contains("SecureNetworking.tokens") == false)
        #expect(try await launch.tokens.hasSession() == false)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func inactivityWhileTheAppWasNotRunningSignsOutAtLaunch() async {
        let first = self.launch(inactivityTimeout: .seconds(900))
        await first.model.start()
        await first.model.signIn(username: "ada", password: "correct horse")
        self.clock.advance(.seconds(901))
        let second = self.launch(inactivityTimeout: .seconds(900))
        await second.model.start()
        #expect(second.model.state == .signedOut(reason: .inactivity, message: Self.catalog.message(for: .inactivity)))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func inactivityOfALockedSessionSignsOutWithoutAPrompt() async throws {
        let first = self.launch(inactivityTimeout: .seconds(900))
        await first.model.start()
        await first.model.signIn(username: "ada", password: "correct horse")
        await self.gate.answer(.passed)
        #expect(await first.model.enablePresenceUnlock())
        let asked = await self.gate.asked
        self.clock.advance(.seconds(901))
        let second = self.launch(inactivityTimeout: .seconds(900))
        await second.model.start()
        #expect(second.model.state == .signedOut(reason: .inactivity, message: Self.catalog.message(for: .inactivity)))
        #expect(await self.gate.asked == asked)
        #expect(try await self.base.contains("SecureNetworking.tokens") == false)
    }

    // MARK: - Lifetimes

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aWaitForAStateThatNeverComesEndsAtItsDeadlineOrWhenCancelled() async {
        let launch = self.launch()
        await launch.model.start()
        #expect(await launch.model.waitForState(until: .now + .milliseconds(50)) { $0.isSignedIn } == false)
        let model = launch.model
        let waiting = Task { await model.waitForState(until: .now + .seconds(600)) { $0.isSignedIn } }
        waiting.cancel()
        #expect(await waiting.value == false)
        // And one that comes ends the wait at once.
        let signingIn = Task { await model.signIn(username: "ada", password: "correct horse") }
        #expect(await model.waitForState(until: .now + .seconds(600)) { $0.isSignedIn })
        await signingIn.value
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aReleasedModelStopsListeningAndLeavesNoTask() async throws {
        weak var released: SessionModel<String>?
        let listener: Task<Void, Never>?
        do {
            let launch = self.launch()
            await launch.model.start()
            await launch.model.signIn(username: "ada", password: "correct horse")
            await launch.model.signOut()
            await launch.model.idle()
            listener = launch.model.listenerTask
            released = launch.model
            #expect(released != nil)
        }
        #expect(released == nil)
        // Its listener was cancelled with it and has ended.
        await listener?.value
        #expect(listener?.isCancelled == true)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func afterASignOutNoWorkIsLeftRunning() async throws {
        let launch = await self.signedInWithPresence()
        await self.refresher.hold()
        await self.refresher.answer(
            .success(TokenResponse(accessToken: "access-1", expiresIn: 3600, refreshToken: "refresh-1"))
        )
        self.clock.advance(.seconds(3600))
        let request = Task { try await launch.tokens.validAccessToken() }
        await self.refresher.waitForRefresh()
        await launch.model.signOut()
        #expect(launch.model.hasPendingWork == false)
        #expect(await launch.tokens.refreshTask == nil)
        await self.refresher.release()
        // The refresh that outlived the session does not bring it back.
        await #expect(throws: TokenAuthError(.signedOut, "")) { try await request.value }
        #expect(try await launch.tokens.hasSession() == false)
        #expect(launch.presence.isEnabled == false)
    }
}
