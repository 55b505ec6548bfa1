#if canImport(Security)
import Dispatch
import Foundation
import Security
import ServerTrust
import SwiftASN1
import X509

/// Security.framework's path validation, for both transports: `URLSessionTransport` hands it the
/// `SecTrust` of a server-trust challenge; `NIOHTTPTransport` hands it the chain NIOSSL received
/// (``validate(_:for:)``), for a policy that trusts the system roots, which only
/// Security.framework can read on Apple platforms.
///
/// Thin by design: it sets the SSL policy for the requested host and the policy's anchors,
/// evaluates, and reports the verdict as a ``PlatformTrustEvaluation``; the decision that
/// follows (key rules, CT, pins on the validated chain) is ``PlatformTrustConclusion``'s.
struct SecTrustChainValidator: PlatformChainValidator {
    /// Where `SecTrustEvaluateWithError` runs: it may block on the network (intermediates,
    /// revocation), so never on an event loop or the cooperative pool.
    private static let queue = DispatchQueue(label: "SecureNetworking.SecTrustChainValidator", attributes: .concurrent)

    func validate(
        _ presentedChain: [[UInt8]],
        for requirements: ConnectionRequirements
    ) async -> PlatformTrustEvaluation {
        let anchorDER: [Data]
        do {
            anchorDER = try Self.anchorCertificates(requirements.trustAnchors)
        } catch {
            return .unusable("a trust anchor of the policy could not be DER-encoded")
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<PlatformTrustEvaluation, Never>) in
            Self.queue.async {
                continuation.resume(returning: Self.evaluate(presentedChain, for: requirements, anchorDER: anchorDER))
            }
        }
    }

    /// Builds a `SecTrust` for `presentedChain` (leaf first; the rest are candidates for the
    /// path, as a TLS peer sends them) and evaluates it.
    static func evaluate(
        _ presentedChain: [[UInt8]],
        for requirements: ConnectionRequirements,
        anchorDER: [Data]
    ) -> PlatformTrustEvaluation {
        var certificates: [SecCertificate] = []
        for der in presentedChain {
            guard let certificate = SecCertificateCreateWithData(nil, Data(der) as CFData) else {
                return .unusable("a presented certificate is not one Security.framework reads")
            }
            certificates.append(certificate)
        }
        guard !certificates.isEmpty else { return .unusable("the server presented no certificate") }
        var created: SecTrust?
        let policy = SecPolicyCreateSSL(true, requirements.host as CFString)
        guard SecTrustCreateWithCertificates(certificates as CFArray, policy, &created) == errSecSuccess,
            let trust = created
        else {
            return .unusable("a trust object for \(requirements.host) could not be created")
        }
        return Self.evaluate(trust, for: requirements, anchorDER: anchorDER)
    }

    /// Has Security.framework validate the path for the requested host with the policy's
    /// anchors, and returns its verdict in the policy's terms.
    ///
    /// `SecTrustEvaluateWithError` may block briefly (it can fetch intermediates or revocation
    /// data); it runs once per new TLS connection.
    static func evaluate(
        _ trust: SecTrust,
        for requirements: ConnectionRequirements,
        anchorDER: [Data]
    ) -> PlatformTrustEvaluation {
        if let problem = Self.configure(trust, for: requirements, anchorDER: anchorDER) {
            return .unusable(problem)
        }
        var cfError: CFError?
        guard SecTrustEvaluateWithError(trust, &cfError) else {
            let status = OSStatus(truncatingIfNeeded: cfError.map { CFErrorGetCode($0) } ?? 0)
            return .refused(PlatformTrustRefusal(status: status), status: status)
        }
        guard let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate] else {
            return .unusable("the validated chain could not be read")
        }
        return .validated(chain.map { [UInt8](SecCertificateCopyData($0) as Data) })
    }

    /// Sets the SSL policy for the requested host and the policy's trust anchors (`anchorDER`,
    /// the DER of `requirements.trustAnchors.certificates`) on `trust`; returns what went wrong,
    /// if anything.
    private static func configure(
        _ trust: SecTrust,
        for requirements: ConnectionRequirements,
        anchorDER: [Data]
    ) -> String? {
        let host = requirements.host
        let policy = SecPolicyCreateSSL(true, host as CFString)
        guard SecTrustSetPolicies(trust, policy) == errSecSuccess else {
            return "the SSL policy for \(host) could not be set"
        }
        let anchors = requirements.trustAnchors
        guard !anchors.includesSystemRoots || !anchors.certificates.isEmpty else { return nil }

        var certificates: [SecCertificate] = []
        for der in anchorDER {
            guard let certificate = SecCertificateCreateWithData(nil, der as CFData) else {
                return "a trust anchor of the policy is not a certificate Security.framework reads"
            }
            certificates.append(certificate)
        }
        guard SecTrustSetAnchorCertificates(trust, certificates as CFArray) == errSecSuccess,
            // Setting anchors disables the system roots; turn them back on for `.system(adding:)`.
            SecTrustSetAnchorCertificatesOnly(trust, !anchors.includesSystemRoots) == errSecSuccess
        else {
            return "the trust anchors for \(host) could not be set"
        }
        return nil
    }

    /// The DER encoding of the app-supplied anchors.
    static func anchorCertificates(_ anchors: TrustAnchors) throws(SecureHTTPError) -> [Data] {
        var encoded: [Data] = []
        for certificate in anchors.certificates {
            var serializer = DER.Serializer()
            do {
                try serializer.serialize(certificate)
            } catch {
                throw SecureHTTPError(.policyViolation, "a trust anchor of the policy could not be DER-encoded")
            }
            encoded.append(Data(serializer.serializedBytes))
        }
        return encoded
    }
}
#endif
