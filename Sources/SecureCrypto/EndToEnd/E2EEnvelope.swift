public import Foundation

/// The byte layout of a message sealed with ``E2EPublicKey/seal(_:info:authenticating:)``,
/// parsed without any key.
///
/// ```
/// [version: 1 = 0x01][encapsulated key: 32][ciphertext: n][tag: 16]
/// ```
///
/// Version 1 is HPKE (RFC 9180) in base mode with DHKEM(X25519, HKDF-SHA256), HKDF-SHA256 and
/// ChaCha20-Poly1305, one message per encapsulation (sequence number 0). The caller's `info`
/// and associated data go to HPKE unchanged, so a version-1 envelope is the RFC's `enc || ct`
/// behind one version byte. Another suite would get another version.
public struct E2EEnvelope: Hashable, Sendable {
    /// The envelope version this library writes and reads.
    public static let currentVersion: UInt8 = 1
    /// Bytes of the encapsulated key (an X25519 public key) in a version-1 envelope.
    public static let encapsulatedKeyByteCount = 32
    /// Bytes of the ChaCha20-Poly1305 tag at the end of the ciphertext.
    public static let tagByteCount = 16

    /// The layout version, ``currentVersion``.
    public let version: UInt8
    /// The sender's ephemeral public key (HPKE `enc`).
    public let encapsulatedKey: Data
    /// The HPKE ciphertext, tag included.
    public let ciphertext: Data

    /// Parses an envelope's structure. Nothing is decrypted or authenticated.
    ///
    /// - Parameter bytes: The sealed envelope.
    /// - Throws: ``SecureCryptoError/Code/truncated`` if it is shorter than version,
    ///   encapsulated key and tag (49 bytes); ``SecureCryptoError/Code/unsupportedVersion``
    ///   for another version byte.
    public init(parsing bytes: some DataProtocol) throws(SecureCryptoError) {
        let bytes = Data(bytes)
        guard let version = bytes.first else {
            throw SecureCryptoError(.truncated, "end-to-end envelope is empty")
        }
        guard version == Self.currentVersion else {
            throw SecureCryptoError(.unsupportedVersion, "end-to-end envelope version \(version) is not supported")
        }
        let minimum = 1 + Self.encapsulatedKeyByteCount + Self.tagByteCount
        guard bytes.count >= minimum else {
            throw SecureCryptoError(
                .truncated,
                "end-to-end envelope is \(bytes.count) bytes, shorter than the \(minimum) of its fixed parts"
            )
        }
        let keyStart = bytes.startIndex + 1
        let ciphertextStart = keyStart + Self.encapsulatedKeyByteCount
        self.version = version
        self.encapsulatedKey = Data(bytes[keyStart..<ciphertextStart])
        self.ciphertext = Data(bytes[ciphertextStart...])
    }

    init(encapsulatedKey: Data, ciphertext: Data) {
        self.version = Self.currentVersion
        self.encapsulatedKey = encapsulatedKey
        self.ciphertext = ciphertext
    }

    /// The envelope's bytes: version, encapsulated key, ciphertext.
    public var bytes: Data {
        var bytes = Data([self.version])
        bytes.reserveCapacity(1 + self.encapsulatedKey.count + self.ciphertext.count)
        bytes.append(self.encapsulatedKey)
        bytes.append(self.ciphertext)
        return bytes
    }
}
