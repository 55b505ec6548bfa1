public import SwiftASN1
public import X509

/// Only CA certificates issue, within their path length, and only an end entity is the server.
///
/// It replaces swift-certificates' version and basic-constraints checks (RFC 5280 §6.1.4),
/// which ServerTrust no longer runs (see ``StrictNameConstraintsPolicy`` for why):
/// - RFC 5280 §4.1.2.1: a version 1 or 2 certificate carries no extensions.
/// - RFC 5280 §6.1.4 (k): every intermediate is a version 3 certificate whose basicConstraints
///   say cA=TRUE (the RFC lets a validator refuse version 1 and 2 intermediates, and this one
///   does); the trust anchor, when it is version 3, says cA=TRUE too.
/// - RFC 5280 §4.2.1.9 and §6.1.4 (l), (m): a CA's pathLenConstraint bounds the number of
///   non-self-issued intermediates below it.
/// - RFC 5280 §4.2.1.9 ("MUST mark the extension as critical") and BR §7.1.2.10.4: the
///   basicConstraints of a presented CA certificate are critical.
/// - The server's certificate is not a CA (BR §7.1.2.7.8: cA MUST be FALSE; RFC 5280 §4.2.1.9:
///   a CA key signs certificates, not TLS handshakes): refused with
///   ``ServerTrustError/Code/caCertificateAsLeaf``, the anchor included when a leaf is trusted directly.
public struct CertificateAuthorityPolicy: ChainRule, Sendable {
    /// The critical extensions this policy processes (the verifier refuses unprocessed ones).
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [.X509ExtensionID.basicConstraints]

    /// Creates the policy.
    public init() {}

    /// The failure of this rule for a path (leaf first, anchor last), or nil when it holds.
    public func check(certificates: [Certificate]) -> ServerTrustError? {
        var intermediatesBelow = 0
        for (index, certificate) in certificates.enumerated() {
            let role = certificates.role(index)
            if certificate.version != .v3, !certificate.extensions.isEmpty {
                return ServerTrustError(
                    .chainPolicyViolation,
                    "the \(role) (\(certificate.subjectText)) is a version 1 certificate with extensions (RFC 5280 §4.1.2.1)"
                )
            }
            let isCA: Bool?
            do {
                isCA = try certificate.basicConstraintsIsCA
            } catch {
                return ServerTrustError(
                    .chainPolicyViolation,
                    "the basic constraints of the \(role) (\(certificate.subjectText)) are malformed"
                )
            }
            if index == 0 {
                if isCA == true {
                    return ServerTrustError(
                        .caCertificateAsLeaf,
                        "the server's certificate (\(certificate.subjectText)) is a CA certificate (basicConstraints cA=TRUE)"
                    )
                }
                continue
            }
            let isAnchor = index == certificates.count - 1
            if certificate.version != .v3 {
                if isAnchor { continue }  // A version 1 anchor is a CA by configuration (RFC 5280 §6.1.4 (k)).
                return ServerTrustError(
                    .chainPolicyViolation,
                    "the \(role) (\(certificate.subjectText)) is a version 1 certificate and cannot be a CA"
                )
            }
            guard isCA == true else {
                return ServerTrustError(
                    .chainPolicyViolation,
                    "the \(role) (\(certificate.subjectText)) issued a certificate but is not a CA (basicConstraints)"
                )
            }
            if !isAnchor, certificate.extensions[oid: .X509ExtensionID.basicConstraints]?.critical != true {
                return ServerTrustError(
                    .certificateProfileViolation,
                    "the basic constraints of the \(role) (\(certificate.subjectText)) are not critical (RFC 5280 §4.2.1.9)"
                )
            }
            if case .some(.isCertificateAuthority(maxPathLength: .some(let limit))) = try? certificate.extensions
                .basicConstraints,
                intermediatesBelow > limit
            {
                return ServerTrustError(
                    .chainPolicyViolation,
                    "the \(role) (\(certificate.subjectText)) allows \(limit) intermediates below it; the path has \(intermediatesBelow)"
                )
            }
            if !certificate.isSelfIssued { intermediatesBelow += 1 }
        }
        return nil
    }
}
