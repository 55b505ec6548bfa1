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
// What `import Security` brings in. On Apple platforms the Security module is the C framework (its
// headers include CoreFoundation and C headers, never <Foundation/Foundation.h>: SecBase.h includes
// <CoreFoundation/CFBase.h> and <AvailabilityMacros.h> (helinyu/component Security/SecBase.h), and
// SecProtocolTypes.h only Security headers (phracker/MacOSX-SDKs MacOSX12.3.sdk/System/Library/
// Frameworks/Security.framework/Versions/A/Headers/SecProtocolTypes.h)), so it re-exports
// CoreFoundation and C modules, not Foundation: a file that uses Data, URL or String bridging must
// `import Foundation` itself. This stub therefore imports Foundation without re-exporting it (the CF
// stand-ins in CoreFoundation.swift are NSData & co.), so a file that relies on `import Security`
// for Foundation fails the check as it would fail on Apple platforms.
//
// FoundationNetworking IS re-exported, one documented approximation: on Apple platforms URLSession and
// its companions are part of Foundation; on Linux they live in FoundationNetworking, and the
// Apple-only URL-loading members (FoundationURLLoading.swift) are declared in this module because a
// module cannot be stubbed twice. Re-exporting it lets the Apple-only files, which import both
// Foundation and Security, see the URL-loading system as `import Foundation` shows it on Apple
// platforms. Consequence: a file that imports Security but not Foundation can name URLSession or
// URLRequest here and not on Apple platforms; it cannot name Data or URL, so such a file is rare.

import Foundation
@_exported import FoundationNetworking
