import Foundation
import SwiftASN1
import X509

/// The policy ServerTrust hands to swift-certificates' `Verifier`: RFC 5280, the certificate
/// profile (Web PKI or private PKI) and ATS's certificate rules, in one value that remembers
/// which rule failed first.
///
/// The rules run cheapest and most basic first; the budget runs before the name constraints so
/// that a chain with hostile name constraints is refused before they are evaluated.
/// swift-certificates' `RFC5280Policy` is not run: its name-constraint check has gaps (a wildcard
/// SAN slips past an excluded subtree, an unevaluable name is waved through) and refuses valid
/// chains (self-issued intermediates, constraint types the certificate has no name of), and it
/// cannot be run without it. Its version and basic-constraints checks are replaced by
/// ``CertificateAuthorityPolicy``, its expiry check by ``ExactExpiryPolicy`` and its name
/// constraints by ``StrictNameConstraintsPolicy``. swift-certificates' `ServerIdentityPolicy` runs
/// after the stricter SAN-only policy as a second opinion.
struct EvaluationPolicy: VerifierPolicy {
    var budget: ValidationBudgetPolicy
    let expiry: ExactExpiryPolicy
    let serialNumbers = SerialNumberPolicy()
    let authorities = CertificateAuthorityPolicy()
    let nameConstraints: StrictNameConstraintsPolicy
    let keyUsage: KeyUsageRolePolicy
    let serverAuth: ServerAuthUsagePolicy
    let extensionProfile: ExtensionProfilePolicy
    /// The Baseline Requirements' own rules, under the Web PKI profile only.
    let keyIdentifiers: KeyIdentifierPolicy?
    let anchorProfile: AnchorProfilePolicy?
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
    /// Whether a Web-PKI-only refusal should say that the private-PKI profile exists (only the
    /// app's own anchors are in use, so it could be chosen).
    let hintsPrivateProfile: Bool

    init(
        host: String,
        now: Date,
        rules: CertificateRules,
        anchors: TrustAnchors,
        configuration: ServerTrust.Configuration
    ) {
        // A chain that may end at a system root is held to the Web PKI profile whatever was asked.
        let profile: CertificateProfile = anchors.includesSystemRoots ? .webPKI : anchors.profile
        self.budget = ValidationBudgetPolicy(
            timeBudget: configuration.validationTimeBudget,
            maximumNameConstraintChecks: configuration.maximumNameConstraintChecks
        )
        self.expiry = ExactExpiryPolicy(validationTime: now)
        let appAnchors = AppAnchors(anchors)
        self.nameConstraints = StrictNameConstraintsPolicy(profile: profile)
        self.serverAuth = ServerAuthUsagePolicy(profile: profile)
        self.keyUsage = KeyUsageRolePolicy(anchors: appAnchors)
        self.extensionProfile = ExtensionProfilePolicy(profile: profile, anchors: appAnchors)
        let web = profile.appliesBaselineRequirements
        self.hintsPrivateProfile = web && !anchors.includesSystemRoots
        self.keyIdentifiers = web ? KeyIdentifierPolicy() : nil
        self.anchorProfile = web ? AnchorProfilePolicy(anchors: appAnchors) : nil
        self.identity = WebPKIServerIdentityPolicy(host: host, publicSuffixes: configuration.publicSuffixes)
        let isIP = IPAddress(host) != nil
        self.libraryIdentity = ServerIdentityPolicy(serverHostname: isIP ? nil : host, serverIP: isIP ? host : nil)
        self.strength = CertificateStrengthPolicy(rules: rules)
        var critical: [ASN1ObjectIdentifier] = []
        let handled =
            self.authorities.verifyingCriticalExtensions + self.nameConstraints.verifyingCriticalExtensions
            + self.keyUsage.verifyingCriticalExtensions + self.serverAuth.verifyingCriticalExtensions
            + self.extensionProfile.verifyingCriticalExtensions + self.identity.verifyingCriticalExtensions
        for oid in handled where !critical.contains(oid) {
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
        let path = Array(chain)
        if let failure = self.budget.check(certificates: path) { return failure }
        if let failure = self.expiry.check(certificates: path) { return failure }
        if let failure = self.serialNumbers.check(certificates: path) { return failure }
        if let failure = self.authorities.check(certificates: path) { return failure }
        if let failure = self.extensionProfile.check(certificates: path) { return failure }
        if let failure = self.keyIdentifiers?.check(certificates: path) { return self.hinted(failure) }
        if let failure = self.anchorProfile?.check(certificates: path) { return self.hinted(failure) }
        if let failure = self.nameConstraints.check(certificates: path) { return failure }
        if let failure = self.keyUsage.check(certificates: path) { return failure }
        if let failure = self.serverAuth.check(certificates: path) {
            let passesPrivate = ServerAuthUsagePolicy(profile: .privatePKI).check(certificates: path) == nil
            return passesPrivate ? self.hinted(failure) : failure
        }
        if let failure = self.identity.check(certificates: path) { return failure }
        if case .failsToMeetPolicy(let reason) = self.libraryIdentity.chainMeetsPolicyRequirements(chain: chain) {
            return ServerTrustError(.hostnameMismatch, reason.description)
        }
        return self.strength.check(certificates: path)
    }

    /// What a validated path does that the Baseline Requirements ask CAs not to do, with no
    /// security effect for a client (see ``TrustWarning``): Web PKI profile only.
    static func warnings(_ path: [Certificate], anchors: TrustAnchors) -> [TrustWarning] {
        let profile: CertificateProfile = anchors.includesSystemRoots ? .webPKI : anchors.profile
        guard profile.appliesBaselineRequirements else { return [] }
        return [CommonNamePolicy().warning(certificates: path)].compactMap { $0 }
    }

    /// A Web-PKI-only failure, with a pointer to the private-PKI profile when it could apply.
    private func hinted(_ failure: ServerTrustError) -> ServerTrustError {
        guard self.hintsPrivateProfile else { return failure }
        return ServerTrustError(
            failure.code,
            failure.message + " (Web PKI profile; for a CA of your own, use TrustAnchors.only(_:profile: .privatePKI))"
        )
    }
}
