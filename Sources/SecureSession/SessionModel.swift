public import Observation
import SecureHTTP
public import SecureNetworking
import SecureNetworkingInternal
import SecureStorage
public import TokenAuth

/// The app's session as one observable value: signed out (and why), signing in, signed in as
/// the app's user, kept but offline, locked behind the user's presence, unlocking.
///
/// A view switches over ``state``; buttons call ``signIn(username:password:)``,
/// ``signIn(browser:)``, ``unlock()``, ``retry()`` and ``signOut()``; the scene's phase calls
/// ``appDidEnterBackground()`` and ``appWillEnterForeground()``. Everything else moves the state
/// by itself: a refresh token the server refuses, reuse detection, a session revoked early, the
/// inactivity timeout, another process ending the session. Every transition is decided by one
/// I/O-free state machine; the model only performs the work it names.
///
/// - Presence unlock is offered (``presenceUnlock`` is ``PresenceUnlockStatus/offered``) only
///   after a sign-in and only when the gate can evaluate on this device. Once on, the session
///   locks when the app has been in the background for ``Configuration/lockAfter`` and at every
///   launch, and the refresh token is released only through the gate
///   (``PresenceUnlock/store``). A failed, cancelled or locked-out check leaves the session
///   locked with a message; nothing is deleted. A device-locked store has its own state.
/// - A launch that cannot reach the server keeps the session: a failure of the `user` closure that
///   TokenAuth calls transient (the network, a timeout, a 5xx; the tokens are kept) is
///   ``SessionState/offline(message:)``, read again in the foreground, after a refresh and on
///   ``retry()``. A refresh token the server refuses at launch is
///   ``SessionState/signedOut(reason:message:)`` with ``SignedOutReason/sessionExpired`` (or
///   the token manager's more precise reason); ``SignedOutReason/neverSignedIn`` means that no
///   session was stored.
/// - Messages come from ``Configuration/messages`` (a `UserMessageCatalog`), never from a server.
/// - The model consumes the token manager's `events` (one consumer: one model per manager). It
///   holds no strong reference to itself in a running task: released, it stops listening.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
@MainActor
@Observable
public final class SessionModel<User: Sendable & Equatable> {
    /// How the model locks and what it tells people.
    public struct Configuration: Sendable {
        /// With presence unlock on, lock a session the app left in the background for at least
        /// this long; zero (the default) locks it as the app goes to the background, before the
        /// system takes the app switcher's snapshot.
        public var lockAfter: Duration
        /// The sentences shown to people.
        public var messages: UserMessageCatalog
        /// The clock for time spent in the background (`ContinuousClock` counts time asleep).
        public var now: @Sendable () -> ContinuousClock.Instant

        /// Creates a configuration.
        public init(
            lockAfter: Duration = .zero,
            messages: UserMessageCatalog = UserMessageCatalog(),
            now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
        ) {
            self.lockAfter = lockAfter
            self.messages = messages
            self.now = now
        }
    }

    /// Signs in with a user name and password and leaves the session in the token manager (for
    /// example `client.signIn(.post("auth/login", body: ...))`, or an `OAuthTokenEndpoint`'s
    /// password grant followed by `tokens.signIn(_:)`).
    public typealias PasswordSignIn = @Sendable (_ username: String, _ password: String) async throws -> Void

    /// Turns the session's tokens into the app's user (from an ID token's claims, a stored
    /// profile, or a request).
    public typealias UserDecoder = @Sendable (TokenBundle) async throws -> User

    /// Where the session is. Observers hear of a change only when the state changes (an
    /// event that leaves it as it was, such as a refresh, does not redraw a view).
    public private(set) var state: SessionState<User> = .starting

    /// Whether the app may offer presence unlock, or it is on.
    public private(set) var presenceUnlock: PresenceUnlockStatus

    /// Decides every transition; ``state`` and ``presenceUnlock`` mirror what it says.
    @ObservationIgnored private var machine: SessionMachine<User>

    /// The configuration in force.
    @ObservationIgnored public let configuration: Configuration
    /// The session's tokens.
    @ObservationIgnored public let tokens: TokenManager
    @ObservationIgnored private let presence: PresenceUnlock?
    @ObservationIgnored private let passwordSignIn: PasswordSignIn?
    @ObservationIgnored private let decodeUser: UserDecoder
    /// The work the machine asked for, done in order.
    @ObservationIgnored private var effects: Task<Void, Never>?
    /// Listens to the token manager's events; cancelled when the model goes away.
    @ObservationIgnored private let listener = Locked<Task<Void, Never>?>(nil)
    @ObservationIgnored private var started = false

    /// Creates a model; call ``start()`` to read the stored session.
    ///
    /// - Parameters:
    ///   - tokens: the session's token manager. Give it ``PresenceUnlock/store`` as its store
    ///     when `presence` is set.
    ///   - presence: presence unlock, or nil for none. It must guard the token manager's item
    ///     (``PresenceUnlock/tokensKey`` equal to the manager's `storageKey`); one that guards
    ///     another item would protect nothing, so it is not used and presence unlock is never
    ///     offered.
    ///   - configuration: when to lock and which messages to show.
    ///   - signIn: the password sign-in, for ``signIn(username:password:)``.
    ///   - user: decodes the app's user from the tokens.
    public init(
        tokens: TokenManager,
        presence: PresenceUnlock? = nil,
        configuration: Configuration = Configuration(),
        signIn: PasswordSignIn? = nil,
        user: @escaping UserDecoder
    ) {
        self.tokens = tokens
        self.presence = presence?.tokensKey == tokens.storageKey ? presence : nil
        self.configuration = configuration
        self.passwordSignIn = signIn
        self.decodeUser = user
        let machine = SessionMachine<User>(lockAfter: configuration.lockAfter, messages: configuration.messages)
        self.machine = machine
        self.state = machine.state
        self.presenceUnlock = machine.presenceUnlock
        let events = tokens.events
        let listener = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                self.apply(.tokenEvent(event))
            }
        }
        self.listener.withLock { $0 = listener }
    }

    deinit {
        self.listener.withLock { $0?.cancel() }
    }

    // MARK: - The app's calls

    /// Reads the stored session: signed in, locked (presence unlock on), signed out, ended (by
    /// the inactivity timeout while the app was not running, or by the server, which refused the
    /// refresh token), or kept but ``SessionState/offline(message:)`` when the `user` closure
    /// could not reach the server. Call it once, at launch.
    public func start() async {
        guard !self.started else { return }
        self.started = true
        await self.checkGate()
        await self.restore()
    }

    /// Signs in with the password sign-in given at init; the state becomes
    /// ``SessionState/signedIn(_:)``, or ``SessionState/signedOut(reason:message:)`` with a
    /// message ("The e-mail or password is wrong."). Only from a signed-out state.
    public func signIn(username: String, password: String) async {
        guard let passwordSignIn = self.passwordSignIn else {
            // A programming error, not the user's: the fallback sentence, not "wrong password".
            await self.signIn(performing: { throw NoPasswordSignIn() })
            return
        }
        await self.signIn(performing: { try await passwordSignIn(username, password) })
    }

    /// Signs in through the browser: `perform` runs the authorization (for example
    /// `AuthorizationRequest.authorize(presentationContextProvider:)`, the code exchange, and
    /// `tokens.signIn(_:)`). A closed sign-in page returns to the signed-out state without a
    /// message.
    public func signIn(browser perform: @escaping @Sendable () async throws -> Void) async {
        await self.signIn(performing: perform)
    }

    /// Unlocks a locked session through the presence gate. A failed, cancelled or locked-out
    /// check leaves it locked (with a message for a failure or a lockout); the tokens are never
    /// deleted by a failed unlock.
    ///
    /// Work the model started before (locking the token manager, which first lets a refresh in
    /// flight end) is finished first: the session is always read through the gate.
    public func unlock() async {
        guard let attempt = self.apply(.unlockStarted) else { return }
        if let pending = self.effects {
            // An unlock that overtook the lock would find the token manager not locked yet and
            // open the session without asking the user, and the lock would follow it.
            self.unlocksWaitingForWork += 1
            await pending.value
            self.unlocksWaitingForWork -= 1
            // Signed out (or locked again) meanwhile: nothing to ask the user.
            guard self.machine.attempt == attempt else { return }
        }
        let outcome = await Self.unlockSession(
            tokens: self.tokens,
            presence: self.presence,
            decodeUser: self.decodeUser,
            messages: self.configuration.messages
        )
        self.apply(.unlockFinished(attempt: attempt, outcome))
    }

    /// Signs out: the state becomes signed out at once, then the token manager ends the session
    /// (revoking the refresh token when it can) and presence unlock is turned off. Returns when
    /// that is done.
    public func signOut() async {
        self.apply(.signOutRequested)
        await self.idle()
    }

    /// Reads the session again when it could not be opened: from
    /// ``SessionState/offline(message:)`` (a "Try again" button, or the app learnt that the
    /// network is back) or ``SessionState/deviceLocked(message:)``. Does nothing in any other
    /// state. Returns when the read is done; the state stays as it was until then (no progress
    /// state in between).
    public func retry() async {
        self.apply(.retryRequested)
        await self.idle()
    }

    /// The app went to the background: with presence unlock on and ``Configuration/lockAfter``
    /// zero, the session locks now (the state changes before this returns).
    public func appDidEnterBackground() {
        self.apply(.enteredBackground(at: self.configuration.now()))
    }

    /// The app comes back: the session locks if it was in the background for at least
    /// ``Configuration/lockAfter`` (with presence unlock on), the inactivity timeout is checked,
    /// and a device-locked store or an offline session is read again.
    public func appWillEnterForeground() {
        self.apply(.enteredForeground(at: self.configuration.now()))
    }

    /// Turns presence unlock on, after a check that the user can pass it. Only when
    /// ``presenceUnlock`` is ``PresenceUnlockStatus/offered``.
    ///
    /// - Returns: whether it is on.
    @discardableResult
    public func enablePresenceUnlock() async -> Bool {
        guard let presence = self.presence, self.presenceUnlock == .offered else {
            return self.presenceUnlock == .enabled
        }
        do {
            try await presence.gate.authenticate(reason: presence.store.configuration.reason)
            guard self.presenceUnlock == .offered else { return false }
            // The user was just confirmed and the tokens are in memory: the session is unlocked.
            presence.setUnlocked(true)
            try await presence.setPreference(true)
        } catch {
            return false
        }
        self.apply(.presenceUnlockEnabled(true))
        guard self.presenceUnlock == .enabled else {
            // Signed out while the store was written.
            try? await presence.setPreference(false)
            return false
        }
        return true
    }

    /// Turns presence unlock off (only for a signed-in user: a lock screen cannot turn it off).
    public func disablePresenceUnlock() async {
        guard let presence = self.presence, self.presenceUnlock == .enabled, self.state.isSignedIn else { return }
        try? await presence.setPreference(false)
        self.apply(.presenceUnlockEnabled(false))
        await self.checkGate()
    }

    /// Returns when the work the model started has finished (locking the token manager, ending
    /// a session, reading it again).
    public func idle() async {
        while let current = self.effects {
            await current.value
            if self.effects == current { self.effects = nil }
        }
    }

    /// The listener of the token manager's events (for tests).
    var listenerTask: Task<Void, Never>? { self.listener.withLock { $0 } }

    /// Whether work the machine asked for is still running (for tests).
    var hasPendingWork: Bool { self.effects != nil }

    /// How many unlocks are waiting for work started before them (for tests).
    @ObservationIgnored private(set) var unlocksWaitingForWork = 0

    // MARK: - The machine and its effects

    @discardableResult
    private func apply(_ input: SessionMachine<User>.Input) -> Int? {
        let (effects, attempt) = self.machine.handle(input)
        if self.machine.state != self.state { self.state = self.machine.state }
        if self.machine.presenceUnlock != self.presenceUnlock { self.presenceUnlock = self.machine.presenceUnlock }
        if !effects.isEmpty {
            let previous = self.effects
            self.effects = Task {
                await previous?.value
                for effect in effects { await self.perform(effect) }
            }
        }
        return attempt
    }

    private func perform(_ effect: SessionMachine<User>.Effect) async {
        switch effect {
        case .lockTokens:
            // A refresh in flight finishes first (reading the store without a prompt), then the
            // gate is back in front of the tokens.
            await self.tokens.lock()
            self.presence?.setUnlocked(false)
            await self.presence?.store.invalidateAuthentication()
        case .endSession:
            await self.tokens.signOut()
            self.presence?.setUnlocked(false)
            await self.presence?.store.invalidateAuthentication()
        case .forgetPresenceUnlock:
            try? await self.presence?.setPreference(false)
        case .checkInactivity:
            if await self.tokens.checkInactivity() {
                self.apply(.tokenEvent(.signedOut(.inactivity)))
            }
        case .restore:
            await self.restore()
        }
    }

    private func checkGate() async {
        guard let presence = self.presence else { return }
        self.apply(.gateAvailability(await presence.gate.canEvaluate()))
    }

    private func restore() async {
        let restored = await Self.readSession(
            tokens: self.tokens,
            presence: self.presence,
            decodeUser: self.decodeUser,
            messages: self.configuration.messages
        )
        self.apply(.restored(restored))
    }

    private func signIn(performing perform: @escaping @Sendable () async throws -> Void) async {
        guard let attempt = self.apply(.signInStarted) else { return }
        let outcome = await Self.signInSession(
            tokens: self.tokens,
            perform: perform,
            decodeUser: self.decodeUser,
            messages: self.configuration.messages
        )
        self.apply(.signInFinished(attempt: attempt, outcome))
        if self.state.isSignedIn { await self.checkGate() }
    }

    // MARK: - Work off the main actor

    /// Reads the stored session without asking the user: with presence unlock on, only whether
    /// there is one (the session is then locked).
    nonisolated private static func readSession(
        tokens: TokenManager,
        presence: PresenceUnlock?,
        decodeUser: UserDecoder,
        messages: UserMessageCatalog
    ) async -> SessionMachine<User>.Restored {
        let presenceOn: Bool
        do {
            presenceOn = try await presence?.loadPreference() ?? false
        } catch {
            return .deviceLocked
        }
        do {
            if presenceOn {
                await tokens.lock()
                if await tokens.checkInactivity() { return .ended(.inactivity) }
                return try await tokens.hasSession() ? .locked : .noSession
            }
            guard let bundle = try await tokens.unlock() else { return .noSession }
            if await tokens.checkInactivity() { return .ended(.inactivity) }
            do {
                return .signedIn(try await decodeUser(bundle))
            } catch {
                if await Self.sessionEnded(tokens) { return .ended(.refreshRejected) }
                if let message = TransientFailure.message(for: error, messages: messages) {
                    return .offline(message: message)
                }
                if TransientFailure.storageError(of: error)?.code == .deviceLocked { return .deviceLocked }
                return .failed(message: messages.fallback)
            }
        } catch {
            if error.storageError?.code == .deviceLocked { return .deviceLocked }
            return .failed(message: messages.fallback)
        }
    }

    nonisolated private static func unlockSession(
        tokens: TokenManager,
        presence: PresenceUnlock?,
        decodeUser: UserDecoder,
        messages: UserMessageCatalog
    ) async -> SessionMachine<User>.UnlockOutcome {
        // Judged before the prompt: a session that ended is not worth a Face ID check.
        if await tokens.checkInactivity() { return .ended(.inactivity) }
        let bundle: TokenBundle?
        do {
            bundle = try await tokens.unlock()
        } catch {
            return .refused(error.storageError?.code ?? .ioFailure)
        }
        guard let bundle else { return .noSession }
        presence?.setUnlocked(true)
        do {
            return .unlocked(try await decodeUser(bundle))
        } catch {
            if await Self.sessionEnded(tokens) { return .ended(.refreshRejected) }
            if let message = TransientFailure.message(for: error, messages: messages) {
                return .offline(message: message)
            }
            return .undecodable
        }
    }

    /// Whether the session is gone after the `user` closure failed: the token manager ends it
    /// (clearing the tokens, emitting its signed-out event) when the server refuses the refresh
    /// token, and only then. The reason given with it is provisional: the event's replaces it.
    nonisolated private static func sessionEnded(_ tokens: TokenManager) async -> Bool {
        (try? await tokens.hasSession()) == false
    }

    nonisolated private static func signInSession(
        tokens: TokenManager,
        perform: @Sendable () async throws -> Void,
        decodeUser: UserDecoder,
        messages: UserMessageCatalog
    ) async -> SessionMachine<User>.SignInOutcome {
        do {
            try await perform()
        } catch {
            return Self.signInFailure(error, messages: messages)
        }
        do {
            guard let bundle = try await tokens.currentBundle() else {
                return .failed(message: messages.fallback)
            }
            return .signedIn(try await decodeUser(bundle))
        } catch {
            // Signed in, but the app cannot use the session: end it rather than keep tokens
            // the model does not show.
            await tokens.signOut()
            return .undecodable(message: messages.fallback)
        }
    }

    /// The outcome of a sign-in that threw `error`: cancelled, or failed with a sentence.
    nonisolated static func signInFailure(
        _ error: any Error,
        messages: UserMessageCatalog
    ) -> SessionMachine<User>.SignInOutcome {
        switch error {
        case is CancellationError:
            return .cancelled
        case let error as APIError:
            return error.code == .cancelled ? .cancelled : .failed(message: error.userMessage(messages))
        case let error as TokenAuthError:
            switch error.code {
            case .authorizationCancelled: return .cancelled
            case .invalidGrant, .invalidClient, .authorizationRejected:
                return .failed(message: messages.message(for: .invalidCredentials))
            default:
                if let transport = error.transportError { return .failed(message: messages.message(for: transport)) }
                return .failed(message: messages.fallback)
            }
        case let error as SecureHTTPError:
            return error.code == .cancelled ? .cancelled : .failed(message: messages.message(for: error))
        default:
            return .failed(message: messages.fallback)
        }
    }
}

@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
extension SessionModel: CustomReflectable {
    /// What `dump()`, debuggers and `Mirror` see: the token manager (whose own mirror shows no
    /// token) and whether presence unlock is configured, never the state or the user in it. The
    /// state belongs to the main actor and the mirror may be asked for anywhere, so the shape is
    /// fixed.
    public nonisolated var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "tokens": self.tokens as Any,
                "presenceUnlock": self.presence == nil ? "none" : "configured",
                "state": "<redacted>",
            ],
            displayStyle: .class
        )
    }
}

/// The error of ``SessionModel/signIn(username:password:)`` on a model made without a password
/// sign-in.
struct NoPasswordSignIn: Error {}
