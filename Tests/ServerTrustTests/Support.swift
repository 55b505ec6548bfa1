import Foundation
import SecureNetworkingTesting
import ServerTrust
import X509

/// One PKI for the whole test run: minting it costs an RSA-2048 key generation.
enum Fixtures {
    static let pki: TestPKI = {
        do { return try TestPKI() } catch { fatalError("cannot mint the test PKI: \(error)") }
    }()

    static let now = TestPKI.referenceTime
}

/// Evaluates a chain for a host at the reference time, trusting the test root only.
func evaluate(
    _ chain: TestPKI.Chain,
    host: String = "localhost",
    anchors: TrustAnchors? = nil,
    pins: PinSet? = nil,
    pattern: String? = nil,
    rules: CertificateRules = .default,
    at now: Date = Fixtures.now,
    configuration: ServerTrust.Configuration = .init()
) async throws -> TrustDecision {
    let requirements = ConnectionRequirements(
        host: host,
        certificateRules: rules,
        trustAnchors: anchors ?? Fixtures.pki.trustAnchors,
        pinScope: pattern ?? (pins == nil ? nil : host),
        pins: pins
    )
    return await ServerTrust(configuration: configuration).evaluate(
        presentedChain: chain.derChain,
        requirements: requirements,
        now: now
    )
}
