import Foundation
import ServerTrust

/// What the platform's own verifier (Security.framework on Apple platforms) said about a server's
/// chain: the first half of a platform-validated trust decision.
///
/// Both transports get one of these on Apple platforms for a policy that trusts the system roots:
/// `URLSessionTransport` from its server-trust challenge, `NIOHTTPTransport` from the NIOSSL
/// verification callback. ``PlatformTrustConclusion`` is the second half, shared by both.
enum PlatformTrustEvaluation: Sendable {
    /// `SecTrustEvaluateWithError` succeeded; the chain it validated, DER, leaf first.
    case validated([[UInt8]])
    /// `SecTrustEvaluateWithError` failed with this reason and OSStatus.
    case refused(PlatformTrustRefusal, status: Int32)
    /// The trust object could not be set up (policy, anchors) or its chain read.
    case unusable(String)
}

/// The OSStatus of a refused evaluation, in ServerTrust's vocabulary.
enum PlatformTrustRefusal: Sendable, Hashable {
    /// `errSecCertificateExpired`.
    case expired
    /// `errSecCertificateNotValidYet`.
    case notYetValid
    /// `errSecHostNameMismatch`.
    case hostNameMismatch
    /// `errSecNotTrusted`, `errSecCreateChainFailed`: no path to a trust anchor.
    case untrusted
    /// Any other status (revocation, policy constraints, …).
    case other

    /// The refusal an OSStatus of `SecTrustEvaluateWithError` stands for: the statuses whose
    /// meaning is unambiguous (Security/SecBase.h), ``other`` for the rest.
    init(status: Int32) {
        switch status {
        case -67818: self = .expired  // errSecCertificateExpired
        case -67819: self = .notYetValid  // errSecCertificateNotValidYet
        case -67602: self = .hostNameMismatch  // errSecHostNameMismatch
        case -67843, -25318: self = .untrusted  // errSecNotTrusted, errSecCreateChainFailed
        default: self = .other
        }
    }
}

/// A platform verdict carried through ServerTrust: a refusal in ServerTrust's terms, or, for a
/// validated chain, ServerTrust's key rules, CT and pins on that chain
/// (`ServerTrust.evaluate(platformValidatedChain:requirements:now:)`).
enum PlatformTrustConclusion: Sendable {
    /// The platform refused the chain, or it could not be evaluated.
    case refused(ServerTrustError)
    /// The platform validated the chain; ServerTrust's decision on it (which may still refuse
    /// it, for a weak key or a pin mismatch).
    case decided(TrustDecision)

    /// Concludes `evaluation` for `requirements`.
    init(_ evaluation: PlatformTrustEvaluation, evaluator: ServerTrust, requirements: ConnectionRequirements, now: Date)
    {
        switch evaluation {
        case .unusable(let reason):
            self = .refused(ServerTrustError(.chainPolicyViolation, "the chain could not be evaluated: \(reason)"))
        case .refused(let refusal, let status):
            self = .refused(Self.error(refusal, status: status, host: requirements.host))
        case .validated(let chain):
            guard !chain.isEmpty else {
                self = .refused(ServerTrustError(.emptyChain, "the platform's validated chain is empty"))
                return
            }
            self = .decided(evaluator.evaluate(platformValidatedChain: chain, requirements: requirements, now: now))
        }
    }

    /// The failure, if the chain is refused.
    var failure: ServerTrustError? {
        switch self {
        case .refused(let error): error
        case .decided(let decision): decision.failure
        }
    }

    /// ServerTrust's decision, when the platform validated the chain.
    var decision: TrustDecision? {
        if case .decided(let decision) = self { return decision }
        return nil
    }

    private static func error(_ refusal: PlatformTrustRefusal, status: Int32, host: String) -> ServerTrustError {
        switch refusal {
        case .expired:
            ServerTrustError(.expired, "a certificate of the chain has expired (OSStatus \(status))")
        case .notYetValid:
            ServerTrustError(.notYetValid, "a certificate of the chain is not valid yet (OSStatus \(status))")
        case .hostNameMismatch:
            ServerTrustError(.hostnameMismatch, "the certificate does not cover \(host) (OSStatus \(status))")
        case .untrusted:
            ServerTrustError(
                .untrustedRoot,
                "\(host) is not trusted: Security.framework found no path from its chain to a system root or a trust anchor of this policy (OSStatus \(status)); if it is a company or development CA, add it to the policy's trust anchors: \"trustAnchors\" in the policy file or TrustAnchors.system(adding:)"
            )
        case .other:
            ServerTrustError(
                .chainPolicyViolation,
                "Security.framework rejected the certificate chain (OSStatus \(status))"
            )
        }
    }
}

/// Validates a presented chain with the platform's verifier: the seam between the NIO transport's
/// handshake and Security.framework (``SecTrustChainValidator`` on Apple platforms; a stand-in in
/// the Linux tests).
protocol PlatformChainValidator: Sendable {
    /// Validates `presentedChain` (DER, leaf first, as the server sent it) for
    /// `requirements.host` against `requirements.trustAnchors` (the system roots, plus the
    /// policy's own for `.system(adding:)`). May block: called off the event loop.
    func validate(
        _ presentedChain: [[UInt8]],
        for requirements: ConnectionRequirements
    ) async -> PlatformTrustEvaluation
}

/// Who validates the path of a chain for one set of requirements, on one platform.
enum ChainPathValidation: Sendable, Equatable {
    /// ServerTrust (swift-certificates' verifier), against the policy's roots or the root store
    /// it reads.
    case serverTrust
    /// The platform's verifier, then ServerTrust's post-validation step.
    case platform
    /// Neither can: the policy trusts the system roots, ServerTrust cannot read them here and
    /// no platform verifier is available.
    case impossible

    /// The choice for `anchors`: ServerTrust whenever it can read every root the policy trusts
    /// (the policy names its roots, or the platform's root store is readable, as on Linux),
    /// otherwise the platform's verifier.
    static func choice(for anchors: TrustAnchors, rootStoreIsReadable: Bool, hasPlatformValidator: Bool) -> Self {
        guard anchors.includesSystemRoots, !rootStoreIsReadable else { return .serverTrust }
        return hasPlatformValidator ? .platform : .impossible
    }
}

/// What a platform offers the NIO transport for chain validation.
struct PlatformTrust: Sendable {
    /// Whether ServerTrust can read this platform's root store. swift-certificates reads the
    /// CA bundle Linux distributions install (`CertificateStore.systemTrustRoots`); Apple
    /// platforms keep theirs inside Security.framework, which does not hand it out on iOS, tvOS,
    /// watchOS or visionOS.
    var rootStoreIsReadable: Bool
    /// The platform's verifier, where there is one.
    var validator: (any PlatformChainValidator)?

    /// Who validates chains to `anchors` on this platform.
    func validation(for anchors: TrustAnchors) -> ChainPathValidation {
        ChainPathValidation.choice(
            for: anchors,
            rootStoreIsReadable: self.rootStoreIsReadable,
            hasPlatformValidator: self.validator != nil
        )
    }

    /// The validator to run in the handshake for `requirements`: nil for ServerTrust's own path
    /// validation.
    func validator(for requirements: ConnectionRequirements) -> (any PlatformChainValidator)? {
        self.validation(for: requirements.trustAnchors) == .platform ? self.validator : nil
    }

    /// This platform's: Security.framework on Apple platforms, ServerTrust's own validation
    /// against the distribution's CA bundle elsewhere.
    static var current: PlatformTrust {
        #if canImport(Security)
        PlatformTrust(rootStoreIsReadable: false, validator: SecTrustChainValidator())
        #else
        PlatformTrust(rootStoreIsReadable: true, validator: nil)
        #endif
    }
}
