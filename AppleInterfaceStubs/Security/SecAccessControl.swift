// Security/SecAccessControl.h. Swift spellings and platforms from Apple's documentation pages
// (theAppLaunchers/apple-docs-for-rag Security/md/security-secaccesscontrolcreateflags*.md and
// security-secaccesscontrolcreatewithflags(_:_:_:_:).md; developer.apple.com's markdown export for
// touchIDCurrentSet, watch and companion); the generic argument of the error parameter and the
// `renamed:` of the Touch ID flags from DougGregor/swift-concurrency-objc iOS/Security/SecAccessControl.swift.

// Security/SecAccessControl.h: `typedef CF_OPTIONS(CFOptionFlags, SecAccessControlCreateFlags) { … }
// __OSX_AVAILABLE_STARTING(__MAC_10_10, __IPHONE_8_0);` (quoted by Apple DTS, developer.apple.com/forums/
// thread/122444) — `struct SecAccessControlCreateFlags: OptionSet`
// with `init(rawValue: CFOptionFlags)`; iOS 8.0, macOS 10.10, tvOS 9.0, watchOS 2.0, visionOS 1.0. Apple's
// documentation lists its conformances as BitwiseCopyable, Equatable, ExpressibleByArrayLiteral,
// OptionSet, RawRepresentable, Sendable, SetAlgebra.
@available(macOS 10.10, iOS 8.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public struct SecAccessControlCreateFlags: OptionSet, Sendable {
    // SecAccessControlCreateFlags.init(rawValue:) — `init(rawValue: CFOptionFlags)`.
    public init(rawValue: CFOptionFlags) { fatalError() }
    public let rawValue: CFOptionFlags

    // kSecAccessControlUserPresence — `static var userPresence: SecAccessControlCreateFlags { get }`;
    // iOS 8.0, macOS 10.10, tvOS 9.0, watchOS 2.0, visionOS 1.0.
    public static var userPresence: SecAccessControlCreateFlags { fatalError() }

    // kSecAccessControlBiometryAny — `static var biometryAny`;
    // iOS 11.3, macOS 10.13.4, tvOS 11.3, watchOS 4.3, visionOS 1.0.
    @available(macOS 10.13.4, iOS 11.3, tvOS 11.3, watchOS 4.3, visionOS 1.0, *)
    public static var biometryAny: SecAccessControlCreateFlags { fatalError() }

    // kSecAccessControlTouchIDAny —
    // `static var touchIDAny`, iOS 9.0–11.3 renamed "SecAccessControlCreateFlags.biometryAny" (generated iOS interface).
    // UNVERIFIED: the macOS/tvOS/watchOS/visionOS ranges are taken from its twin touchIDCurrentSet
    // (developer.apple.com: macOS 10.12.1–10.13.4, tvOS 9.0–11.3, watchOS 2.0–4.3, visionOS 1.0–1.0);
    // the touchIDAny page itself was not found.
    @available(macOS, introduced: 10.12.1, deprecated: 10.13.4, renamed: "SecAccessControlCreateFlags.biometryAny")
    @available(iOS, introduced: 9.0, deprecated: 11.3, renamed: "SecAccessControlCreateFlags.biometryAny")
    @available(tvOS, introduced: 9.0, deprecated: 11.3, renamed: "SecAccessControlCreateFlags.biometryAny")
    @available(watchOS, introduced: 2.0, deprecated: 4.3, renamed: "SecAccessControlCreateFlags.biometryAny")
    @available(visionOS, introduced: 1.0, deprecated: 1.0, renamed: "SecAccessControlCreateFlags.biometryAny")
    public static var touchIDAny: SecAccessControlCreateFlags { fatalError() }

    // kSecAccessControlBiometryCurrentSet — `static var biometryCurrentSet`;
    // iOS 11.3, macOS 10.13.4, tvOS 11.3, watchOS 4.3, visionOS 1.0.
    @available(macOS 10.13.4, iOS 11.3, tvOS 11.3, watchOS 4.3, visionOS 1.0, *)
    public static var biometryCurrentSet: SecAccessControlCreateFlags { fatalError() }

    // kSecAccessControlTouchIDCurrentSet —
    // `static var touchIDCurrentSet`; developer.apple.com/documentation/security/secaccesscontrolcreateflags/
    // touchidcurrentset: iOS 9.0–11.3, macOS 10.12.1–10.13.4, tvOS 9.0–11.3, watchOS 2.0–4.3, visionOS 1.0–1.0;
    // renamed "SecAccessControlCreateFlags.biometryCurrentSet" (generated iOS interface).
    @available(
        macOS,
        introduced: 10.12.1,
        deprecated: 10.13.4,
        renamed: "SecAccessControlCreateFlags.biometryCurrentSet"
    )
    @available(iOS, introduced: 9.0, deprecated: 11.3, renamed: "SecAccessControlCreateFlags.biometryCurrentSet")
    @available(tvOS, introduced: 9.0, deprecated: 11.3, renamed: "SecAccessControlCreateFlags.biometryCurrentSet")
    @available(watchOS, introduced: 2.0, deprecated: 4.3, renamed: "SecAccessControlCreateFlags.biometryCurrentSet")
    @available(visionOS, introduced: 1.0, deprecated: 1.0, renamed: "SecAccessControlCreateFlags.biometryCurrentSet")
    public static var touchIDCurrentSet: SecAccessControlCreateFlags { fatalError() }

    // kSecAccessControlDevicePasscode — `static var devicePasscode`;
    // iOS 9.0, macOS 10.11, tvOS 9.0, watchOS 2.0, visionOS 1.0.
    @available(macOS 10.11, iOS 9.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
    public static var devicePasscode: SecAccessControlCreateFlags { fatalError() }

    // kSecAccessControlWatch API_AVAILABLE(macos(10.15), ios(NA), macCatalyst(13.0)) (Xcode 11 header, quoted
    // by Apple DTS in developer.apple.com/forums/thread/122444); deprecated in macOS 15 in favour of
    // kSecAccessControlCompanion (developer.apple.com/documentation/security/secaccesscontrolcreateflags/watch:
    // "macOS: 10.15.0 - 15.0.0") — `static var watch: SecAccessControlCreateFlags { get }`.
    // UNVERIFIED: the exact deprecation attribute (message/renamed) of the macOS 15 SDK, and the tvOS,
    // watchOS and visionOS spelling (taken as unavailable, like iOS).
    @available(macOS, introduced: 10.15, deprecated: 15.0)
    @available(macCatalyst, introduced: 13.0)
    @available(iOS, unavailable)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    @available(visionOS, unavailable)
    public static var watch: SecAccessControlCreateFlags { fatalError() }

    // kSecAccessControlCompanion — `static var companion: SecAccessControlCreateFlags { get }`;
    // iOS 18.0, macOS 15.0, tvOS 18.0, watchOS 11.0, visionOS 2.0
    // (developer.apple.com/documentation/security/secaccesscontrolcreateflags/companion).
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public static var companion: SecAccessControlCreateFlags { fatalError() }

    // kSecAccessControlOr — `static var or`;
    // iOS 9.0, macOS 10.12.1, tvOS 9.0, watchOS 2.0, visionOS 1.0.
    @available(macOS 10.12.1, iOS 9.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
    public static var or: SecAccessControlCreateFlags { fatalError() }

    // kSecAccessControlAnd — `static var and`;
    // iOS 9.0, macOS 10.12.1, tvOS 9.0, watchOS 2.0, visionOS 1.0.
    @available(macOS 10.12.1, iOS 9.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
    public static var and: SecAccessControlCreateFlags { fatalError() }

    // kSecAccessControlPrivateKeyUsage — `static var privateKeyUsage`;
    // iOS 9.0, macOS 10.12.1, tvOS 9.0, watchOS 2.0, visionOS 1.0.
    @available(macOS 10.12.1, iOS 9.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
    public static var privateKeyUsage: SecAccessControlCreateFlags { fatalError() }

    // kSecAccessControlApplicationPassword — `static var applicationPassword`;
    // iOS 9.0, macOS 10.12.1, tvOS 9.0, watchOS 2.0, visionOS 1.0.
    @available(macOS 10.12.1, iOS 9.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
    public static var applicationPassword: SecAccessControlCreateFlags { fatalError() }
}

// Security/SecAccessControl.h: `__nullable SecAccessControlRef SecAccessControlCreateWithFlags(CFAllocatorRef
// __nullable allocator, CFTypeRef protection, SecAccessControlCreateFlags flags, CFErrorRef *error)
// __OSX_AVAILABLE_STARTING(__MAC_10_10, __IPHONE_8_0);` — `func SecAccessControlCreateWithFlags(
// _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
// _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecAccessControl?`; iOS 8.0, macOS 10.10,
// tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.10, iOS 8.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
@discardableResult
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?,
    _ protection: CFTypeRef,
    _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? { fatalError() }
