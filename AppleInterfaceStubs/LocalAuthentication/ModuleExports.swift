// Interface stubs for Apple's LocalAuthentication framework, transcribed from the SDK headers
// (phracker/MacOSX-SDKs MacOSX12.1.sdk/.../LocalAuthentication.framework/Headers/LAContext.h,
// MacOSX12.3.sdk/.../LocalAuthentication.framework/Versions/A/Headers/LAError.h) and Apple's documentation
// (theAppLaunchers/apple-docs-for-rag LocalAuthentication/md/*.md, developer.apple.com's markdown export),
// so that the Apple-only sources (`#if canImport(LocalAuthentication)`) type-check on Linux. Nothing here
// is ever run: every body is `fatalError()`. See AppleInterfaceStubs/typecheck.py.
//
// `import LocalAuthentication` re-exports Foundation on Apple platforms (LAContext.h imports
// <Foundation/Foundation.h>); mirror that.

@_exported import Foundation
