import Crypto
import Foundation
import SecureCrypto
import Testing
import _CryptoExtras

@Suite("End-to-end keys")
struct E2EKeyTests {
    // RFC 9180 A.2's recipient key, serialised by Python `cryptography` 48
    // (Encoding.DER/PEM, PublicFormat.SubjectPublicKeyInfo, PrivateFormat.PKCS8).
    static let spki = hex("302a300506032b656e032100 4310ee97d88cc1f088a5576c77ab0cf5c3ac797f3d95139c6c84b5429c59662a")
    static let pkcs8 = hex(
        "302e020100300506032b656e04220420 8057991eef8f1f1af18f4a9491d16a1ce333f695d4db8e38da75975c4478e0fb"
    )
    static let publicPEM = """
        -----BEGIN PUBLIC KEY-----
        MCowBQYDK2VuAyEAQxDul9iMwfCIpVdsd6sM9cOseX89lROcbIS1QpxZZio=
        -----END PUBLIC KEY-----

        """
    static let privatePEM = """
        -----BEGIN PRIVATE KEY-----
        MC4CAQAwBQYDK2VuBCIEIIBXmR7vjx8a8Y9KlJHRahzjM/aV1NuOONp1l1xEeOD7
        -----END PRIVATE KEY-----

        """

    @Test func serialisationsMatchAnIndependentEncoder() throws {
        let key = try E2EPrivateKey(rawRepresentation: RFC9180A2.skRm)
        #expect(Array(key.derRepresentation) == Self.pkcs8)
        #expect(Array(key.publicKey.derRepresentation) == Self.spki)
        #expect(key.pemRepresentation == Self.privatePEM)
        #expect(key.publicKey.pemRepresentation == Self.publicPEM)
    }

    @Test func serialisationsMatchSwiftCryptoExtras() throws {
        let key = E2EPrivateKey()
        #expect(key.derRepresentation == key.curve25519Key.derRepresentation)
        // swift-asn1 writes no newline after the END line; OpenSSL and this library do.
        #expect(key.pemRepresentation == key.curve25519Key.pemRepresentation + "\n")
        #expect(key.publicKey.derRepresentation == key.curve25519Key.publicKey.derRepresentation)
        #expect(key.publicKey.pemRepresentation == key.curve25519Key.publicKey.pemRepresentation + "\n")
        let parsedBack = try Curve25519.KeyAgreement.PrivateKey(pemRepresentation: key.pemRepresentation)
        #expect(parsedBack.rawRepresentation == key.rawRepresentation)
    }

    @Test func everyFormRoundTrips() throws {
        let key = E2EPrivateKey()
        let restored = [
            try E2EPrivateKey(rawRepresentation: key.rawRepresentation),
            try E2EPrivateKey(derRepresentation: key.derRepresentation),
            try E2EPrivateKey(pemRepresentation: key.pemRepresentation),
        ]
        for other in restored {
            #expect(other.rawRepresentation == key.rawRepresentation)
        }
        let publicKey = key.publicKey
        #expect(try E2EPublicKey(rawRepresentation: publicKey.rawRepresentation) == publicKey)
        #expect(try E2EPublicKey(derRepresentation: publicKey.derRepresentation) == publicKey)
        #expect(try E2EPublicKey(pemRepresentation: publicKey.pemRepresentation) == publicKey)
        #expect(
            try E2EPublicKey(
                pemRepresentation: publicKey.pemRepresentation.replacingOccurrences(of: "\n", with: "\r\n")
            ) == publicKey
        )
    }

    @Test func malformedKeysAreRefused() {
        let ed25519SPKI = hex("302a300506032b6570032100") + [UInt8](repeating: 9, count: 32)
        let ed25519PKCS8 = hex("302e020100300506032b657004220420") + [UInt8](repeating: 9, count: 32)
        let publicCases: [[UInt8]] = [
            [], Array(Self.spki.dropLast()), Self.spki + [0], ed25519SPKI, Array(Self.spki.suffix(32)),
        ]
        for der in publicCases {
            #expect(errorCode { try E2EPublicKey(derRepresentation: der) } == .invalidKey)
        }
        for der in [[], Array(Self.pkcs8.dropLast()), Self.pkcs8 + [0], ed25519PKCS8, Self.spki] {
            #expect(errorCode { try E2EPrivateKey(derRepresentation: der) } == .invalidKey)
        }
        #expect(errorCode { try E2EPublicKey(rawRepresentation: [UInt8](repeating: 9, count: 31)) } == .invalidKey)
        #expect(errorCode { try E2EPrivateKey(rawRepresentation: [UInt8](repeating: 9, count: 33)) } == .invalidKey)

        let pemCases = [
            "",
            Self.privatePEM,  // wrong label for a public key
            Self.publicPEM.replacingOccurrences(of: "QxDul9", with: "QxDul!"),
            Self.publicPEM.replacingOccurrences(of: "Zio=", with: "Zio"),
            Self.publicPEM.replacingOccurrences(of: "Zio=", with: "Zip="),  // non-zero trailing bits
            "junk\n" + Self.publicPEM,
            String(repeating: " ", count: 2000) + Self.publicPEM,
        ]
        for pem in pemCases {
            #expect(errorCode { try E2EPublicKey(pemRepresentation: pem) } == .invalidKey)
        }
        #expect(errorCode { try E2EPrivateKey(pemRepresentation: Self.publicPEM) } == .invalidKey)
    }

    /// Points of small order (RFC 7748 §6.1; the list from libsodium's blocklist and Bernstein's
    /// Curve25519 page): X25519 gives zero for them whatever the private key.
    @Test(arguments: [
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0100000000000000000000000000000000000000000000000000000000000000",
        "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
        "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    ])
    func lowOrderPublicKeysAreRefused(point: String) throws {
        #expect(errorCode { try E2EPublicKey(rawRepresentation: hex(point)) } == .invalidKey)
        let wrapped = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: hex(point))
        #expect(errorCode { try E2EPublicKey(wrapped) } == .invalidKey)
    }

    @Test func descriptionsHideThePrivateKey() throws {
        let key = try E2EPrivateKey(rawRepresentation: RFC9180A2.skRm)
        var dumped = ""
        dump(key, to: &dumped)
        for text in [String(describing: key), String(reflecting: key), dumped] {
            #expect(!text.contains("8057991e"))
            #expect(!text.contains("128, 87, 153"))  // the first raw bytes, as an array prints them
            #expect(!text.contains("MC4CAQAwBQYDK2Vu"))
        }
        #expect(String(describing: key.publicKey).hasPrefix("X25519 public key "))
        #expect(String(describing: key) == "X25519 private key for \(key.publicKey)")
    }
}
