@_spi(DisableValidityCheck) import X509
import SwiftASN1

import Foundation

/// The policy ServerTrust hands to swift-certificates' `Verifier`: RFC 5280, the Web PKI rules
/// and ATS's certificate rules, in one value that remembers which rule failed first.
///
/// The rules run cheapest and most basic first; the budget runs before RFC 5280 so that a chain
/// with hostile name constraints is refused before they are evaluated. RFC 5280's own expiry
/// check is replaced by ``ExactExpiryPolicy``; swift-certificates' `ServerIdentityPolicy` runs
/// after the stricter SAN-only policy as a second opinion.
struct EvaluationPolicy: VerifierPolicy {
    var budget: ValidationBudgetPolicy
    let expiry: ExactExpiryPolicy
    let rfc5280 = RFC5280Policy.withValidityCheckDisabled()
    let serialNumbers = SerialNumberPolicy()
    let keyUsage = KeyUsageRolePolicy()
    let serverAuth = ServerAuthUsagePolicy()
    let identity: WebPKIServerIdentityPolicy
    var libraryIdentity: ServerIdentityPolicy
    let strength: CertificateStrengthPolicy

    /// Keeps the first failure seen over all candidate paths. A reference, because the
    /// `Verifier` wraps the policy in a type that cannot be read back; it lives only for one
    /// evaluation, inside one task.
    final class FailureRecorder {
        var first: ServerTrustError?
    }

    let recorder = FailureRecorder()

    let verifyingCriticalExtensions: [ASN1ObjectIdentifier]

    init(host: String, now: Date, rules: CertificateRules, configuration: ServerTrust.Configuration) {
        self.budget = ValidationBudgetPolicy(
            timeBudget: configuration.validationTimeBudget,
            maximumNameConstraintChecks: configuration.maximumNameConstraintChecks
        )
        self.expiry = ExactExpiryPolicy(validationTime: now)
        self.identity = WebPKIServerIdentityPolicy(host: host, publicSuffixes: configuration.publicSuffixes)
        let isIP = IPAddress(host) != nil
        self.libraryIdentity = ServerIdentityPolicy(serverHostname: isIP ? nil : host, serverIP: isIP ? host : nil)
        self.strength = CertificateStrengthPolicy(rules: rules)
        var critical = self.rfc5280.verifyingCriticalExtensions
        for oid in self.serverAuth.verifyingCriticalExtensions + self.identity.verifyingCriticalExtensions
        where !critical.contains(oid) {
            critical.append(oid)
        }
        self.verifyingCriticalExtensions = critical
    }

    mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        guard let failure = self.firstFailingRule(chain) else { return .meetsPolicy }
        if self.recorder.first == nil { self.recorder.first = failure }
        let text = failure.description
        return .failsToMeetPolicy(reason: text)
    }

    private mutating func firstFailingRule(_ chain: UnverifiedCertificateChain) -> ServerTrustError? {
        if let failure = self.budget.check(chain) { return failure }
        if let failure = self.expiry.check(chain) { return failure }
        if let failure = self.serialNumbers.check(chain) { return failure }
        if case .failsToMeetPolicy(let reason) = self.rfc5280.chainMeetsPolicyRequirements(chain: chain) {
            return ServerTrustError(.chainPolicyViolation, reason.description)
        }
        if let failure = self.keyUsage.check(chain) { return failure }
        if let failure = self.serverAuth.check(chain) { return failure }
        if let failure = self.identity.check(chain) { return failure }
        if case .failsToMeetPolicy(let reason) = self.libraryIdentity.chainMeetsPolicyRequirements(chain: chain) {
            return ServerTrustError(.hostnameMismatch, reason.description)
        }
        return self.strength.check(chain)
    }
}
