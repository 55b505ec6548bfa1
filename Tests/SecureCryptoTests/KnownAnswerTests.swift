import Crypto
import Foundation
import SecureCrypto
import Testing
import _CryptoExtras

/// Published test vectors, run against swift-crypto and through SecureCrypto's own API.
///
/// Every expected value below was also recomputed independently with Python 3 (`hashlib`,
/// `hmac`, and the `cryptography` 48 package) before it was written here.
@Suite("Known-answer vectors")
struct KnownAnswerTests {
    private static func pbkdf2(_ password: String, _ salt: String, _ rounds: Int, _ count: Int) throws -> [UInt8] {
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8),
            salt: Array(salt.utf8),
            using: .sha256,
            outputByteCount: count,
            unsafeUncheckedRounds: rounds
        )
        return key.withUnsafeBytes { Array($0) }
    }

    private static func scrypt(_ password: String, _ salt: String, n: Int, r: Int, p: Int) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8),
            salt: Array(salt.utf8),
            outputByteCount: 64,
            rounds: n,
            blockSize: r,
            parallelism: p
        )
        return key.withUnsafeBytes { Array($0) }
    }

    // RFC 7914 §11 (PBKDF2-HMAC-SHA256).
    @Test func pbkdf2OneIteration() throws {
        let expected = hex(
            """
            55 ac 04 6e 56 e3 08 9f ec 16 91 c2 25 44 b6 05 f9 41 85 21 6d de 04 65 e6 8b 9d 57 c2 0d ac bc
            49 ca 9c cc f1 79 b6 45 99 16 64 b3 9d 77 ef 31 7c 71 b8 45 b1 e3 0b d5 09 11 20 41 d3 a1 97 83
            """
        )
        #expect(try Self.pbkdf2("passwd", "salt", 1, 64) == expected)
    }

    // RFC 7914 §11 (PBKDF2-HMAC-SHA256).
    @Test func pbkdf2EightyThousandIterations() throws {
        let expected = hex(
            """
            4d dc d8 f6 0b 98 be 21 83 0c ee 5e f2 27 01 f9 64 1a 44 18 d0 4c 04 14 ae ff 08 87 6b 34 ab 56
            a1 d4 25 a1 22 58 33 54 9a db 84 1b 51 c9 b3 17 6a 27 2b de bb a1 d0 78 47 8f 62 b3 97 f3 3c 8d
            """
        )
        #expect(try Self.pbkdf2("Password", "NaCl", 80_000, 64) == expected)
    }

    // RFC 7914 §12, first vector: empty password and salt (also checks that empty inputs are safe).
    @Test func scryptEmptyPasswordAndSalt() throws {
        let expected = hex(
            """
            77 d6 57 62 38 65 7b 20 3b 19 ca 42 c1 8a 04 97 f1 6b 48 44 e3 07 4a e8 df df fa 3f ed e2 14 42
            fc d0 06 9d ed 09 48 f8 32 6a 75 3a 0f c8 1f 17 e8 d3 e0 fb 2e 0d 36 28 cf 35 e2 0c 38 d1 89 06
            """
        )
        #expect(try Self.scrypt("", "", n: 16, r: 1, p: 1) == expected)
    }

    // RFC 7914 §12, second vector.
    @Test func scryptPasswordNaCl() throws {
        let expected = hex(
            """
            fd ba be 1c 9d 34 72 00 78 56 e7 19 0d 01 e9 fe 7c 6a d7 cb c8 23 78 30 e7 73 76 63 4b 37 31 62
            2e af 30 d9 2e 22 a3 88 6f f1 09 27 9d 98 30 da c7 27 af b9 4a 83 ee 6d 83 60 cb df a2 cc 06 40
            """
        )
        #expect(try Self.scrypt("password", "NaCl", n: 1024, r: 8, p: 16) == expected)
    }

    // RFC 7914 §12, third vector (N = 16384, 16 MiB).
    @Test func scryptPleaseLetMeIn() throws {
        let expected = hex(
            """
            70 23 bd cb 3a fd 73 48 46 1c 06 cd 81 fd 38 eb fd a8 fb ba 90 4f 8e 3e a9 b5 43 f6 54 5d a1 f2
            d5 43 29 55 61 3f 0f cf 62 d4 97 05 24 2a 9a f9 e6 1e 85 dc 0d 65 1e 40 df cf 01 7b 45 57 58 87
            """
        )
        #expect(try Self.scrypt("pleaseletmein", "SodiumChloride", n: 16384, r: 8, p: 1) == expected)
    }

    // PHC strings computed with Python hashlib (pbkdf2_hmac, scrypt) and base64 without padding:
    // salt 00 01 … 0f, password "correct horse battery staple ✓" (UTF-8).
    @Test(arguments: [
        "$pbkdf2-sha256$i=1000$AAECAwQFBgcICQoLDA0ODw$orGPHwfislCfwUXNnxHgBhByfcbEoMLw/gzIuxaVfrc",
        "$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0ODw$ptS1ZKP5pgQ/4PRqX83T54+nV8UKeOPx6ECNIBvuCEY",
    ])
    func independentlyComputedPHCStringsVerify(encoded: String) throws {
        let hasher = try PasswordHasher()
        #expect(try hasher.verify("correct horse battery staple ✓", against: encoded))
        #expect(try !hasher.verify("correct horse battery staple", against: encoded))
    }

    // NIST GCM specification (McGrew–Viega), test case 16: AES-256, 96-bit IV, AAD.
    @Test func aesGCMTestCase16() throws {
        let key = SymmetricKey(data: hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"))
        let plaintext = hex(
            """
            d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72
            1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39
            """
        )
        let aad = hex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let nonce = try AES.GCM.Nonce(data: hex("cafebabefacedbaddecaf888"))
        let box = try AES.GCM.seal(plaintext, using: key, nonce: nonce, authenticating: aad)
        #expect(
            Array(box.ciphertext)
                == hex(
                    """
                    522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa
                    8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662
                    """
                )
        )
        #expect(Array(box.tag) == hex("76fc6ece0f4e1768cddf8853bb2d551b"))
    }

    // RFC 8439 §2.8.2: AEAD_CHACHA20_POLY1305.
    @Test func chaChaPolyRFC8439() throws {
        let key = SymmetricKey(data: Array(0x80...0x9F) as [UInt8])
        let nonce = try ChaChaPoly.Nonce(data: hex("070000004041424344454647"))
        let plaintext = Array(
            "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."
                .utf8
        )
        let box = try ChaChaPoly.seal(
            plaintext,
            using: key,
            nonce: nonce,
            authenticating: hex("50515253c0c1c2c3c4c5c6c7")
        )
        #expect(
            Array(box.ciphertext)
                == hex(
                    """
                    d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b
                    1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc
                    3ff4def08e4b7a9de576d26586cec64b6116
                    """
                )
        )
        #expect(Array(box.tag) == hex("1ae10b594f09e26a7e902ecbd0600691"))
    }

    // Envelopes built by Python `cryptography` (AESGCM, ChaCha20Poly1305) in the documented layout:
    // 01 ‖ algorithm ‖ nonce 00…0b ‖ ciphertext ‖ tag, with AAD = header ‖ "record-42", key 40…5f.
    @Test(arguments: [
        "0101000102030405060708090a0b49600d1412e864c2bb32e1ac9884a2dfe6b448670829c327ce4985e62dd4043b2e04a575d22d6525593cd023252d77de2a7c8bfb7d07b5",
        "0102000102030405060708090a0b68163119ec83ecba4f8984d78e56ed19b6428cd35bfc965b0b2a9874de7bcb8f4a71a580d4bee67b53d34c2527844242367cc8ac084932",
    ])
    func independentlySealedEnvelopesOpen(envelope: String) throws {
        let sealer = try Sealer(key: SymmetricKey(data: Array(0x40...0x5F) as [UInt8]))
        let message = try sealer.open(hex(envelope), authenticating: Data("record-42".utf8))
        #expect(String(decoding: message, as: UTF8.self) == "sealed by an independent implementation")
    }

    // RFC 5869 Appendix A.1 (HKDF-SHA256, basic test case).
    @Test func hkdfRFC5869CaseOne() throws {
        let key = try SymmetricKey.deriveHKDFSHA256(
            secret: [UInt8](repeating: 0x0B, count: 22),
            salt: hex("000102030405060708090a0b0c"),
            info: hex("f0f1f2f3f4f5f6f7f8f9"),
            byteCount: 42
        )
        #expect(
            key.withUnsafeBytes { Array($0) }
                == hex(
                    """
                    3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865
                    """
                )
        )
    }
}
