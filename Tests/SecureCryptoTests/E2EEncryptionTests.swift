import Crypto
import Foundation
import SecureCrypto
import Testing

@Suite("End-to-end encryption (HPKE)")
struct E2EEncryptionTests {
    static let recipient = E2EPrivateKey()
    static let info = Data("com.example.chat v1".utf8)

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
    @Test(arguments: [0, 1, 15, 16, 17, 4096, 1 << 20])
    func roundTrip(size: Int) throws {
        let message = Data(deterministicBytes(size, seed: UInt64(size) + 100))
        let envelope = try Self.recipient.publicKey.seal(message, info: Self.info, authenticating: Data("aad".utf8))
        #expect(envelope.count == size + 49)
        #expect(envelope[envelope.startIndex] == E2EEnvelope.currentVersion)
        #expect(try Self.recipient.open(envelope, info: Self.info, authenticating: Data("aad".utf8)) == message)
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
    @Test func defaultsAreEmptyInfoAndAssociatedData() throws {
        let envelope = try Self.recipient.publicKey.seal(Data("hi".utf8))
        #expect(try Self.recipient.open(envelope) == Data("hi".utf8))
        #expect(try Self.recipient.open(envelope, info: Data(), authenticating: Data()) == Data("hi".utf8))
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
    @Test func eachSealUsesAFreshEphemeralKey() throws {
        let first = try E2EEnvelope(parsing: Self.recipient.publicKey.seal(Data("same".utf8)))
        let second = try E2EEnvelope(parsing: Self.recipient.publicKey.seal(Data("same".utf8)))
        #expect(first.encapsulatedKey != second.encapsulatedKey)
        #expect(first.ciphertext != second.ciphertext)
        #expect(first.encapsulatedKey.count == 32 && first.ciphertext.count == 4 + 16)
    }

    /// Every single-bit change of a 113-byte envelope fails: the version byte structurally,
    /// the encapsulated key and ciphertext by authentication.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
    @Test func everyFlippedBitFails() throws {
        let envelope = try Self.recipient.publicKey.seal(Data(deterministicBytes(64, seed: 9)), info: Self.info)
        #expect(envelope.count == 113)
        for bit in 0..<(envelope.count * 8) {
            let expected: SecureCryptoError.Code = bit < 8 ? .unsupportedVersion : .authenticationFailed
            let code = errorCode { try Self.recipient.open(flippingBit(bit, of: envelope), info: Self.info) }
            #expect(code == expected, "bit \(bit)")
        }
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
    @Test func everyTruncationFails() throws {
        let envelope = try Self.recipient.publicKey.seal(Data(deterministicBytes(64, seed: 10)), info: Self.info)
        for length in 0..<envelope.count {
            let expected: SecureCryptoError.Code = length < 49 ? .truncated : .authenticationFailed
            #expect(
                errorCode { try Self.recipient.open(envelope.prefix(length), info: Self.info) } == expected,
                "length \(length)"
            )
        }
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
    @Test func wrongRecipientInfoOrAssociatedDataFails() throws {
        let envelope = try Self.recipient.publicKey.seal(
            Data("secret".utf8),
            info: Self.info,
            authenticating: Data("a".utf8)
        )
        #expect(
            errorCode { try E2EPrivateKey().open(envelope, info: Self.info, authenticating: Data("a".utf8)) }
                == .authenticationFailed
        )
        #expect(
            errorCode { try Self.recipient.open(envelope, info: Data("other".utf8), authenticating: Data("a".utf8)) }
                == .authenticationFailed
        )
        #expect(
            errorCode { try Self.recipient.open(envelope, info: Self.info, authenticating: Data("b".utf8)) }
                == .authenticationFailed
        )
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
    @Test func unknownVersionIsRefused() throws {
        var envelope = try Self.recipient.publicKey.seal(Data("secret".utf8))
        for version: UInt8 in [0, 2, 0xFF] {
            envelope[envelope.startIndex] = version
            #expect(errorCode { try Self.recipient.open(envelope) } == .unsupportedVersion)
        }
        #expect(errorCode { try E2EEnvelope(parsing: Data()) } == .truncated)
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
    @Test func envelopeBytesRoundTrip() throws {
        let envelope = try Self.recipient.publicKey.seal(Data("x".utf8))
        #expect(try E2EEnvelope(parsing: envelope).bytes == envelope)
    }
}

@Suite("Session keys (X25519 + HKDF-SHA256)")
struct SessionKeyTests {
    @Test func bothDevicesDeriveTheSameKey() throws {
        let alice = E2EPrivateKey()
        let bob = E2EPrivateKey()
        let aliceKey = try alice.sessionKey(with: bob.publicKey, context: "com.example.sync v1")
        let bobKey = try bob.sessionKey(with: alice.publicKey, context: "com.example.sync v1")
        #expect(aliceKey == bobKey)
        #expect(aliceKey.bitCount == 256)
        // The key works as a Sealer key between the two devices.
        let envelope = try Sealer(key: aliceKey).seal(Data("hello bob".utf8))
        #expect(try Sealer(key: bobKey).open(envelope) == Data("hello bob".utf8))
    }

    @Test func contextsAndPairsGiveDifferentKeys() throws {
        let alice = E2EPrivateKey()
        let bob = E2EPrivateKey()
        let carol = E2EPrivateKey()
        let sync = try alice.sessionKey(with: bob.publicKey, context: "sync")
        let backup = try alice.sessionKey(with: bob.publicKey, context: "backup")
        let withCarol = try alice.sessionKey(with: carol.publicKey, context: "sync")
        #expect(sync != backup)
        #expect(sync != withCarol)
        #expect(try alice.sessionKey(with: bob.publicKey, context: "sync", byteCount: 64).bitCount == 512)
    }

    /// Pins the derivation: X25519(skRm, pkEm) from RFC 9180 A.2, then HKDF-SHA256 with an empty
    /// salt and info = "SecureCrypto X25519 session key v1" ‖ 00 ‖ u16be(len) ‖ context ‖ the two
    /// public keys in ascending order. Expected value computed with Python `cryptography` + `hmac`.
    @Test func derivationIsPinned() throws {
        let a = try E2EPrivateKey(rawRepresentation: RFC9180A2.skRm)
        let b = try E2EPrivateKey(rawRepresentation: RFC9180A2.skEm)
        let expected = hex("65bac12e24b4f241e6e42a41b1484cee6bf98d89128d4177d41ce458455c4bb1")
        #expect(
            try a.sessionKey(with: b.publicKey, context: "com.example.sync v1").withUnsafeBytes { Array($0) }
                == expected
        )
        #expect(
            try b.sessionKey(with: a.publicKey, context: "com.example.sync v1").withUnsafeBytes { Array($0) }
                == expected
        )
    }

    @Test func inputsAreChecked() {
        let alice = E2EPrivateKey()
        let bob = E2EPrivateKey().publicKey
        #expect(errorCode { try alice.sessionKey(with: bob, context: "") } == .invalidInput)
        #expect(
            errorCode { try alice.sessionKey(with: bob, context: String(repeating: "x", count: 1025)) } == .invalidInput
        )
        #expect(errorCode { try alice.sessionKey(with: bob, context: "ok", byteCount: 8) } == .invalidInput)
    }
}
