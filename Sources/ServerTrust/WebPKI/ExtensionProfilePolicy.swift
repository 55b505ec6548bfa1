public import SwiftASN1
public import X509

/// Extension criticality and the subject, as RFC 5280 and the Baseline Requirements fix them.
///
/// Under both profiles:
/// - RFC 5280 §4.2.1.11: policyConstraints is critical ("Conforming CAs MUST mark this extension
///   as critical"). ServerTrust does not process certificate policies: a critical policyConstraints
///   is accepted as understood, as browsers do.
/// - RFC 5280 §4.1.2.6: a CA certificate has a non-empty subject.
/// - RFC 5280 §4.2.1.6: a certificate with an empty subject has a critical subjectAltName.
/// - RFC 5280 §4.2.2.1: authorityInformationAccess is well formed and not critical.
///
/// Under the Web PKI profile only:
/// - RFC 5280 §4.2.1.6 ("SHOULD mark the subjectAltName extension as non-critical") made a must by
///   BR §7.1.2.7.12: a certificate with a subject has a non-critical subjectAltName.
///
/// A system root is not judged (see ``AnchorProfilePolicy``). Failures are
/// ``ServerTrustError/Code/certificateProfileViolation``.
public struct ExtensionProfilePolicy: ChainRule, Sendable {
    /// The critical extensions this policy processes (the verifier refuses unprocessed ones).
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [Self.policyConstraints]

    /// id-ce-policyConstraints.
    static let policyConstraints: ASN1ObjectIdentifier = [2, 5, 29, 36]

    /// The profile whose rules apply.
    public let profile: CertificateProfile
    /// Anchors judged like presented certificates; other anchors (the system's roots) are not.
    let appSuppliedAnchors: AppAnchors

    /// Creates the policy.
    public init(profile: CertificateProfile = .webPKI, appSuppliedAnchors: some Sequence<Certificate> = []) {
        self.profile = profile
        self.appSuppliedAnchors = AppAnchors(appSuppliedAnchors)
    }

    init(profile: CertificateProfile, anchors: AppAnchors) {
        self.profile = profile
        self.appSuppliedAnchors = anchors
    }

    /// The failure of this rule for a path (leaf first, anchor last), or nil when it holds.
    public func check(certificates: [Certificate]) -> ServerTrustError? {
        for (index, certificate) in certificates.enumerated() {
            if index == certificates.anchorIndex, !self.appSuppliedAnchors.contains(certificate) { continue }
            if let problem = self.problem(certificate, isLeaf: index == 0) {
                return ServerTrustError(
                    .certificateProfileViolation,
                    "the \(certificates.role(index)) (\(certificate.subjectText)) \(problem)"
                )
            }
        }
        return nil
    }

    func problem(_ certificate: Certificate, isLeaf: Bool) -> String? {
        let extensions = certificate.extensions
        if let pc = extensions[oid: Self.policyConstraints], !pc.critical {
            return "has a non-critical policyConstraints extension (RFC 5280 §4.2.1.11)"
        }
        if certificate.subject.isEmpty, !isLeaf || certificate.isCertificateAuthority {
            return "is a CA certificate with an empty subject (RFC 5280 §4.1.2.6)"
        }
        let san = extensions[oid: .X509ExtensionID.subjectAlternativeName]
        if certificate.subject.isEmpty, san?.critical != true {
            return "has an empty subject and no critical subjectAltName (RFC 5280 §4.2.1.6)"
        }
        if self.profile.appliesBaselineRequirements, !certificate.subject.isEmpty, san?.critical == true {
            return "has a subject and a critical subjectAltName (BR §7.1.2.7.12)"
        }
        if let aia = extensions[oid: .X509ExtensionID.authorityInformationAccess] {
            if aia.critical { return "has a critical authorityInformationAccess (RFC 5280 §4.2.2.1)" }
            do {
                let access = try AuthorityInformationAccess(aia)
                if access.isEmpty { return "has an empty authorityInformationAccess (RFC 5280 §4.2.2.1)" }
            } catch {
                return "has a malformed authorityInformationAccess (RFC 5280 §4.2.2.1)"
            }
        }
        return nil
    }
}
