import SecureNetworking
import SecureStorage
import TokenAuth

/// The session's rules, with no I/O: every input (the app's calls, the token manager's events,
/// the outcome of work the model did) moves the state and names the work to do next.
///
/// ``SessionModel`` holds one, feeds it, and performs its effects; the tests feed it directly.
struct SessionMachine<User: Sendable & Equatable>: Sendable {
    /// What the model learned when it read the stored session.
    enum Restored: Sendable, Equatable {
        /// No stored session.
        case noSession
        /// A session, decoded as `User`.
        case signedIn(User)
        /// A session the user must unlock (presence unlock is on).
        case locked
        /// The session ended as it was read: inactivity, or the server refused it while the user
        /// was decoded (the token manager cleared the tokens; its signed-out event names the
        /// reason, and may come after this).
        case ended(SignOutReason)
        /// The store cannot release the session while the device is locked.
        case deviceLocked
        /// The session is kept, but the user could not be decoded for a transient reason (the
        /// network, a 5xx): a message for the user.
        case offline(message: String)
        /// A stored session could not be read or decoded for another reason: a message for the
        /// user. The tokens are kept.
        case failed(message: String)
    }

    /// How an unlock ended.
    enum UnlockOutcome: Sendable, Equatable {
        /// The gate confirmed the user; the session is theirs.
        case unlocked(User)
        /// The store no longer holds a session.
        case noSession
        /// The session ended as it was read: inactivity, or the server refused it while the user
        /// was decoded.
        case ended(SignOutReason)
        /// The store refused to release the tokens: the gate's or the store's error code.
        case refused(SecureStoreError.Code)
        /// The tokens were read but the app's closure could not decode the user for a transient
        /// reason (the network, a 5xx): a message for the user.
        case offline(message: String)
        /// The tokens were read but the app's closure could not decode the user.
        case undecodable
    }

    /// How a sign-in ended.
    enum SignInOutcome: Sendable, Equatable {
        case signedIn(User)
        /// Refused or failed: the message for the user.
        case failed(message: String)
        /// The user closed the sign-in page.
        case cancelled
        /// Signed in, but the app's closure could not decode the user; the model ended that
        /// session (its `signedIn` event is still to come).
        case undecodable(message: String)
    }

    enum Input: Sendable, Equatable {
        case restoreStarted
        case restored(Restored)
        case signInStarted
        case signInFinished(attempt: Int, SignInOutcome)
        case unlockStarted
        case unlockFinished(attempt: Int, UnlockOutcome)
        case tokenEvent(TokenEvent)
        case signOutRequested
        case enteredBackground(at: ContinuousClock.Instant)
        case enteredForeground(at: ContinuousClock.Instant)
        case presenceUnlockEnabled(Bool)
        case gateAvailability(Bool)
        /// The app asked to read a session that could not be opened again (``SessionModel/retry()``).
        case retryRequested
    }

    /// Work the model does after a transition, in order.
    enum Effect: Sendable, Equatable {
        /// Lock the token manager and forget the gate's last success, so unlocking asks again.
        case lockTokens
        /// End the token manager's session (a sign-out the user asked for).
        case endSession
        /// Turn presence unlock off in the store (a session ended: the next sign-in offers it
        /// again).
        case forgetPresenceUnlock
        /// Ask the token manager whether the session has been idle too long.
        case checkInactivity
        /// Read the stored session again.
        case restore
    }

    private(set) var state: SessionState<User> = .starting
    /// Whether presence unlock is on.
    private(set) var presenceUnlockEnabled = false
    /// Whether the gate can evaluate on this device.
    private(set) var gateCanEvaluate = false
    /// Bumped by every sign-in and unlock started and every session that ends: the outcome of
    /// an older attempt is ignored.
    private(set) var attempt = 0
    /// Sign-ins the model finished whose `signedIn` event has not arrived: events before it
    /// belong to an earlier session.
    private(set) var pendingSignInEvents = 0
    /// Whether the `signedIn` event of the sign-in in progress arrived before the sign-in
    /// finished (the token manager emits it inside the sign-in): then nothing older is pending.
    private(set) var signInEventSeen = false
    /// When the app went to the background (nil in the foreground).
    private(set) var backgroundSince: ContinuousClock.Instant?
    /// How the session ended while it was being read (a refresh refused inside the app's `user`
    /// closure): the token manager's event came before the read's outcome, which it overrides.
    private(set) var endedWhileRestoring: SignOutReason?
    /// Reads the machine asked for (``Effect/restore``) that have not reported yet.
    private(set) var readsInFlight = 0
    /// Whether a reason to read again came while a read was in flight (the app came back, a
    /// refresh got through): if that read finds the session still offline, it is read once more.
    private(set) var readAgainAfterRead = false
    /// Whether the state is a sign-out the model inferred from a read or an unlock that found
    /// the session gone, so that the token manager's own event for it, if it comes after, names
    /// the reason.
    private(set) var awaitingEndEvent = false
    /// Lock a presence-unlock session that stayed in the background this long (zero: as soon
    /// as it goes there).
    let lockAfter: Duration
    /// The messages for people.
    let messages: UserMessageCatalog

    init(lockAfter: Duration, messages: UserMessageCatalog) {
        self.lockAfter = max(lockAfter, .zero)
        self.messages = messages
    }

    /// What the app may offer about presence unlock.
    var presenceUnlock: PresenceUnlockStatus {
        if self.presenceUnlockEnabled { return .enabled }
        return self.state.isSignedIn && self.gateCanEvaluate ? .offered : .unavailable
    }

    /// Applies `input`; returns the effects to perform, and for a started sign-in or unlock its
    /// attempt number (nil when the input was refused in this state).
    @discardableResult
    mutating func handle(_ input: Input) -> (effects: [Effect], attempt: Int?) {
        switch input {
        case .restoreStarted:
            self.state = .starting
            self.endedWhileRestoring = nil
            return ([], nil)
        case .restored(let restored):
            // At launch the model reads without being asked: that read was never counted.
            self.readsInFlight = max(0, self.readsInFlight - 1)
            var effects = self.restore(restored)
            if self.readAgainAfterRead {
                self.readAgainAfterRead = false
                if case .offline = self.state { effects += self.readAgain() }
            }
            return (effects, nil)
        case .signInStarted:
            guard case .signedOut = self.state else { return ([], nil) }
            self.attempt += 1
            self.state = .signingIn
            self.signInEventSeen = false
            self.awaitingEndEvent = false
            return ([], self.attempt)
        case .signInFinished(let attempt, let outcome):
            return (self.finishSignIn(attempt: attempt, outcome), nil)
        case .unlockStarted:
            guard case .locked = self.state else { return ([], nil) }
            self.attempt += 1
            self.state = .unlocking
            return ([], self.attempt)
        case .unlockFinished(let attempt, let outcome):
            return (self.finishUnlock(attempt: attempt, outcome), nil)
        case .tokenEvent(let event):
            return (self.receive(event), nil)
        case .signOutRequested:
            return (self.signOut(), nil)
        case .enteredBackground(let instant):
            return (self.enterBackground(at: instant), nil)
        case .enteredForeground(let instant):
            return (self.enterForeground(at: instant), nil)
        case .presenceUnlockEnabled(let enabled):
            // Turned on only for a signed-in user (after a sign-in, never from a lock screen).
            if enabled, !self.state.isSignedIn { return ([], nil) }
            self.presenceUnlockEnabled = enabled
            return ([], nil)
        case .gateAvailability(let available):
            self.gateCanEvaluate = available
            return ([], nil)
        case .retryRequested:
            switch self.state {
            case .offline: return (self.readAgain(), nil)
            case .deviceLocked: return (self.read(), nil)
            default: return ([], nil)
            }
        }
    }

    private mutating func restore(_ restored: Restored) -> [Effect] {
        switch self.state {
        case .starting, .deviceLocked, .offline: break
        default: return []  // a session started or ended meanwhile: it stands
        }
        if let reason = self.endedWhileRestoring {
            // The token manager ended the session during the read: whatever the read saw, the
            // session is over, for the reason the token manager gave.
            self.endedWhileRestoring = nil
            return self.end(reason)
        }
        switch restored {
        case .noSession:
            self.state = .signedOut(reason: .neverSignedIn, message: nil)
            self.presenceUnlockEnabled = false
            return []
        case .signedIn(let user):
            // Read without the gate: presence unlock is off.
            self.state = .signedIn(user)
            self.presenceUnlockEnabled = false
        case .locked:
            self.state = .locked(message: nil)
            self.presenceUnlockEnabled = true
        case .ended(let reason):
            let effects = self.end(reason)
            self.awaitingEndEvent = true
            return effects
        case .deviceLocked:
            self.state = .deviceLocked(message: self.message(.deviceLocked))
        case .offline(let message):
            // Kept: read again in the foreground, after a refresh, or when the app asks.
            self.state = .offline(message: message)
            self.presenceUnlockEnabled = false
        case .failed(let message):
            // Nothing is deleted: the user may sign in again (which replaces it), or relaunch.
            self.state = .signedOut(reason: .sessionUnusable, message: message)
        }
        return []
    }

    private mutating func finishSignIn(attempt: Int, _ outcome: SignInOutcome) -> [Effect] {
        guard attempt == self.attempt, case .signingIn = self.state else { return [] }
        switch outcome {
        case .signedIn(let user):
            self.state = .signedIn(user)
            if !self.signInEventSeen { self.pendingSignInEvents += 1 }
        case .failed(let message):
            self.state = .signedOut(reason: .neverSignedIn, message: message)
        case .cancelled:
            self.state = .signedOut(reason: .neverSignedIn, message: nil)
        case .undecodable(let message):
            self.state = .signedOut(reason: .neverSignedIn, message: message)
            if !self.signInEventSeen { self.pendingSignInEvents += 1 }
        }
        self.signInEventSeen = false
        return []
    }

    private mutating func finishUnlock(attempt: Int, _ outcome: UnlockOutcome) -> [Effect] {
        guard attempt == self.attempt, case .unlocking = self.state else { return [] }
        switch outcome {
        case .unlocked(let user):
            self.state = .signedIn(user)
        case .noSession:
            return self.end(.endedElsewhere)
        case .ended(let reason):
            let effects = self.end(reason)
            self.awaitingEndEvent = true
            return effects
        case .refused(let code):
            // Never signed out, never deleted: the session stays locked.
            switch code {
            case .authenticationCancelled: self.state = .locked(message: nil)
            case .lockedOut: self.state = .locked(message: self.message(.unlockLockedOut))
            case .deviceLocked: self.state = .deviceLocked(message: self.message(.deviceLocked))
            default: self.state = .locked(message: self.message(.unlockFailed))
            }
        case .offline(let message):
            // The user was confirmed, but the session cannot be opened yet: it locks again, and
            // the next unlock (online) asks again.
            self.state = .locked(message: message)
            return [.lockTokens]
        case .undecodable:
            self.state = .locked(message: self.messages.fallback)
            return [.lockTokens]
        }
        return []
    }

    private mutating func receive(_ event: TokenEvent) -> [Effect] {
        if event == .signedIn {
            if case .signingIn = self.state {
                // The sign-in's own event, ahead of its end: every older event came before it.
                self.signInEventSeen = true
                self.pendingSignInEvents = 0
                return []
            }
            if self.pendingSignInEvents > 0 {
                self.pendingSignInEvents -= 1
                return []
            }
            // A sign-in the model did not make (the app called the token manager itself).
            guard case .signedOut = self.state else { return [] }
            self.attempt += 1
            self.state = .starting
            self.endedWhileRestoring = nil
            return self.read()
        }
        if event == .refreshed {
            // A refresh got through: the network is back, so a session kept offline opens now.
            if case .offline = self.state { return self.readAgain() }
            return []
        }
        guard event.isSignedOut, let reason = event.reason else { return [] }
        // Events from before the model's last sign-in belong to the session it replaced.
        guard self.pendingSignInEvents == 0 else { return [] }
        switch self.state {
        case .signedIn, .locked, .unlocking, .deviceLocked, .offline:
            return self.end(reason)
        case .starting:
            // The read in progress decides what it found; the ending overrides it.
            self.endedWhileRestoring = reason
            return []
        case .signedOut:
            // Known, unless the model inferred it from a read that found the session gone: the
            // token manager's reason is the precise one (revoked, reuse detected, …).
            guard self.awaitingEndEvent else { return [] }
            self.awaitingEndEvent = false
            let reason = SignedOutReason(reason)
            self.state = .signedOut(reason: reason, message: self.message(for: reason))
            return []
        case .signingIn:
            // The sign-in decides.
            return []
        }
    }

    /// The session ended with `reason` (the token manager has already cleared it).
    private mutating func end(_ reason: SignOutReason) -> [Effect] {
        let reason = SignedOutReason(reason)
        self.awaitingEndEvent = false
        self.attempt += 1
        self.state = .signedOut(reason: reason, message: self.message(for: reason))
        let wasEnabled = self.presenceUnlockEnabled
        self.presenceUnlockEnabled = false
        return wasEnabled ? [.forgetPresenceUnlock] : []
    }

    private mutating func signOut() -> [Effect] {
        if case .signedOut(.userSignedOut, _) = self.state { return [] }
        self.attempt += 1
        self.pendingSignInEvents = 0
        self.awaitingEndEvent = false
        self.endedWhileRestoring = nil
        self.state = .signedOut(reason: .userSignedOut, message: nil)
        self.presenceUnlockEnabled = false
        return [.endSession, .forgetPresenceUnlock]
    }

    private mutating func enterBackground(at instant: ContinuousClock.Instant) -> [Effect] {
        if self.backgroundSince == nil { self.backgroundSince = instant }
        guard self.lockAfter == .zero else { return [] }
        return self.lockIfSignedIn()
    }

    private mutating func enterForeground(at instant: ContinuousClock.Instant) -> [Effect] {
        let since = self.backgroundSince
        self.backgroundSince = nil
        var effects: [Effect] = []
        if let since, instant - since >= self.lockAfter {
            effects += self.lockIfSignedIn()
        }
        switch self.state {
        case .signedIn, .locked:
            effects.append(.checkInactivity)
        case .deviceLocked:
            self.state = .starting
            effects += self.read()
        case .offline:
            // Read again while the state still says offline: no flash of a progress screen.
            effects += self.readAgain()
        case .starting, .signedOut, .signingIn, .unlocking:
            // Signing in: the sign-in finishes and the session stays open (it began in this
            // foreground session or the last). Unlocking: the prompt's outcome decides.
            break
        }
        return effects
    }

    /// Reads the stored session.
    private mutating func read() -> [Effect] {
        self.readsInFlight += 1
        return [.restore]
    }

    /// Reads a session kept offline again, unless a read is already in flight: then that read's
    /// outcome decides, and the session is read once more only if it is still offline (the
    /// reason to read again may have come after that read failed). So a refresh made by the read
    /// itself, or a retry and a foregrounding together, cost one read, not two.
    private mutating func readAgain() -> [Effect] {
        guard self.readsInFlight == 0 else {
            self.readAgainAfterRead = true
            return []
        }
        return self.read()
    }

    private mutating func lockIfSignedIn() -> [Effect] {
        guard self.presenceUnlockEnabled, case .signedIn = self.state else { return [] }
        self.state = .locked(message: nil)
        return [.lockTokens]
    }

    private func message(for reason: SignedOutReason) -> String? {
        switch reason {
        case .neverSignedIn, .userSignedOut: nil
        case .sessionUnusable: self.messages.fallback
        case .inactivity: self.message(.inactivity)
        case .revoked: self.message(.sessionRevoked)
        case .reuseDetected: self.message(.reuseDetected)
        case .endedElsewhere: self.message(.endedElsewhere)
        default: self.message(.sessionExpired)
        }
    }

    private func message(_ situation: UserMessageCatalog.Situation) -> String {
        self.messages.situationMessages[situation] ?? self.messages.fallback
    }
}
