public import Foundation
public import SwiftASN1
public import X509

/// Validity periods checked at the exact validation time.
///
/// RFC 5280 §4.1.2.5: a certificate is valid from notBefore through notAfter, inclusive.
/// swift-certificates 1.21.1 compares against the time rounded to the whole second, which accepts
/// a certificate for up to a second after it expired; this policy compares `Date`s directly and
/// says which bound failed.
public struct ExactExpiryPolicy: ChainRule, Sendable {
    /// The critical extensions this policy processes (the verifier refuses unprocessed ones).
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    /// The instant the chain must be valid at.
    public let validationTime: Date

    /// Creates the policy for an instant.
    public init(validationTime: Date) {
        self.validationTime = validationTime
    }

    /// The failure of this rule for a path (leaf first, anchor last), or nil when it holds.
    public func check(certificates: [Certificate]) -> ServerTrustError? {
        for (index, certificate) in certificates.enumerated() {
            let role = index == 0 ? "leaf" : "certificate \(index)"
            if certificate.notValidBefore > certificate.notValidAfter {
                return ServerTrustError(
                    .chainPolicyViolation,
                    "the \(role) (\(certificate.subjectText)) has notBefore after notAfter"
                )
            }
            if self.validationTime < certificate.notValidBefore {
                return ServerTrustError(
                    .notYetValid,
                    "the \(role) (\(certificate.subjectText)) is not valid before \(certificate.notValidBefore)"
                )
            }
            if self.validationTime > certificate.notValidAfter {
                return ServerTrustError(
                    .expired,
                    "the \(role) (\(certificate.subjectText)) expired at \(certificate.notValidAfter)"
                )
            }
        }
        return nil
    }
}
