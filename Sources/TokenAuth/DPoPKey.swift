public import Crypto
public import Foundation
import SecureNetworkingInternal
public import SecureStorage

/// The key pair a client proves possession of with DPoP (RFC 9449): ECDSA P-256, proofs signed
/// with ES256.
///
/// The private key never leaves the value (its description shows only the public key's
/// thumbprint). Keep it in the session's secure store with ``stored(in:key:)`` so that a
/// relaunched app can still use the tokens bound to it. On Apple platforms it can be a Secure
/// Enclave key instead (`DPoPKey.secureEnclave(in:key:)`), whose private half no process can
/// read; any other signer fits ``init(publicKey:sign:)``.
public struct DPoPKey: Sendable, CustomStringConvertible {
    /// The public key, as the proofs' `jwk` header carries it.
    public let publicKey: P256.Signing.PublicKey
    private let signer: @Sendable (Data) throws -> P256.Signing.ECDSASignature

    /// A new random software key.
    public init() {
        self.init(P256.Signing.PrivateKey())
    }

    /// A software key.
    public init(_ privateKey: P256.Signing.PrivateKey) {
        self.publicKey = privateKey.publicKey
        self.signer = { try privateKey.signature(for: $0) }
    }

    /// A key held elsewhere (a Secure Enclave, a hardware token): its public key, and a function
    /// that signs with the private one (ECDSA P-256 over SHA-256 of the data).
    public init(
        publicKey: P256.Signing.PublicKey,
        sign: @escaping @Sendable (_ data: Data) throws -> P256.Signing.ECDSASignature
    ) {
        self.publicKey = publicKey
        self.signer = sign
    }

    /// The key kept in `store` under `key`, made and stored on first use.
    ///
    /// - Throws: ``TokenAuthError/Code/storageFailure`` when the store cannot be read or
    ///   written, or holds something that is not a P-256 private key (never replaced silently:
    ///   the tokens bound to the old key would be lost with it).
    public static func stored(
        in store: any SecureStore,
        key: String = "SecureNetworking.dpopKey"
    ) async throws(TokenAuthError) -> DPoPKey {
        try await Self.stored(
            in: store,
            key: key,
            restore: { DPoPKey(try P256.Signing.PrivateKey(rawRepresentation: $0)) },
            create: {
                let privateKey = P256.Signing.PrivateKey()
                return (DPoPKey(privateKey), privateKey.rawRepresentation)
            }
        )
    }

    /// Loads the key kept under `key`, or creates one and keeps what `create` returns to store,
    /// under the store's cross-process lock (an app and its extension must not each make a key).
    static func stored(
        in store: any SecureStore,
        key: String,
        restore: (Data) throws -> DPoPKey,
        create: () throws -> (DPoPKey, Data)
    ) async throws(TokenAuthError) -> DPoPKey {
        let lock: CrossProcessLock?
        do {
            lock = try await store.lockAcrossProcesses(timeout: .seconds(10))
        } catch {
            throw .storage(error, "the store's cross-process lock could not be taken to read the DPoP key")
        }
        defer { lock?.release() }
        let existing: Data?
        do {
            existing = try await store.data(forKey: key)
        } catch {
            throw .storage(error, "the DPoP key could not be read")
        }
        if let existing {
            guard let restored = try? restore(existing) else {
                throw TokenAuthError(.storageFailure, "the stored DPoP key cannot be restored")
            }
            return restored
        }
        let created: DPoPKey
        let representation: Data
        do {
            (created, representation) = try create()
        } catch {
            throw TokenAuthError(.proofOfPossessionFailed, "a DPoP key could not be created")
        }
        do {
            // The representation is only ever written to the secure store.
            try await store.set(representation, forKey: key)
        } catch {
            throw .storage(error, "the DPoP key could not be stored")
        }
        return created
    }

    /// The public key as a JWK (RFC 7517, RFC 7518 §6.2.1): `kty`, `crv`, `x`, `y`.
    public var jwk: [String: String] {
        let raw = self.publicKey.rawRepresentation  // x ‖ y, 32 bytes each
        return [
            "crv": "P-256",
            "kty": "EC",
            "x": Base64URL.encode(Array(raw.prefix(32))),
            "y": Base64URL.encode(Array(raw.suffix(32))),
        ]
    }

    /// The JWK SHA-256 thumbprint (RFC 7638 §3): the `jkt` a server binds tokens to
    /// (RFC 9449 §6.1).
    public var thumbprint: String {
        let jwk = self.jwk
        // RFC 7638 §3.2: the required members in lexicographic order, no whitespace.
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(jwk["x"]!)","y":"\#(jwk["y"]!)"}"#
        return Base64URL.encode(Array(SHA256.hash(data: Data(canonical.utf8))))
    }

    /// Signs `data` (ES256: ECDSA P-256 with SHA-256), the signature as `r ‖ s` (RFC 7518 §3.4).
    func sign(_ data: Data) throws -> Data {
        try self.signer(data).rawRepresentation
    }

    /// The thumbprint; the private key is never shown.
    public var description: String { "DPoPKey(P-256, jkt: \(self.thumbprint))" }
}

extension DPoPKey: CustomReflectable {
    /// What `dump()`, debuggers and `Mirror` see: the thumbprint, nothing private.
    public var customMirror: Mirror {
        Mirror(self, children: ["thumbprint": self.thumbprint], displayStyle: .struct)
    }
}
