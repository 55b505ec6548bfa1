import Crypto
import Foundation
import SecureCrypto
import Testing

/// RFC 9180 Appendix A.2: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305, base mode.
///
/// skEm, skRm, info and the first encryption (sequence 0) are the RFC's; pkEm, pkRm, the shared
/// secret, key, base nonce and ciphertext were recomputed from skEm and skRm with an independent
/// Python HPKE (X25519 and ChaCha20Poly1305 from `cryptography` 48, LabeledExtract/Expand over
/// `hmac`), and matched, as did skEm re-derived from ikmE.
enum RFC9180A2 {
    static let skEm = hex("f4ec9b33b792c372c1d2c2063507b684ef925b8c75a42dbcbf57d63ccd381600")
    static let pkEm = hex("1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a")
    static let skRm = hex("8057991eef8f1f1af18f4a9491d16a1ce333f695d4db8e38da75975c4478e0fb")
    static let pkRm = hex("4310ee97d88cc1f088a5576c77ab0cf5c3ac797f3d95139c6c84b5429c59662a")
    static let info = hex("4f6465206f6e2061204772656369616e2055726e")  // "Ode on a Grecian Urn"
    /// "Beauty is truth, truth beauty"
    static let pt = hex("4265617574792069732074727574682c20747275746820626561757479")
    static let aad = hex("436f756e742d30")  // "Count-0"
    static let ct = hex("1c5250d8034ec2b784ba2cfd69dbdb8af406cfe3ff938e131f0def8c8b60b4db21993c62ce81883d2dd1b51a28")
}

@Suite("HPKE known answers (RFC 9180 A.2)")
struct HPKEVectorTests {
    @Test func keyPairsMatchTheVector() throws {
        #expect(
            Array(try E2EPrivateKey(rawRepresentation: RFC9180A2.skRm).publicKey.rawRepresentation) == RFC9180A2.pkRm
        )
        #expect(
            Array(try E2EPrivateKey(rawRepresentation: RFC9180A2.skEm).publicKey.rawRepresentation) == RFC9180A2.pkEm
        )
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
    @Test func firstEncryptionOpensThroughTheEnvelope() throws {
        let recipient = try E2EPrivateKey(rawRepresentation: RFC9180A2.skRm)
        let envelope = [E2EEnvelope.currentVersion] + RFC9180A2.pkEm + RFC9180A2.ct
        let opened = try recipient.open(envelope, info: RFC9180A2.info, authenticating: RFC9180A2.aad)
        #expect(Array(opened) == RFC9180A2.pt)
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
    @Test func firstEncryptionNeedsTheRightInfoAndAAD() throws {
        let recipient = try E2EPrivateKey(rawRepresentation: RFC9180A2.skRm)
        let envelope = [E2EEnvelope.currentVersion] + RFC9180A2.pkEm + RFC9180A2.ct
        #expect(
            errorCode { try recipient.open(envelope, info: Data(), authenticating: RFC9180A2.aad) }
                == .authenticationFailed
        )
        #expect(
            errorCode { try recipient.open(envelope, info: RFC9180A2.info, authenticating: Data("Count-1".utf8)) }
                == .authenticationFailed
        )
    }

    /// An envelope whose encapsulated key is the all-zero (low-order) point, so X25519 gives zero
    /// for every recipient key and anyone can compute the HPKE key. Built with the Python HPKE
    /// above for pkRm and info "forgery test". RFC 9180 §7.1.4 requires refusing it; swift-crypto
    /// 4.5.2's DHKEM does not check, so SecureCrypto must.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
    @Test func lowOrderEncapsulatedKeyIsRefused() throws {
        let forged = hex(
            """
            01 0000000000000000000000000000000000000000000000000000000000000000
            a97ecf33386610a37e03f75e20b7e2a23c2e7a579eaa4363c066e9ee466e9f6534d472faeccaabd975959d6ac9b0
            """
        )
        let recipient = try E2EPrivateKey(rawRepresentation: RFC9180A2.skRm)
        #expect(errorCode { try recipient.open(forged, info: Data("forgery test".utf8)) } == .authenticationFailed)
    }
}
