public import Crypto
public import Foundation

/// An X25519 private key: opens messages sealed to its ``publicKey`` and makes session keys.
///
/// Its description and mirror never show key bytes; the `…Representation` properties do, and
/// are for storing the key somewhere safe (a SecureStorage store, the Keychain).
public struct E2EPrivateKey: Sendable {
    /// The swift-crypto key.
    public let curve25519Key: Curve25519.KeyAgreement.PrivateKey

    /// Generates a new random key.
    public init() {
        self.curve25519Key = Curve25519.KeyAgreement.PrivateKey()
    }

    /// Wraps a swift-crypto key.
    public init(_ key: Curve25519.KeyAgreement.PrivateKey) {
        self.curve25519Key = key
    }

    /// Creates a key from its 32 raw bytes (RFC 7748).
    ///
    /// - Throws: ``SecureCryptoError/Code/invalidKey`` for another length.
    public init(rawRepresentation: some DataProtocol) throws(SecureCryptoError) {
        let raw = Array(rawRepresentation)
        guard raw.count == X25519KeyEncoding.keyByteCount else {
            throw SecureCryptoError(.invalidKey, "an X25519 private key is 32 bytes, not \(raw.count)")
        }
        do {
            self.curve25519Key = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: raw)
        } catch {
            throw SecureCryptoError(.invalidKey, "not an X25519 private key")
        }
    }

    /// Creates a key from an X25519 PKCS#8 PrivateKeyInfo (RFC 8410 §7), DER-encoded.
    ///
    /// - Throws: ``SecureCryptoError/Code/invalidKey`` unless the bytes are exactly the 48-byte
    ///   version-0 X25519 PrivateKeyInfo (no attributes, no embedded public key).
    public init(derRepresentation: some DataProtocol) throws(SecureCryptoError) {
        guard
            let raw = X25519KeyEncoding.rawKey(
                fromDER: Array(derRepresentation),
                prefix: X25519KeyEncoding.privateKeyPrefix
            )
        else {
            throw SecureCryptoError(.invalidKey, "not an X25519 PKCS#8 PrivateKeyInfo")
        }
        try self.init(rawRepresentation: raw)
    }

    /// Creates a key from a PEM `PRIVATE KEY` document holding an X25519 PKCS#8 key.
    ///
    /// - Throws: ``SecureCryptoError/Code/invalidKey`` for another label, bad base64 or DER.
    public init(pemRepresentation: String) throws(SecureCryptoError) {
        guard let der = X25519KeyEncoding.der(fromPEM: pemRepresentation, label: "PRIVATE KEY") else {
            throw SecureCryptoError(.invalidKey, "not a PEM PRIVATE KEY document")
        }
        try self.init(derRepresentation: der)
    }

    /// The matching public key.
    ///
    /// The public key of a valid private key is never a low-order point (clamping makes the
    /// scalar a multiple of the cofactor and nonzero mod the prime order), so no check is needed.
    public var publicKey: E2EPublicKey {
        E2EPublicKey(unchecked: self.curve25519Key.publicKey)
    }

    /// The 32 raw bytes.
    ///
    /// - Important: This is the secret key. Store it only in secure storage.
    public var rawRepresentation: Data { self.curve25519Key.rawRepresentation }

    /// The X25519 PKCS#8 PrivateKeyInfo, DER-encoded (48 bytes).
    ///
    /// - Important: This is the secret key. Store it only in secure storage.
    public var derRepresentation: Data {
        Data(X25519KeyEncoding.privateKeyDER(raw: Array(self.rawRepresentation)))
    }

    /// The PKCS#8 key as a PEM `PRIVATE KEY` document.
    ///
    /// - Important: This is the secret key, unencrypted. Store it only in secure storage.
    public var pemRepresentation: String {
        X25519KeyEncoding.pem(label: "PRIVATE KEY", der: Array(self.derRepresentation))
    }
}

extension E2EPrivateKey: CustomStringConvertible, CustomReflectable {
    /// Names the public key only.
    public var description: String { "X25519 private key for \(self.publicKey)" }

    /// Hides the key bytes from `dump` and debuggers' mirrors.
    public var customMirror: Mirror {
        Mirror(self, children: ["publicKey": self.publicKey], displayStyle: .struct)
    }
}

extension E2EPublicKey {
    /// Wraps a key known not to be low-order (the public key of a private key).
    init(unchecked key: Curve25519.KeyAgreement.PublicKey) {
        self.curve25519Key = key
    }
}
