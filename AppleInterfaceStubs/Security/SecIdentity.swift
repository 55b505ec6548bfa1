// Security/SecIdentity.h. Swift spellings and platforms from Apple's documentation pages
// (theAppLaunchers/apple-docs-for-rag Security/md/security-<function>.md); the generic argument of
// SecIdentityCopyCertificate from apple/swift-3-api-guidelines-review Platforms/iOS/Security/SecIdentity.swift.
// C declarations from phracker/MacOSX-SDKs MacOSX11.3.sdk/System/Library/Frameworks/Security.framework/
// Versions/A/Headers/SecIdentity.h.

// Security/SecIdentity.h: `CFTypeID SecIdentityGetTypeID(void) __OSX_AVAILABLE_STARTING(__MAC_10_3, __IPHONE_2_0);` — `func SecIdentityGetTypeID() -> CFTypeID`;
// iOS 2.0, macOS 10.3, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.3, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
@discardableResult
public func SecIdentityGetTypeID() -> CFTypeID { fatalError() }

// Security/SecIdentity.h: `OSStatus SecIdentityCopyCertificate(SecIdentityRef identityRef,
// SecCertificateRef * __nonnull CF_RETURNS_RETAINED certificateRef) __OSX_AVAILABLE_STARTING(__MAC_10_3,
// __IPHONE_2_0);` — `func SecIdentityCopyCertificate(
// _ identityRef: SecIdentity, _ certificateRef: UnsafeMutablePointer<SecCertificate?>) -> OSStatus`;
// iOS 2.0, macOS 10.3, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.3, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
@discardableResult
public func SecIdentityCopyCertificate(
    _ identityRef: SecIdentity,
    _ certificateRef: UnsafeMutablePointer<SecCertificate?>
) -> OSStatus { fatalError() }
