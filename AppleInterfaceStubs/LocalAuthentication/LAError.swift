// LocalAuthentication/LAError.h of the iOS 18.0 SDK (xybp888/iOS-SDKs iPhoneOS18.0.sdk/System/Library/
// Frameworks/LocalAuthentication.framework/Headers/LAError.h), which supersedes the macOS 12.3 copy these
// stubs first followed (it marks the whole enum, and the biometry codes on watchOS, unavailable on tvOS).
// `typedef NS_ENUM(NSInteger, LAError)` with the domain LAErrorDomain is imported as Swift's bridged error
// struct `LAError` with a nested `LAError.Code` (generated iOS interface DougGregor/swift-concurrency-objc
// iOS/LocalAuthentication/LAError.swift: `struct LAError : _BridgedStoredNSError { let _nsError: NSError;
// init(_nsError: NSError); static var errorDomain: String { get }; static var authenticationFailed:
// LAError.Code { get } … }`). Apple's documentation lists its conformances as CustomNSError, Equatable,
// Error, Hashable, Sendable (theAppLaunchers/apple-docs-for-rag LocalAuthentication/md/local
// authentication-laerror.md). Raw values from LAPublicDefines.h (kLAErrorAuthenticationFailed -1 …
// kLAErrorNotInteractive -1004; kLAErrorCompanionNotAvailable is kLAErrorWatchNotAvailable, -11).
//
// visionOS: the header names visionOS only for companionNotAvailable; elsewhere a Clang declaration's
// visionOS availability is inferred from its iOS one, written out here.
//
// Not declared (unused by the sources): the deprecated duplicates touchIDNotAvailable (-6),
// touchIDNotEnrolled (-7) and touchIDLockout (-8), which Swift imports as aliases of the biometry codes.

// LocalAuthentication/LAError.h: `extern NSString *const __nonnull LAErrorDomain API_AVAILABLE(macos(10.11),
// ios(8.3), watchos(3.0)) API_UNAVAILABLE(tvos);` — `let LAErrorDomain: String`; visionOS 1.0
// (developer.apple.com/documentation/localauthentication/laerrordomain).
@available(macOS 10.11, iOS 8.3, watchOS 3.0, visionOS 1.0, *)
@available(tvOS, unavailable)
public let LAErrorDomain: String = { fatalError() }()

// LocalAuthentication/LAError.h: `typedef NS_ENUM(NSInteger, LAError) { … } API_AVAILABLE(macos(10.10),
// ios(8.0), watchos(3.0)) API_UNAVAILABLE(tvos);` — `struct LAError`; visionOS 1.0 from the documentation.
@available(macOS 10.10, iOS 8.0, watchOS 3.0, visionOS 1.0, *)
@available(tvOS, unavailable)
public struct LAError: _BridgedStoredNSError, Sendable {
    // `let _nsError: NSError`, `init(_nsError: NSError)` (generated interface).
    public let _nsError: NSError
    public init(_nsError: NSError) { fatalError() }

    // `static var errorDomain: String { get }` (generated interface; documentation "Type Properties").
    public static var errorDomain: String { fatalError() }

    // Not Apple API: swift-corelibs-foundation's `_BridgedStoredNSError` requires it (Apple's importer
    // synthesises the equivalent from the NS_ERROR_ENUM domain).
    public static var _nsErrorDomain: String { fatalError() }

    // LAError.Code — `enum Code: Int` (init?(rawValue: Int); developer.apple.com/documentation/
    // localauthentication/laerror-swift.struct/code: iOS 8.0, macOS 10.10, watchOS 3.0, visionOS 1.0).
    //
    // An OPEN enum: NS_ENUM is CF_ENUM, whose `__CF_ENUM_ATTRIBUTES` is
    // `__attribute__((enum_extensibility(open)))` (CoreFoundation/CFAvailability.h), so Swift imports it
    // non-frozen — a `switch` over it needs `default` (an error without one in the Swift 6 language mode),
    // and codes appear in later SDKs (companionNotAvailable in iOS 18). `@nonexhaustive` (SE-0487) gives
    // the stub the same property. Its `init?(rawValue:)` keeps Swift's failable signature but never fails
    // on Apple platforms (the importer's reinterpret cast, see SecProtocolTypes.swift).
    @available(macOS 10.10, iOS 8.0, watchOS 3.0, visionOS 1.0, *)
    @available(tvOS, unavailable)
    @nonexhaustive
    public enum Code: Int, _ErrorCodeProtocol, Sendable {
        public typealias _ErrorType = LAError

        // `LAErrorAuthenticationFailed = kLAErrorAuthenticationFailed`
        case authenticationFailed = -1
        // `LAErrorUserCancel = kLAErrorUserCancel`
        case userCancel = -2
        // `LAErrorUserFallback = kLAErrorUserFallback`
        case userFallback = -3
        // `LAErrorSystemCancel = kLAErrorSystemCancel`
        case systemCancel = -4
        // `LAErrorPasscodeNotSet = kLAErrorPasscodeNotSet`
        case passcodeNotSet = -5
        // `LAErrorBiometryNotAvailable API_AVAILABLE(macos(10.13), ios(11.0)) API_UNAVAILABLE(watchos, tvos)`
        @available(macOS 10.13, iOS 11.0, visionOS 1.0, *)
        @available(watchOS, unavailable)
        case biometryNotAvailable = -6
        // `LAErrorBiometryNotEnrolled API_AVAILABLE(macos(10.13), ios(11.0)) API_UNAVAILABLE(watchos, tvos)`
        @available(macOS 10.13, iOS 11.0, visionOS 1.0, *)
        @available(watchOS, unavailable)
        case biometryNotEnrolled = -7
        // `LAErrorBiometryLockout API_AVAILABLE(macos(10.13), ios(11.0)) API_UNAVAILABLE(watchos, tvos)`
        @available(macOS 10.13, iOS 11.0, visionOS 1.0, *)
        @available(watchOS, unavailable)
        case biometryLockout = -8
        // `LAErrorAppCancel API_AVAILABLE(macos(10.11), ios(9.0))` (watchOS: the enum's 3.0)
        @available(macOS 10.11, iOS 9.0, *)
        case appCancel = -9
        // `LAErrorInvalidContext API_AVAILABLE(macos(10.11), ios(9.0))` (watchOS: the enum's 3.0)
        @available(macOS 10.11, iOS 9.0, *)
        case invalidContext = -10
        // `LAErrorCompanionNotAvailable API_AVAILABLE(macos(15.0), ios(18.0)) API_UNAVAILABLE(watchos, tvos,
        // visionos) = kLAErrorCompanionNotAvailable` (-11; developer.apple.com/documentation/localauthentication/
        // laerror-swift.struct/code/companionnotavailable-swift.enum.case).
        @available(macOS 15.0, iOS 18.0, *)
        @available(watchOS, unavailable)
        @available(visionOS, unavailable)
        case companionNotAvailable = -11
        // `LAErrorBiometryNotPaired API_AVAILABLE(macos(11.2)) API_UNAVAILABLE(ios, watchos, tvos)`
        @available(macOS 11.2, *)
        @available(iOS, unavailable)
        @available(watchOS, unavailable)
        @available(visionOS, unavailable)
        case biometryNotPaired = -12
        // `LAErrorBiometryDisconnected API_AVAILABLE(macos(11.2)) API_UNAVAILABLE(ios, watchos, tvos)`
        @available(macOS 11.2, *)
        @available(iOS, unavailable)
        @available(watchOS, unavailable)
        @available(visionOS, unavailable)
        case biometryDisconnected = -13
        // `LAErrorInvalidDimensions API_AVAILABLE(macos(12.0)) API_UNAVAILABLE(ios, watchos, tvos)`
        @available(macOS 12.0, *)
        @available(iOS, unavailable)
        @available(watchOS, unavailable)
        @available(visionOS, unavailable)
        case invalidDimensions = -14
        // `LAErrorNotInteractive API_AVAILABLE(macos(10.10), ios(8.0), watchos(3.0)) API_UNAVAILABLE(tvos)`
        case notInteractive = -1004

        // `LAErrorWatchNotAvailable API_DEPRECATED_WITH_REPLACEMENT("LAErrorCompanionNotAvailable",
        // macos(10.15, 15.0)) API_UNAVAILABLE(ios, watchos, tvos) = kLAErrorWatchNotAvailable` (-11, the value
        // of companionNotAvailable): Swift imports one of two same-valued enumerators as the case and the
        // other as a static alias. UNVERIFIED: which one is the case in the macOS SDK (the documentation
        // lists `case watchNotAvailable` for macOS 10.15–15.0 and `companionNotAvailable` as an enum case).
        @available(macOS, introduced: 10.15, deprecated: 15.0, renamed: "companionNotAvailable")
        @available(iOS, unavailable)
        @available(watchOS, unavailable)
        @available(visionOS, unavailable)
        public static var watchNotAvailable: LAError.Code { fatalError() }
    }

    // The importer's struct-level aliases of the codes — `static var authenticationFailed: LAError.Code { get }`
    // etc. (generated interface), with the availability of the corresponding case.
    public static var authenticationFailed: LAError.Code { fatalError() }
    public static var userCancel: LAError.Code { fatalError() }
    public static var userFallback: LAError.Code { fatalError() }
    public static var systemCancel: LAError.Code { fatalError() }
    public static var passcodeNotSet: LAError.Code { fatalError() }
    @available(macOS 10.13, iOS 11.0, visionOS 1.0, *)
    @available(watchOS, unavailable)
    public static var biometryNotAvailable: LAError.Code { fatalError() }
    @available(macOS 10.13, iOS 11.0, visionOS 1.0, *)
    @available(watchOS, unavailable)
    public static var biometryNotEnrolled: LAError.Code { fatalError() }
    @available(macOS 10.13, iOS 11.0, visionOS 1.0, *)
    @available(watchOS, unavailable)
    public static var biometryLockout: LAError.Code { fatalError() }
    @available(macOS 10.11, iOS 9.0, *)
    public static var appCancel: LAError.Code { fatalError() }
    @available(macOS 10.11, iOS 9.0, *)
    public static var invalidContext: LAError.Code { fatalError() }
    // developer.apple.com/documentation/localauthentication/laerror-swift.struct/companionnotavailable:
    // `static var companionNotAvailable: LAError.Code { get }`; iOS 18.0, macOS 15.0.
    @available(macOS 15.0, iOS 18.0, *)
    @available(watchOS, unavailable)
    @available(visionOS, unavailable)
    public static var companionNotAvailable: LAError.Code { fatalError() }
    // developer.apple.com/documentation/localauthentication/laerror-swift.struct/watchnotavailable:
    // `static var watchNotAvailable: LAError.Code { get }`; macOS 10.15–15.0.
    @available(macOS, introduced: 10.15, deprecated: 15.0, renamed: "companionNotAvailable")
    @available(iOS, unavailable)
    @available(watchOS, unavailable)
    @available(visionOS, unavailable)
    public static var watchNotAvailable: LAError.Code { fatalError() }
    @available(macOS 11.2, *)
    @available(iOS, unavailable)
    @available(watchOS, unavailable)
    @available(visionOS, unavailable)
    public static var biometryNotPaired: LAError.Code { fatalError() }
    @available(macOS 11.2, *)
    @available(iOS, unavailable)
    @available(watchOS, unavailable)
    @available(visionOS, unavailable)
    public static var biometryDisconnected: LAError.Code { fatalError() }
    @available(macOS 12.0, *)
    @available(iOS, unavailable)
    @available(watchOS, unavailable)
    @available(visionOS, unavailable)
    public static var invalidDimensions: LAError.Code { fatalError() }
    public static var notInteractive: LAError.Code { fatalError() }
}
