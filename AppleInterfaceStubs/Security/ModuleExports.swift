// Interface stubs for Apple's Security framework, transcribed from Apple's published SDK headers and
// documentation, so that the Apple-only sources (`#if canImport(Security)`) type-check on Linux.
// Nothing here is ever run: every body is `fatalError()`. See AppleInterfaceStubs/typecheck.py.
//
// Sources used throughout (one citation per declaration in each file):
//   - the SDK headers themselves: phracker/MacOSX-SDKs (MacOSX12.x.sdk/.../Security.framework/Headers,
//     .../Foundation.framework/Headers, .../LocalAuthentication.framework/Headers) and an iPhoneOS SDK
//     copy of SecBase.h (helinyu/component Security/SecBase.h, Copyright 2000-2016 Apple);
//   - Apple's documentation pages (developer.apple.com/documentation/...), read in the mirror
//     theAppLaunchers/apple-docs-for-rag (Security/md/*.md, foundation/md/*.md,
//     LocalAuthentication/md/*.md) and in developer.apple.com's own markdown export; these give the
//     Swift spelling and every platform's availability;
//   - Swift interfaces generated from the iOS SDK: DougGregor/swift-concurrency-objc iOS/<Framework>/*.swift
//     and apple/swift-3-api-guidelines-review Platforms/iOS/Security/*.swift (generic arguments the
//     documentation pages drop, e.g. `UnsafeMutablePointer<CFArray?>`).
//
// On Apple platforms URLSession and its companions live in Foundation; on Linux they live in
// FoundationNetworking. Re-exporting both here makes `import Security` (which the Apple sources do)
// see the URL loading system, as `import Foundation` does on Apple platforms.

@_exported import Foundation
@_exported import FoundationNetworking
