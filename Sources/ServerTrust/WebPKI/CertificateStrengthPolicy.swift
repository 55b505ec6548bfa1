import Crypto
public import SwiftASN1
public import X509
import _CryptoExtras

/// Keys and signatures must be strong enough: App Transport Security's certificate rules.
///
/// Every key of the chain, the anchor's included, must meet the minimum size (RSA 2048, EC 256 by
/// default); every signature below the anchor must use SHA-256 or stronger (SHA-1 collisions are
/// practical, see the Baseline Requirements §7.1.3.2). The anchor's self-signature is not relied
/// on and is not checked.
///
/// An RSA modulus must also be a whole number of octets (BR §6.1.5: "the modulus size, in bits,
/// is evenly divisible by 8"; rustls-webpki refuses such keys too): a 2047-bit key is refused as
/// a ``ServerTrustError/Code/certificateProfileViolation``, the anchor's included.
public struct CertificateStrengthPolicy: ChainRule, Sendable {
    /// The critical extensions this policy processes (the verifier refuses unprocessed ones).
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    /// The rules applied.
    public let rules: CertificateRules

    /// Creates the policy.
    public init(rules: CertificateRules = .default) {
        self.rules = rules
    }

    /// The failure of this rule for a path (leaf first, anchor last), or nil when it holds.
    public func check(certificates: [Certificate]) -> ServerTrustError? {
        for (index, certificate) in certificates.enumerated() {
            if let failure = self.checkKey(of: certificate) { return failure }
            let isAnchor = index == certificates.count - 1 && index > 0
            if self.rules.requiresSHA2Signatures, !isAnchor, !Self.isSHA2(certificate.signatureAlgorithm) {
                return ServerTrustError(
                    .weakSignatureAlgorithm,
                    "\(certificate.subjectText) is signed with \(certificate.signatureAlgorithm); SHA-2 is required"
                )
            }
        }
        return nil
    }

    func checkKey(of certificate: Certificate) -> ServerTrustError? {
        let key = certificate.publicKey
        if let rsa = _RSA.Signing.PublicKey(key) {
            return self.checkRSA(bits: rsa.keySizeInBits, subject: certificate.subjectText)
        }
        let ecBits: Int?
        if P256.Signing.PublicKey(key) != nil {
            ecBits = 256
        } else if P384.Signing.PublicKey(key) != nil {
            ecBits = 384
        } else if P521.Signing.PublicKey(key) != nil {
            ecBits = 521
        } else {
            ecBits = nil  // Ed25519: 128-bit security, accepted.
        }
        if let ecBits, ecBits < self.rules.minimumECKeySize {
            return ServerTrustError(
                .weakKey,
                "\(certificate.subjectText) has a \(ecBits)-bit EC key; at least \(self.rules.minimumECKeySize) bits are required"
            )
        }
        return nil
    }

    func checkRSA(bits: Int, subject: String) -> ServerTrustError? {
        guard bits < self.rules.minimumRSAKeySize else {
            guard bits % 8 != 0 else { return nil }
            return ServerTrustError(
                .certificateProfileViolation,
                "\(subject) has a \(bits)-bit RSA modulus, not a whole number of octets (BR §6.1.5)"
            )
        }
        return ServerTrustError(
            .weakKey,
            "\(subject) has a \(bits)-bit RSA key; at least \(self.rules.minimumRSAKeySize) bits are required"
        )
    }

    static func isSHA2(_ algorithm: Certificate.SignatureAlgorithm) -> Bool {
        switch algorithm {
        case .sha256WithRSAEncryption, .sha384WithRSAEncryption, .sha512WithRSAEncryption,
            .ecdsaWithSHA256, .ecdsaWithSHA384, .ecdsaWithSHA512, .ed25519:
            return true
        default:
            return false
        }
    }
}
