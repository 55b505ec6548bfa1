#if canImport(Security)
import Foundation
import Security
import SecureNetworkingInternal
@testable import SecureStorage
import Testing

/// `KeychainStore` against the real Keychain of the Apple machine that runs the tests.
///
/// Which keychain: on iOS, tvOS, watchOS and visionOS the data-protection keychain, the only one.
/// On macOS, `swift test` runs the tests in a process signed without a keychain-access-groups
/// entitlement, and the data-protection keychain refuses such a process with
/// `errSecMissingEntitlement` (TN3137, "On Mac keychain APIs and implementations"); the round trips
/// there use the file-based login keychain (`usesDataProtectionKeychain: false`), which ignores
/// `kSecAttrAccessible` (Apple's kSecAttrAccessible documentation: on macOS the attribute applies
/// only with `kSecUseDataProtectionKeychain`), so the stored accessibility class is read back only
/// where the data-protection keychain holds the items.
///
/// Not covered, because no CI machine can produce it: a device locked with a passcode, the only
/// state in which the Keychain answers `errSecInteractionNotAllowed` for these classes, and the
/// prompts of access-controlled items (Face ID, Touch ID, the passcode), which need a person. The
/// mapping of `errSecInteractionNotAllowed` to ``SecureStoreError/Code/deviceLocked`` is tested
/// on the status itself (`KeychainStore.error(_:_:)`, the one place every operation's status goes
/// through), not on a locked device.
@Suite("Keychain store (Apple platforms)")
struct KeychainStoreAppleTests {
    /// Each accessibility class with the `kSecAttrAccessible` value Security.framework stores for
    /// it (Security's SecItemConstants: "aku", "ak", "cku", "ck", "akpu").
    static let classes: [(KeychainStore.Accessibility, String)] = [
        (.whenUnlockedThisDeviceOnly, "aku"),
        (.whenUnlocked, "ak"),
        (.afterFirstUnlockThisDeviceOnly, "cku"),
        (.afterFirstUnlock, "ck"),
        (.whenPasscodeSetThisDeviceOnly, "akpu"),
    ]

    #if os(macOS)
    /// The file-based login keychain: see the suite's comment.
    static let usesDataProtectionKeychain = false
    #else
    static let usesDataProtectionKeychain = true
    #endif

    /// A configuration whose items no other test or run shares.
    static func configuration(
        _ accessibility: KeychainStore.Accessibility,
        dataProtection: Bool = Self.usesDataProtectionKeychain
    ) -> KeychainStore.Configuration {
        KeychainStore.Configuration(
            service: "SecureNetworkingTests.\(UUID().uuidString)",
            accessibility: accessibility,
            usesDataProtectionKeychain: dataProtection
        )
    }

    /// The `kSecAttrAccessible` value of the stored item, read with its attributes only.
    static func storedAccessibility(_ configuration: KeychainStore.Configuration, key: String) -> String? {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: configuration.service,
            kSecAttrAccount as String: key,
            kSecMatchLimit as String: kSecMatchLimitOne,
            kSecReturnAttributes as String: true,
        ]
        if configuration.usesDataProtectionKeychain { query[kSecUseDataProtectionKeychain as String] = true }
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess,
            let attributes = result as? [String: Any]
        else { return nil }
        return attributes[kSecAttrAccessible as String] as? String
    }

    @Test(arguments: 0..<Self.classes.count)
    func roundTripInEachAccessibilityClass(case index: Int) async throws {
        let (accessibility, storedValue) = Self.classes[index]
        let configuration = Self.configuration(accessibility)
        let store = KeychainStore(configuration: configuration)
        let key = "refresh-token"
        #expect(accessibility.description == storedValue)
        #expect(try await store.data(forKey: key) == nil)
        #expect(try await store.contains(key) == false)

        do {
            try await store.set(Data("first".utf8), forKey: key)
        } catch {
            guard configuration.usesDataProtectionKeychain, accessibility == .whenPasscodeSetThisDeviceOnly else {
                throw error
            }
            // securityd refuses a "when passcode set" item on a device without a passcode (a
            // simulator has none) with errSecAuthFailed; the store names it, and keeps nothing.
            #expect(error.code == .authenticationFailed, "\(error)")
            #expect(try await store.contains(key) == false)
            return
        }
        #expect(try await store.data(forKey: key) == Data("first".utf8))
        #expect(try await store.contains(key))
        if configuration.usesDataProtectionKeychain {
            #expect(Self.storedAccessibility(configuration, key: key) == storedValue)
        }

        // The second write updates the item (errSecDuplicateItem, then SecItemUpdate) and keeps
        // its protection.
        try await store.set(Data("second".utf8), forKey: key)
        #expect(try await store.data(forKey: key) == Data("second".utf8))
        if configuration.usesDataProtectionKeychain {
            #expect(Self.storedAccessibility(configuration, key: key) == storedValue)
        }

        try await store.removeValue(forKey: key)
        #expect(try await store.data(forKey: key) == nil)
        #expect(try await store.contains(key) == false)
        // Removing a missing item is not an error.
        try await store.removeValue(forKey: key)
    }

    @Test func itemsOfOneServiceAreInvisibleToAnother() async throws {
        let first = KeychainStore(configuration: Self.configuration(.whenUnlockedThisDeviceOnly))
        let second = KeychainStore(configuration: Self.configuration(.whenUnlockedThisDeviceOnly))
        try await first.set(Data("mine".utf8), forKey: "token")
        #expect(try await second.data(forKey: "token") == nil)
        #expect(try await second.contains("token") == false)
        try await second.removeValue(forKey: "token")
        #expect(try await first.data(forKey: "token") == Data("mine".utf8))
        try await first.removeValue(forKey: "token")
    }

    #if os(macOS)
    /// The data-protection keychain from the `swift test` process: refused for the missing
    /// entitlement (what TN3137 describes for a process without keychain-access-groups) and
    /// reported as ``SecureStoreError/Code/unsupported`` with the status, never as a missing item;
    /// if the process running the tests is entitled after all, the item round-trips there with
    /// its accessibility class stored.
    @Test func dataProtectionKeychainRoundTripsOrIsRefusedForTheEntitlement() async throws {
        let configuration = Self.configuration(.whenUnlockedThisDeviceOnly, dataProtection: true)
        let store = KeychainStore(configuration: configuration)
        do {
            try await store.set(Data("dp".utf8), forKey: "token")
        } catch {
            #expect(error.code == .unsupported, "\(error)")
            #expect(error.description.contains("OSStatus -34018"), "\(error)")
            let read = await #expect(throws: SecureStoreError.self) { try await store.data(forKey: "token") }
            #expect(read?.code == .unsupported)
            return
        }
        #expect(try await store.data(forKey: "token") == Data("dp".utf8))
        #expect(Self.storedAccessibility(configuration, key: "token") == "aku")
        try await store.removeValue(forKey: "token")
        #expect(try await store.contains("token") == false)
    }
    #endif

    /// A locked device answers `errSecInteractionNotAllowed`: the store reports it as
    /// ``SecureStoreError/Code/deviceLocked`` (so a caller keeps its tokens and retries after the
    /// unlock), never as "no item" (which would sign the user out). Tested on the status, see the
    /// suite's comment.
    @Test func deviceLockedStatusIsReportedAsDeviceLocked() {
        #expect(errSecInteractionNotAllowed == -25308)
        let error = KeychainStore.error(errSecInteractionNotAllowed, "reading 'refresh-token'")
        #expect(error.code == .deviceLocked)
        #expect(error.description.contains("OSStatus -25308"), "\(error)")
        #expect(error.description.contains("reading 'refresh-token'"), "\(error)")
    }

    /// The other statuses a Keychain call can end with, each to its own code.
    @Test func keychainStatusesMapToTheirOwnCodes() {
        let expected: [(OSStatus, SecureStoreError.Code)] = [
            (errSecUserCanceled, .authenticationCancelled),
            (errSecAuthFailed, .authenticationFailed),
            (errSecMissingEntitlement, .unsupported),
            (errSecInteractionNotAllowed, .deviceLocked),
            (-50, .ioFailure),  // errSecParam: anything else is an I/O failure with its status
        ]
        for (status, code) in expected {
            let error = KeychainStore.error(status, "writing 'k'")
            #expect(error.code == code, "OSStatus \(status)")
        }
        #expect(KeychainStore.error(-50, "writing 'k'").description.contains("OSStatus -50"))
    }
}
#endif
