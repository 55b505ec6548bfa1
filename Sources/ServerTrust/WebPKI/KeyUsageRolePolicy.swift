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
/// A system root is not judged: it is trusted as its root program admitted it. Anchors the app
/// supplies are judged like presented CAs.
///
/// The key usage BIT STRING is read as BoringSSL, NSS and Apple read it (see `keyUsage(of:)`):
/// trailing zero bits that strict DER would drop (a leaf declaring 5 unused bits where DER wants
/// 7, as some real CAs issue, and the Trustwave Global ECC roots) are accepted; they assert
/// nothing, so the usages, and every decision made from them, are the same.
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
                keyUsage = try Self.keyUsage(of: certificate)
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

    /// The key usage of `certificate`, or nil when it has none.
    ///
    /// swift-certificates refuses a BIT STRING with trailing zero bits inside its length
    /// (X.690 §11.2.2 asks DER encoders to drop them). Such a value asserts exactly the same
    /// usages, so it is read here: the padding bits must be zero (swift-asn1 checks), and no bit
    /// past decipherOnly (bit 8) may be set. Anything else is malformed.
    static func keyUsage(of certificate: Certificate) throws -> KeyUsage? {
        guard let ext = certificate.extensions[oid: .X509ExtensionID.keyUsage] else { return nil }
        if let strict = try? KeyUsage(ext) { return strict }
        let bits = try ASN1BitString(derEncoded: ext.value)
        let bytes = Array(bits.bytes)
        for (index, byte) in bytes.enumerated() where index > 0 {
            let defined: UInt8 = index == 1 ? 0x80 : 0
            if byte & ~defined != 0 {
                throw ASN1Error.invalidASN1Object(reason: "a key usage bit past decipherOnly is set")
            }
        }
        let first = bytes.first ?? 0
        let second = bytes.count > 1 ? bytes[1] : 0
        return KeyUsage(
            digitalSignature: first & 0x80 != 0,
            nonRepudiation: first & 0x40 != 0,
            keyEncipherment: first & 0x20 != 0,
            dataEncipherment: first & 0x10 != 0,
            keyAgreement: first & 0x08 != 0,
            keyCertSign: first & 0x04 != 0,
            cRLSign: first & 0x02 != 0,
            encipherOnly: first & 0x01 != 0,
            decipherOnly: second & 0x80 != 0
        )
    }
}
