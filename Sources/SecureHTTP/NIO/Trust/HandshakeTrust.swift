import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import ServerTrust
import SwiftASN1
import X509

/// Runs ServerTrust inside NIOSSL's custom verification callback for one connection, and keeps
/// the reason of a rejection so the transport can throw it instead of BoringSSL's generic
/// "certificate verify failed".
final class HandshakeTrust: Sendable {
    let requirements: ConnectionRequirements
    private let evaluator: ServerTrust
    /// The platform's verifier, for requirements whose roots only the platform can read (the
    /// system roots on Apple platforms); nil for ServerTrust's own path validation.
    private let platformValidator: (any PlatformChainValidator)?
    private let cache: TrustDecisionCache
    private let reporter: (@Sendable (PinValidationReport) -> Void)?
    private let transparencyReporter: (@Sendable (CertificateTransparencyReport) -> Void)?
    private let observer: (@Sendable (HandshakeObservation) -> Void)?
    private let outcome = NIOLockedValueBox<(failure: ServerTrustError?, report: PinValidationReport?)>((nil, nil))
    private let presented = NIOLockedValueBox(false)
    /// The server's ServerHello, filled in by a ``ServerHelloSniffer`` when one is installed.
    let negotiated = NIOLockedValueBox<NegotiatedTLS?>(nil)
    private let counters: TransportCounters
    private let now: @Sendable () -> Date

    init(
        requirements: ConnectionRequirements,
        evaluator: ServerTrust,
        platformValidator: (any PlatformChainValidator)? = nil,
        cache: TrustDecisionCache,
        counters: TransportCounters,
        reporter: (@Sendable (PinValidationReport) -> Void)?,
        transparencyReporter: (@Sendable (CertificateTransparencyReport) -> Void)? = nil,
        observer: (@Sendable (HandshakeObservation) -> Void)? = nil,
        now: @escaping @Sendable () -> Date
    ) {
        self.observer = observer
        self.transparencyReporter = transparencyReporter
        self.now = now
        self.requirements = requirements
        self.evaluator = evaluator
        self.platformValidator = platformValidator
        self.cache = cache
        self.counters = counters
        self.reporter = reporter
    }

    /// Whether the server got as far as presenting its certificate chain. A handshake that fails
    /// before that was refused on the client's first message: its cipher suites, groups or
    /// signature algorithms.
    var serverPresentedCertificate: Bool { self.presented.withLockedValue { $0 } }

    /// Whether someone observes this handshake, and so wants the ServerHello read.
    var observesHandshake: Bool { self.observer != nil }

    /// The rejection recorded during the handshake, if any.
    var failure: (error: ServerTrustError, report: PinValidationReport?)? {
        self.outcome.withLockedValue { outcome in outcome.failure.map { ($0, outcome.report) } }
    }

    /// The NIOSSL callback. It runs on the event loop; evaluation is asynchronous, so it leaves
    /// the loop in a task and completes the promise from there (never blocking the loop). The
    /// task prefers ``TrustEvaluationExecutor``, so it never waits for the cooperative pool.
    func verify(_ presented: [NIOSSLCertificate], _ promise: EventLoopPromise<NIOSSLVerificationResultWithMetadata>) {
        self.presented.withLockedValue { $0 = true }
        let der: [[UInt8]]
        do {
            der = try presented.map { try $0.toDERBytes() }
        } catch {
            self.record(ServerTrustError.malformedPresentedChain, report: nil)
            promise.succeed(.failed)
            return
        }
        // This transport records every decision with its NIOSSL chain attached, so a hit hands
        // that chain straight back without parsing anything.
        if let hit = self.cache.lookup(
            presentedChain: der,
            requirements: self.requirements,
            configuration: self.evaluator.configuration,
            now: self.now()
        ),
            let chain = hit.attachment as? NIOSSL.ValidatedCertificateChain
        {
            self.counters.metrics.trustEvaluated(cached: true)
            self.observe(der, hit.decision)
            promise.succeed(.certificateVerified(VerificationMetadata(chain)))
            return
        }
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) {
            Task(executorPreference: TrustEvaluationExecutor.shared) {
                promise.succeed(await self.evaluate(der))
            }
        } else {
            promise.completeWithTask { await self.evaluate(der) }
        }
    }

    /// A full evaluation; records a rejection, and caches a trusted decision with its NIOSSL chain.
    private func evaluate(_ der: [[UInt8]]) async -> NIOSSLVerificationResultWithMetadata {
        self.counters.increment(.trustEvaluations)
        self.counters.metrics.trustEvaluated(cached: false)
        let now = self.now()
        let decision: TrustDecision
        if let platformValidator = self.platformValidator {
            // Security.framework validates the path (system roots, plus the policy's for
            // `.system(adding:)`); ServerTrust's key rules, CT and pins then run on the chain it
            // validated, exactly as for URLSessionTransport.
            let evaluation = await platformValidator.validate(der, for: self.requirements)
            switch PlatformTrustConclusion(
                evaluation,
                evaluator: self.evaluator,
                requirements: self.requirements,
                now: now
            ) {
            case .refused(let failure):
                self.record(failure, report: nil)
                return .failed
            case .decided(let platformDecision):
                decision = platformDecision
            }
        } else {
            decision = await self.evaluator.evaluate(presentedChain: der, requirements: self.requirements, now: now)
        }
        if let report = decision.pinReport {
            self.counters.metrics.pinMismatch(report.result)
            self.reporter?(report)
        }
        if let report = decision.transparencyReport, report.result != .compliant { self.transparencyReporter?(report) }
        self.observe(der, decision)
        if let failure = decision.failure {
            self.record(failure, report: decision.pinReport)
            return .failed
        }
        let chain = decision.chain.compactMap(Self.derBytes)
        guard chain.count == decision.chain.count, !chain.isEmpty else {
            self.record(ServerTrustError.malformedPresentedChain, report: nil)
            return .failed
        }
        let result = Self.verified(chain)
        guard case .certificateVerified(let metadata) = result, let validated = metadata.validatedCertificateChain
        else {
            return result
        }
        self.cache.record(
            decision,
            presentedChain: der,
            requirements: self.requirements,
            configuration: self.evaluator.configuration,
            now: now,
            attachment: validated
        )
        return result
    }

    private func observe(_ der: [[UInt8]], _ decision: TrustDecision) {
        guard let observer = self.observer else { return }
        observer(
            HandshakeObservation(
                requirements: self.requirements,
                presentedChain: der,
                decision: decision,
                negotiated: self.negotiated.withLockedValue { $0 }
            )
        )
    }

    private func record(_ failure: ServerTrustError, report: PinValidationReport?) {
        self.counters.metrics.trustFailed(failure.code)
        self.outcome.withLockedValue { $0 = (failure, report) }
    }

    private static func verified(_ chain: [[UInt8]]) -> NIOSSLVerificationResultWithMetadata {
        let certificates = chain.compactMap { try? NIOSSLCertificate(bytes: $0, format: .der) }
        guard certificates.count == chain.count, !certificates.isEmpty else { return .failed }
        return .certificateVerified(VerificationMetadata(ValidatedCertificateChain(certificates)))
    }

    private static func derBytes(_ certificate: Certificate) -> [UInt8]? {
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(certificate)) != nil else { return nil }
        return serializer.serializedBytes
    }
}

extension ServerTrustError {
    /// A presented certificate that NIOSSL could not hand over as DER.
    static var malformedPresentedChain: ServerTrustError {
        ServerTrustError(.malformedCertificate, "a presented certificate could not be read")
    }
}
