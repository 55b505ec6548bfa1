internal import Crypto
import Dispatch
internal import _CryptoExtras

/// Hashes passwords for storage and verifies them, with PBKDF2-HMAC-SHA256 or scrypt.
///
/// Hashes are self-describing PHC strings, so the algorithm and cost can change while old
/// hashes keep verifying:
///
/// ```swift
/// let hasher = try PasswordHasher()                        // scrypt, N = 2^17, r = 8, p = 1
/// let stored = try hasher.hash("correct horse")            // "$scrypt$ln=17,r=8,p=1$…$…"
/// if try hasher.verify("correct horse", against: stored) {
///     if try hasher.needsRehash(stored) { /* store try hasher.hash(password) */ }
/// }
/// ```
///
/// Passwords are hashed as their UTF-8 bytes, unnormalised; normalise first (for example to
/// NFC) if the same password can reach you in different Unicode forms. Each call costs on the
/// order of a hundred milliseconds by design: keep it off the main actor and event loops. From
/// async code, the `async` overloads run the work on threads of their own, so a hash never
/// holds one of the few threads of Swift's cooperative pool (whose width is the core count)
/// that every other task of the process needs.
public struct PasswordHasher: Sendable {
    /// The algorithm and cost for new hashes and the limits for stored ones.
    public let configuration: Configuration

    /// Creates a hasher.
    ///
    /// - Parameter configuration: The algorithm, cost and limits. Default: scrypt,
    ///   N = 2^17, r = 8, p = 1.
    /// - Throws: ``SecureCryptoError/Code/invalidConfiguration`` if a parameter is out of range
    ///   or above the configuration's own limits.
    public init(configuration: Configuration = .scrypt) throws(SecureCryptoError) {
        try configuration.validate()
        self.configuration = configuration
    }

    /// Hashes `password` with a fresh random salt and returns the PHC string to store.
    ///
    /// - Parameter password: The password; hashed as its UTF-8 bytes.
    /// - Returns: For example `$pbkdf2-sha256$i=600000$<salt>$<hash>`.
    /// - Throws: ``SecureCryptoError/Code/internalFailure`` if the key derivation fails.
    public func hash(_ password: String) throws(SecureCryptoError) -> String {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<self.configuration.saltByteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator)
        }
        let parameters = self.configuration.parameters
        let hash = try Self.derive(
            password: Array(password.utf8),
            salt: salt,
            parameters: parameters,
            byteCount: self.configuration.hashByteCount
        )
        return PasswordHashRecord(parameters: parameters, salt: salt, hash: hash).encoded
    }

    /// Checks `password` against a stored PHC string, comparing hashes in constant time.
    ///
    /// The stored string's own algorithm and parameters are used, so hashes made under an older
    /// configuration still verify. Its parameters are checked against the configured
    /// ``Limits`` before any work is done.
    ///
    /// - Parameters:
    ///   - password: The password to check.
    ///   - encoded: A string from `hash(_:)` (or any conforming PHC string).
    /// - Returns: `true` if the password matches. A wrong password is `false`, not an error.
    /// - Throws: ``SecureCryptoError/Code/malformedHash``,
    ///   ``SecureCryptoError/Code/unsupportedAlgorithm`` or
    ///   ``SecureCryptoError/Code/excessiveCost`` for a stored string that cannot be used.
    public func verify(_ password: String, against encoded: String) throws(SecureCryptoError) -> Bool {
        let record = try PasswordHashRecord(parsing: encoded)
        try record.check(self.configuration.limits)
        let candidate = try Self.derive(
            password: Array(password.utf8),
            salt: record.salt,
            parameters: record.parameters,
            byteCount: record.hash.count
        )
        return ConstantTime.equals(candidate, record.hash)
    }

    /// Hashes `password` like ``hash(_:)-swift.method``, on a thread outside Swift's cooperative
    /// pool; the calling task waits without holding a thread.
    public func hash(_ password: String) async throws(SecureCryptoError) -> String {
        try await Self.offPool { () throws(SecureCryptoError) in try self.hash(password) }
    }

    /// Checks `password` like ``verify(_:against:)-swift.method``, on a thread outside Swift's
    /// cooperative pool.
    public func verify(_ password: String, against encoded: String) async throws(SecureCryptoError) -> Bool {
        try await Self.offPool { () throws(SecureCryptoError) in try self.verify(password, against: encoded) }
    }

    /// The queue key derivations of async callers run on: concurrent, and not the cooperative
    /// pool, so blocking work there leaves every other task free to run.
    private static let workQueue = DispatchQueue(
        label: "SecureCrypto.PasswordHasher",
        qos: .userInitiated,
        attributes: .concurrent
    )

    private static func offPool<Value: Sendable>(
        _ work: @escaping @Sendable () throws(SecureCryptoError) -> Value
    ) async throws(SecureCryptoError) -> Value {
        let result: Result<Value, SecureCryptoError> = await withCheckedContinuation { continuation in
            Self.workQueue.async {
                do throws(SecureCryptoError) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Whether a stored hash should be replaced by a new `hash(_:)` after the next successful
    /// `verify(_:against:)`.
    ///
    /// - Returns: `true` if it uses another algorithm than the configured one, or any cost
    ///   parameter, its salt or its hash is smaller than configured.
    /// - Throws: The same errors as `verify(_:against:)` for a string that cannot be used.
    public func needsRehash(_ encoded: String) throws(SecureCryptoError) -> Bool {
        let record = try PasswordHashRecord(parsing: encoded)
        try record.check(self.configuration.limits)
        if record.salt.count < self.configuration.saltByteCount || record.hash.count < self.configuration.hashByteCount
        {
            return true
        }
        switch (record.parameters, self.configuration.parameters) {
        case (.pbkdf2(let stored), .pbkdf2(let wanted)):
            return stored < wanted
        case (
            .scrypt(let logN, let blockSize, let parallelism),
            .scrypt(let wantedLogN, let wantedBlockSize, let wantedParallelism)
        ):
            return logN < wantedLogN || blockSize < wantedBlockSize || parallelism < wantedParallelism
        default:
            return true
        }
    }

    /// Runs the key derivation. Parameters must already be bounds-checked.
    static func derive(
        password: [UInt8],
        salt: [UInt8],
        parameters: PasswordHashRecord.Parameters,
        byteCount: Int
    ) throws(SecureCryptoError) -> [UInt8] {
        let key: SymmetricKey
        do {
            switch parameters {
            case .pbkdf2(let iterations):
                // The unchecked entry point: the cost floor is this type's configuration, and
                // stored hashes below swift-crypto's 210,000 floor must still verify (then rehash).
                key = try KDF.Insecure.PBKDF2.deriveKey(
                    from: password,
                    salt: salt,
                    using: .sha256,
                    outputByteCount: byteCount,
                    unsafeUncheckedRounds: iterations
                )
            case .scrypt(let logN, let blockSize, let parallelism):
                key = try KDF.Scrypt.deriveKey(
                    from: password,
                    salt: salt,
                    outputByteCount: byteCount,
                    rounds: 1 << logN,
                    blockSize: blockSize,
                    parallelism: parallelism
                )
            }
        } catch {
            throw SecureCryptoError(.internalFailure, "\(parameters.algorithm) key derivation failed")
        }
        return key.withUnsafeBytes { Array($0) }
    }
}
