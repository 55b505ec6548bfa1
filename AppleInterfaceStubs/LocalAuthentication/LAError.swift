// LocalAuthentication/LAError.h (phracker/MacOSX-SDKs MacOSX12.3.sdk/System/Library/Frameworks/
// LocalAuthentication.framework/Versions/A/Headers/LAError.h). `typedef NS_ENUM(NSInteger, LAError)` with the
// domain LAErrorDomain is imported as Swift's bridged error struct `LAError` with a nested `LAError.Code`
// (generated iOS interface DougGregor/swift-concurrency-objc iOS/LocalAuthentication/LAError.swift:
// `struct LAError : _BridgedStoredNSError { let _nsError: NSError; init(_nsError: NSError);
// static var errorDomain: String { get }; static var authenticationFailed: LAError.Code { get } … }`).
// Apple's documentation lists its conformances as CustomNSError, Equatable, Error, Hashable, Sendable
// (theAppLaunchers/apple-docs-for-rag LocalAuthentication/md/local authentication-laerror.md). Raw values
// from LAPublicDefines.h (kLAErrorAuthenticationFailed -1 … kLAErrorNotInteractive -1004).
//
// Not declared (unused by the sources; their current spelling could not be verified): the deprecated
// duplicates touchIDNotAvailable (-6), touchIDNotEnrolled (-7), touchIDLockout (-8), and
// companionNotAvailable (-11, the macOS 15 / iOS 18 replacement of watchNotAvailable).

// LocalAuthentication/LAError.h: `extern NSString *const __nonnull LAErrorDomain API_AVAILABLE(macos(10.11),
// ios(8.3), watchos(3.0), tvos(10.0));` — `let LAErrorDomain: String`; visionOS 1.0
// (developer.apple.com/documentation/localauthentication/laerrordomain).
@available(macOS 10.11, iOS 8.3, tvOS 10.0, watchOS 3.0, visionOS 1.0, *)
public let LAErrorDomain: String = { fatalError() }()

// LocalAuthentication/LAError.h: `typedef NS_ENUM(NSInteger, LAError) { … } API_AVAILABLE(macos(10.10),
// ios(8.0), watchos(3.0), tvos(10.0));` — `struct LAError`; visionOS 1.0 from the documentation.
// UNVERIFIED: tvOS — the 12.3 header says tvos(10.0); Apple's current documentation lists no tvOS.
@available(macOS 10.10, iOS 8.0, tvOS 10.0, watchOS 3.0, visionOS 1.0, *)
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
    @available(macOS 10.10, iOS 8.0, tvOS 10.0, watchOS 3.0, visionOS 1.0, *)
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
        // `LAErrorBiometryNotAvailable API_AVAILABLE(macos(10.13), ios(11.0), watchos(4.0), tvos(11.0))`
        @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
        case biometryNotAvailable = -6
        // `LAErrorBiometryNotEnrolled API_AVAILABLE(macos(10.13), ios(11.0), watchos(4.0), tvos(11.0))`
        @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
        case biometryNotEnrolled = -7
        // `LAErrorBiometryLockout API_AVAILABLE(macos(10.13), ios(11.0), watchos(4.0), tvos(11.0))`
        @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
        case biometryLockout = -8
        // `LAErrorAppCancel API_AVAILABLE(macos(10.11), ios(9.0))`
        @available(macOS 10.11, iOS 9.0, *)
        case appCancel = -9
        // `LAErrorInvalidContext API_AVAILABLE(macos(10.11), ios(9.0))`
        @available(macOS 10.11, iOS 9.0, *)
        case invalidContext = -10
        // `LAErrorWatchNotAvailable API_AVAILABLE(macos(10.15)) API_UNAVAILABLE(ios, watchos, tvos)`.
        // UNVERIFIED: the macOS 15 SDK deprecates it in favour of companionNotAvailable (same value; the
        // documentation marks watchNotAvailable "Deprecated"); the exact attribute is not verified.
        @available(macOS 10.15, *)
        @available(iOS, unavailable)
        @available(tvOS, unavailable)
        @available(watchOS, unavailable)
        case watchNotAvailable = -11
        // `LAErrorBiometryNotPaired API_AVAILABLE(macos(11.2)) API_UNAVAILABLE(ios, watchos, tvos)`
        @available(macOS 11.2, *)
        @available(iOS, unavailable)
        @available(tvOS, unavailable)
        @available(watchOS, unavailable)
        case biometryNotPaired = -12
        // `LAErrorBiometryDisconnected API_AVAILABLE(macos(11.2)) API_UNAVAILABLE(ios, watchos, tvos)`
        @available(macOS 11.2, *)
        @available(iOS, unavailable)
        @available(tvOS, unavailable)
        @available(watchOS, unavailable)
        case biometryDisconnected = -13
        // `LAErrorInvalidDimensions API_AVAILABLE(macos(12.0)) API_UNAVAILABLE(ios, watchos, tvos)`
        @available(macOS 12.0, *)
        @available(iOS, unavailable)
        @available(tvOS, unavailable)
        @available(watchOS, unavailable)
        case invalidDimensions = -14
        // `LAErrorNotInteractive API_AVAILABLE(macos(10.10), ios(8.0), watchos(3.0), tvos(10.0))`
        case notInteractive = -1004
    }

    // The importer's struct-level aliases of the codes — `static var authenticationFailed: LAError.Code { get }`
    // etc. (generated interface), with the availability of the corresponding case.
    public static var authenticationFailed: LAError.Code { fatalError() }
    public static var userCancel: LAError.Code { fatalError() }
    public static var userFallback: LAError.Code { fatalError() }
    public static var systemCancel: LAError.Code { fatalError() }
    public static var passcodeNotSet: LAError.Code { fatalError() }
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    public static var biometryNotAvailable: LAError.Code { fatalError() }
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    public static var biometryNotEnrolled: LAError.Code { fatalError() }
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    public static var biometryLockout: LAError.Code { fatalError() }
    @available(macOS 10.11, iOS 9.0, *)
    public static var appCancel: LAError.Code { fatalError() }
    @available(macOS 10.11, iOS 9.0, *)
    public static var invalidContext: LAError.Code { fatalError() }
    @available(macOS 10.15, *)
    @available(iOS, unavailable)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public static var watchNotAvailable: LAError.Code { fatalError() }
    @available(macOS 11.2, *)
    @available(iOS, unavailable)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public static var biometryNotPaired: LAError.Code { fatalError() }
    @available(macOS 11.2, *)
    @available(iOS, unavailable)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public static var biometryDisconnected: LAError.Code { fatalError() }
    @available(macOS 12.0, *)
    @available(iOS, unavailable)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public static var invalidDimensions: LAError.Code { fatalError() }
    public static var notInteractive: LAError.Code { fatalError() }
}
