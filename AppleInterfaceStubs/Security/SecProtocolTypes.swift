// Security/SecProtocolTypes.h (phracker/MacOSX-SDKs MacOSX12.3.sdk/System/Library/Frameworks/
// Security.framework/Versions/A/Headers/SecProtocolTypes.h); tvOS, watchOS and visionOS availability of
// the type from developer.apple.com/documentation/security/tls_protocol_version_t.
//
// swift-corelibs-foundation's FoundationNetworking declares its own `tls_protocol_version_t`; this
// declaration shadows it for every file that imports Security (a module's declarations shadow those
// of the modules it imports), so the Apple-only sources and the URLSession members below use Apple's.

// Security/SecProtocolTypes.h: `CF_AVAILABLE(10_15, 13_0) typedef CF_ENUM(uint16_t, tls_protocol_version_t)` —
// `enum tls_protocol_version_t: UInt16`; iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0.
// Imported C enums are RawRepresentable and Hashable; Sendable as Apple documents for the imported enums and
// option sets of these frameworks (e.g. SecAccessControlCreateFlags, LAError).
//
// An OPEN enum, as the importer makes it: CF_ENUM expands to `enum __CF_ENUM_ATTRIBUTES …` with
// `#define __CF_ENUM_ATTRIBUTES __attribute__((enum_extensibility(open)))` (CoreFoundation/
// CFAvailability.h; read in swift-corelibs-foundation's copy, whose CF_ENUM is the SDK's), and Swift
// imports an enum_extensibility(open) C enum as a non-frozen enum: a `switch` over it without
// `default` / `@unknown default` is an error in the Swift 6 language mode ("switch covers known cases,
// but '…' may have additional unknown values"). `@nonexhaustive` (SE-0487) gives this stub the same
// property. Its `init?(rawValue:)` keeps the failable signature Swift gives it (so `guard let` and `!`
// compile here as there) but never returns nil on Apple platforms: the importer synthesises it as
// `self = Builtin.reinterpretCast(rawValue)` "in order to preserve unknown or future cases from C"
// (swiftlang/swift lib/ClangImporter/SwiftDeclSynthesizer.h, makeEnumRawValueConstructor). A nil
// check on it is therefore dead code; the stub's synthesised initializer cannot show that.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@nonexhaustive
public enum tls_protocol_version_t: UInt16, Sendable {
    // `tls_protocol_version_TLSv10 CF_SWIFT_NAME(TLSv10) API_DEPRECATED("Use tls_protocol_version_TLSv12 or
    // tls_protocol_version_TLSv13 instead.", ios(13.0, 15.0), macos(10.15, 12.0)) = 0x0301`
    @available(
        macOS,
        introduced: 10.15,
        deprecated: 12.0,
        message: "Use tls_protocol_version_TLSv12 or tls_protocol_version_TLSv13 instead."
    )
    @available(
        iOS,
        introduced: 13.0,
        deprecated: 15.0,
        message: "Use tls_protocol_version_TLSv12 or tls_protocol_version_TLSv13 instead."
    )
    case TLSv10 = 0x0301
    // `tls_protocol_version_TLSv11 CF_SWIFT_NAME(TLSv11) API_DEPRECATED(…same…, ios(13.0, 15.0), macos(10.15, 12.0)) = 0x0302`
    @available(
        macOS,
        introduced: 10.15,
        deprecated: 12.0,
        message: "Use tls_protocol_version_TLSv12 or tls_protocol_version_TLSv13 instead."
    )
    @available(
        iOS,
        introduced: 13.0,
        deprecated: 15.0,
        message: "Use tls_protocol_version_TLSv12 or tls_protocol_version_TLSv13 instead."
    )
    case TLSv11 = 0x0302
    // `tls_protocol_version_TLSv12 CF_SWIFT_NAME(TLSv12) = 0x0303`
    case TLSv12 = 0x0303
    // `tls_protocol_version_TLSv13 CF_SWIFT_NAME(TLSv13) = 0x0304`
    case TLSv13 = 0x0304
    // `tls_protocol_version_DTLSv10 CF_SWIFT_NAME(DTLSv10) API_DEPRECATED("Use tls_protocol_version_DTLSv12
    // instead.", ios(13.0, 15.0), macos(10.15, 12.0)) = 0xfeff`
    @available(macOS, introduced: 10.15, deprecated: 12.0, message: "Use tls_protocol_version_DTLSv12 instead.")
    @available(iOS, introduced: 13.0, deprecated: 15.0, message: "Use tls_protocol_version_DTLSv12 instead.")
    case DTLSv10 = 0xfeff
    // `tls_protocol_version_DTLSv12 CF_SWIFT_NAME(DTLSv12) = 0xfefd`
    case DTLSv12 = 0xfefd
}
