public import SwiftASN1
public import X509

/// An app-supplied root is held to the root profile of the Baseline Requirements §7.1.2.1.
///
/// - §7.1.2.1.2: no extKeyUsage extension (a root is not limited to, or for, a purpose).
/// - §7.1.2.1.3: an authorityKeyIdentifier, when present, has a keyIdentifier equal to the
///   subjectKeyIdentifier and neither authorityCertIssuer nor authorityCertSerialNumber.
/// - An anchor that is not self-signed (a cross-signed root or an intermediate the app trusts)
///   is a CA certificate like any other: RFC 5280 §4.2.1.1 and BR §7.1.2.2.3 require its
///   authorityKeyIdentifier, which names its issuer's key (so it is not compared with its SKI).
/// - §7.1.2.1.2 and RFC 5280 §4.2.1.2: a subjectKeyIdentifier; §7.1.2.1.2 and RFC 5280 §4.2.1.9:
///   critical basicConstraints.
///
/// It judges only the anchors in `appSuppliedAnchors`. The system's roots are trusted as their
/// root program admitted them: some predate these rules (Debian's bundle has roots with serial 0,
/// with authorityCertIssuer in their AKI, without SKI, with non-critical basic constraints), and
/// refusing them would refuse real sites. Failures are
/// ``ServerTrustError/Code/certificateProfileViolation``. Web PKI profile only.
public struct AnchorProfilePolicy: ChainRule, Sendable {
    /// The critical extensions this policy processes (the verifier refuses unprocessed ones).
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    /// The anchors this policy judges.
    let appSuppliedAnchors: AppAnchors

    /// Creates the policy for the anchors an app supplied.
    public init(appSuppliedAnchors: some Sequence<Certificate>) {
        self.appSuppliedAnchors = AppAnchors(appSuppliedAnchors)
    }

    init(anchors: AppAnchors) {
        self.appSuppliedAnchors = anchors
    }

    /// The failure of this rule for a path (leaf first, anchor last), or nil when it holds.
    public func check(certificates: [Certificate]) -> ServerTrustError? {
        guard let index = certificates.anchorIndex, self.appSuppliedAnchors.contains(certificates[index]) else {
            return nil
        }
        let anchor = certificates[index]
        guard let problem = Self.problem(anchor) else { return nil }
        return ServerTrustError(.certificateProfileViolation, "the anchor (\(anchor.subjectText)) \(problem)")
    }

    static func problem(_ anchor: Certificate) -> String? {
        guard anchor.version == .v3 else { return nil }
        if anchor.extensions[oid: .X509ExtensionID.extendedKeyUsage] != nil {
            return "carries extKeyUsage, which a root must not (BR §7.1.2.1.2)"
        }
        if anchor.extensions[oid: .X509ExtensionID.basicConstraints]?.critical == false {
            return "has non-critical basic constraints (BR §7.1.2.1.2)"
        }
        guard let (aki, ski) = try? anchor.keyIdentifiers else { return "has a malformed key identifier extension" }
        guard let ski else { return "has no subjectKeyIdentifier (BR §7.1.2.1.2)" }
        guard let aki else {
            if anchor.isSelfIssued { return nil }
            return "is not self-signed and has no authorityKeyIdentifier (RFC 5280 §4.2.1.1)"
        }
        if aki.keyIdentifier == nil {
            return "has an authorityKeyIdentifier without keyIdentifier (BR §7.1.2.1.3)"
        }
        if aki.authorityCertIssuer != nil || aki.authorityCertSerialNumber != nil {
            return "has an authorityKeyIdentifier with authorityCertIssuer or authorityCertSerialNumber (BR §7.1.2.1.3)"
        }
        if aki.keyIdentifier != ski.keyIdentifier, anchor.isSelfSigned {
            return "is self-signed but its authorityKeyIdentifier is not its subjectKeyIdentifier (BR §7.1.2.1.3)"
        }
        return nil
    }
}
