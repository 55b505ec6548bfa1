import SecureCrypto
import Testing

@Suite("Password hash encodings")
struct PasswordHashEncodingTests {
    static let salt = "AAECAwQFBgcICQoLDA0ODw"  // 16 bytes
    static let hash = "orGPHwfislCfwUXNnxHgBhByfcbEoMLw/gzIuxaVfrc"  // 32 bytes

    struct Case: CustomTestStringConvertible, Sendable {
        let encoded: String
        let code: SecureCryptoError.Code
        let why: String
        var testDescription: String { self.why }
    }

    static let cases: [Case] = [
        Case(encoded: "", code: .malformedHash, why: "empty"),
        Case(encoded: "pbkdf2-sha256$i=1000$\(salt)$\(hash)", code: .malformedHash, why: "no leading $"),
        Case(encoded: "$", code: .malformedHash, why: "no algorithm"),
        Case(encoded: "$PBKDF2-SHA256$i=1000$\(salt)$\(hash)", code: .malformedHash, why: "identifier not PHC syntax"),
        Case(encoded: "$argon2id$v=19$m=65536,t=3,p=4$\(salt)$\(hash)", code: .unsupportedAlgorithm, why: "argon2id"),
        Case(encoded: "$pbkdf2-sha512$i=1000$\(salt)$\(hash)", code: .unsupportedAlgorithm, why: "pbkdf2-sha512"),
        Case(
            encoded: "$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
            code: .unsupportedAlgorithm,
            why: "bcrypt"
        ),
        Case(encoded: "$pbkdf2-sha256$i=1000$\(salt)", code: .malformedHash, why: "missing hash"),
        Case(encoded: "$pbkdf2-sha256$i=1000", code: .malformedHash, why: "missing salt and hash"),
        Case(encoded: "$pbkdf2-sha256$i=1000$\(salt)$\(hash)$", code: .malformedHash, why: "extra field"),
        Case(encoded: "$pbkdf2-sha256$$\(salt)$\(hash)", code: .malformedHash, why: "empty parameters"),
        Case(encoded: "$pbkdf2-sha256$1000$\(salt)$\(hash)", code: .malformedHash, why: "passlib-style bare count"),
        Case(encoded: "$pbkdf2-sha256$i=0$\(salt)$\(hash)", code: .malformedHash, why: "zero iterations"),
        Case(encoded: "$pbkdf2-sha256$i=100000001$\(salt)$\(hash)", code: .malformedHash, why: "iterations above 10^8"),
        Case(
            encoded: "$pbkdf2-sha256$i=99999999999999999999$\(salt)$\(hash)",
            code: .malformedHash,
            why: "iterations overflow Int"
        ),
        Case(encoded: "$pbkdf2-sha256$i=-1000$\(salt)$\(hash)", code: .malformedHash, why: "negative iterations"),
        Case(encoded: "$pbkdf2-sha256$i=+1000$\(salt)$\(hash)", code: .malformedHash, why: "signed iterations"),
        Case(encoded: "$pbkdf2-sha256$i=01000$\(salt)$\(hash)", code: .malformedHash, why: "leading zero"),
        Case(encoded: "$pbkdf2-sha256$i=1e3$\(salt)$\(hash)", code: .malformedHash, why: "not decimal"),
        Case(encoded: "$pbkdf2-sha256$i=١٠٠٠$\(salt)$\(hash)", code: .malformedHash, why: "non-ASCII digits"),
        Case(encoded: "$pbkdf2-sha256$rounds=1000$\(salt)$\(hash)", code: .malformedHash, why: "wrong parameter name"),
        Case(encoded: "$pbkdf2-sha256$i=1000,i=2000$\(salt)$\(hash)", code: .malformedHash, why: "repeated parameter"),
        Case(encoded: "$scrypt$ln=25,r=8,p=1$\(salt)$\(hash)", code: .malformedHash, why: "ln above 24"),
        Case(encoded: "$scrypt$ln=0,r=8,p=1$\(salt)$\(hash)", code: .malformedHash, why: "ln zero"),
        Case(encoded: "$scrypt$ln=17,r=0,p=1$\(salt)$\(hash)", code: .malformedHash, why: "r zero"),
        Case(encoded: "$scrypt$ln=17,r=17,p=1$\(salt)$\(hash)", code: .malformedHash, why: "r above 16"),
        Case(encoded: "$scrypt$ln=17,r=8,p=0$\(salt)$\(hash)", code: .malformedHash, why: "p zero"),
        Case(encoded: "$scrypt$ln=17,r=8,p=17$\(salt)$\(hash)", code: .malformedHash, why: "p above 16"),
        Case(encoded: "$scrypt$ln=16,r=1,p=1$\(salt)$\(hash)", code: .malformedHash, why: "N not below 2^(16r)"),
        Case(encoded: "$scrypt$r=8,ln=17,p=1$\(salt)$\(hash)", code: .malformedHash, why: "parameters out of order"),
        Case(encoded: "$scrypt$ln=17,r=8$\(salt)$\(hash)", code: .malformedHash, why: "missing p"),
        Case(encoded: "$scrypt$ln=17,r=8,p=1,x=1$\(salt)$\(hash)", code: .malformedHash, why: "extra parameter"),
        Case(encoded: "$scrypt$i=1000$\(salt)$\(hash)", code: .malformedHash, why: "PBKDF2 parameters for scrypt"),
        Case(encoded: "$pbkdf2-sha256$i=1000$AAECAwQFBgcICQoLDA0O$\(hash)", code: .malformedHash, why: "15-byte salt"),
        Case(encoded: "$pbkdf2-sha256$i=1000$\(salt)$AAECAwQFBgcICQoLDA0O", code: .malformedHash, why: "15-byte hash"),
        Case(encoded: "$pbkdf2-sha256$i=1000$$\(hash)", code: .malformedHash, why: "empty salt"),
        Case(encoded: "$pbkdf2-sha256$i=1000$\(salt)$", code: .malformedHash, why: "empty hash"),
        Case(encoded: "$pbkdf2-sha256$i=1000$\(salt)==$\(hash)", code: .malformedHash, why: "padded salt"),
        Case(
            encoded: "$pbkdf2-sha256$i=1000$AAECAwQFBgcICQoLDA0ODx$\(hash)",
            code: .malformedHash,
            why: "non-zero trailing bits"
        ),
        Case(
            encoded: "$pbkdf2-sha256$i=1000$AAECAwQFBgcICQoLDA0OD$\(hash)",
            code: .malformedHash,
            why: "length 1 mod 4"
        ),
        Case(
            encoded: "$pbkdf2-sha256$i=1000$AAECAwQF-gcICQoLDA0ODw$\(hash)",
            code: .malformedHash,
            why: "base64url character"
        ),
        Case(
            encoded: "$pbkdf2-sha256$i=1000$AAECAwQF.gcICQoLDA0ODw$\(hash)",
            code: .malformedHash,
            why: "passlib ab64 character"
        ),
        Case(
            encoded: "$pbkdf2-sha256$i=1000$AAEC AwQFBgcICQoLDA0ODw$\(hash)",
            code: .malformedHash,
            why: "space in base64"
        ),
        Case(
            encoded: "$pbkdf2-sha256$i=1000$\(String(repeating: "A", count: 88))$\(hash)",
            code: .malformedHash,
            why: "66-byte salt"
        ),
        Case(
            encoded: "$pbkdf2-sha256$i=1000$\(salt)$\(String(repeating: "A", count: 400))",
            code: .malformedHash,
            why: "over-long string"
        ),
    ]

    @Test(arguments: cases)
    func malformedEncodingsAreTypedErrors(_ testCase: Case) throws {
        let hasher = try PasswordHasher()
        #expect(errorCode { try hasher.verify("password", against: testCase.encoded) } == testCase.code)
        #expect(errorCode { try hasher.needsRehash(testCase.encoded) } == testCase.code)
    }

    /// Parameters inside the absolute bounds but far above the limits. Run, any of these would take
    /// minutes to hours or up to 512 GiB; the one-minute limit shows none is attempted.
    @Test(
        .timeLimit(.minutes(1)),
        arguments: [
            "$pbkdf2-sha256$i=100000000$\(PasswordHashEncodingTests.salt)$\(PasswordHashEncodingTests.hash)",
            "$pbkdf2-sha256$i=5000001$\(PasswordHashEncodingTests.salt)$\(PasswordHashEncodingTests.hash)",
            "$scrypt$ln=24,r=16,p=16$\(PasswordHashEncodingTests.salt)$\(PasswordHashEncodingTests.hash)",
            "$scrypt$ln=24,r=8,p=1$\(PasswordHashEncodingTests.salt)$\(PasswordHashEncodingTests.hash)",
            "$scrypt$ln=18,r=8,p=2$\(PasswordHashEncodingTests.salt)$\(PasswordHashEncodingTests.hash)",
        ]
    )
    func hostileParametersAreRefusedBeforeAnyWork(encoded: String) throws {
        let hasher = try PasswordHasher()
        #expect(errorCode { try hasher.verify("password", against: encoded) } == .excessiveCost)
        #expect(errorCode { try hasher.needsRehash(encoded) } == .excessiveCost)
    }

    /// The extremes of the accepted ranges are ones swift-crypto's scrypt accepts too: they
    /// verify to `false` against an unrelated hash instead of failing inside the library.
    @Test(arguments: ["ln=15,r=1,p=1", "ln=1,r=1,p=16", "ln=10,r=16,p=1", "ln=1,r=16,p=16", "ln=4,r=1,p=2"])
    func extremeButAcceptedScryptParametersDerive(parameters: String) throws {
        let hasher = try PasswordHasher()
        #expect(try hasher.verify("pw", against: "$scrypt$\(parameters)$\(Self.salt)$\(Self.hash)") == false)
    }

    @Test func limitsAreAdjustable() throws {
        let strict = PasswordHasher.Configuration(
            algorithm: .pbkdf2SHA256,
            pbkdf2Iterations: 1_000,
            limits: PasswordHasher.Limits(maximumPBKDF2Iterations: 1_000, maximumScryptMemoryBytes: 1 << 20)
        )
        let hasher = try PasswordHasher(configuration: strict)
        #expect(
            errorCode { try hasher.verify("pw", against: "$pbkdf2-sha256$i=1001$\(Self.salt)$\(Self.hash)") }
                == .excessiveCost
        )
        #expect(
            errorCode { try hasher.verify("pw", against: "$scrypt$ln=11,r=8,p=1$\(Self.salt)$\(Self.hash)") }
                == .excessiveCost
        )
        #expect(try hasher.verify("pw", against: "$scrypt$ln=10,r=8,p=1$\(Self.salt)$\(Self.hash)") == false)
    }

    @Test func appendedOrPrefixedTextIsNotIgnored() throws {
        let hasher = try PasswordHasher(configuration: CheapConfiguration.pbkdf2)
        let encoded = try hasher.hash("pw")
        #expect(try hasher.verify("pw", against: encoded))
        // One more character is a 33-byte hash, well formed: the password's 33-byte PBKDF2 output
        // is the 32 bytes plus the first byte of the next block, which matches the appended
        // character's byte (0 for "A", 1 for "B") once in 256 salts. The appended text is read,
        // not ignored, when the two cannot both verify. (Asserting "A" alone failed 1 run in 256.)
        let withA = try hasher.verify("pw", against: encoded + "A")
        let withB = try hasher.verify("pw", against: encoded + "B")
        #expect(!(withA && withB))
        #expect(errorCode { try hasher.verify("pw", against: encoded + "AA") } == .malformedHash)
        #expect(errorCode { try hasher.verify("pw", against: " " + encoded) } == .malformedHash)
    }
}
