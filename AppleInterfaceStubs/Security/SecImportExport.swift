// Security/SecImportExport.h: PKCS #12 import and its option and item keys. Swift spellings and
// platforms from Apple's documentation pages (theAppLaunchers/apple-docs-for-rag
// Security/md/security-<name>.md); the generic argument of SecPKCS12Import's `items` from
// apple/swift-3-api-guidelines-review Platforms/iOS/Security/SecImportExport.swift.
// `nonisolated(unsafe)` on the CFString keys: see SecItem.swift.

// Security/SecImportExport.h: `OSStatus SecPKCS12Import(CFDataRef pkcs12_data, CFDictionaryRef options,
// CFArrayRef*items);` (Objective-C declaration on its documentation page) — `func SecPKCS12Import(_ pkcs12_data: CFData,
// _ options: CFDictionary, _ items: UnsafeMutablePointer<CFArray?>) -> OSStatus`; iOS 2.0, macOS 10.6,
// tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
@discardableResult
public func SecPKCS12Import(
    _ pkcs12_data: CFData,
    _ options: CFDictionary,
    _ items: UnsafeMutablePointer<CFArray?>
) -> OSStatus { fatalError() }

// Security/SecImportExport.h: `extern const CFStringRef kSecImportExportPassphrase` —
// `let kSecImportExportPassphrase: CFString`; iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecImportExportPassphrase: CFString = { fatalError() }()

// Security/SecImportExport.h: `extern const CFStringRef kSecImportToMemoryOnly` —
// `let kSecImportToMemoryOnly: CFString`; iOS 18.0, macOS 15.0, tvOS 18.0, watchOS 11.0, visionOS 2.0.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
nonisolated(unsafe) public let kSecImportToMemoryOnly: CFString = { fatalError() }()

// Security/SecImportExport.h: kSecImportItemLabel — `let kSecImportItemLabel: CFString`;
// iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecImportItemLabel: CFString = { fatalError() }()

// Security/SecImportExport.h: kSecImportItemKeyID — `let kSecImportItemKeyID: CFString`;
// iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecImportItemKeyID: CFString = { fatalError() }()

// Security/SecImportExport.h: kSecImportItemTrust — `let kSecImportItemTrust: CFString`;
// iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecImportItemTrust: CFString = { fatalError() }()

// Security/SecImportExport.h: `extern const CFStringRef kSecImportItemCertChain` —
// `let kSecImportItemCertChain: CFString`; iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecImportItemCertChain: CFString = { fatalError() }()

// Security/SecImportExport.h: `extern const CFStringRef kSecImportItemIdentity` —
// `let kSecImportItemIdentity: CFString`; iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
nonisolated(unsafe) public let kSecImportItemIdentity: CFString = { fatalError() }()
