public import Crypto
import Foundation

extension E2EPrivateKey {
    /// Derives a symmetric session key shared with the holder of `peer`'s private key: X25519,
    /// then HKDF-SHA256.
    ///
    /// Both devices call this with their own private key and the other's public key and get the
    /// same key. The HKDF `info` is a fixed label, the length-prefixed `context`, and both public
    /// keys in ascending byte order, so the key is bound to this pair of keys and this context
    /// (different contexts give independent keys) and both sides agree without deciding who is
    /// "first".
    ///
    /// - Important: The key is only as trustworthy as the peer's public key: check it was
    ///   received authentically (pinned, signed, compared out of band), or a man in the middle
    ///   can agree keys with both sides. The key is static for a key pair and context: vary the
    ///   context (for example with a session id) for fresh keys.
    ///
    /// - Parameters:
    ///   - peer: The other device's public key.
    ///   - context: What the key is for, 1…1024 bytes of UTF-8 (`"com.example.sync v1"`).
    ///   - byteCount: The key length, 16…8160 bytes. Default 32 (a ``Sealer`` key).
    /// - Returns: The session key.
    /// - Throws: ``SecureCryptoError/Code/invalidInput`` for an empty or over-long context or a bad length;
    ///   ``SecureCryptoError/Code/keyAgreementFailed`` if X25519 gives the all-zero secret.
    public func sessionKey(
        with peer: E2EPublicKey,
        context: String,
        byteCount: Int = 32
    ) throws(SecureCryptoError) -> SymmetricKey {
        guard (1...Self.maximumContextByteCount).contains(context.utf8.count) else {
            throw SecureCryptoError(
                .invalidInput,
                "the session key context must be 1…\(Self.maximumContextByteCount) bytes of UTF-8"
            )
        }
        let secret: [UInt8]
        do {
            secret = try self.curve25519Key.sharedSecretFromKeyAgreement(with: peer.curve25519Key).withUnsafeBytes {
                Array($0)
            }
        } catch {
            throw SecureCryptoError(.keyAgreementFailed, "X25519 key agreement failed")
        }
        guard !ConstantTime.isAllZero(secret) else {
            throw SecureCryptoError(.keyAgreementFailed, "X25519 key agreement gave the all-zero secret")
        }
        let own = Array(self.publicKey.rawRepresentation)
        let other = Array(peer.rawRepresentation)
        let (first, second) = own.lexicographicallyPrecedes(other) ? (own, other) : (other, own)
        let contextBytes = Array(context.utf8)
        var info = Array(Self.sessionKeyLabel.utf8)
        info.append(0)
        info += withUnsafeBytes(of: UInt16(contextBytes.count).bigEndian) { Array($0) }
        info += contextBytes
        info += first
        info += second
        return try SymmetricKey.deriveHKDFSHA256(secret: secret, salt: [UInt8](), info: info, byteCount: byteCount)
    }

    /// The label that starts the HKDF info of every session key.
    static let sessionKeyLabel = "SecureCrypto X25519 session key v1"
    /// The longest context accepted, so its length fits the two-byte prefix.
    static let maximumContextByteCount = 1024
}
