/// An error from SecureCrypto: password hashing, sealing or end-to-end encryption.
///
/// Errors compare equal when their ``code`` is equal. Messages name what was wrong with the
/// input's shape (a field, a length, a parameter), never a password, a key, a plaintext or a
/// derived hash.
public struct SecureCryptoError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier of what went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case malformedHash, unsupportedAlgorithm, excessiveCost, invalidConfiguration
            case invalidKey, invalidInput, truncated, unsupportedVersion, algorithmNotAllowed
            case authenticationFailed, keyAgreementFailed, internalFailure
        }

        fileprivate let base: Base

        /// The text form of the code, stable across releases.
        public var description: String { self.base.rawValue }

        /// An encoded password hash is not in the expected PHC form (prefix, fields, base64,
        /// parameters out of range, salt or hash too short or too long).
        public static let malformedHash = Code(base: .malformedHash)
        /// The algorithm named by an encoded hash or an envelope is not one this library knows.
        public static let unsupportedAlgorithm = Code(base: .unsupportedAlgorithm)
        /// An encoded hash asks for more work or memory than the configured limits allow.
        /// Refused before any work is done.
        public static let excessiveCost = Code(base: .excessiveCost)
        /// A configuration is inconsistent or outside the supported range.
        public static let invalidConfiguration = Code(base: .invalidConfiguration)
        /// Key bytes, DER or PEM are not a valid key of the expected kind and size.
        public static let invalidKey = Code(base: .invalidKey)
        /// An argument is outside what the operation accepts (an empty context, a bad length).
        public static let invalidInput = Code(base: .invalidInput)
        /// An envelope is shorter than its fixed parts (header, nonce or encapsulated key, tag).
        public static let truncated = Code(base: .truncated)
        /// An envelope's version byte is not one this library reads.
        public static let unsupportedVersion = Code(base: .unsupportedVersion)
        /// An envelope uses a known algorithm that the caller did not allow.
        public static let algorithmNotAllowed = Code(base: .algorithmNotAllowed)
        /// Authenticated decryption failed.
        ///
        /// AES-GCM, ChaCha20-Poly1305 and HPKE cannot tell a wrong key from modified data (a
        /// flipped bit, a cut ciphertext, other associated data): all of them end here.
        public static let authenticationFailed = Code(base: .authenticationFailed)
        /// X25519 key agreement gave a degenerate (all-zero) secret: the peer's key is a
        /// low-order point.
        public static let keyAgreementFailed = Code(base: .keyAgreementFailed)
        /// The underlying cryptographic library failed unexpectedly.
        public static let internalFailure = Code(base: .internalFailure)
    }

    /// What went wrong, as a stable code.
    public let code: Code
    /// A short explanation for people; it never holds a secret.
    public let message: String

    /// Creates an error. Never put a password, key, plaintext or hash in `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(self.code): \(self.message)" }

    /// Errors are equal when their codes are equal; the message is for people.
    public static func == (lhs: SecureCryptoError, rhs: SecureCryptoError) -> Bool {
        lhs.code == rhs.code
    }

    /// Hashes the code only, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.code)
    }
}
