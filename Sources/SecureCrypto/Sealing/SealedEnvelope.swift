public import Foundation

/// The byte layout of a message sealed by ``Sealer``, parsed without any key.
///
/// ```
/// [version: 1 = 0x01][algorithm: 1][nonce: 12][ciphertext: n][tag: 16]
/// ```
///
/// The two header bytes are authenticated too: they are prepended to the caller's associated
/// data, so an envelope cannot be relabelled. A new algorithm or layout gets a new identifier or
/// version, and old envelopes keep opening.
public struct SealedEnvelope: Hashable, Sendable {
    /// The envelope version this library writes and reads.
    public static let currentVersion: UInt8 = 1
    /// Bytes before the nonce: version and algorithm.
    public static let headerByteCount = 2

    /// The layout version, ``currentVersion``.
    public let version: UInt8
    /// The cipher the message was sealed with.
    public let algorithm: Sealer.Algorithm
    /// The random nonce.
    public let nonce: Data
    /// The encrypted message, as long as the plaintext.
    public let ciphertext: Data
    /// The authentication tag.
    public let tag: Data

    /// Parses an envelope's structure. Nothing is decrypted or authenticated.
    ///
    /// - Parameter bytes: The sealed envelope.
    /// - Throws: ``SecureCryptoError/Code/truncated`` if it is shorter than header, nonce and tag;
    ///   ``SecureCryptoError/Code/unsupportedVersion`` for another version byte;
    ///   ``SecureCryptoError/Code/unsupportedAlgorithm`` for an unknown algorithm byte.
    public init(parsing bytes: some DataProtocol) throws(SecureCryptoError) {
        let bytes = Data(bytes)
        guard let version = bytes.first else {
            throw SecureCryptoError(.truncated, "sealed envelope is empty")
        }
        guard version == Self.currentVersion else {
            throw SecureCryptoError(.unsupportedVersion, "sealed envelope version \(version) is not supported")
        }
        guard bytes.count >= Self.headerByteCount else {
            throw SecureCryptoError(.truncated, "sealed envelope ends inside its header")
        }
        let identifier = bytes[bytes.startIndex + 1]
        guard let algorithm = Sealer.Algorithm(knownIdentifier: identifier) else {
            throw SecureCryptoError(
                .unsupportedAlgorithm,
                "sealed envelope algorithm 0x\(String(identifier, radix: 16)) is not supported"
            )
        }
        let minimum = Self.headerByteCount + algorithm.nonceByteCount + algorithm.tagByteCount
        guard bytes.count >= minimum else {
            throw SecureCryptoError(
                .truncated,
                "sealed envelope is \(bytes.count) bytes, shorter than the \(minimum) of its fixed parts"
            )
        }
        let nonceStart = bytes.startIndex + Self.headerByteCount
        let ciphertextStart = nonceStart + algorithm.nonceByteCount
        let tagStart = bytes.endIndex - algorithm.tagByteCount
        self.version = version
        self.algorithm = algorithm
        self.nonce = Data(bytes[nonceStart..<ciphertextStart])
        self.ciphertext = Data(bytes[ciphertextStart..<tagStart])
        self.tag = Data(bytes[tagStart...])
    }

    init(algorithm: Sealer.Algorithm, nonce: Data, ciphertext: Data, tag: Data) {
        self.version = Self.currentVersion
        self.algorithm = algorithm
        self.nonce = nonce
        self.ciphertext = ciphertext
        self.tag = tag
    }

    /// The header bytes, authenticated as a prefix of the associated data.
    var header: Data { Data([self.version, self.algorithm.identifier]) }

    /// The envelope's bytes: header, nonce, ciphertext, tag.
    public var bytes: Data {
        var bytes = self.header
        bytes.reserveCapacity(Self.headerByteCount + self.nonce.count + self.ciphertext.count + self.tag.count)
        bytes.append(self.nonce)
        bytes.append(self.ciphertext)
        bytes.append(self.tag)
        return bytes
    }
}
