import SwiftASN1
public import X509

/// A check over a candidate chain that reports a typed ``ServerTrustError``.
///
/// Each Web PKI rule is both a `ChainRule` (so ``ServerTrust`` can tell which rule failed) and a
/// swift-certificates `VerifierPolicy` (so it can be used in any `Verifier`).
public protocol ChainRule: VerifierPolicy {
    /// The failure of this rule for the chain (leaf first, anchor last), or nil when it holds.
    mutating func check(_ chain: UnverifiedCertificateChain) -> ServerTrustError?
}

extension ChainRule {
    /// Runs ``check(_:)`` and turns a failure into the verifier's reason text.
    public mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        guard let failure = self.check(chain) else { return .meetsPolicy }
        let text = failure.description
        return .failsToMeetPolicy(reason: text)
    }
}

extension Certificate {
    /// Whether subject and issuer are the same name (a root, or a self-issued certificate).
    var isSelfIssued: Bool { self.subject == self.issuer }

    /// Whether the certificate is a CA according to its basic constraints.
    var isCertificateAuthority: Bool {
        if case .isCertificateAuthority = try? self.extensions.basicConstraints { return true }
        return false
    }

    /// The subject, for messages.
    var subjectText: String { String(describing: self.subject) }
}
