// swift-format-ignore-file
// The README's example under "The layers underneath", verbatim: DefaultIsolationTests compares the two.
import Foundation
import ServerTrust

/// A policy that requires Certificate Transparency for the bank's hosts, checked against the
/// log list the app ships (refreshed at least every 70 days, or CT stops being enforced).
func transparentPolicy(logListFile: String, anchors: TrustAnchors) throws -> TransportSecurityPolicy {
    var policy = TransportSecurityPolicy(trustAnchors: anchors)
    policy.certificateTransparency = CertificateTransparencySettings(
        logList: try CertificateTransparencyLogList(contentsOfFile: logListFile),
        policy: .apple  // or .chrome
    )
    policy.setException(DomainException(includesSubdomains: true, requiresCertificateTransparency: true), for: "bank.example")
    return policy
}
