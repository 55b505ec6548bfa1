// Security/SecCertificate.h. Swift spellings and platforms from Apple's documentation pages
// (theAppLaunchers/apple-docs-for-rag Security/md/security-<function>.md); the same declarations
// appear in the generated iOS interface DougGregor/swift-concurrency-objc iOS/Security/SecCertificate.swift.
// C declarations quoted from a macOS SDK copy of SecCertificate.h (no warn_unused_result on any of them).

// Security/SecCertificate.h: `CFTypeID SecCertificateGetTypeID(void)
// __OSX_AVAILABLE_STARTING(__MAC_10_3, __IPHONE_2_0);` — `func SecCertificateGetTypeID() -> CFTypeID`;
// iOS 2.0, macOS 10.3, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.3, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
@discardableResult
public func SecCertificateGetTypeID() -> CFTypeID { fatalError() }

// Security/SecCertificate.h: `__nullable SecCertificateRef SecCertificateCreateWithData(CFAllocatorRef
// __nullable allocator, CFDataRef data) __OSX_AVAILABLE_STARTING(__MAC_10_6, __IPHONE_2_0);` — `func SecCertificateCreateWithData(_ allocator: CFAllocator?,
// _ data: CFData) -> SecCertificate?`; iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
@discardableResult
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? { fatalError() }

// Security/SecCertificate.h: `CFDataRef SecCertificateCopyData(SecCertificateRef certificate)
// __OSX_AVAILABLE_STARTING(__MAC_10_6, __IPHONE_2_0);` —
// `func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData`; iOS 2.0, macOS 10.6, tvOS 9.0,
// watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
@discardableResult
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData { fatalError() }
