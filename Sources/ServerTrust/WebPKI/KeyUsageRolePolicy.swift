public import SwiftASN1
public import X509
import _CryptoExtras

/// Key usage must fit the certificate's role.
///
/// RFC 5280 §4.2.1.3 and §4.2.1.9: keyCertSign may only be asserted when basic constraints say
/// cA=true, and a CA certificate that has a key usage extension must assert keyCertSign
/// (Baseline Requirements §7.1.2.10.7). A leaf that could sign certificates is refused.
///
/// RFC 5280 §4.2.1.3: "When the keyUsage extension appears in a certificate, at least one of the
/// bits MUST be set to 1" (BR §7.1.2.7.11 says the same of server keys). And a server's key must
/// be usable for TLS: when the leaf restricts its key usage, it allows digitalSignature (RFC 8446
/// §4.4.2.2, RFC 5246 §7.4.2), or keyEncipherment for an RSA key (RSA key transport, RFC 5246
/// §7.4.7.1).
///
/// A system root is not judged: it is trusted as its root program admitted it, and some are not
/// strict DER (the Trustwave Global ECC roots encode keyUsage with a trailing zero bit, which
/// swift-certificates cannot parse). Anchors the app supplies are judged like presented CAs.
public struct KeyUsageRolePolicy: ChainRule, Sendable {
    /// The critical extensions this policy processes (the verifier refuses unprocessed ones).
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [.X509ExtensionID.keyUsage]

    /// Anchors judged like presented certificates; other anchors (the system's roots) are not.
    let appSuppliedAnchors: AppAnchors

    /// Creates the policy.
    public init(appSuppliedAnchors: some Sequence<Certificate> = []) {
        self.appSuppliedAnchors = AppAnchors(appSuppliedAnchors)
    }

    init(anchors: AppAnchors) {
        self.appSuppliedAnchors = anchors
    }

    /// The failure of this rule for a path (leaf first, anchor last), or nil when it holds.
    public func check(certificates: [Certificate]) -> ServerTrustError? {
        for (index, certificate) in certificates.enumerated() {
            if index == certificates.anchorIndex, !self.appSuppliedAnchors.contains(certificate) { continue }
            let keyUsage: KeyUsage?
            do {
                keyUsage = try certificate.extensions.keyUsage
            } catch {
                return ServerTrustError(.invalidKeyUsage, "the key usage of \(certificate.subjectText) is malformed")
            }
            guard let keyUsage else { continue }
            if keyUsage == KeyUsage() {
                return ServerTrustError(
                    .invalidKeyUsage,
                    "the key usage of \(certificate.subjectText) asserts no usage at all (RFC 5280 §4.2.1.3)"
                )
            }
            if index == 0 {
                let isRSA = _RSA.Signing.PublicKey(certificate.publicKey) != nil
                if !keyUsage.digitalSignature, !(isRSA && keyUsage.keyEncipherment) {
                    return ServerTrustError(
                        .invalidKeyUsage,
                        "the leaf (\(certificate.subjectText)) does not allow its key to authenticate a TLS server (key usage \(keyUsage))"
                    )
                }
                if keyUsage.keyCertSign, !certificate.isCertificateAuthority {
                    return ServerTrustError(
                        .invalidKeyUsage,
                        "the leaf (\(certificate.subjectText)) asserts keyCertSign but is not a CA"
                    )
                }
            } else if !keyUsage.keyCertSign {
                return ServerTrustError(
                    .invalidKeyUsage,
                    "the CA certificate \(certificate.subjectText) has a key usage without keyCertSign"
                )
            }
        }
        return nil
    }
}
