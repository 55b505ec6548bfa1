public import Crypto
public import Foundation

/// Seals and opens messages with a 256-bit symmetric key: AES-256-GCM or ChaCha20-Poly1305,
/// random nonces, optional associated data, in a versioned ``SealedEnvelope``.
///
/// ```swift
/// let sealer = try Sealer(key: SymmetricKey(size: .bits256))
/// let envelope = try sealer.seal(Data("hello".utf8), authenticating: Data("record-42".utf8))
/// let message = try sealer.open(envelope, authenticating: Data("record-42".utf8))
/// ```
///
/// - Important: Nonces are 96 random bits, so seal at most 2^32 messages under one key (the
///   NIST SP 800-38D bound for random nonces). Derive separate keys per purpose with
///   `SymmetricKey.deriveHKDFSHA256(secret:salt:info:byteCount:)`.
public struct Sealer: Sendable {
    /// The algorithm ``seal(_:authenticating:)`` uses.
    public let algorithm: Algorithm
    /// The algorithms ``open(_:authenticating:)`` accepts; an envelope naming another is refused
    /// before any decryption.
    public let allowedAlgorithms: Set<Algorithm>
    private let key: SymmetricKey

    /// Creates a sealer.
    ///
    /// - Parameters:
    ///   - key: A 256-bit key.
    ///   - algorithm: The cipher for new envelopes. Default AES-256-GCM.
    ///   - allowedAlgorithms: The ciphers accepted when opening. Default both.
    /// - Throws: ``SecureCryptoError/Code/invalidKey`` if the key is not 256 bits;
    ///   ``SecureCryptoError/Code/invalidConfiguration`` if `allowedAlgorithms` does not
    ///   contain `algorithm` (the sealer could not open its own envelopes).
    public init(
        key: SymmetricKey,
        algorithm: Algorithm = .aesGCM256,
        allowing allowedAlgorithms: Set<Algorithm> = Algorithm.all
    ) throws(SecureCryptoError) {
        guard key.bitCount == 256 else {
            throw SecureCryptoError(.invalidKey, "sealing keys are 256 bits, not \(key.bitCount)")
        }
        guard allowedAlgorithms.contains(algorithm) else {
            throw SecureCryptoError(.invalidConfiguration, "\(algorithm) seals but is not allowed for opening")
        }
        self.key = key
        self.algorithm = algorithm
        self.allowedAlgorithms = allowedAlgorithms
    }

    /// Encrypts and authenticates `plaintext`, and authenticates `associatedData` without
    /// storing it.
    ///
    /// - Parameters:
    ///   - plaintext: The message.
    ///   - associatedData: Context that must match when opening (a record id, a header). It is
    ///     not in the envelope.
    /// - Returns: The envelope bytes (``SealedEnvelope/bytes``), 30 bytes longer than the message.
    /// - Throws: ``SecureCryptoError/Code/internalFailure`` if the cipher fails.
    public func seal(
        _ plaintext: some DataProtocol,
        authenticating associatedData: some DataProtocol = Data()
    ) throws(SecureCryptoError) -> Data {
        let header = Data([SealedEnvelope.currentVersion, self.algorithm.identifier])
        let authenticated = header + Data(associatedData)
        let envelope: SealedEnvelope
        do {
            if self.algorithm == .chaChaPoly {
                let box = try ChaChaPoly.seal(
                    plaintext,
                    using: self.key,
                    nonce: ChaChaPoly.Nonce(),
                    authenticating: authenticated
                )
                envelope = SealedEnvelope(
                    algorithm: .chaChaPoly,
                    nonce: Data(box.nonce),
                    ciphertext: box.ciphertext,
                    tag: box.tag
                )
            } else {
                let box = try AES.GCM.seal(
                    plaintext,
                    using: self.key,
                    nonce: AES.GCM.Nonce(),
                    authenticating: authenticated
                )
                envelope = SealedEnvelope(
                    algorithm: .aesGCM256,
                    nonce: Data(box.nonce),
                    ciphertext: box.ciphertext,
                    tag: box.tag
                )
            }
        } catch {
            throw SecureCryptoError(.internalFailure, "\(self.algorithm) sealing failed")
        }
        return envelope.bytes
    }

    /// Checks and decrypts an envelope from ``seal(_:authenticating:)``.
    ///
    /// - Parameters:
    ///   - envelope: The envelope bytes.
    ///   - associatedData: The associated data given when sealing.
    /// - Returns: The message.
    /// - Throws: Structural problems first, without touching the key:
    ///   ``SecureCryptoError/Code/truncated``, ``SecureCryptoError/Code/unsupportedVersion``,
    ///   ``SecureCryptoError/Code/unsupportedAlgorithm``,
    ///   ``SecureCryptoError/Code/algorithmNotAllowed``. Then
    ///   ``SecureCryptoError/Code/authenticationFailed`` for a wrong key, any modified byte, a
    ///   cut ciphertext or other associated data: the ciphers cannot tell these apart.
    public func open(
        _ envelope: some DataProtocol,
        authenticating associatedData: some DataProtocol = Data()
    ) throws(SecureCryptoError) -> Data {
        let parsed = try SealedEnvelope(parsing: envelope)
        guard self.allowedAlgorithms.contains(parsed.algorithm) else {
            throw SecureCryptoError(
                .algorithmNotAllowed,
                "sealed envelope uses \(parsed.algorithm), which is not allowed here"
            )
        }
        let authenticated = parsed.header + Data(associatedData)
        do {
            if parsed.algorithm == .chaChaPoly {
                let box = try ChaChaPoly.SealedBox(
                    nonce: ChaChaPoly.Nonce(data: parsed.nonce),
                    ciphertext: parsed.ciphertext,
                    tag: parsed.tag
                )
                return try ChaChaPoly.open(box, using: self.key, authenticating: authenticated)
            }
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: parsed.nonce),
                ciphertext: parsed.ciphertext,
                tag: parsed.tag
            )
            return try AES.GCM.open(box, using: self.key, authenticating: authenticated)
        } catch {
            throw SecureCryptoError(
                .authenticationFailed,
                "sealed envelope failed authentication (wrong key, modified data or other associated data)"
            )
        }
    }
}

extension Sealer: CustomStringConvertible, CustomReflectable {
    /// Names the algorithms; never the key.
    public var description: String {
        "Sealer(\(self.algorithm), opens: \(self.allowedAlgorithms.map(\.description).sorted().joined(separator: ", ")))"
    }

    /// Hides the key from `dump` and debuggers' mirrors.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["algorithm": self.algorithm, "allowedAlgorithms": self.allowedAlgorithms],
            displayStyle: .struct
        )
    }
}
