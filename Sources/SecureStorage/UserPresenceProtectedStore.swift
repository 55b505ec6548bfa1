public import Foundation

/// A ``SecureStore`` that asks a ``UserPresenceGate`` before it releases a protected item from
/// the store it wraps.
///
/// - A successful check is reused for ``Configuration/reuseDuration`` (zero by default: every
///   protected read asks).
/// - After ``Configuration/maximumFailures`` consecutive ``SecureStoreError/Code/authenticationFailed``
///   results, protected reads throw ``SecureStoreError/Code/lockedOut`` for
///   ``Configuration/lockoutDuration`` without asking the gate. The failure that starts the
///   lockout is reported as `authenticationFailed`; cancellations do not count as failures.
/// - Concurrent protected reads share one check instead of prompting several times.
/// - `contains` and reads of a missing item do not ask: they release no secret, and prompting
///   for nothing would train users to accept prompts.
/// - Writes (`set`, `removeValue`) do not ask either: they release nothing, and signing out must
///   be able to clear tokens without a prompt. Someone holding the unlocked device can therefore
///   replace or delete items, but not read them.
/// - Coordination items (``SecureStore/coordinationData(forKey:)``: a refresh lease, a
///   preference) are read without the gate. Under a protected key, only an item written as a
///   coordination item is (``setCoordinationData(_:forKey:)`` marks it in the wrapped store);
///   the secret ``set(_:forKey:)`` stored there is refused with
///   ``SecureStoreError/Code/protectedItem``, so `coordinationData` is no way around the gate.
///   Items under keys that are not protected are stored as they are, so a process that shares
///   the wrapped store without this wrapper reads them too.
///
/// Time is read from the injected `now` (a `ContinuousClock` by default), so tests control it.
public final class UserPresenceProtectedStore: SecureStore {
    /// Which items need the gate: ``all``, a set of ``keys(_:)``, or a predicate.
    public struct ProtectedItems: Sendable {
        private let predicate: @Sendable (String) -> Bool

        /// Every item is protected.
        public static let all = ProtectedItems { _ in true }

        /// Only the items under these keys are protected.
        public static func keys(_ keys: Set<String>) -> ProtectedItems {
            ProtectedItems { keys.contains($0) }
        }

        /// The items whose key satisfies `predicate` are protected.
        public static func matching(_ predicate: @escaping @Sendable (String) -> Bool) -> ProtectedItems {
            ProtectedItems(predicate)
        }

        private init(_ predicate: @escaping @Sendable (String) -> Bool) {
            self.predicate = predicate
        }

        /// Whether the item under `key` is protected.
        public func contains(_ key: String) -> Bool { self.predicate(key) }
    }

    /// How the gate is used. The defaults fail closed: every item protected, no reuse.
    public struct Configuration: Sendable {
        /// The items that need the gate.
        public var protectedItems: ProtectedItems
        /// The text of the prompt: passed to the gate on every check, and shown to the user (as
        /// `LocalAuthenticationGate`'s `localizedReason`: on Touch ID's and the Mac's dialog, and
        /// on Face ID's after a failed scan, beside the app's name). Say what the check unlocks,
        /// in the user's language, without the app's name; never put a secret in it.
        ///
        /// An empty or blank reason is replaced by ``defaultReason``: LocalAuthentication raises an
        /// exception for an empty one.
        public var reason: String {
            didSet { self.reason = Self.usableReason(self.reason) }
        }
        /// How long a successful check is reused; zero asks on every protected read.
        public var reuseDuration: Duration
        /// Consecutive failed checks that start a lockout (at least 1).
        public var maximumFailures: Int
        /// How long a lockout lasts.
        public var lockoutDuration: Duration

        /// The reason a configuration gets when it is given none.
        public static let defaultReason = "Confirm it is you to use your saved credentials"

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - protectedItems: the items that need the gate; all of them by default.
        ///   - reason: the prompt's text (see ``reason``).
        ///   - reuseDuration: how long a successful check is reused; zero asks every time.
        ///   - maximumFailures: consecutive failed checks that start a lockout (at least 1).
        ///   - lockoutDuration: how long a lockout lasts.
        public init(
            protectedItems: ProtectedItems = .all,
            reason: String = Configuration.defaultReason,
            reuseDuration: Duration = .zero,
            maximumFailures: Int = 5,
            lockoutDuration: Duration = .seconds(60)
        ) {
            self.protectedItems = protectedItems
            self.reason = Self.usableReason(reason)
            self.reuseDuration = reuseDuration
            self.maximumFailures = max(1, maximumFailures)
            self.lockoutDuration = lockoutDuration
        }

        /// `reason`, or ``defaultReason`` when it has nothing to show.
        static func usableReason(_ reason: String) -> String {
            reason.allSatisfy(\.isWhitespace) ? Self.defaultReason : reason
        }
    }

    /// The wrapped store.
    public let base: any SecureStore
    /// The configuration in force.
    public let configuration: Configuration
    private let gate: any UserPresenceGate
    private let state: UserPresenceState

    /// Wraps `base` so its protected items are released only after `gate` succeeds.
    ///
    /// - Parameters:
    ///   - base: the store that holds the items.
    ///   - gate: the user-presence check.
    ///   - configuration: which items, reuse window and lockout.
    ///   - now: the clock for the reuse window and the lockout; inject one in tests.
    public init(
        wrapping base: any SecureStore,
        gate: any UserPresenceGate,
        configuration: Configuration = Configuration(),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.base = base
        self.gate = gate
        self.configuration = configuration
        self.state = UserPresenceState(now: now)
    }

    /// The item under `key`; a protected item that exists is released only after the gate.
    ///
    /// - Throws: the wrapped store's errors, or the gate's: ``SecureStoreError/Code/authenticationFailed``,
    ///   ``SecureStoreError/Code/authenticationCancelled``, ``SecureStoreError/Code/lockedOut``.
    public func data(forKey key: String) async throws(SecureStoreError) -> Data? {
        try validateItemKey(key)
        guard self.configuration.protectedItems.contains(key) else {
            return try await self.base.data(forKey: key).map(Self.unmarked)
        }
        guard try await self.base.contains(key) else { return nil }
        try await self.state.authorize(gate: self.gate, configuration: self.configuration)
        return try await self.base.data(forKey: key).map(Self.unmarked)
    }

    /// Stores `data` in the wrapped store, without asking the gate.
    public func set(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        // A secret that began with the coordination mark would be released without the gate.
        if self.configuration.protectedItems.contains(key) && Self.isMarked(data) {
            throw SecureStoreError(
                .protectedItem,
                "the item '\(key)' is protected and cannot begin with the coordination mark"
            )
        }
        try await self.base.set(data, forKey: key)
    }

    /// Removes the item from the wrapped store, without asking the gate.
    public func removeValue(forKey key: String) async throws(SecureStoreError) {
        try await self.base.removeValue(forKey: key)
    }

    /// A coordination item of the wrapped store, without asking the gate: it holds no secret.
    ///
    /// Under a protected key, only an item written with ``setCoordinationData(_:forKey:)`` is
    /// released; anything else there (the secret ``set(_:forKey:)`` stored) is refused.
    ///
    /// - Throws: ``SecureStoreError/Code/protectedItem`` for a protected item that is not a
    ///   coordination item; the wrapped store's errors.
    public func coordinationData(forKey key: String) async throws(SecureStoreError) -> Data? {
        try validateItemKey(key)
        guard let data = try await self.base.coordinationData(forKey: key) else { return nil }
        if Self.isMarked(data) { return Self.unmarked(data) }
        guard !self.configuration.protectedItems.contains(key) else {
            throw SecureStoreError(
                .protectedItem,
                "the item '\(key)' is protected by a user-presence check and is not a coordination item"
            )
        }
        return data
    }

    /// Stores a coordination item in the wrapped store, without asking the gate. Under a
    /// protected key it is marked as one, so ``coordinationData(forKey:)`` releases it there.
    public func setCoordinationData(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        let stored = self.configuration.protectedItems.contains(key) ? Self.coordinationMark + data : data
        try await self.base.setCoordinationData(stored, forKey: key)
    }

    /// The bytes in front of a coordination item under a protected key in the wrapped store: a
    /// NUL and `SNCOORD1`, which no JSON or text value begins with. Only a write that replaces
    /// the item can put them there, so they never make a stored secret readable.
    static let coordinationMark = Data([0x00]) + Data("SNCOORD1".utf8)

    /// Whether `data` was written by ``setCoordinationData(_:forKey:)``.
    static func isMarked(_ data: Data) -> Bool {
        data.starts(with: Self.coordinationMark)
    }

    /// `data` without the coordination mark, if it has one (for a process that reads the wrapped
    /// store without this wrapper).
    package static func unmarked(_ data: Data) -> Data {
        Self.isMarked(data) ? Data(data.dropFirst(Self.coordinationMark.count)) : data
    }

    /// Whether the wrapped store has the item, without asking the gate.
    public func contains(_ key: String) async throws(SecureStoreError) -> Bool {
        try await self.base.contains(key)
    }

    /// The base store's lock: the gate protects values, not the lock.
    public func lockAcrossProcesses(timeout: Duration) async throws(SecureStoreError) -> CrossProcessLock? {
        try await self.base.lockAcrossProcesses(timeout: timeout)
    }

    /// Forgets the last successful check, so the next protected read asks again (call it when
    /// the app goes to the background or the user signs out). A lockout stays in force.
    public func invalidateAuthentication() async {
        await self.state.invalidate()
    }
}

/// The reuse window, failure count and lockout, and the check in flight.
actor UserPresenceState {
    private let now: @Sendable () -> ContinuousClock.Instant
    private var lastSuccess: ContinuousClock.Instant?
    private var consecutiveFailures = 0
    private var lockedUntil: ContinuousClock.Instant?
    private var inFlight: Task<Result<Void, SecureStoreError>, Never>?

    init(now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.now = now
    }

    func invalidate() {
        self.lastSuccess = nil
    }

    /// Returns when the caller may release a protected item.
    func authorize(
        gate: any UserPresenceGate,
        configuration: UserPresenceProtectedStore.Configuration
    ) async throws(SecureStoreError) {
        let current = self.now()
        if let until = self.lockedUntil {
            guard current >= until else {
                throw SecureStoreError(.lockedOut, "too many failed user-presence checks; try again later")
            }
            self.lockedUntil = nil
        }
        if let last = self.lastSuccess, current >= last, current - last < configuration.reuseDuration {
            return
        }
        if let inFlight = self.inFlight {
            try await inFlight.value.get()
            return
        }
        let reason = configuration.reason
        let check = Task { () async -> Result<Void, SecureStoreError> in
            do throws(SecureStoreError) {
                try await gate.authenticate(reason: reason)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        self.inFlight = check
        let result = await check.value
        self.inFlight = nil
        self.record(result, configuration: configuration)
        try result.get()
    }

    private func record(
        _ result: Result<Void, SecureStoreError>,
        configuration: UserPresenceProtectedStore.Configuration
    ) {
        switch result {
        case .success:
            self.lastSuccess = self.now()
            self.consecutiveFailures = 0
        case .failure(let error) where error.code == .authenticationFailed:
            self.lastSuccess = nil
            self.consecutiveFailures += 1
            if self.consecutiveFailures >= configuration.maximumFailures {
                self.lockedUntil = self.now() + configuration.lockoutDuration
                self.consecutiveFailures = 0
            }
        case .failure:
            self.lastSuccess = nil
        }
    }
}
