// LocalAuthentication/LAContext.h of the iOS 17.0 SDK (itsnebulalol/sdks iPhoneOS17.0.sdk/System/Library/
// Frameworks/LocalAuthentication.framework/Headers/LAContext.h), which supersedes the macOS 12.1 copy these
// stubs first followed: it marks LAPolicy, LAContext and evaluatePolicy unavailable on tvOS and the
// biometrics policy unavailable on watchOS. Swift spellings and visionOS availability from Apple's
// documentation (theAppLaunchers/apple-docs-for-rag LocalAuthentication/md/local authentication-lacontext*.md,
// developer.apple.com/documentation/localauthentication/lapolicy). visionOS is not named in the header; a
// Clang declaration's visionOS availability is inferred from its iOS one, written out here.

// LocalAuthentication/LAContext.h: `typedef NS_ENUM(NSInteger, LAPolicy) { … } API_AVAILABLE(ios(8.0),
// macos(10.10), watchos(3.0)) API_UNAVAILABLE(tvos);` — `enum LAPolicy: Int`; visionOS 1.0 from the
// documentation. Raw values from LAPublicDefines.h (kLAPolicyDeviceOwnerAuthenticationWithBiometrics 1,
// kLAPolicyDeviceOwnerAuthentication 2, kLAPolicyDeviceOwnerAuthenticationWithWristDetection 5).
// Imported NS_ENUMs are RawRepresentable, Hashable and Sendable, and OPEN (NS_ENUM is CF_ENUM,
// `enum_extensibility(open)`; see LAError.swift): `@nonexhaustive` (SE-0487) makes a `switch` over the stub
// need `default`, as one over Apple's does. Only the policies the sources use are declared; left out are
// the macOS-only deviceOwnerAuthenticationWithWatch (3) and …WithBiometricsOrWatch (4) (in the iOS 17 SDK
// `API_AVAILABLE(macos(10.15), macCatalyst(13.0)) API_UNAVAILABLE(ios, watchos, tvos)`) and the iOS 18 /
// macOS 15 deviceOwnerAuthenticationWithCompanion and …WithBiometricsOrCompanion (same values).
@available(macOS 10.10, iOS 8.0, watchOS 3.0, visionOS 1.0, *)
@available(tvOS, unavailable)
@nonexhaustive
public enum LAPolicy: Int, Sendable {
    // `LAPolicyDeviceOwnerAuthenticationWithBiometrics API_AVAILABLE(ios(8.0), macos(10.12.2))
    // API_UNAVAILABLE(watchos, tvos) = kLAPolicyDeviceOwnerAuthenticationWithBiometrics` —
    // `case deviceOwnerAuthenticationWithBiometrics`.
    @available(macOS 10.12.2, iOS 8.0, visionOS 1.0, *)
    @available(watchOS, unavailable)
    case deviceOwnerAuthenticationWithBiometrics = 1

    // `LAPolicyDeviceOwnerAuthentication API_AVAILABLE(ios(9.0), macos(10.11), watchos(3.0)) API_UNAVAILABLE(tvos)
    // = kLAPolicyDeviceOwnerAuthentication` — `case deviceOwnerAuthentication`.
    @available(macOS 10.11, iOS 9.0, watchOS 3.0, visionOS 1.0, *)
    case deviceOwnerAuthentication = 2

    // `LAPolicyDeviceOwnerAuthenticationWithWristDetection API_AVAILABLE(watchos(9.0)) API_UNAVAILABLE(macos, ios,
    // tvos) = kLAPolicyDeviceOwnerAuthenticationWithWristDetection` — `case deviceOwnerAuthenticationWithWristDetection`
    // (developer.apple.com/documentation/localauthentication/lapolicy/deviceownerauthenticationwithwristdetection).
    // The header's comment: "Device owner will be authenticated by device passcode. The authentication will also
    // succeed if the wrist detection is enabled, correct passcode was entered in the past and the watch has been
    // on the wrist ever since."
    @available(watchOS 9.0, *)
    @available(macOS, unavailable)
    @available(iOS, unavailable)
    @available(visionOS, unavailable)
    case deviceOwnerAuthenticationWithWristDetection = 5
}

// LocalAuthentication/LAContext.h: `API_AVAILABLE(macos(10.10), ios(8.0), watchos(3.0)) API_UNAVAILABLE(tvos)
// @interface LAContext : NSObject` — `class LAContext` (imported Objective-C classes are `open`); inherits
// NSObject's `init()`. Apple's documentation lists no Sendable conformance.
@available(macOS 10.10, iOS 8.0, watchOS 3.0, visionOS 1.0, *)
@available(tvOS, unavailable)
open class LAContext: NSObject {
    // LocalAuthentication/LAContext.h: `- (void)evaluatePolicy:(LAPolicy)policy localizedReason:(NSString
    // *)localizedReason reply:(void(^)(BOOL success, NSError * __nullable error))reply
    // NS_SWIFT_ASYNC_THROWS_ON_FALSE(0) API_AVAILABLE(macos(10.10), ios(8.0), watchos(3.0)) API_UNAVAILABLE(tvos);`
    // — its Swift async form, `func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws
    // -> Bool` (documentation page local authentication-lacontext-evaluatepolicy(_:localizedreason:reply:).md;
    // generated iOS interface DougGregor/swift-concurrency-objc iOS/LocalAuthentication/LAContext.swift).
    @available(macOS 10.10, iOS 8.0, watchOS 3.0, visionOS 1.0, *)
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool { fatalError() }

    // LocalAuthentication/LAContext.h: `- (BOOL)canEvaluatePolicy:(LAPolicy)policy error:(NSError *
    // __autoreleasing *)error __attribute__((swift_error(none))) API_AVAILABLE(macos(10.10), ios(8.0),
    // watchos(3.0)) API_UNAVAILABLE(tvos);` — `func canEvaluatePolicy(_ policy: LAPolicy, error: NSErrorPointer)
    // -> Bool` (generated iOS interface DougGregor/swift-concurrency-objc iOS/LocalAuthentication/LAContext.swift).
    @available(macOS 10.10, iOS 8.0, watchOS 3.0, visionOS 1.0, *)
    open func canEvaluatePolicy(_ policy: LAPolicy, error: NSErrorPointer) -> Bool { fatalError() }
}
