public import Crypto
public import Foundation

extension SymmetricKey {
    /// Derives a key from a shared secret with HKDF-SHA256 (RFC 5869).
    ///
    /// Use it where a key must come from something that is not itself a uniformly random key:
    /// a key-agreement secret, a master key split per purpose (vary `info`).
    ///
    /// - Parameters:
    ///   - secret: The input keying material, at least 16 bytes. Not a password: hash those
    ///     with ``PasswordHasher``.
    ///   - salt: A non-secret random or per-protocol value; may be empty (RFC 5869 §3.1).
    ///   - info: What the key is for; different `info` gives an independent key.
    ///   - byteCount: The key length, 16…8160 bytes. Default 32.
    /// - Returns: The derived key.
    /// - Throws: ``SecureCryptoError/Code/invalidKey`` for a secret shorter than 16 bytes;
    ///   ``SecureCryptoError/Code/invalidInput`` for a length out of range.
    public static func deriveHKDFSHA256(
        secret: some DataProtocol,
        salt: some DataProtocol,
        info: some DataProtocol,
        byteCount: Int = 32
    ) throws(SecureCryptoError) -> SymmetricKey {
        guard secret.count >= 16 else {
            throw SecureCryptoError(.invalidKey, "the HKDF input secret is shorter than 16 bytes")
        }
        guard (16...(255 * SHA256.byteCount)).contains(byteCount) else {
            throw SecureCryptoError(.invalidInput, "HKDF-SHA256 output must be 16…8160 bytes, not \(byteCount)")
        }
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(secret)),
            salt: Data(salt),
            info: Data(info),
            outputByteCount: byteCount
        )
    }
}
