public import SwiftASN1
public import X509

/// The chain must be allowed to authenticate TLS servers.
///
/// RFC 5280 §4.2.1.12: when a certificate has an extended key usage extension it may only be used
/// for the purposes listed. The CA/Browser Forum Baseline Requirements (§7.1.2.3 and §7.1.2.2)
/// require `id-kp-serverAuth` in subscriber certificates and restrict subordinate CAs the same
/// way. So the leaf must list serverAuth when it has the extension (a clientAuth-only certificate
/// is refused), and an intermediate that carries the extension must list serverAuth or
/// anyExtendedKeyUsage. A leaf with no extension is accepted, as RFC 5280 reads its absence as
/// "any purpose".
public struct ServerAuthUsagePolicy: ChainRule, Sendable {
    /// The critical extensions this policy processes (the verifier refuses unprocessed ones).
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [.X509ExtensionID.extendedKeyUsage]

    /// Creates the policy.
    public init() {}

    /// The failure of this rule for the chain (leaf first), or nil when it holds.
    public func check(_ chain: UnverifiedCertificateChain) -> ServerTrustError? {
        let certificates = Array(chain)
        for (index, certificate) in certificates.enumerated() {
            // The trust anchor is trusted by configuration, not by its extensions.
            if index > 0, index == certificates.count - 1 { break }
            let usage: ExtendedKeyUsage?
            do {
                usage = try certificate.extensions.extendedKeyUsage
            } catch {
                return ServerTrustError(.serverAuthNotPermitted, "the extended key usage of \(certificate.subjectText) is malformed")
            }
            guard let usage else { continue }
            let allowed = usage.contains(.serverAuth) || (index > 0 && usage.contains(.any))
            if !allowed {
                let role = index == 0 ? "leaf" : "intermediate"
                return ServerTrustError(
                    .serverAuthNotPermitted,
                    "the \(role) (\(certificate.subjectText)) is not allowed for TLS servers: its extended key usage is \(usage)"
                )
            }
        }
        return nil
    }
}
