/// One encoded password hash in the PHC string format, parsed and bounds-checked.
///
/// `$pbkdf2-sha256$i=<iterations>$<salt>$<hash>` and `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>`,
/// salt and hash in unpadded standard base64. Parsing refuses anything else with a typed error
/// and never allocates more than the (bounded) string's size.
struct PasswordHashRecord: Sendable {
    /// The cost parameters of one algorithm.
    enum Parameters: Hashable, Sendable {
        case pbkdf2(iterations: Int)
        case scrypt(logN: Int, blockSize: Int, parallelism: Int)

        var algorithm: PasswordHasher.Algorithm {
            switch self {
            case .pbkdf2: return .pbkdf2SHA256
            case .scrypt: return .scrypt
            }
        }

        /// Whether the parameters are sane at all; outside these bounds a string is malformed.
        var isWithinBounds: Bool {
            switch self {
            case .pbkdf2(let iterations):
                return PasswordHashRecord.iterationRange.contains(iterations)
            case .scrypt(let logN, let blockSize, let parallelism):
                // RFC 7914 requires N < 2^(128·r/8), i.e. log2(N) < 16·r.
                return PasswordHashRecord.logNRange.contains(logN)
                    && PasswordHashRecord.blockSizeRange.contains(blockSize)
                    && PasswordHashRecord.parallelismRange.contains(parallelism)
                    && logN < 16 * blockSize
            }
        }

        /// Whether the work asked for is within `limits`. Call only when ``isWithinBounds``.
        func isWithin(_ limits: PasswordHasher.Limits) -> Bool {
            switch self {
            case .pbkdf2(let iterations):
                return iterations <= limits.maximumPBKDF2Iterations
            case .scrypt(let logN, let blockSize, let parallelism):
                // Bounded above (2^24 · 16 · 16 · 128 = 2^39), so this cannot overflow.
                return (128 << logN) * blockSize * parallelism <= limits.maximumScryptMemoryBytes
            }
        }

        /// The PHC parameter field.
        var encoded: String {
            switch self {
            case .pbkdf2(let iterations):
                return "i=\(iterations)"
            case .scrypt(let logN, let blockSize, let parallelism):
                return "ln=\(logN),r=\(blockSize),p=\(parallelism)"
            }
        }
    }

    static let maximumEncodedLength = 256
    static let byteCountRange = 16...64
    static let iterationRange = 1...100_000_000
    static let logNRange = 1...24
    static let blockSizeRange = 1...16
    static let parallelismRange = 1...16

    let parameters: Parameters
    let salt: [UInt8]
    let hash: [UInt8]

    init(parameters: Parameters, salt: [UInt8], hash: [UInt8]) {
        self.parameters = parameters
        self.salt = salt
        self.hash = hash
    }

    /// The PHC string.
    var encoded: String {
        "$\(self.parameters.algorithm)$\(self.parameters.encoded)$\(PHCBase64.encode(self.salt))$\(PHCBase64.encode(self.hash))"
    }

    /// Parses `encoded`, checking structure and absolute bounds (not the configured limits).
    init(parsing encoded: String) throws(SecureCryptoError) {
        guard encoded.utf8.count <= Self.maximumEncodedLength else {
            throw Self.malformed("longer than \(Self.maximumEncodedLength) bytes")
        }
        let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count >= 2, fields[0].isEmpty else {
            throw Self.malformed("does not start with `$<algorithm>`")
        }
        guard let algorithm = PasswordHasher.Algorithm(identifier: fields[1]) else {
            if Self.isPHCIdentifier(fields[1]) {
                throw SecureCryptoError(
                    .unsupportedAlgorithm,
                    "password hash algorithm `\(fields[1])` is not supported"
                )
            }
            throw Self.malformed("the algorithm identifier is not a PHC identifier")
        }
        guard fields.count == 5 else {
            throw Self.malformed("expected `$\(algorithm)$<parameters>$<salt>$<hash>`")
        }

        let parameters = try Self.parseParameters(fields[2], for: algorithm)
        guard parameters.isWithinBounds else {
            throw Self.malformed("\(algorithm) parameters are out of range")
        }
        guard let salt = PHCBase64.decode(fields[3]), Self.byteCountRange.contains(salt.count) else {
            throw Self.malformed("the salt is not 16…64 bytes of unpadded base64")
        }
        guard let hash = PHCBase64.decode(fields[4]), Self.byteCountRange.contains(hash.count) else {
            throw Self.malformed("the hash is not 16…64 bytes of unpadded base64")
        }
        self.init(parameters: parameters, salt: salt, hash: hash)
    }

    /// Refuses the record if it asks for more work than `limits` allow.
    func check(_ limits: PasswordHasher.Limits) throws(SecureCryptoError) {
        guard self.parameters.isWithin(limits) else {
            throw SecureCryptoError(
                .excessiveCost,
                "the stored \(self.parameters.algorithm) cost is above the configured limits"
            )
        }
    }

    private static func parseParameters(
        _ field: Substring,
        for algorithm: PasswordHasher.Algorithm
    ) throws(SecureCryptoError) -> Parameters {
        let pairs = field.split(separator: ",", omittingEmptySubsequences: false)
        if algorithm == .pbkdf2SHA256 {
            guard pairs.count == 1, let iterations = Self.value(of: "i", in: pairs[0]) else {
                throw Self.malformed("expected `i=<iterations>`")
            }
            return .pbkdf2(iterations: iterations)
        }
        guard pairs.count == 3,
            let logN = Self.value(of: "ln", in: pairs[0]),
            let blockSize = Self.value(of: "r", in: pairs[1]),
            let parallelism = Self.value(of: "p", in: pairs[2])
        else {
            throw Self.malformed("expected `ln=<log2 N>,r=<block size>,p=<parallelism>`")
        }
        return .scrypt(logN: logN, blockSize: blockSize, parallelism: parallelism)
    }

    /// The decimal value of `name=<digits>`: ASCII digits, no sign, no leading zero, at most nine
    /// digits (so the value fits any `Int` and is bounded before it is used).
    private static func value(of name: String, in pair: Substring) -> Int? {
        let prefix = name + "="
        guard pair.hasPrefix(prefix) else { return nil }
        let digits = pair.utf8.dropFirst(prefix.utf8.count)
        guard (1...9).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        guard digits.count == 1 || digits.first != 0x30 else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `[a-z0-9-]{1,32}`, the PHC identifier syntax.
    private static func isPHCIdentifier(_ field: Substring) -> Bool {
        (1...32).contains(field.utf8.count)
            && field.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }

    private static func malformed(_ reason: String) -> SecureCryptoError {
        SecureCryptoError(.malformedHash, "malformed password hash: \(reason)")
    }
}
