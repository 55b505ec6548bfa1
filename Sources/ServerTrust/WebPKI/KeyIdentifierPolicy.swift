public import SwiftASN1
public import X509

/// Key identifiers as the Web PKI profile requires them, in the certificates the server presents.
///
/// - RFC 5280 §4.2.1.1 and BR §7.1.2.7.6 / §7.1.2.10.5 / §7.1.2.11.1: every certificate that is
///   not self-signed (a key-rollover certificate is self-issued but not self-signed) carries a non-critical authorityKeyIdentifier with a keyIdentifier, and no
///   authorityCertIssuer or authorityCertSerialNumber.
/// - RFC 5280 §4.2.1.2 and BR §7.1.2.10.5: every CA certificate carries a subjectKeyIdentifier.
/// - BR §7.1.2.1.3: a self-signed certificate's authorityKeyIdentifier, when present, names its
///   own key: its keyIdentifier equals its subjectKeyIdentifier.
///
/// The anchor is judged by ``AnchorProfilePolicy`` instead. Failures are
/// ``ServerTrustError/Code/certificateProfileViolation``. Web PKI profile only.
public struct KeyIdentifierPolicy: ChainRule, Sendable {
    /// The critical extensions this policy processes (the verifier refuses unprocessed ones).
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    /// Creates the policy.
    public init() {}

    /// The failure of this rule for a path (leaf first, anchor last), or nil when it holds.
    public func check(certificates: [Certificate]) -> ServerTrustError? {
        for index in certificates.presentedIndices {
            let certificate = certificates[index]
            if let problem = Self.problem(certificate) {
                return ServerTrustError(
                    .certificateProfileViolation,
                    "the \(certificates.role(index)) (\(certificate.subjectText)) \(problem)"
                )
            }
        }
        return nil
    }

    static func problem(_ certificate: Certificate) -> String? {
        guard let (aki, ski) = try? certificate.keyIdentifiers else {
            return "has a malformed key identifier extension"
        }
        if let ext = certificate.extensions[oid: .X509ExtensionID.authorityKeyIdentifier], ext.critical {
            return "has a critical authorityKeyIdentifier (RFC 5280 §4.2.1.1)"
        }
        if let ext = certificate.extensions[oid: .X509ExtensionID.subjectKeyIdentifier], ext.critical {
            return "has a critical subjectKeyIdentifier (RFC 5280 §4.2.1.2)"
        }
        if let aki {
            if aki.keyIdentifier == nil {
                return "has an authorityKeyIdentifier without keyIdentifier (BR §7.1.2.11.1)"
            }
            if aki.authorityCertIssuer != nil || aki.authorityCertSerialNumber != nil {
                return
                    "has an authorityKeyIdentifier with authorityCertIssuer or authorityCertSerialNumber (BR §7.1.2.11.1)"
            }
            // The signature is checked only on this rare path: a self-issued certificate whose AKI
            // is not its SKI is a key rollover (fine) unless it signed itself.
            if certificate.isSelfIssued, let ski, aki.keyIdentifier != ski.keyIdentifier, certificate.isSelfSigned {
                return
                    "is self-signed but its authorityKeyIdentifier differs from its subjectKeyIdentifier (BR §7.1.2.1.3)"
            }
        } else if !certificate.isSelfIssued || !certificate.isSelfSigned {
            return "has no authorityKeyIdentifier (RFC 5280 §4.2.1.1)"
        }
        if certificate.isCertificateAuthority, ski == nil {
            return "is a CA certificate without subjectKeyIdentifier (RFC 5280 §4.2.1.2)"
        }
        return nil
    }
}
