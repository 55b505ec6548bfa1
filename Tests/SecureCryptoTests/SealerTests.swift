import Crypto
import Foundation
import SecureCrypto
import Testing

@Suite("Sealing")
struct SealerTests {
    static let algorithms: [Sealer.Algorithm] = [.aesGCM256, .chaChaPoly]
    static let key = SymmetricKey(data: deterministicBytes(32, seed: 1))

    static func sealer(_ algorithm: Sealer.Algorithm) throws -> Sealer {
        try Sealer(key: Self.key, algorithm: algorithm)
    }

    @Test(arguments: algorithms, [0, 1, 15, 16, 17, 4096, 1 << 20])
    func roundTrip(algorithm: Sealer.Algorithm, size: Int) throws {
        let sealer = try Self.sealer(algorithm)
        let plaintext = Data(deterministicBytes(size, seed: UInt64(size)))
        let envelope = try sealer.seal(plaintext)
        #expect(envelope.count == size + 30)
        #expect(envelope[envelope.startIndex] == SealedEnvelope.currentVersion)
        #expect(envelope[envelope.startIndex + 1] == algorithm.identifier)
        #expect(try sealer.open(envelope) == plaintext)
    }

    @Test(arguments: algorithms)
    func associatedDataMustMatch(algorithm: Sealer.Algorithm) throws {
        let sealer = try Self.sealer(algorithm)
        let envelope = try sealer.seal(Data("message".utf8), authenticating: Data("record-1".utf8))
        #expect(try sealer.open(envelope, authenticating: Data("record-1".utf8)) == Data("message".utf8))
        #expect(errorCode { try sealer.open(envelope, authenticating: Data("record-2".utf8)) } == .authenticationFailed)
        #expect(errorCode { try sealer.open(envelope) } == .authenticationFailed)
    }

    /// Every single-bit change of a 94-byte envelope fails, each with the code its position calls for.
    @Test(arguments: algorithms)
    func everyFlippedBitFails(algorithm: Sealer.Algorithm) throws {
        let sealer = try Self.sealer(algorithm)
        let envelope = try sealer.seal(Data(deterministicBytes(64, seed: 7)))
        #expect(envelope.count == 94)
        for bit in 0..<(envelope.count * 8) {
            let expected: SecureCryptoError.Code =
                switch bit / 8 {
                case 0: .unsupportedVersion
                case 1: .unsupportedAlgorithm
                default: .authenticationFailed
                }
            let code = errorCode { try sealer.open(flippingBit(bit, of: envelope)) }
            #expect(code == expected, "bit \(bit)")
        }
    }

    @Test(arguments: algorithms)
    func everyTruncationFails(algorithm: Sealer.Algorithm) throws {
        let sealer = try Self.sealer(algorithm)
        let envelope = try sealer.seal(Data(deterministicBytes(64, seed: 8)))
        for length in 0..<envelope.count {
            // Shorter than header + nonce + tag is structural; a cut ciphertext only fails the tag.
            let expected: SecureCryptoError.Code = length < 30 ? .truncated : .authenticationFailed
            #expect(errorCode { try sealer.open(envelope.prefix(length)) } == expected, "length \(length)")
        }
    }

    @Test(arguments: algorithms)
    func wrongKeyFails(algorithm: Sealer.Algorithm) throws {
        let envelope = try Self.sealer(algorithm).seal(Data("message".utf8))
        let other = try Sealer(key: SymmetricKey(size: .bits256), algorithm: algorithm)
        #expect(errorCode { try other.open(envelope) } == .authenticationFailed)
    }

    @Test func unknownVersionAndAlgorithm() throws {
        let sealer = try Self.sealer(.aesGCM256)
        var envelope = try sealer.seal(Data("message".utf8))
        envelope[envelope.startIndex] = 2
        #expect(errorCode { try sealer.open(envelope) } == .unsupportedVersion)
        envelope[envelope.startIndex] = 0
        #expect(errorCode { try sealer.open(envelope) } == .unsupportedVersion)
        envelope[envelope.startIndex] = 1
        envelope[envelope.startIndex + 1] = 3
        #expect(errorCode { try sealer.open(envelope) } == .unsupportedAlgorithm)
        #expect(errorCode { try sealer.open(Data([2])) } == .unsupportedVersion)
        #expect(errorCode { try sealer.open(Data([1, 0xFF])) } == .unsupportedAlgorithm)
    }

    /// The header is authenticated: relabelling an AES-GCM envelope as ChaCha20-Poly1305 fails.
    @Test func relabelledAlgorithmFails() throws {
        let sealer = try Self.sealer(.aesGCM256)
        var envelope = try sealer.seal(Data("message".utf8))
        envelope[envelope.startIndex + 1] = Sealer.Algorithm.chaChaPoly.identifier
        #expect(errorCode { try sealer.open(envelope) } == .authenticationFailed)
    }

    @Test func onlyAllowedAlgorithmsOpen() throws {
        let chaCha = try Self.sealer(.chaChaPoly).seal(Data("message".utf8))
        let aesOnly = try Sealer(key: Self.key, algorithm: .aesGCM256, allowing: [.aesGCM256])
        #expect(errorCode { try aesOnly.open(chaCha) } == .algorithmNotAllowed)
        let both = try Sealer(key: Self.key)
        #expect(try both.open(chaCha) == Data("message".utf8))
        #expect(both.allowedAlgorithms == Sealer.Algorithm.all)
    }

    @Test func keysMustBe256Bits() {
        #expect(errorCode { try Sealer(key: SymmetricKey(size: .bits128)) } == .invalidKey)
        #expect(errorCode { try Sealer(key: SymmetricKey(size: .bits192)) } == .invalidKey)
        #expect(errorCode { try Sealer(key: SymmetricKey(size: .bits256), allowing: []) } == .invalidConfiguration)
        #expect(
            errorCode { try Sealer(key: SymmetricKey(size: .bits256), algorithm: .chaChaPoly, allowing: [.aesGCM256]) }
                == .invalidConfiguration
        )
    }

    @Test func noncesAreFreshPerSeal() throws {
        let sealer = try Self.sealer(.chaChaPoly)
        let first = try SealedEnvelope(parsing: sealer.seal(Data("same".utf8)))
        let second = try SealedEnvelope(parsing: sealer.seal(Data("same".utf8)))
        #expect(first.nonce != second.nonce)
        #expect(first.ciphertext != second.ciphertext)
    }

    @Test func envelopeParsesIntoItsParts() throws {
        let envelope = try Self.sealer(.chaChaPoly).seal(Data(deterministicBytes(5, seed: 3)))
        let parsed = try SealedEnvelope(parsing: envelope)
        #expect(parsed.version == 1)
        #expect(parsed.algorithm == .chaChaPoly)
        #expect(parsed.nonce.count == 12 && parsed.ciphertext.count == 5 && parsed.tag.count == 16)
        #expect(parsed.bytes == envelope)
        #expect(Sealer.Algorithm(knownIdentifier: 0x01) == .aesGCM256)
        #expect(Sealer.Algorithm(knownIdentifier: 0x00) == nil)
    }

    @Test func descriptionsHideTheKey() throws {
        let keyBytes = deterministicBytes(32, seed: 1)
        let sealer = try Sealer(key: SymmetricKey(data: keyBytes))
        var dumped = ""
        dump(sealer, to: &dumped)
        let keyHex = keyBytes.map { String($0, radix: 16) }.joined()
        for text in [String(describing: sealer), String(reflecting: sealer), dumped] {
            #expect(!text.contains(keyHex))
            #expect(!text.contains(String(describing: keyBytes)))
        }
        #expect(String(describing: sealer) == "Sealer(AES-256-GCM, opens: AES-256-GCM, ChaCha20-Poly1305)")
    }
}

@Suite("HKDF key derivation")
struct HKDFTests {
    @Test func infoAndSaltSeparateKeys() throws {
        let secret = deterministicBytes(32, seed: 11)
        let a = try SymmetricKey.deriveHKDFSHA256(secret: secret, salt: [UInt8](), info: Data("a".utf8))
        let b = try SymmetricKey.deriveHKDFSHA256(secret: secret, salt: [UInt8](), info: Data("b".utf8))
        let salted = try SymmetricKey.deriveHKDFSHA256(secret: secret, salt: [1], info: Data("a".utf8))
        let again = try SymmetricKey.deriveHKDFSHA256(secret: secret, salt: [UInt8](), info: Data("a".utf8))
        #expect(a != b && a != salted && a == again)
        #expect(a.bitCount == 256)
    }

    @Test func inputsAreChecked() {
        #expect(
            errorCode {
                try SymmetricKey.deriveHKDFSHA256(
                    secret: [UInt8](repeating: 1, count: 15),
                    salt: [UInt8](),
                    info: [UInt8]()
                )
            } == .invalidKey
        )
        #expect(
            errorCode {
                try SymmetricKey.deriveHKDFSHA256(
                    secret: [UInt8](repeating: 1, count: 32),
                    salt: [UInt8](),
                    info: [UInt8](),
                    byteCount: 15
                )
            } == .invalidInput
        )
        #expect(
            errorCode {
                try SymmetricKey.deriveHKDFSHA256(
                    secret: [UInt8](repeating: 1, count: 32),
                    salt: [UInt8](),
                    info: [UInt8](),
                    byteCount: 8161
                )
            } == .invalidInput
        )
    }
}
