// Interface stubs for the part of Apple's CryptoKit that the Apple-only sources use
// (`#if canImport(CryptoKit)`): the Secure Enclave's P-256 signing key. Transcribed from CryptoKit's
// generated Swift interface in the iOS 18.0 SDK (xybp888/iOS-SDKs iPhoneOS18.0.sdk/System/Library/
// Frameworks/CryptoKit.framework/Modules/CryptoKit.swiftmodule/arm64-apple-ios.swiftinterface) and, for
// the other platforms, Apple's documentation pages (developer.apple.com/documentation/cryptokit/
// secureenclave/p256/signing/privatekey and its initializers, markdown export). Nothing here is ever
// run: every body is `fatalError()`. See AppleInterfaceStubs/typecheck.py.
//
// On Apple platforms the key's `publicKey` is a `P256.Signing.PublicKey` and its signatures are
// `P256.Signing.ECDSASignature`, the same types swift-crypto's `Crypto` re-exports there. This stub
// cannot name swift-crypto's types (it is built without them), so it declares stand-ins with only
// the member the sources read, `rawRepresentation: Data`; the sources go through it, which
// compiles against both.
//
// CryptoKit does not re-export Foundation: its interface lists `import Foundation`,
// `import LocalAuthentication`, `import Security`, none `@_exported`. Neither does this stub.

import Foundation
import LocalAuthentication
import Security

// `@available(iOS 13.0, macOS 10.15, watchOS 6.0, tvOS 13.0, macCatalyst 13.0, *) public enum SecureEnclave`
// (iOS 18.0 interface); visionOS 1.0 (documentation).
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public enum SecureEnclave {
    // `public static var isAvailable: Swift.Bool { get }` — whether the device has a Secure Enclave.
    public static var isAvailable: Bool { fatalError() }

    // `public enum P256`.
    public enum P256 {
        // `public enum Signing`.
        public enum Signing {
            // Stand-in for CryptoKit's `P256.Signing.PublicKey` (see the header comment).
            public struct PublicKeyStandIn {
                public var rawRepresentation: Data { fatalError() }
            }

            // Stand-in for CryptoKit's `P256.Signing.ECDSASignature`.
            public struct SignatureStandIn {
                public var rawRepresentation: Data { fatalError() }
            }

            // `public struct PrivateKey`; iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0.
            //
            // Two pairs of initializers, by platform. Where LocalAuthentication can evaluate (iOS, macOS,
            // visionOS, watchOS 9) they take `authenticationContext: LAContext? = nil`; on tvOS (where
            // LAContext is unavailable) and on watchOS 6–8 they have no such parameter. Every parameter but
            // `dataRepresentation` has a default, so `init(compactRepresentable:accessControl:)` and
            // `init(dataRepresentation:)` calls compile on every platform (where both forms exist, Swift
            // picks the one that needs no default argument for the omitted context).
            public struct PrivateKey {
                // `public let publicKey: CryptoKit.P256.Signing.PublicKey`
                public let publicKey: PublicKeyStandIn

                // `public let dataRepresentation: Foundation.Data` — the opaque, device-bound blob that
                // `init(dataRepresentation:)` restores a key from.
                public let dataRepresentation: Data

                // `@available(iOS 13.0, macOS 10.15, macCatalyst 13.0, *) public init(dataRepresentation:
                // Foundation.Data, authenticationContext: LocalAuthentication.LAContext? = nil) throws`
                // (iOS 18.0 interface). UNVERIFIED: its watchOS 9.0 / visionOS 1.0 and no tvOS availability are
                // those of the key-agreement key's twin (developer.apple.com/documentation/cryptokit/
                // secureenclave/p256/keyagreement/privatekey/init(datarepresentation:authenticationcontext:));
                // the signing key's own page was not found.
                @available(macOS 10.15, iOS 13.0, watchOS 9.0, visionOS 1.0, *)
                @available(tvOS, unavailable)
                public init(dataRepresentation: Data, authenticationContext: LAContext? = nil) throws {
                    fatalError()
                }

                // `@available(iOS 13.0, macOS 10.15, macCatalyst 13.0, *) public init(compactRepresentable:
                // Swift.Bool = true, accessControl: Security.SecAccessControl = SecAccessControlCreateWithFlags(nil,
                // kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, [], nil)!, authenticationContext:
                // LocalAuthentication.LAContext? = nil) throws` (iOS 18.0 interface); iOS 13.0, macOS 10.15,
                // visionOS 1.0, watchOS 9.0, no tvOS (developer.apple.com/documentation/cryptokit/secureenclave/
                // p256/signing/privatekey/init(compactrepresentable:accesscontrol:authenticationcontext:)).
                @available(macOS 10.15, iOS 13.0, watchOS 9.0, visionOS 1.0, *)
                @available(tvOS, unavailable)
                public init(
                    compactRepresentable: Bool = true,
                    accessControl: SecAccessControl = SecAccessControlCreateWithFlags(
                        nil,
                        kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
                        [],
                        nil
                    )!,
                    authenticationContext: LAContext? = nil
                ) throws {
                    fatalError()
                }

                // `init(dataRepresentation: Data) throws`; tvOS 13.0, watchOS 6.0 only. UNVERIFIED: read on the
                // key-agreement key's twin (developer.apple.com/documentation/cryptokit/secureenclave/p256/
                // keyagreement/privatekey/init(datarepresentation:): tvOS 13.0, watchOS 6.0).
                @available(tvOS 13.0, watchOS 6.0, *)
                @available(macOS, unavailable)
                @available(iOS, unavailable)
                @available(visionOS, unavailable)
                public init(dataRepresentation: Data) throws { fatalError() }

                // `init(compactRepresentable: Bool = true, accessControl: SecAccessControl =
                // SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, [], nil)!)
                // throws`; tvOS 13.0, watchOS 6.0 only (developer.apple.com/documentation/cryptokit/secureenclave/
                // p256/signing/privatekey/init(compactrepresentable:accesscontrol:)).
                @available(tvOS 13.0, watchOS 6.0, *)
                @available(macOS, unavailable)
                @available(iOS, unavailable)
                @available(visionOS, unavailable)
                public init(
                    compactRepresentable: Bool = true,
                    accessControl: SecAccessControl = SecAccessControlCreateWithFlags(
                        nil,
                        kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
                        [],
                        nil
                    )!
                ) throws {
                    fatalError()
                }

                // `extension CryptoKit.SecureEnclave.P256.Signing.PrivateKey { public func signature<D>(for data: D)
                // throws -> CryptoKit.P256.Signing.ECDSASignature where D : Foundation.DataProtocol }` (iOS 18.0
                // interface; the `for digest: D where D : Digest` overload is not declared).
                public func signature<D: DataProtocol>(for data: D) throws -> SignatureStandIn { fatalError() }
            }
        }
    }
}
