// Interface stubs for the part of Apple's CryptoKit that the Apple-only sources use
// (`#if canImport(CryptoKit)`): the Secure Enclave's P-256 signing key. Transcribed from Apple's
// documentation of CryptoKit (developer.apple.com/documentation/cryptokit/secureenclave,
// …/secureenclave/p256/signing/privatekey and its initializers, as exported in
// theAppLaunchers/apple-docs-for-rag). Nothing here is ever run: every body is `fatalError()`.
// See AppleInterfaceStubs/typecheck.py.
//
// On Apple platforms the key's `publicKey` is a `P256.Signing.PublicKey` and its signatures are
// `P256.Signing.ECDSASignature`, the same types swift-crypto's `Crypto` re-exports there. This stub
// cannot name swift-crypto's types (it is built without them), so it declares stand-ins with only
// the member the sources read, `rawRepresentation: Data`; the sources go through it, which
// compiles against both.

@_exported import Foundation
import LocalAuthentication
import Security

// `enum SecureEnclave`; iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0 (no visionOS in the page).
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public enum SecureEnclave {
    // `static var isAvailable: Bool { get }` — whether the device has a Secure Enclave.
    public static var isAvailable: Bool { fatalError() }

    // `enum SecureEnclave.P256`.
    public enum P256 {
        // `enum SecureEnclave.P256.Signing`.
        public enum Signing {
            // Stand-in for CryptoKit's `P256.Signing.PublicKey` (see the header comment).
            public struct PublicKeyStandIn {
                public var rawRepresentation: Data { fatalError() }
            }

            // Stand-in for CryptoKit's `P256.Signing.ECDSASignature`.
            public struct SignatureStandIn {
                public var rawRepresentation: Data { fatalError() }
            }

            // `struct SecureEnclave.P256.Signing.PrivateKey`.
            public struct PrivateKey {
                // `init(compactRepresentable: Bool, accessControl: SecAccessControl) throws`.
                public init(compactRepresentable: Bool, accessControl: SecAccessControl) throws { fatalError() }

                // `init(dataRepresentation: Data) throws` — restores a key from the opaque,
                // device-bound blob of `dataRepresentation`.
                public init(dataRepresentation: Data) throws { fatalError() }

                // `var dataRepresentation: Data { get }`.
                public var dataRepresentation: Data { fatalError() }

                // `var publicKey: P256.Signing.PublicKey { get }`.
                public var publicKey: PublicKeyStandIn { fatalError() }

                // `func signature<D>(for data: D) throws -> P256.Signing.ECDSASignature where D : DataProtocol`.
                public func signature<D: DataProtocol>(for data: D) throws -> SignatureStandIn { fatalError() }
            }
        }
    }
}
