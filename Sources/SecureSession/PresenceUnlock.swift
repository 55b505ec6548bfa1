import Foundation
import SecureNetworkingInternal
public import SecureStorage

/// Unlocking the session with the user's presence (Face ID, Touch ID, the passcode): the store
/// to give the token manager, and the user's choice to use it.
///
/// ``store`` wraps the app's store in a `UserPresenceProtectedStore` that guards one item, the
/// token manager's tokens, and only while presence unlock is on. Until the user turns it on
/// (``SessionModel/enablePresenceUnlock()``, offered after a sign-in), the tokens are read
/// without a prompt; once it is on, the refresh token is released only through the gate, with
/// the wrapped store's reuse window and lockout, each time the session is unlocked. While it is
/// unlocked the token manager holds the tokens, and its own re-reads (a refresh shared with an
/// app extension reads them under the session lock) do not prompt; locking puts the gate back
/// in front of them. The choice is kept in the store beside the
/// tokens (a coordination item, `<tokensKey>.presenceUnlock`, which holds no secret) and
/// forgotten when the session ends.
///
/// ```swift
/// let presence = PresenceUnlock(wrapping: KeychainStore(), gate: LocalAuthenticationGate())
/// let tokens = TokenManager(store: presence.store, refresher: endpoint)
/// let session = SessionModel(tokens: tokens, presence: presence, user: { try Profile(idToken: $0) })
/// ```
public final class PresenceUnlock: Sendable {
    /// The store to give the token manager: the app's, with the tokens behind the gate while
    /// presence unlock is on.
    public let store: UserPresenceProtectedStore
    /// The gate that confirms the user.
    public let gate: any UserPresenceGate
    /// The token manager's storage key (`TokenManager.Configuration.storageKey`).
    public let tokensKey: String
    private let enabled: Locked<Bool>
    /// Whether the session passed the gate since it was last locked (see ``setUnlocked(_:)``).
    private let unlocked: Locked<Bool>

    /// Wraps `base` so that the tokens under `tokensKey` are released only through `gate` while
    /// presence unlock is on.
    ///
    /// - Parameters:
    ///   - base: the app's store (the Keychain, an encrypted file store).
    ///   - gate: the presence check (`LocalAuthenticationGate` on Apple platforms).
    ///   - tokensKey: the token manager's storage key.
    ///   - configuration: the reason shown, the reuse window and the lockout of
    ///     `UserPresenceProtectedStore`; its `protectedItems` is replaced by the tokens item.
    ///   - now: the clock of the reuse window and the lockout.
    public init(
        wrapping base: any SecureStore,
        gate: any UserPresenceGate,
        tokensKey: String = "SecureNetworking.tokens",
        configuration: UserPresenceProtectedStore.Configuration = UserPresenceProtectedStore.Configuration(),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        let enabled = Locked(false)
        let unlocked = Locked(false)
        var configuration = configuration
        configuration.protectedItems = .matching { key in
            key == tokensKey && enabled.withLock { $0 } && !unlocked.withLock { $0 }
        }
        self.enabled = enabled
        self.unlocked = unlocked
        self.gate = gate
        self.tokensKey = tokensKey
        self.store = UserPresenceProtectedStore(wrapping: base, gate: gate, configuration: configuration, now: now)
    }

    /// Marks the session unlocked (it passed the gate, or the user was just confirmed turning
    /// presence unlock on) or locked again. While unlocked, the token manager holds the tokens
    /// in memory, and its own reads of the stored tokens need no prompt: a refresh shared with
    /// other processes reads them under the session lock, and must not ask for Face ID in the
    /// middle of a request. Locking (the app went to the background) puts the gate back in
    /// front of them.
    func setUnlocked(_ unlocked: Bool) {
        self.unlocked.withLock { $0 = unlocked }
    }

    /// The item that keeps the user's choice.
    var preferenceKey: String { self.tokensKey + ".presenceUnlock" }

    /// Whether presence unlock is on (as last read or set).
    public var isEnabled: Bool { self.enabled.withLock { $0 } }

    /// Reads the user's choice from the store; an unreadable one counts as on when the store
    /// holds tokens (fail closed: the tokens then stay behind the gate).
    ///
    /// - Throws: ``SecureStoreError/Code/deviceLocked`` only: the store cannot be read until the
    ///   device is unlocked.
    func loadPreference() async throws(SecureStoreError) -> Bool {
        let on: Bool
        do {
            let stored = try await self.store.coordinationData(forKey: self.preferenceKey)
            on = stored == Data([1])
        } catch {
            if error.code == .deviceLocked { throw error }
            on = (try? await self.store.contains(self.tokensKey)) ?? true
        }
        self.enabled.withLock { $0 = on }
        return on
    }

    /// Keeps the user's choice. Turning it off in memory happens even if the store fails, and
    /// turning it on happens in memory only once stored, so a failure never leaves the tokens
    /// unguarded while the store says they are guarded.
    func setPreference(_ on: Bool) async throws(SecureStoreError) {
        if on {
            try await self.store.setCoordinationData(Data([1]), forKey: self.preferenceKey)
            self.enabled.withLock { $0 = true }
        } else {
            self.enabled.withLock { $0 = false }
            try await self.store.removeValue(forKey: self.preferenceKey)
        }
    }
}
