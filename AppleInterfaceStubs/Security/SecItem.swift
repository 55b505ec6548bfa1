// Security/SecItem.h: the keychain item functions and the item keys/values the Apple-only sources
// use. Swift spellings and platforms from Apple's documentation pages (theAppLaunchers/
// apple-docs-for-rag Security/md/security-<name>.md, and developer.apple.com's markdown export for
// the two deprecated accessibility values); generic arguments and deprecation messages from the
// generated iOS interface DougGregor/swift-concurrency-objc iOS/Security/SecItem.swift. The C
// declarations of the four functions (none warn_unused_result) are as quoted from SecItem.h in several
// public write-ups, e.g. `OSStatus SecItemUpdate(CFDictionaryRef query, CFDictionaryRef attributesToUpdate)
// __OSX_AVAILABLE_STARTING(__MAC_10_6, __IPHONE_2_0);`.
//
// Apple's documentation gives every key below as `let kSecX: CFString` (a C `const CFStringRef`). They are stored `let`s here too; `nonisolated(unsafe)` is needed because
// CFString (= NSString, see CoreFoundation.swift) is not Sendable, and it matches how the importer
// treats C constants: clients' uses of them are not concurrency-checked.

// MARK: Functions

// Security/SecItem.h: `OSStatus SecItemCopyMatching(CFDictionaryRef query, CFTypeRef * __nullable
// CF_RETURNS_RETAINED result)` — `func SecItemCopyMatching(_ query: CFDictionary, _ result:
// UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus`; iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
@discardableResult
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    fatalError()
}

// Security/SecItem.h: `OSStatus SecItemAdd(CFDictionaryRef attributes, CFTypeRef * __nullable
// CF_RETURNS_RETAINED result)` — `func SecItemAdd(_ attributes: CFDictionary, _ result:
// UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus`; iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    fatalError()
}

// Security/SecItem.h: `OSStatus SecItemUpdate(CFDictionaryRef query, CFDictionaryRef attributesToUpdate)` —
// `func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus`;
// iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus { fatalError() }

// Security/SecItem.h: `OSStatus SecItemDelete(CFDictionaryRef query)` —
// `func SecItemDelete(_ query: CFDictionary) -> OSStatus`; iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus { fatalError() }

// MARK: Item class

// Security/SecItem.h: kSecClass — `let kSecClass: CFString`;
// iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecClass: CFString = { fatalError() }()

// Security/SecItem.h: kSecClassGenericPassword — `let kSecClassGenericPassword: CFString`;
// iOS 2.0, macOS 10.7, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.7, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = { fatalError() }()

// MARK: Item attributes

// Security/SecItem.h: kSecAttrAccessible — `let kSecAttrAccessible: CFString`;
// iOS 4.0, macOS 10.9, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.9, iOS 4.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecAttrAccessible: CFString = { fatalError() }()

// Security/SecItem.h: kSecAttrAccessControl — `let kSecAttrAccessControl: CFString`;
// iOS 8.0, macOS 10.10, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.10, iOS 8.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecAttrAccessControl: CFString = { fatalError() }()

// Security/SecItem.h: kSecAttrAccessGroup — `let kSecAttrAccessGroup: CFString`;
// iOS 3.0, macOS 10.9, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.9, iOS 3.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = { fatalError() }()

// Security/SecItem.h: kSecAttrAccount — `let kSecAttrAccount: CFString`;
// iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecAttrAccount: CFString = { fatalError() }()

// Security/SecItem.h: kSecAttrService — `let kSecAttrService: CFString`;
// iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecAttrService: CFString = { fatalError() }()

// MARK: kSecAttrAccessible values

// Security/SecItem.h: `extern const CFStringRef kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly` —
// `let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString`; iOS 8.0, macOS 10.10, tvOS 9.0,
// watchOS 2.0, visionOS 1.0.
@available(macOS 10.10, iOS 8.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = { fatalError() }()

// Security/SecItem.h: `extern const CFStringRef kSecAttrAccessibleWhenUnlockedThisDeviceOnly` —
// `let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString`; iOS 4.0, macOS 10.9, tvOS 9.0,
// watchOS 2.0, visionOS 1.0.
@available(macOS 10.9, iOS 4.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = { fatalError() }()

// Security/SecItem.h: `extern const CFStringRef kSecAttrAccessibleWhenUnlocked` —
// `let kSecAttrAccessibleWhenUnlocked: CFString`; iOS 4.0, macOS 10.9, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.9, iOS 4.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = { fatalError() }()

// Security/SecItem.h: `extern const CFStringRef kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly` —
// `let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString`; iOS 4.0, macOS 10.9, tvOS 9.0,
// watchOS 2.0, visionOS 1.0.
@available(macOS 10.9, iOS 4.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = { fatalError() }()

// Security/SecItem.h: `extern const CFStringRef kSecAttrAccessibleAfterFirstUnlock` —
// `let kSecAttrAccessibleAfterFirstUnlock: CFString`; iOS 4.0, macOS 10.9, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.9, iOS 4.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = { fatalError() }()

// Security/SecItem.h: kSecAttrAccessibleAlways, deprecated — `let kSecAttrAccessibleAlways: CFString`;
// developer.apple.com/documentation/security/ksecattraccessiblealways: iOS 4.0–12.0, macOS 10.9–10.14,
// tvOS 9.0–12.0, watchOS 2.0–5.0, visionOS 1.0–1.0; message from the generated iOS interface.
@available(
    macOS,
    introduced: 10.9,
    deprecated: 10.14,
    message: "Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlock"
)
@available(
    iOS,
    introduced: 4.0,
    deprecated: 12.0,
    message: "Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlock"
)
@available(
    tvOS,
    introduced: 9.0,
    deprecated: 12.0,
    message: "Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlock"
)
@available(
    watchOS,
    introduced: 2.0,
    deprecated: 5.0,
    message: "Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlock"
)
@available(
    visionOS,
    introduced: 1.0,
    deprecated: 1.0,
    message: "Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlock"
)
nonisolated(unsafe) public let kSecAttrAccessibleAlways: CFString = { fatalError() }()

// Security/SecItem.h: kSecAttrAccessibleAlwaysThisDeviceOnly, deprecated —
// `let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString`; developer.apple.com/documentation/security/
// ksecattraccessiblealwaysthisdeviceonly: same platform ranges as above; message from the generated iOS interface.
@available(
    macOS,
    introduced: 10.9,
    deprecated: 10.14,
    message:
        "Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"
)
@available(
    iOS,
    introduced: 4.0,
    deprecated: 12.0,
    message:
        "Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"
)
@available(
    tvOS,
    introduced: 9.0,
    deprecated: 12.0,
    message:
        "Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"
)
@available(
    watchOS,
    introduced: 2.0,
    deprecated: 5.0,
    message:
        "Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"
)
@available(
    visionOS,
    introduced: 1.0,
    deprecated: 1.0,
    message:
        "Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"
)
nonisolated(unsafe) public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = { fatalError() }()

// MARK: Search, return and value keys

// Security/SecItem.h: kSecMatchLimit — `let kSecMatchLimit: CFString`;
// iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecMatchLimit: CFString = { fatalError() }()

// Security/SecItem.h: kSecMatchLimitOne — `let kSecMatchLimitOne: CFString`;
// iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = { fatalError() }()

// Security/SecItem.h: kSecReturnData — `let kSecReturnData: CFString`;
// iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecReturnData: CFString = { fatalError() }()

// Security/SecItem.h: kSecValueData — `let kSecValueData: CFString`;
// iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecValueData: CFString = { fatalError() }()

// Security/SecItem.h: `extern const CFStringRef kSecUseDataProtectionKeychain` —
// `let kSecUseDataProtectionKeychain: CFString`; iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = { fatalError() }()

// Security/SecItem.h: `extern const CFStringRef kSecReturnAttributes
// __OSX_AVAILABLE_STARTING(__MAC_10_6, __IPHONE_2_0);` (as in SDK copies of SecItem.h, beside
// kSecReturnData) — `let kSecReturnAttributes: CFString`; iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0,
// visionOS 1.0 (developer.apple.com/documentation/security/ksecreturnattributes, markdown export).
// Read by the Apple-only tests.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecReturnAttributes: CFString = { fatalError() }()
