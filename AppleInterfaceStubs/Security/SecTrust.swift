// Security/SecTrust.h. C signatures and availability macros from the macOS 12.0 SDK header
// (phracker/MacOSX-SDKs MacOSX12.0.sdk/System/Library/Frameworks/Security.framework/Versions/A/
// Headers/SecTrust.h); Swift spellings and all platforms from Apple's documentation pages
// (theAppLaunchers/apple-docs-for-rag Security/md/security-<function>.md), generic arguments from
// DougGregor/swift-concurrency-objc iOS/Security/SecTrust.swift.

// Security/SecTrust.h: `typedef struct CF_BRIDGED_TYPE(id) __SecTrust *SecTrustRef;` — `class SecTrust`,
// conforms to Equatable and Hashable (developer.apple.com/documentation/security/sectrust).
public final class SecTrust: Hashable {
    public static func == (lhs: SecTrust, rhs: SecTrust) -> Bool { fatalError() }
    public func hash(into hasher: inout Hasher) { fatalError() }
}

// Security/SecTrust.h: `OSStatus SecTrustSetPolicies(SecTrustRef trust, CFTypeRef policies)
// __OSX_AVAILABLE_STARTING(__MAC_10_3, __IPHONE_6_0);` — iOS 6.0, macOS 10.3, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.3, iOS 6.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
@discardableResult
public func SecTrustSetPolicies(_ trust: SecTrust, _ policies: CFTypeRef) -> OSStatus { fatalError() }

// Security/SecTrust.h: `OSStatus SecTrustSetAnchorCertificates(SecTrustRef trust, CFArrayRef __nullable
// anchorCertificates) __OSX_AVAILABLE_STARTING(__MAC_10_3, __IPHONE_2_0);` — iOS 2.0, macOS 10.3, tvOS 9.0,
// watchOS 2.0, visionOS 1.0.
@available(macOS 10.3, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
@discardableResult
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?) -> OSStatus {
    fatalError()
}

// Security/SecTrust.h: `OSStatus SecTrustSetAnchorCertificatesOnly(SecTrustRef trust, Boolean
// anchorCertificatesOnly) __OSX_AVAILABLE_STARTING(__MAC_10_6, __IPHONE_2_0);` — iOS 2.0, macOS 10.6,
// tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
@discardableResult
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus {
    fatalError()
}

// Security/SecTrust.h: `__attribute__((warn_unused_result)) bool SecTrustEvaluateWithError(SecTrustRef trust,
// CFErrorRef _Nullable * _Nullable CF_RETURNS_RETAINED error) API_AVAILABLE(macos(10.14), ios(12.0),
// tvos(12.0), watchos(5.0));` — visionOS 1.0 from the documentation page. warn_unused_result: the one
// C function here that is not @discardableResult.
@available(macOS 10.14, iOS 12.0, tvOS 12.0, watchOS 5.0, visionOS 1.0, *)
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool {
    fatalError()
}

// Security/SecTrust.h: `_Nullable CF_RETURNS_RETAINED CFArrayRef SecTrustCopyCertificateChain(SecTrustRef trust)
// API_AVAILABLE(macos(12.0), ios(15.0), tvos(15.0), watchos(8.0));` — Swift
// `func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray?`, visionOS 1.0
// (developer.apple.com/documentation/security/sectrustcopycertificatechain(_:), read in
// theAppLaunchers/apple-docs-for-rag Security/md/security-sectrustcopycertificatechain(_:).md).
@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
@discardableResult
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? { fatalError() }

// Security/SecTrust.h: `OSStatus SecTrustCreateWithCertificates(CFTypeRef certificates, CFTypeRef __nullable
// policies, SecTrustRef * __nonnull CF_RETURNS_RETAINED trust) __OSX_AVAILABLE_STARTING(__MAC_10_3,
// __IPHONE_2_0);` (the same macOS 12.0 SDK header) — Swift `func SecTrustCreateWithCertificates(_ certificates:
// CFTypeRef, _ policies: CFTypeRef?, _ trust: UnsafeMutablePointer<SecTrust?>) -> OSStatus` (the pointer is
// `__nonnull`, so not optional; developer.apple.com/documentation/security/sectrustcreatewithcertificates(_:_:_:)),
// tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.3, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
@discardableResult
public func SecTrustCreateWithCertificates(
    _ certificates: CFTypeRef,
    _ policies: CFTypeRef?,
    _ trust: UnsafeMutablePointer<SecTrust?>
) -> OSStatus { fatalError() }
