public import Foundation
import SwiftASN1
public import X509

/// Decides whether a server's certificate chain may be trusted for a host.
///
/// The order is fixed and each step only runs when the one before it passed:
/// 1. build and validate a path from the leaf to a trust anchor with swift-certificates'
///    `Verifier`: RFC 5280, exact validity times, the Web PKI rules (serverAuth, SAN-only host
///    names, strict wildcards, key usage by role, serial numbers), within a work budget;
/// 2. the certificate rules of the policy (key sizes, SHA-2 signatures);
/// 3. Certificate Transparency, where the requirements ask for it: the SCTs of the leaf (embedded,
///    and any delivered by TLS or OCSP) against the log list and the CT policy, with the
///    *validated* issuer's key (see ``CertificateTransparencyVerifier``);
/// 4. the host's pins against the *validated* chain, anchor included. A pin never replaces
///    validation: an unvalidated chain is rejected whatever its pins.
public struct ServerTrust: Sendable {
    /// Limits that keep one evaluation cheap whatever the server sends.
    public struct Configuration: Hashable, Sendable {
        /// The most certificates a server may present. Default 64: enough for servers that send
        /// every cross-sign they have (bettertls's path-building cases present 36), while path
        /// building stays bounded by ``maximumCandidatesPerIssuerName`` and the time budget, and
        /// x509-limbo's 101-certificate pathological chains are refused before parsing.
        public var maximumChainLength: Int
        /// How many presented certificates with the same subject are considered as issuers. Default 4.
        public var maximumCandidatesPerIssuerName: Int
        /// The wall-clock budget of one evaluation. Default 2 seconds.
        public var validationTimeBudget: Duration
        /// The bound on name-constraint comparisons per candidate path. Default 2²⁰.
        public var maximumNameConstraintChecks: Int
        /// The public suffixes under which wildcards are refused.
        public var publicSuffixes: PublicSuffixList
        /// How many times path building may look up the presented issuers of a partial path
        /// (each lookup checks at most ``maximumCandidatesPerIssuerName`` signatures). Default
        /// 48: a hostile server's layers of same-name certificates cannot make the search
        /// exponential (at most about 200 signature checks), and bettertls's hardest
        /// path-building cases, 36 certificates, fit well within it.
        public var maximumIssuerLookups: Int

        /// Creates a configuration; the defaults suit TLS handshakes.
        public init(
            maximumChainLength: Int = 64,
            maximumCandidatesPerIssuerName: Int = 4,
            validationTimeBudget: Duration = .seconds(2),
            maximumNameConstraintChecks: Int = ValidationBudgetPolicy.defaultMaximumNameConstraintChecks,
            publicSuffixes: PublicSuffixList = .builtIn,
            maximumIssuerLookups: Int = 48
        ) {
            self.maximumChainLength = maximumChainLength
            self.maximumCandidatesPerIssuerName = maximumCandidatesPerIssuerName
            self.validationTimeBudget = validationTimeBudget
            self.maximumNameConstraintChecks = maximumNameConstraintChecks
            self.publicSuffixes = publicSuffixes
            self.maximumIssuerLookups = maximumIssuerLookups
        }
    }

    /// The limits in force.
    public let configuration: Configuration

    /// Creates an evaluator.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Evaluates a chain as presented in the TLS handshake (DER, leaf first).
    ///
    /// - Parameters:
    ///   - presentedChain: the certificates the server sent, leaf first.
    ///   - requirements: what the connection must satisfy, from ``TransportSecurityPolicy``.
    ///   - now: the validation time.
    ///   - deliveredSCTs: SCTs the server delivered outside the certificate (the TLS
    ///     `signed_certificate_timestamp` extension, a stapled OCSP response), when the TLS stack
    ///     exposes them; they count under the CT policy's rules for such SCTs. NIOSSL does not
    ///     expose them, so the NIO transport passes none.
    public func evaluate(
        presentedChain: [[UInt8]],
        requirements: ConnectionRequirements,
        now: Date = Date(),
        deliveredSCTs: [SignedCertificateTimestamp] = []
    ) async -> TrustDecision {
        if let failure = self.checkLength(presentedChain.count) {
            return self.rejection(failure, requirements)
        }
        var certificates: [Certificate] = []
        certificates.reserveCapacity(presentedChain.count)
        var unusable: ServerTrustError?
        for (index, der) in presentedChain.enumerated() {
            do {
                certificates.append(try Certificate(derEncoded: der))
            } catch {
                let failure = self.parseFailure(der, index: index, rules: requirements.certificateRules)
                // The leaf must parse. An extra certificate that does not may be one the path
                // does not need (a cross-sign signed with SHA-1, say): it is left out, and its
                // reason is reported only if no path is found without it.
                if index == 0 { return self.rejection(failure, requirements) }
                if unusable == nil { unusable = failure }
            }
        }
        return await self.evaluate(
            presentedCertificates: certificates,
            requirements: requirements,
            now: now,
            unusableExtra: unusable,
            deliveredSCTs: deliveredSCTs
        )
    }

    /// Evaluates a chain of parsed certificates, leaf first.
    public func evaluate(
        presentedCertificates: [Certificate],
        requirements: ConnectionRequirements,
        now: Date = Date(),
        deliveredSCTs: [SignedCertificateTimestamp] = []
    ) async -> TrustDecision {
        await self.evaluate(
            presentedCertificates: presentedCertificates,
            requirements: requirements,
            now: now,
            unusableExtra: nil,
            deliveredSCTs: deliveredSCTs
        )
    }

    func evaluate(
        presentedCertificates: [Certificate],
        requirements: ConnectionRequirements,
        now: Date,
        unusableExtra: ServerTrustError?,
        deliveredSCTs: [SignedCertificateTimestamp] = []
    ) async -> TrustDecision {
        if let failure = self.checkLength(presentedCertificates.count) {
            return self.rejection(failure, requirements)
        }
        let leaf = presentedCertificates[0]
        let policy = EvaluationPolicy(
            host: requirements.host,
            now: now,
            rules: requirements.certificateRules,
            anchors: requirements.trustAnchors,
            configuration: self.configuration
        )
        if let unhandled = leaf.extensions.first(where: {
            $0.critical && !policy.verifyingCriticalExtensions.contains($0.oid)
        }) {
            return self.rejection(
                ServerTrustError(
                    .chainPolicyViolation,
                    "the leaf has an unsupported critical extension \(unhandled.oid)"
                ),
                requirements
            )
        }

        var verifier = Verifier(rootCertificates: requirements.trustAnchors.store) { policy }
        let intermediates = BoundedIntermediateStore(
            self.candidateIntermediates(presentedCertificates.dropFirst()),
            maximumLookups: self.configuration.maximumIssuerLookups
        )
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore(custom: intermediates))

        switch result {
        case .validCertificate(let validated):
            let path = Array(validated)
            return self.checkValidated(path, requirements: requirements, now: now, deliveredSCTs: deliveredSCTs)
                .adding(EvaluationPolicy.warnings(path, anchors: requirements.trustAnchors))
        case .couldNotValidate:
            if intermediates.isExhausted {
                return self.rejection(
                    ServerTrustError(
                        .validationBudgetExceeded,
                        "path building gave up after \(intermediates.maximumLookups) issuer lookups among the \(presentedCertificates.count) certificates presented"
                    ),
                    requirements
                )
            }
            if let failure = policy.recorder.first { return self.rejection(failure, requirements) }
            let diagnosis = Self.diagnoseMissingPath(
                presentedCertificates,
                appAnchors: requirements.trustAnchors.certificates
            )
            // The issuer not presented may be the presented certificate that could not be read.
            if diagnosis.issuerNotPresented, let unusableExtra {
                return self.rejection(unusableExtra, requirements)
            }
            return self.rejection(diagnosis.failure, requirements)
        }
    }

    func checkLength(_ count: Int) -> ServerTrustError? {
        if count == 0 { return ServerTrustError(.emptyChain, "the server presented no certificate") }
        if count > self.configuration.maximumChainLength {
            return ServerTrustError(
                .chainTooLong,
                "the server presented \(count) certificates; at most \(self.configuration.maximumChainLength) are accepted"
            )
        }
        return nil
    }

    /// Keeps a bounded number of certificates per subject, so path building stays small.
    private func candidateIntermediates(_ certificates: ArraySlice<Certificate>) -> [Certificate] {
        var perSubject: [DistinguishedName: Int] = [:]
        return certificates.filter { certificate in
            let seen = perSubject[certificate.subject, default: 0] + 1
            perSubject[certificate.subject] = seen
            return seen <= self.configuration.maximumCandidatesPerIssuerName
        }
    }

    /// A certificate swift-certificates cannot load: a negative serial number (swift-certificates
    /// refuses it), a weak RSA key (swift-crypto refuses keys under 2048 bits) or a signature
    /// algorithm weaker than SHA-2 (swift-certificates cannot parse ecdsa-with-SHA1, for one) is
    /// reported as such, read from the raw DER; anything else as malformed.
    func parseFailure(_ der: [UInt8], index: Int, rules: CertificateRules) -> ServerTrustError {
        let role = index == 0 ? "leaf" : "certificate \(index)"
        if let oid = try? RawCertificate.signatureAlgorithm(fromCertificateDER: der),
            let name = RawCertificate.weakSignatureAlgorithms[oid]
        {
            return ServerTrustError(
                .weakSignatureAlgorithm,
                "the \(role) presented is signed with \(name); SHA-2 is required"
            )
        }
        if let serial = try? RawCertificate.serialNumberContent(fromCertificateDER: der),
            let failure = SerialNumberPolicy.checkRaw(serial, subject: "the \(role)")
        {
            return failure
        }
        if let spki = try? RawCertificate.subjectPublicKeyInfo(fromCertificateDER: der),
            let bits = try? RawCertificate.rsaModulusBits(subjectPublicKeyInfo: spki),
            let failure = CertificateStrengthPolicy(rules: rules).checkRSA(bits: bits, subject: "the \(role)")
        {
            return failure
        }
        return ServerTrustError(.malformedCertificate, "the \(role) presented is not a valid X.509 certificate")
    }

    /// What follows path validation, for a chain validated here or by the platform: Certificate
    /// Transparency where the requirements ask for it, then the pins.
    func checkValidated(
        _ chain: [Certificate],
        requirements: ConnectionRequirements,
        now: Date,
        deliveredSCTs: [SignedCertificateTimestamp]
    ) -> TrustDecision {
        var transparency: CertificateTransparencyReport?
        if let settings = requirements.certificateTransparency {
            let (report, failure) = Self.checkTransparency(
                chain,
                settings: settings,
                delivered: deliveredSCTs,
                host: requirements.host,
                now: now
            )
            if let failure {
                return TrustDecision(
                    host: requirements.host,
                    port: requirements.port,
                    chain: [],
                    failure: failure,
                    pinReport: nil,
                    transparencyReport: report
                )
            }
            transparency = report
        }
        return self.checkPins(chain, requirements: requirements, now: now, transparencyReport: transparency)
    }

    /// CT for a validated chain (leaf first): the leaf's issuer in the chain is the validated
    /// issuer whose key the log signed over. A chain of one (the leaf is itself the anchor) has
    /// no issuer, so its embedded SCTs cannot verify.
    static func checkTransparency(
        _ chain: [Certificate],
        settings: CertificateTransparencySettings,
        delivered: [SignedCertificateTimestamp],
        host: String,
        now: Date
    ) -> (CertificateTransparencyReport?, ServerTrustError?) {
        guard let logList = settings.logList else {
            return (
                nil,
                ServerTrustError(
                    .ctLogListMissing,
                    "\(host) requires Certificate Transparency and no CT log list is configured"
                )
            )
        }
        let verifier = CertificateTransparencyVerifier(
            logList: logList,
            policy: settings.policy,
            maximumLogListAge: settings.maximumLogListAge
        )
        let (report, failure) = verifier.check(
            leaf: chain[0],
            issuer: chain.count > 1 ? chain[1] : nil,
            delivered: delivered,
            host: host,
            now: now
        )
        return (report, failure)
    }

    func checkPins(
        _ chain: [Certificate],
        requirements: ConnectionRequirements,
        now: Date,
        transparencyReport: CertificateTransparencyReport? = nil
    ) -> TrustDecision {
        guard let pins = requirements.pins else {
            return TrustDecision(
                host: requirements.host,
                port: requirements.port,
                chain: chain,
                failure: nil,
                pinReport: nil,
                transparencyReport: transparencyReport
            )
        }
        let served = chain.map(Pin.init(certificate:))
        if pins.matches(servedChainPins: served) {
            return TrustDecision(
                host: requirements.host,
                port: requirements.port,
                chain: chain,
                failure: nil,
                pinReport: nil,
                transparencyReport: transparencyReport
            )
        }

        let enforced = pins.isEnforced(at: now)
        let result: PinValidationReport.Result =
            enforced ? .rejected : (pins.mode == .reportOnly ? .reportOnly : .expiredNotEnforced)
        let pattern = requirements.pinScope ?? requirements.host
        let report = PinValidationReport(
            host: requirements.host,
            port: requirements.port,
            pattern: pattern,
            servedChainPins: served,
            knownPins: pins.pins,
            result: result,
            date: now
        )
        guard enforced else {
            return TrustDecision(
                host: requirements.host,
                port: requirements.port,
                chain: chain,
                failure: nil,
                pinReport: report,
                transparencyReport: transparencyReport
            )
        }
        let servedLines = zip(served, chain).map { "    \($0): \($1.subjectText)" }.joined(separator: "\n")
        let knownLines = pins.pins.map { "    \($0)" }.joined(separator: "\n")
        let failure = ServerTrustError(
            .pinMismatch,
            "certificate pinning failure for \(OutsideText.escaped(requirements.host)) (pins of \(pattern))\n  served chain:\n\(servedLines)\n  pinned:\n\(knownLines)"
        )
        return TrustDecision(
            host: requirements.host,
            port: requirements.port,
            chain: [],
            failure: failure,
            pinReport: report,
            transparencyReport: transparencyReport
        )
    }

    func rejection(_ failure: ServerTrustError, _ requirements: ConnectionRequirements) -> TrustDecision {
        TrustDecision(host: requirements.host, port: requirements.port, chain: [], failure: failure, pinReport: nil)
    }
}
