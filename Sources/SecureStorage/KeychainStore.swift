#if canImport(Security)
import Dispatch
public import Foundation
public import Security

/// A ``SecureStore`` in the Keychain: one generic-password item (`kSecClassGenericPassword`)
/// per item key, identified by ``Configuration/service`` and the item key as the account.
///
/// A locked device (`errSecInteractionNotAllowed`, -25308) is reported as
/// ``SecureStoreError/Code/deviceLocked``, never as a missing item; only `errSecItemNotFound`
/// means nil. Keychain calls can block (and show a prompt for access-controlled items), so they
/// run on a background queue.
public final class KeychainStore: SecureStore {
    /// When the items can be read (`kSecAttrAccessible…`).
    public struct Accessibility: Sendable, Hashable, CustomStringConvertible {
        let rawValue: String

        /// Only while the device is unlocked, never restored to another device. The default.
        public static var whenUnlockedThisDeviceOnly: Accessibility {
            Accessibility(rawValue: kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String)
        }
        /// Only while the device is unlocked; migrates with encrypted backups.
        public static var whenUnlocked: Accessibility {
            Accessibility(rawValue: kSecAttrAccessibleWhenUnlocked as String)
        }
        /// After the first unlock since boot (background refresh), this device only.
        public static var afterFirstUnlockThisDeviceOnly: Accessibility {
            Accessibility(rawValue: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
        }
        /// After the first unlock since boot; migrates with encrypted backups.
        public static var afterFirstUnlock: Accessibility {
            Accessibility(rawValue: kSecAttrAccessibleAfterFirstUnlock as String)
        }
        /// Only while unlocked and only while a passcode is set; deleted if it is removed.
        public static var whenPasscodeSetThisDeviceOnly: Accessibility {
            Accessibility(rawValue: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly as String)
        }

        /// The `kSecAttrAccessible…` constant.
        public var description: String { self.rawValue }
    }

    /// Where and how items are kept.
    public struct Configuration: Sendable {
        /// `kSecAttrService`: names this app's (or this feature's) items.
        public var service: String
        /// `kSecAttrAccessGroup`, to share items between apps of one team; nil for the default.
        public var accessGroup: String?
        /// When items can be read; ``Accessibility/whenUnlockedThisDeviceOnly`` by default.
        public var accessibility: Accessibility
        /// Extra access control (for example `.biometryCurrentSet` or `.userPresence`); nil for
        /// none. With flags, reads may show a system prompt.
        public var accessControlFlags: SecAccessControlCreateFlags?
        /// Use the data-protection keychain on macOS (`kSecUseDataProtectionKeychain`), as iOS does.
        public var usesDataProtectionKeychain: Bool
        /// A file that every process sharing these items can lock (an app and its extensions: put
        /// it in the app group's container, `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`),
        /// so a `TokenManager` refresh runs in one process at a time
        /// (``lockAcrossProcesses(timeout:)``); nil (the default): no cross-process lock.
        public var sharedLockFile: URL?

        /// Creates a configuration with the defaults.
        public init(
            service: String,
            accessGroup: String? = nil,
            accessibility: Accessibility = .whenUnlockedThisDeviceOnly,
            accessControlFlags: SecAccessControlCreateFlags? = nil,
            usesDataProtectionKeychain: Bool = true,
            sharedLockFile: URL? = nil
        ) {
            self.sharedLockFile = sharedLockFile
            self.service = service
            self.accessGroup = accessGroup
            self.accessibility = accessibility
            self.accessControlFlags = accessControlFlags
            self.usesDataProtectionKeychain = usesDataProtectionKeychain
        }
    }

    /// The configuration in force.
    public let configuration: Configuration

    /// Creates a store over the Keychain items of `configuration.service`.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// An exclusive `flock` on ``Configuration/sharedLockFile``; nil without one.
    public func lockAcrossProcesses(timeout: Duration) async throws(SecureStoreError) -> CrossProcessLock? {
        guard let file = self.configuration.sharedLockFile else { return nil }
        return try await CrossProcessLock.take(try CrossProcessLock.open(file.path), timeout: timeout)
    }

    /// The item's bytes, or nil when there is none (`errSecItemNotFound`).
    ///
    /// - Throws: ``SecureStoreError/Code/deviceLocked`` while the device is locked, or the
    ///   code of a failed or cancelled prompt for access-controlled items.
    public func data(forKey key: String) async throws(SecureStoreError) -> Data? {
        try validateItemKey(key)
        return try await self.perform { () throws(SecureStoreError) -> Data? in
            var query = self.query(for: key)
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            switch status {
            case errSecSuccess:
                guard let data = result as? Data else {
                    throw SecureStoreError(.corrupted, "the Keychain item '\(key)' has no data")
                }
                return data
            case errSecItemNotFound:
                return nil
            default:
                throw Self.error(status, "reading '\(key)'")
            }
        }
    }

    /// Adds the item, or updates its data if it exists (its protection is then kept).
    public func set(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        try await self.write(data, forKey: key, accessControlFlags: self.configuration.accessControlFlags)
    }

    /// Stores a coordination item (a refresh lease: no secret) with the configured accessibility
    /// but without ``Configuration/accessControlFlags``, so reading it never prompts.
    public func setCoordinationData(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        try await self.write(data, forKey: key, accessControlFlags: nil)
    }

    private func write(
        _ data: Data,
        forKey key: String,
        accessControlFlags: SecAccessControlCreateFlags?
    ) async throws(SecureStoreError) {
        try validateItemKey(key)
        try await self.perform { () throws(SecureStoreError) in
            let query = self.query(for: key)
            var attributes = query
            attributes[kSecValueData as String] = data
            if let flags = accessControlFlags {
                var error: Unmanaged<CFError>?
                guard
                    let access = SecAccessControlCreateWithFlags(
                        nil,
                        self.configuration.accessibility.rawValue as CFString,
                        flags,
                        &error
                    )
                else {
                    throw SecureStoreError(.unsupported, "these access-control flags are not available here")
                }
                attributes[kSecAttrAccessControl as String] = access
            } else {
                attributes[kSecAttrAccessible as String] = self.configuration.accessibility.rawValue
            }
            var status = SecItemAdd(attributes as CFDictionary, nil)
            if status == errSecDuplicateItem {
                let update = [kSecValueData as String: data]
                status = SecItemUpdate(query as CFDictionary, update as CFDictionary)
            }
            guard status == errSecSuccess else { throw Self.error(status, "writing '\(key)'") }
        }
    }

    /// Deletes the item; a missing item is not an error.
    public func removeValue(forKey key: String) async throws(SecureStoreError) {
        try validateItemKey(key)
        try await self.perform { () throws(SecureStoreError) in
            let status = SecItemDelete(self.query(for: key) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw Self.error(status, "deleting '\(key)'")
            }
        }
    }

    /// Whether the item exists; asks for its attributes only, so it releases no secret.
    public func contains(_ key: String) async throws(SecureStoreError) -> Bool {
        try validateItemKey(key)
        return try await self.perform { () throws(SecureStoreError) -> Bool in
            var query = self.query(for: key)
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            let status = SecItemCopyMatching(query as CFDictionary, nil)
            switch status {
            case errSecSuccess: return true
            case errSecItemNotFound: return false
            default: throw Self.error(status, "looking up '\(key)'")
            }
        }
    }

    private func query(for key: String) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: self.configuration.service,
            kSecAttrAccount as String: key,
        ]
        if let group = self.configuration.accessGroup { query[kSecAttrAccessGroup as String] = group }
        if self.configuration.usesDataProtectionKeychain { query[kSecUseDataProtectionKeychain as String] = true }
        return query
    }

    /// Maps a Keychain status to a code; the message holds the status number, never data.
    static func error(_ status: OSStatus, _ operation: String) -> SecureStoreError {
        switch status {
        case errSecInteractionNotAllowed:
            SecureStoreError(.deviceLocked, "the device is locked (\(operation), OSStatus \(status))")
        case errSecUserCanceled:
            SecureStoreError(.authenticationCancelled, "the Keychain prompt was cancelled (\(operation))")
        case errSecAuthFailed:
            SecureStoreError(.authenticationFailed, "the Keychain prompt failed (\(operation))")
        case errSecMissingEntitlement:
            SecureStoreError(.unsupported, "the app lacks the keychain entitlement (\(operation), OSStatus \(status))")
        default:
            SecureStoreError(.ioFailure, "Keychain error \(operation): OSStatus \(status)")
        }
    }

    private func perform<T: Sendable>(
        _ body: @escaping @Sendable () throws(SecureStoreError) -> T
    ) async throws(SecureStoreError) -> T {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<T, SecureStoreError>, Never>) in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(returning: Result { () throws(SecureStoreError) -> T in try body() })
            }
        }
        return try result.get()
    }
}
#endif
