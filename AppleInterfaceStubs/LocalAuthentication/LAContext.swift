// LocalAuthentication/LAContext.h (phracker/MacOSX-SDKs MacOSX12.1.sdk/System/Library/Frameworks/
// LocalAuthentication.framework/Headers/LAContext.h); Swift spellings and visionOS availability from
// Apple's documentation (theAppLaunchers/apple-docs-for-rag LocalAuthentication/md/local authentication-lacontext*.md,
// developer.apple.com/documentation/localauthentication/lapolicy).

// LocalAuthentication/LAContext.h: `typedef NS_ENUM(NSInteger, LAPolicy) { … } API_AVAILABLE(ios(8.0),
// macos(10.10), watchos(3.0), tvos(10.0));` — `enum LAPolicy: Int`; visionOS 1.0 from the documentation.
// Raw values from LAPublicDefines.h (kLAPolicyDeviceOwnerAuthenticationWithBiometrics 1,
// kLAPolicyDeviceOwnerAuthentication 2). Imported NS_ENUMs are RawRepresentable, Hashable and Sendable.
// Only the two policies the sources use are declared. UNVERIFIED (so left out): the current SDK's other
// policies — deviceOwnerAuthenticationWithWatch (3) and deviceOwnerAuthenticationWithBiometricsOrWatch (4),
// which the macOS 15 SDK turned into deprecated aliases of deviceOwnerAuthenticationWithCompanion /
// deviceOwnerAuthenticationWithBiometricsOrCompanion, and deviceOwnerAuthenticationWithWristDetection
// (5, watchOS 9.0): which of them are enum cases and which static aliases, and their per-platform
// availability, could not be pinned down from a current header. Consequently a `switch` over LAPolicy
// is exhaustive here with two cases but would not be on Apple platforms.
// UNVERIFIED: tvOS — the 12.1 header says tvos(10.0); Apple's current documentation lists no tvOS.
@available(macOS 10.10, iOS 8.0, tvOS 10.0, watchOS 3.0, visionOS 1.0, *)
public enum LAPolicy: Int, Sendable {
    // `LAPolicyDeviceOwnerAuthenticationWithBiometrics API_AVAILABLE(ios(8.0), macos(10.12.2), watchos(3.0),
    // tvos(10.0)) = kLAPolicyDeviceOwnerAuthenticationWithBiometrics` — `case deviceOwnerAuthenticationWithBiometrics`.
    @available(macOS 10.12.2, iOS 8.0, tvOS 10.0, watchOS 3.0, visionOS 1.0, *)
    case deviceOwnerAuthenticationWithBiometrics = 1

    // `LAPolicyDeviceOwnerAuthentication API_AVAILABLE(ios(9.0), macos(10.11), watchos(3.0), tvos(10.0))
    // = kLAPolicyDeviceOwnerAuthentication` — `case deviceOwnerAuthentication`.
    @available(macOS 10.11, iOS 9.0, tvOS 10.0, watchOS 3.0, visionOS 1.0, *)
    case deviceOwnerAuthentication = 2
}

// LocalAuthentication/LAContext.h: `API_AVAILABLE(macos(10.10), ios(8.0), watchos(3.0), tvos(10.0))
// @interface LAContext : NSObject` — `class LAContext` (imported Objective-C classes are `open`); inherits
// NSObject's `init()`. Apple's documentation lists no Sendable conformance.
// UNVERIFIED: tvOS — the 12.1 header says tvos(10.0); Apple's current documentation lists no tvOS.
@available(macOS 10.10, iOS 8.0, tvOS 10.0, watchOS 3.0, visionOS 1.0, *)
open class LAContext: NSObject {
    // LocalAuthentication/LAContext.h: `- (void)evaluatePolicy:(LAPolicy)policy localizedReason:(NSString
    // *)localizedReason reply:(void(^)(BOOL success, NSError * __nullable error))reply
    // NS_SWIFT_ASYNC_THROWS_ON_FALSE(0) API_AVAILABLE(macos(10.10), ios(8.0), watchos(3.0), tvos(10.0));`
    // — its Swift async form, `func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws
    // -> Bool` (documentation page local authentication-lacontext-evaluatepolicy(_:localizedreason:reply:).md;
    // generated iOS interface DougGregor/swift-concurrency-objc iOS/LocalAuthentication/LAContext.swift).
    @available(macOS 10.10, iOS 8.0, tvOS 10.0, watchOS 3.0, visionOS 1.0, *)
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool { fatalError() }
}
