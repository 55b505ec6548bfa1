public import SwiftASN1
public import X509

/// The chain must be allowed to authenticate TLS servers.
///
/// Under both profiles (RFC 5280 §4.2.1.12: a certificate with the extension may only be used for
/// the purposes listed):
/// - a leaf with the extension lists `id-kp-serverAuth` (a clientAuth-only certificate is refused);
/// - an intermediate with the extension lists serverAuth or anyExtendedKeyUsage (BR §7.1.2.10.6).
///
/// Under the Web PKI profile (BR §7.1.2.7.6 and §7.1.2.7.10), the leaf also:
/// - has the extension (its absence, "any purpose" in RFC 5280, is refused);
/// - has it non-critical;
/// - does not list anyExtendedKeyUsage, codeSigning, emailProtection, timeStamping, OCSPSigning
///   or the Precertificate Signing Certificate purpose (RFC 6962 §3.1).
///
/// Under the private-PKI profile, a leaf without the extension is accepted (RFC 5280's reading),
/// and anyExtendedKeyUsage counts as serverAuth. A root carrying the extension is refused by
/// ``AnchorProfilePolicy``. Failures are ``ServerTrustError/Code/serverAuthNotPermitted``.
public struct ServerAuthUsagePolicy: ChainRule, Sendable {
    /// The critical extensions this policy processes (the verifier refuses unprocessed ones).
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [.X509ExtensionID.extendedKeyUsage]

    /// The profile whose rules apply.
    public let profile: CertificateProfile

    /// The purposes a Web PKI server certificate must not list, besides anyExtendedKeyUsage.
    static let forbiddenInWebPKILeaf: [(ExtendedKeyUsage.Usage, String)] = [
        (.codeSigning, "codeSigning"), (.emailProtection, "emailProtection"), (.timeStamping, "timeStamping"),
        (.ocspSigning, "OCSPSigning"), (.certificateTransparency, "Precertificate Signing Certificate"),
    ]

    /// Creates the policy.
    public init(profile: CertificateProfile = .webPKI) {
        self.profile = profile
    }

    /// The failure of this rule for a path (leaf first, anchor last), or nil when it holds.
    public func check(certificates: [Certificate]) -> ServerTrustError? {
        for index in certificates.presentedIndices {
            let certificate = certificates[index]
            let usage: ExtendedKeyUsage?
            do {
                usage = try certificate.extensions.extendedKeyUsage
            } catch {
                return Self.failure("the extended key usage of \(certificate.subjectText) is malformed")
            }
            let problem = index == 0 ? self.leafProblem(certificate, usage) : Self.intermediateProblem(usage)
            if let problem {
                return Self.failure("the \(certificates.role(index)) (\(certificate.subjectText)) \(problem)")
            }
        }
        return nil
    }

    func leafProblem(_ leaf: Certificate, _ usage: ExtendedKeyUsage?) -> String? {
        guard self.profile.appliesBaselineRequirements else {
            guard let usage else { return nil }
            return usage.contains(.serverAuth) || usage.contains(.any)
                ? nil : "is not allowed for TLS servers: its extended key usage is \(usage)"
        }
        guard let usage else {
            return "has no extended key usage; a server certificate must list serverAuth (BR §7.1.2.7.6)"
        }
        if leaf.extensions[oid: .X509ExtensionID.extendedKeyUsage]?.critical == true {
            return "has a critical extended key usage (BR §7.1.2.7.6)"
        }
        if usage.contains(.any) {
            return "lists anyExtendedKeyUsage, which a server certificate must not (BR §7.1.2.7.10)"
        }
        if let (_, name) = Self.forbiddenInWebPKILeaf.first(where: { usage.contains($0.0) }) {
            return "lists \(name), which a server certificate must not (BR §7.1.2.7.10)"
        }
        return usage.contains(.serverAuth) ? nil : "is not allowed for TLS servers: its extended key usage is \(usage)"
    }

    static func intermediateProblem(_ usage: ExtendedKeyUsage?) -> String? {
        guard let usage, !usage.contains(.serverAuth), !usage.contains(.any) else { return nil }
        return "may not issue TLS server certificates: its extended key usage is \(usage)"
    }

    static func failure(_ message: String) -> ServerTrustError {
        ServerTrustError(.serverAuthNotPermitted, message)
    }
}
