/// An error from a ``SecureStore``.
///
/// Errors compare equal when their ``code`` is equal. Messages name keys and files, never the
/// stored bytes, a passphrase or key material.
public struct SecureStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier of what went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case invalidKey, tampered, wrongKey, corrupted, ioFailure, keyUnavailable
            case deviceLocked, authenticationFailed, authenticationCancelled, lockedOut
            case encodingFailed, decodingFailed, unsupported, lockTimeout, cancelled
            // issue 51 item 16
            case protectedItem
        }

        fileprivate let base: Base

        /// The text form of the code, stable across releases.
        public var description: String { self.base.rawValue }

        /// The item key is empty or not allowed (keys are names, not secrets).
        public static let invalidKey = Code(base: .invalidKey)
        /// Stored data failed authentication under the right key: it was modified.
        public static let tampered = Code(base: .tampered)
        /// The store was sealed under another key or passphrase. Nothing is changed.
        public static let wrongKey = Code(base: .wrongKey)
        /// Stored data is not in the store's format (truncated, garbled). Nothing is changed.
        public static let corrupted = Code(base: .corrupted)
        /// Reading, writing, locking or syncing a file failed.
        public static let ioFailure = Code(base: .ioFailure)
        /// The store's key could not be obtained (key file unreadable, bad permissions, …).
        public static let keyUnavailable = Code(base: .keyUnavailable)
        /// The device is locked, so protected items cannot be read now (Keychain
        /// `errSecInteractionNotAllowed`, -25308). Not the same as "no item".
        public static let deviceLocked = Code(base: .deviceLocked)
        /// The user-presence check (biometry, passcode) failed.
        public static let authenticationFailed = Code(base: .authenticationFailed)
        /// The user cancelled the user-presence check.
        public static let authenticationCancelled = Code(base: .authenticationCancelled)
        /// Too many failed user-presence checks: locked out for a while.
        public static let lockedOut = Code(base: .lockedOut)
        /// A value could not be encoded for storage.
        public static let encodingFailed = Code(base: .encodingFailed)
        /// A stored value could not be decoded as the requested type.
        public static let decodingFailed = Code(base: .decodingFailed)
        /// The operation is not available on this platform or store.
        public static let unsupported = Code(base: .unsupported)
        /// Another process held the store's cross-process lock for longer than the caller would
        /// wait (``SecureStore/lockAcrossProcesses(timeout:)``).
        public static let lockTimeout = Code(base: .lockTimeout)
        /// The task waiting for the store's cross-process lock was cancelled; the lock was not
        /// taken.
        public static let cancelled = Code(base: .cancelled)
        // issue 51 item 16
        /// The item is guarded by a user-presence check and was not written as a coordination
        /// item: ``SecureStore/coordinationData(forKey:)`` does not release it (read it with
        /// ``SecureStore/data(forKey:)``, which asks the gate).
        public static let protectedItem = Code(base: .protectedItem)
    }

    /// What went wrong, as a stable code.
    public let code: Code
    /// A short explanation for people; it never holds a secret.
    public let message: String

    /// Creates an error. Never put stored bytes, a passphrase or a key in `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(self.code): \(self.message)" }

    public static func == (lhs: SecureStoreError, rhs: SecureStoreError) -> Bool {
        lhs.code == rhs.code
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.code)
    }
}
