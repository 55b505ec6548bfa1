public import Crypto
public import Foundation

/// An X25519 public key that messages are sealed to and key agreements are made with.
///
/// Every way of creating one refuses the low-order points of Curve25519, for which X25519
/// gives the all-zero secret whatever the private key: sealing to such a key would encrypt under
/// a key anyone can compute.
public struct E2EPublicKey: Hashable, Sendable {
    /// The swift-crypto key.
    public let curve25519Key: Curve25519.KeyAgreement.PublicKey

    /// Wraps a swift-crypto key.
    ///
    /// - Throws: ``SecureCryptoError/Code/invalidKey`` for a low-order point.
    public init(_ key: Curve25519.KeyAgreement.PublicKey) throws(SecureCryptoError) {
        try Self.rejectLowOrder(key)
        self.curve25519Key = key
    }

    /// Creates a key from its 32 raw bytes (RFC 7748).
    ///
    /// - Throws: ``SecureCryptoError/Code/invalidKey`` for another length or a low-order point.
    public init(rawRepresentation: some DataProtocol) throws(SecureCryptoError) {
        let raw = Array(rawRepresentation)
        guard raw.count == X25519KeyEncoding.keyByteCount else {
            throw SecureCryptoError(.invalidKey, "an X25519 public key is 32 bytes, not \(raw.count)")
        }
        let key: Curve25519.KeyAgreement.PublicKey
        do {
            key = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: raw)
        } catch {
            throw SecureCryptoError(.invalidKey, "not an X25519 public key")
        }
        try self.init(key)
    }

    /// Creates a key from an X25519 SubjectPublicKeyInfo (RFC 8410), DER-encoded.
    ///
    /// - Throws: ``SecureCryptoError/Code/invalidKey`` unless the bytes are exactly the 44-byte
    ///   X25519 SubjectPublicKeyInfo.
    public init(derRepresentation: some DataProtocol) throws(SecureCryptoError) {
        guard
            let raw = X25519KeyEncoding.rawKey(
                fromDER: Array(derRepresentation),
                prefix: X25519KeyEncoding.publicKeyPrefix
            )
        else {
            throw SecureCryptoError(.invalidKey, "not an X25519 SubjectPublicKeyInfo")
        }
        try self.init(rawRepresentation: raw)
    }

    /// Creates a key from a PEM `PUBLIC KEY` document holding an X25519 SubjectPublicKeyInfo.
    ///
    /// - Throws: ``SecureCryptoError/Code/invalidKey`` for another label, bad base64 or DER.
    public init(pemRepresentation: String) throws(SecureCryptoError) {
        guard let der = X25519KeyEncoding.der(fromPEM: pemRepresentation, label: "PUBLIC KEY") else {
            throw SecureCryptoError(.invalidKey, "not a PEM PUBLIC KEY document")
        }
        try self.init(derRepresentation: der)
    }

    /// The 32 raw bytes.
    public var rawRepresentation: Data { self.curve25519Key.rawRepresentation }

    /// The X25519 SubjectPublicKeyInfo, DER-encoded (44 bytes).
    public var derRepresentation: Data {
        Data(X25519KeyEncoding.publicKeyDER(raw: Array(self.rawRepresentation)))
    }

    /// The SubjectPublicKeyInfo as a PEM `PUBLIC KEY` document.
    public var pemRepresentation: String {
        X25519KeyEncoding.pem(label: "PUBLIC KEY", der: Array(self.derRepresentation))
    }

    /// Keys are equal when their raw bytes are equal.
    public static func == (lhs: E2EPublicKey, rhs: E2EPublicKey) -> Bool {
        lhs.rawRepresentation == rhs.rawRepresentation
    }

    /// Hashes the raw bytes, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.rawRepresentation)
    }

    /// X25519 with any clamped scalar maps a point of order dividing 8 to zero, and no other
    /// point; so one agreement with a throwaway key tells them apart.
    private static func rejectLowOrder(_ key: Curve25519.KeyAgreement.PublicKey) throws(SecureCryptoError) {
        let probe = Curve25519.KeyAgreement.PrivateKey()
        let secret: [UInt8]
        do {
            secret = try probe.sharedSecretFromKeyAgreement(with: key).withUnsafeBytes { Array($0) }
        } catch {
            throw SecureCryptoError(.invalidKey, "X25519 agreement with the public key failed")
        }
        guard !ConstantTime.isAllZero(secret) else {
            throw SecureCryptoError(.invalidKey, "the X25519 public key is a low-order point")
        }
    }
}

extension E2EPublicKey: CustomStringConvertible {
    /// `X25519 public key <first 8 bytes of SHA-256 of the raw key, hex>`: public, short, stable.
    public var description: String {
        let fingerprint = SHA256.hash(data: self.rawRepresentation).prefix(8).map { String(format: "%02x", $0) }
            .joined()
        return "X25519 public key \(fingerprint)"
    }
}
