public import Foundation
import X509

extension ServerTrust {
    /// Applies the certificate rules and pins to a chain that the platform has already validated.
    ///
    /// On Apple platforms `SecTrustEvaluateWithError` builds and validates the path (system roots,
    /// host name, revocation); this runs the rest of the policy on the chain it returns
    /// (`SecTrustCopyCertificateChain`, leaf first, anchor last): ATS key sizes and SHA-2
    /// signatures, Certificate Transparency where required, then the host's pins, exactly as
    /// ``evaluate(presentedChain:requirements:now:deliveredSCTs:)`` does after its own path validation.
    ///
    /// - Important: Only pass a chain the platform has validated for `requirements.host`. This
    ///   method does not build a path, check validity dates or match the host name.
    /// - Parameters:
    ///   - platformValidatedChain: the validated chain in DER, leaf first.
    ///   - requirements: what the connection must satisfy.
    ///   - now: the time at which pin-set expiry is judged.
    public func evaluate(
        platformValidatedChain: [[UInt8]],
        requirements: ConnectionRequirements,
        now: Date = Date()
    ) -> TrustDecision {
        if let failure = self.checkLength(platformValidatedChain.count) {
            return self.rejection(failure, requirements)
        }
        var certificates: [Certificate] = []
        for (index, der) in platformValidatedChain.enumerated() {
            guard let certificate = try? Certificate(derEncoded: der) else {
                return self.rejection(
                    self.parseFailure(der, index: index, rules: requirements.certificateRules),
                    requirements
                )
            }
            certificates.append(certificate)
        }
        let strength = CertificateStrengthPolicy(rules: requirements.certificateRules)
        if let failure = strength.check(certificates: certificates) {
            return self.rejection(failure, requirements)
        }
        return self.checkValidated(certificates, requirements: requirements, now: now, deliveredSCTs: [])
            .adding(EvaluationPolicy.warnings(certificates, anchors: requirements.trustAnchors))
    }
}
