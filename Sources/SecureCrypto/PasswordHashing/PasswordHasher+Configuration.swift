extension PasswordHasher {
    /// A password-hashing algorithm, named as in the PHC string format.
    public struct Algorithm: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case pbkdf2SHA256 = "pbkdf2-sha256"
            case scrypt
        }

        fileprivate let base: Base

        fileprivate init(base: Base) {
            self.base = base
        }

        /// The PHC identifier: `pbkdf2-sha256` or `scrypt`.
        public var description: String { self.base.rawValue }

        /// PBKDF2 with HMAC-SHA256 (RFC 8018), encoded `$pbkdf2-sha256$i=…$salt$hash`.
        public static let pbkdf2SHA256 = Algorithm(base: .pbkdf2SHA256)
        /// scrypt (RFC 7914), encoded `$scrypt$ln=…,r=…,p=…$salt$hash`. Memory-hard.
        public static let scrypt = Algorithm(base: .scrypt)

        /// The algorithm with PHC identifier `identifier`, if supported.
        init?(identifier: Substring) {
            guard let base = Base(rawValue: String(identifier)) else { return nil }
            self.base = base
        }
    }

    /// How much work an encoded hash may ask for before it is refused with
    /// ``SecureCryptoError/Code/excessiveCost``.
    ///
    /// Verification takes its parameters from the stored string, so without limits one hostile or
    /// corrupted record (say `ln=24,r=16,p=16`) could take minutes and gigabytes. The limits are
    /// checked before any work is done.
    public struct Limits: Hashable, Sendable {
        /// The most PBKDF2 iterations accepted. Default 5,000,000 (about 8× the default cost).
        public var maximumPBKDF2Iterations: Int
        /// The most scrypt memory accepted, counted as `128 · N · r · p` bytes (the amount
        /// swift-crypto reserves; it bounds the work as well, since work grows with `N · r · p`).
        /// Default 256 MiB (2× the default cost).
        public var maximumScryptMemoryBytes: Int

        /// Creates limits.
        public init(maximumPBKDF2Iterations: Int = 5_000_000, maximumScryptMemoryBytes: Int = 256 << 20) {
            self.maximumPBKDF2Iterations = maximumPBKDF2Iterations
            self.maximumScryptMemoryBytes = maximumScryptMemoryBytes
        }
    }

    /// The algorithm and cost used for new hashes, and the limits applied to stored ones.
    ///
    /// The defaults follow the OWASP Password Storage Cheat Sheet: PBKDF2-HMAC-SHA256 with
    /// 600,000 iterations, scrypt with N = 2^17, r = 8, p = 1 (128 MiB per hash), 16-byte random
    /// salts and 32-byte hashes.
    public struct Configuration: Hashable, Sendable {
        /// The algorithm for new hashes. Hashes made with another algorithm still verify, and
        /// ``PasswordHasher/needsRehash(_:)`` reports them.
        public var algorithm: Algorithm
        /// PBKDF2 iteration count for new hashes. Default 600,000.
        ///
        /// - Important: Fewer iterations make stolen hashes cheaper to crack. Lower it only in
        ///   tests.
        public var pbkdf2Iterations: Int
        /// scrypt cost as log2(N). Default 17 (N = 131,072).
        ///
        /// - Important: A smaller N makes stolen hashes cheaper to crack. Lower it only in tests.
        public var scryptLogN: Int
        /// scrypt block size r. Default 8.
        public var scryptBlockSize: Int
        /// scrypt parallelism p. Default 1.
        public var scryptParallelism: Int
        /// Bytes of random salt per new hash, 16…64. Default 16.
        public var saltByteCount: Int
        /// Bytes of derived hash, 16…64. Default 32.
        public var hashByteCount: Int
        /// Limits on the parameters a stored hash may ask for.
        public var limits: Limits

        /// Creates a configuration; every parameter defaults to the recommended value.
        public init(
            algorithm: Algorithm,
            pbkdf2Iterations: Int = 600_000,
            scryptLogN: Int = 17,
            scryptBlockSize: Int = 8,
            scryptParallelism: Int = 1,
            saltByteCount: Int = 16,
            hashByteCount: Int = 32,
            limits: Limits = Limits()
        ) {
            self.algorithm = algorithm
            self.pbkdf2Iterations = pbkdf2Iterations
            self.scryptLogN = scryptLogN
            self.scryptBlockSize = scryptBlockSize
            self.scryptParallelism = scryptParallelism
            self.saltByteCount = saltByteCount
            self.hashByteCount = hashByteCount
            self.limits = limits
        }

        /// scrypt, N = 2^17, r = 8, p = 1: memory-hard, 128 MiB per hash. The default.
        public static let scrypt = Configuration(algorithm: .scrypt)

        /// PBKDF2-HMAC-SHA256 with 600,000 iterations: for systems that need a FIPS-approved KDF.
        public static let pbkdf2SHA256 = Configuration(algorithm: .pbkdf2SHA256)

        /// The parameters new hashes are made with.
        var parameters: PasswordHashRecord.Parameters {
            if self.algorithm == .pbkdf2SHA256 {
                return .pbkdf2(iterations: self.pbkdf2Iterations)
            }
            return .scrypt(logN: self.scryptLogN, blockSize: self.scryptBlockSize, parallelism: self.scryptParallelism)
        }

        /// Checks that new hashes made with this configuration would themselves be accepted.
        func validate() throws(SecureCryptoError) {
            guard PasswordHashRecord.byteCountRange.contains(self.saltByteCount),
                PasswordHashRecord.byteCountRange.contains(self.hashByteCount)
            else {
                throw SecureCryptoError(.invalidConfiguration, "salt and hash lengths must be 16…64 bytes")
            }
            guard self.parameters.isWithinBounds else {
                throw SecureCryptoError(.invalidConfiguration, "\(self.algorithm) parameters are out of range")
            }
            guard self.parameters.isWithin(self.limits) else {
                throw SecureCryptoError(.invalidConfiguration, "\(self.algorithm) cost is above the configured limits")
            }
        }
    }
}
