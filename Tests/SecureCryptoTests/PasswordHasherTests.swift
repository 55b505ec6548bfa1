import SecureCrypto
import Testing

/// Cheap parameters so the suite stays fast. Production code uses the defaults.
enum CheapConfiguration {
    static let pbkdf2 = PasswordHasher.Configuration(algorithm: .pbkdf2SHA256, pbkdf2Iterations: 1_000)
    static let scrypt = PasswordHasher.Configuration(algorithm: .scrypt, scryptLogN: 10)
}

@Suite("Password hashing")
struct PasswordHasherTests {
    @Test(arguments: [CheapConfiguration.pbkdf2, CheapConfiguration.scrypt])
    func hashThenVerify(configuration: PasswordHasher.Configuration) throws {
        let hasher = try PasswordHasher(configuration: configuration)
        let encoded = try hasher.hash("hunter2 ✓ пароль")
        #expect(try hasher.verify("hunter2 ✓ пароль", against: encoded))
        #expect(try !hasher.verify("hunter2 ✓ пароль ", against: encoded))
        #expect(try !hasher.verify("", against: encoded))
        #expect(try !hasher.needsRehash(encoded))
    }

    @Test func encodingHasThePHCShape() throws {
        let pbkdf2 = try PasswordHasher(configuration: CheapConfiguration.pbkdf2).hash("pw")
        let scrypt = try PasswordHasher(configuration: CheapConfiguration.scrypt).hash("pw")
        let pbkdf2Fields = pbkdf2.split(separator: "$", omittingEmptySubsequences: false)
        let scryptFields = scrypt.split(separator: "$", omittingEmptySubsequences: false)
        #expect(pbkdf2Fields.count == 5 && pbkdf2Fields[1] == "pbkdf2-sha256" && pbkdf2Fields[2] == "i=1000")
        #expect(scryptFields.count == 5 && scryptFields[1] == "scrypt" && scryptFields[2] == "ln=10,r=8,p=1")
        // 16-byte salt → 22 characters, 32-byte hash → 43 characters, no padding.
        #expect(pbkdf2Fields[3].count == 22 && pbkdf2Fields[4].count == 43)
        #expect(scryptFields[3].count == 22 && scryptFields[4].count == 43)
        #expect(!(pbkdf2Fields[3] + pbkdf2Fields[4] + scryptFields[3] + scryptFields[4]).contains("="))
    }

    @Test func saltsAreFreshPerHash() throws {
        let hasher = try PasswordHasher(configuration: CheapConfiguration.pbkdf2)
        let first = try hasher.hash("same password")
        let second = try hasher.hash("same password")
        #expect(first != second)
        #expect(first.split(separator: "$")[2] != second.split(separator: "$")[2])
    }

    @Test func emptyPasswordHashesAndVerifies() throws {
        for configuration in [CheapConfiguration.pbkdf2, CheapConfiguration.scrypt] {
            let hasher = try PasswordHasher(configuration: configuration)
            let encoded = try hasher.hash("")
            #expect(try hasher.verify("", against: encoded))
            #expect(try !hasher.verify("x", against: encoded))
        }
    }

    /// The one run of the default PBKDF2 cost (600,000 iterations): hash and verify, through the
    /// async API so the work never holds one of the cooperative pool's threads.
    @Test func defaultPBKDF2Cost() async throws {
        let hasher = try PasswordHasher(configuration: .pbkdf2SHA256)
        let encoded = try await hasher.hash("correct horse battery staple")
        #expect(encoded.hasPrefix("$pbkdf2-sha256$i=600000$"))
        #expect(try await hasher.verify("correct horse battery staple", against: encoded))
        #expect(try await !hasher.verify("correct horse battery stapler", against: encoded))
    }

    @Test func defaultsAreTheRecommendedCosts() throws {
        let hasher = try PasswordHasher()
        #expect(hasher.configuration.algorithm == .scrypt)
        #expect(hasher.configuration.scryptLogN == 17)
        #expect(hasher.configuration.scryptBlockSize == 8)
        #expect(hasher.configuration.scryptParallelism == 1)
        #expect(PasswordHasher.Configuration.pbkdf2SHA256.pbkdf2Iterations == 600_000)
        #expect(hasher.configuration.saltByteCount == 16)
        #expect(hasher.configuration.hashByteCount == 32)
    }

    @Test func needsRehashWhenWeakerOrAnotherAlgorithm() throws {
        let salt = "AAECAwQFBgcICQoLDA0ODw"
        let hash = "orGPHwfislCfwUXNnxHgBhByfcbEoMLw/gzIuxaVfrc"
        let pbkdf2 = try PasswordHasher(configuration: .pbkdf2SHA256)
        let scrypt = try PasswordHasher(configuration: .scrypt)

        #expect(try pbkdf2.needsRehash("$pbkdf2-sha256$i=599999$\(salt)$\(hash)"))
        #expect(try !pbkdf2.needsRehash("$pbkdf2-sha256$i=600000$\(salt)$\(hash)"))
        #expect(try !pbkdf2.needsRehash("$pbkdf2-sha256$i=1000000$\(salt)$\(hash)"))
        #expect(try pbkdf2.needsRehash("$scrypt$ln=17,r=8,p=1$\(salt)$\(hash)"))

        #expect(try scrypt.needsRehash("$pbkdf2-sha256$i=600000$\(salt)$\(hash)"))
        #expect(try !scrypt.needsRehash("$scrypt$ln=17,r=8,p=1$\(salt)$\(hash)"))
        #expect(try scrypt.needsRehash("$scrypt$ln=16,r=8,p=1$\(salt)$\(hash)"))
        #expect(try scrypt.needsRehash("$scrypt$ln=17,r=4,p=1$\(salt)$\(hash)"))
        #expect(try !scrypt.needsRehash("$scrypt$ln=17,r=8,p=2$\(salt)$\(hash)"))
        // A 16-byte hash is shorter than the configured 32.
        #expect(try scrypt.needsRehash("$scrypt$ln=17,r=8,p=1$\(salt)$\(salt)"))
    }

    @Test func needsRehashAfterTheConfigurationIsRaised() throws {
        let old = try PasswordHasher(configuration: CheapConfiguration.scrypt).hash("pw")
        let raised = try PasswordHasher(configuration: PasswordHasher.Configuration(algorithm: .scrypt, scryptLogN: 11))
        #expect(try raised.needsRehash(old))
        #expect(try raised.verify("pw", against: old))
    }

    @Test func invalidConfigurationsAreRefused() {
        let cases: [PasswordHasher.Configuration] = [
            .init(algorithm: .pbkdf2SHA256, pbkdf2Iterations: 0),
            .init(algorithm: .pbkdf2SHA256, pbkdf2Iterations: 10_000_000),  // above the default limit
            .init(algorithm: .scrypt, scryptLogN: 0),
            .init(algorithm: .scrypt, scryptLogN: 18, scryptParallelism: 2),  // 512 MiB > 256 MiB limit
            .init(algorithm: .scrypt, scryptBlockSize: 0),
            .init(algorithm: .scrypt, saltByteCount: 8),
            .init(algorithm: .scrypt, hashByteCount: 65),
        ]
        for configuration in cases {
            #expect(errorCode { try PasswordHasher(configuration: configuration) } == .invalidConfiguration)
        }
    }

    @Test func aRaisedLimitAdmitsACostlierConfiguration() throws {
        let limits = PasswordHasher.Limits(maximumPBKDF2Iterations: 20_000_000)
        let configuration = PasswordHasher.Configuration(
            algorithm: .pbkdf2SHA256,
            pbkdf2Iterations: 10_000_000,
            limits: limits
        )
        #expect(try PasswordHasher(configuration: configuration).configuration.pbkdf2Iterations == 10_000_000)
    }

    @Test func errorsNeverEchoTheStoredHash() throws {
        let hasher = try PasswordHasher()
        let encoded = "$pbkdf2-sha256$i=0$AAECAwQFBgcICQoLDA0ODw$orGPHwfislCfwUXNnxHgBhByfcbEoMLw/gzIuxaVfrc"
        do {
            _ = try hasher.verify("secret-password", against: encoded)
            Issue.record("a malformed hash verified")
        } catch {
            #expect(error.code == .malformedHash)
            #expect(!error.description.contains("orGPHwfislCf"))
            #expect(!error.description.contains("AAECAwQF"))
            #expect(!error.description.contains("secret-password"))
        }
    }
}
