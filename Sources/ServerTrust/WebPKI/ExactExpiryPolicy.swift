public import Foundation
public import SwiftASN1
public import X509

/// Validity periods checked at the validation time, to the second certificates are written in.
///
/// RFC 5280 §4.1.2.5: a certificate is valid from notBefore through notAfter, inclusive, and
/// its times have a resolution of one second (§4.1.2.5.1–2: no fractional seconds). So a
/// certificate is valid from the instant of its notBefore, and through the whole second its
/// notAfter names: at `notAfter + 0.5 s` it is still valid, at `notAfter + 1 s` it has expired
/// (x509-limbo's `rfc5280::validity::notafter-fractional` and `expired-1-second`). This
/// policy says which bound failed, and refuses a notBefore after the notAfter.
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
            if self.validationSecond > certificate.notValidAfter {
                return ServerTrustError(
                    .expired,
                    "the \(role) (\(certificate.subjectText)) expired at \(certificate.notValidAfter)"
                )
            }
        }
        return nil
    }

    /// The validation time without its fraction of a second.
    var validationSecond: Date {
        Date(timeIntervalSince1970: self.validationTime.timeIntervalSince1970.rounded(.down))
    }
}
