#if canImport(CryptoKit) && canImport(Security)
import CryptoKit
import Crypto
import Foundation
public import Security
public import SecureStorage

extension DPoPKey {
    /// A DPoP key in the Secure Enclave: its private half never leaves the chip, so a copy of the
    /// app's storage (tokens included) cannot make proofs anywhere else.
    ///
    /// The store keeps only the key's `dataRepresentation`, an opaque blob that only this
    /// device's Secure Enclave can use; the decisions (restore or create, under the store's
    /// cross-process lock, never replace a key that cannot be restored) are those of
    /// ``stored(in:key:)``.
    ///
    /// Available on every Apple platform (iOS, macOS, tvOS, watchOS, visionOS): it calls CryptoKit's
    /// key initializers without an authentication context, a call every platform's CryptoKit accepts
    /// (tvOS declares them with no `LAContext` parameter at all).
    ///
    /// - Parameters:
    ///   - store: where the blob is kept (the Keychain, beside the tokens).
    ///   - key: the store item. Default `SecureNetworking.dpopKey.secureEnclave`.
    ///   - flags: extra access-control flags for a new key (`.userPresence` asks for Face ID,
    ///     Touch ID, Optic ID or the passcode before each proof; not on tvOS, where
    ///     LocalAuthentication cannot evaluate). `.privateKeyUsage` is always added.
    /// - Throws: ``TokenAuthError/Code/proofOfPossessionFailed`` when the device has no Secure
    ///   Enclave or the key cannot be made; ``TokenAuthError/Code/storageFailure`` as
    ///   ``stored(in:key:)``.
    public static func secureEnclave(
        in store: any SecureStore,
        key: String = "SecureNetworking.dpopKey.secureEnclave",
        flags: SecAccessControlCreateFlags = []
    ) async throws(TokenAuthError) -> DPoPKey {
        guard SecureEnclave.isAvailable else {
            throw TokenAuthError(.proofOfPossessionFailed, "this device has no Secure Enclave")
        }
        return try await Self.stored(
            in: store,
            key: key,
            restore: { blob in try Self.secureEnclaveKey(blob) },
            create: {
                guard
                    let access = SecAccessControlCreateWithFlags(
                        nil,
                        kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                        flags.union(.privateKeyUsage),
                        nil
                    )
                else {
                    throw TokenAuthError(.proofOfPossessionFailed, "the key's access control could not be made")
                }
                let privateKey = try SecureEnclave.P256.Signing.PrivateKey(
                    compactRepresentable: false,
                    accessControl: access
                )
                return (try Self.secureEnclaveKey(privateKey.dataRepresentation), privateKey.dataRepresentation)
            }
        )
    }

    /// The key behind a Secure Enclave blob. Each proof restores the key from the blob (a
    /// handle, not the key) and asks the Secure Enclave to sign.
    private static func secureEnclaveKey(_ blob: Data) throws -> DPoPKey {
        let privateKey = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: blob)
        let publicKey = try P256.Signing.PublicKey(rawRepresentation: privateKey.publicKey.rawRepresentation)
        return DPoPKey(publicKey: publicKey) { data in
            let signature = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: blob).signature(for: data)
            return try P256.Signing.ECDSASignature(rawRepresentation: signature.rawRepresentation)
        }
    }
}
#endif
