// Interface stubs for Apple's LocalAuthentication framework, transcribed from the SDK headers
// (itsnebulalol/sdks iPhoneOS17.0.sdk/.../LocalAuthentication.framework/Headers/LAContext.h,
// xybp888/iOS-SDKs iPhoneOS18.0.sdk/.../LocalAuthentication.framework/Headers/LAError.h; first
// transcribed from phracker/MacOSX-SDKs MacOSX12.1/12.3, whose tvOS and watchOS availability is out of
// date) and Apple's documentation (theAppLaunchers/apple-docs-for-rag LocalAuthentication/md/*.md,
// developer.apple.com's markdown export), so that the Apple-only sources
// (`#if canImport(LocalAuthentication)`) type-check on Linux. Nothing here is ever run: every body is
// `fatalError()`. See AppleInterfaceStubs/typecheck.py.
//
// `import LocalAuthentication` re-exports Foundation on Apple platforms (LAContext.h imports
// <Foundation/Foundation.h>); mirror that.

@_exported import Foundation

// Foundation on Apple platforms (its Swift overlay, NSError.swift): `public typealias NSErrorPointer =
// AutoreleasingUnsafeMutablePointer<NSError?>?`, the type of an `NSError **` out-parameter such as
// `canEvaluatePolicy(_:error:)`'s. swift-corelibs-foundation does not declare it (and Linux has no
// autoreleasing pointer), so it stands in here as an optional pointer to `NSError?`; the sources only
// ever pass `nil`, which both accept.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?
