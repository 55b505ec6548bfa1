import Crypto
import Foundation
import SecureNetworkingTesting
import Testing
import X509

@testable import ServerTrust

@Suite("Certificate Transparency")
struct CertificateTransparencyTests {
    let pki = Fixtures.pki
    let day: TimeInterval = 86_400

    func settings(
        _ logs: [TestPKI.CTLog] = CTFixtures.logs,
        policy: CertificateTransparencyPolicy = .apple,
        listTime: Date = TestPKI.referenceTime.addingTimeInterval(-86_400)
    ) throws -> CertificateTransparencySettings {
        CertificateTransparencySettings(logList: try TestPKI.logList(logs, timestamp: listTime), policy: policy)
    }

    func evaluate(
        _ chain: TestPKI.Chain,
        settings: CertificateTransparencySettings?,
        delivered: [SignedCertificateTimestamp] = [],
        at now: Date = Fixtures.now
    ) async -> TrustDecision {
        var requirements = ConnectionRequirements(host: "localhost", trustAnchors: pki.trustAnchors)
        requirements.certificateTransparency = settings
        return await ServerTrust().evaluate(
            presentedChain: chain.derChain,
            requirements: requirements,
            now: now,
            deliveredSCTs: delivered
        )
    }

    /// A 90-day leaf with SCTs from the given logs.
    func leaf(_ specs: [TestPKI.SCTSpec], lifetime: TimeInterval? = nil) throws -> TestPKI.Chain {
        var options = TestPKI.LeafOptions()
        if let lifetime { options.notAfterOffset = options.notBeforeOffset + lifetime }
        return try pki.leafWithSCTs(options, scts: specs).chain
    }

    // MARK: - Compliance

    @Test(arguments: [CertificateTransparencyPolicy.apple, .chrome])
    func twoValidSCTsFromTwoOperatorsComply(policy: CertificateTransparencyPolicy) async throws {
        let chain = try leaf([.init(CTFixtures.argon), .init(CTFixtures.oak)])
        let decision = await evaluate(chain, settings: try settings(policy: policy))
        #expect(decision.failure == nil)
        let report = try #require(decision.transparencyReport)
        #expect(report.result == .compliant)
        #expect(report.policy == policy)
        #expect(report.requiredSCTs == 2)
        #expect(report.scts.map(\.status) == [.valid, .valid])
        #expect(report.scts.map(\.logDescription) == ["Test Argon", "Test Oak"])
        #expect(report.scts.filter(\.counts).count == 2)
    }

    @Test func withoutCTRequiredSCTsAreNotLookedAt() async throws {
        let chain = try leaf([.init(CTFixtures.stranger)])
        let decision = await evaluate(chain, settings: nil)
        #expect(decision.failure == nil)
        #expect(decision.transparencyReport == nil)
    }

    @Test func aCertificateWithoutSCTsIsRefused() async throws {
        let decision = await evaluate(try pki.validChain(), settings: try settings())
        #expect(decision.failure?.code == .ctNoSCTs)
        #expect(decision.chain.isEmpty)
        #expect(decision.transparencyReport?.result == .notCompliant)
        #expect(decision.transparencyReport?.failureCode == "ctNoSCTs")
    }

    @Test func anSCTOverTheWrongTBSDoesNotVerify() async throws {
        let chain = try leaf([.init(CTFixtures.argon, signsWrongTBS: true), .init(CTFixtures.oak)])
        let decision = await evaluate(chain, settings: try settings())
        #expect(decision.failure?.code == .ctBadSignature)
        #expect(decision.transparencyReport?.scts.map(\.status) == [.invalidSignature, .valid])
    }

    @Test func anSCTFromAnUnlistedLogDoesNotCount() async throws {
        let chain = try leaf([.init(CTFixtures.stranger), .init(CTFixtures.oak)])
        let decision = await evaluate(chain, settings: try settings())
        #expect(decision.failure?.code == .ctUnknownLog)
        #expect(decision.transparencyReport?.scts.map(\.status) == [.unknownLog, .valid])
    }

    /// Two intermediates with the same name and the same key identifier but different keys issue
    /// the same TBSCertificate (the same leaf key, serial and validity), so the leaves differ in
    /// their issuer's key and signature only. The SCTs were signed over the first issuer's key
    /// hash: they verify on the leaf that validates through it and not on the other, whatever
    /// else the server presents.
    @Test func theIssuerKeyHashIsTheValidatedIssuers() async throws {
        func twin() throws -> TestPKI.Identity {
            var ca = TestPKI.CAOptions(name: "Twin Issuing CA")
            ca.includesSubjectKeyIdentifier = false
            let identifier = SubjectKeyIdentifier(keyIdentifier: ArraySlice(repeating: 0x7A, count: 20))
            ca.extraExtensions = [try Certificate.Extension(identifier, critical: false)]
            return try pki.makeCA(ca, issuer: pki.root)
        }
        let first = try twin()
        let second = try twin()
        #expect(first.certificate.subject == second.certificate.subject)
        #expect(first.certificate.publicKey != second.certificate.publicKey)

        var options = TestPKI.LeafOptions()
        options.key = .existing(Certificate.PrivateKey(P256.Signing.PrivateKey()))
        options.serialNumberBytes = [0x42, 0x17]
        options.issuer = .custom(first, presenting: [first])
        let signedForFirst = try pki.leafWithSCTs(options, scts: [.init(CTFixtures.argon), .init(CTFixtures.oak)])
        let leafByFirst = signedForFirst.chain.leaf
        let scts = try #require(leafByFirst.extensions[oid: SignedCertificateTimestamp.embeddedListExtension])
        options.issuer = .custom(second, presenting: [second])
        options.extraExtensions = [scts]
        let leafBySecond = try pki.leaf(options).leaf
        // Only the issuer's key (and so the signature) differs: the same TBSCertificate.
        #expect(leafByFirst.tbsCertificateBytes == leafBySecond.tbsCertificateBytes)
        #expect(leafByFirst.signature != leafBySecond.signature)

        func evaluate(_ certificates: [Certificate]) async -> TrustDecision {
            var requirements = ConnectionRequirements(host: "localhost", trustAnchors: pki.trustAnchors)
            requirements.certificateTransparency = try? settings()
            return await ServerTrust().evaluate(
                presentedChain: certificates.map { DERBytes.of($0) },
                requirements: requirements,
                now: Fixtures.now
            )
        }
        let accepted = await evaluate([leafByFirst, first.certificate])
        #expect(accepted.failure == nil)
        #expect(accepted.transparencyReport?.scts.map(\.status) == [.valid, .valid])
        let refused = await evaluate([leafBySecond, second.certificate])
        #expect(refused.failure?.code == .ctBadSignature)
        // The other twin presented too, first: the validated issuer still decides.
        let acceptedBesideTwin = await evaluate([leafByFirst, second.certificate, first.certificate])
        #expect(acceptedBesideTwin.failure == nil)
        let refusedBesideTwin = await evaluate([leafBySecond, first.certificate, second.certificate])
        #expect(refusedBesideTwin.failure?.code == .ctBadSignature)
    }

    // MARK: - Log states

    @Test func aRetiredLogCountsOnlyForSCTsIssuedBeforeItsRetirement() async throws {
        let sctTime = Fixtures.now.addingTimeInterval(-3600)
        // Retired after the SCT: it counts ("once approved").
        let retiredLater = CTFixtures.oak.with(state: .init(.retired, since: sctTime.addingTimeInterval(60)))
        let chain = try leaf([.init(CTFixtures.argon, time: sctTime), .init(retiredLater, time: sctTime)])
        let ok = await evaluate(chain, settings: try settings([CTFixtures.argon, retiredLater]))
        #expect(ok.failure == nil)
        // Retired before the SCT: it does not.
        let retiredEarlier = CTFixtures.oak.with(state: .init(.retired, since: sctTime.addingTimeInterval(-60)))
        let refused = await evaluate(chain, settings: try settings([CTFixtures.argon, retiredEarlier]))
        #expect(refused.failure?.code == .ctLogNotUsable)
        #expect(refused.transparencyReport?.scts.map(\.counts) == [true, false])
        #expect(refused.transparencyReport?.scts.last?.logState == .retired)
    }

    @Test(arguments: [CertificateTransparencyLog.State.Kind.pending, .rejected])
    func pendingAndRejectedLogsNeverCount(kind: CertificateTransparencyLog.State.Kind) async throws {
        let log = CTFixtures.oak.with(state: .init(kind, since: Fixtures.now.addingTimeInterval(-30 * day)))
        let chain = try leaf([.init(CTFixtures.argon), .init(log)])
        let decision = await evaluate(chain, settings: try settings([CTFixtures.argon, log]))
        #expect(decision.failure?.code == .ctLogNotUsable)
    }

    @Test(arguments: [CertificateTransparencyLog.State.Kind.qualified, .usable, .readonly])
    func qualifiedUsableAndReadOnlyLogsCount(kind: CertificateTransparencyLog.State.Kind) async throws {
        // In that state since after the SCT (an hour old): a ReadOnly log's earlier SCTs count.
        let log = CTFixtures.oak.with(state: .init(kind, since: Fixtures.now.addingTimeInterval(-60)))
        let chain = try leaf([.init(CTFixtures.argon), .init(log)])
        let decision = await evaluate(chain, settings: try settings([CTFixtures.argon, log]))
        #expect(decision.failure == nil)
    }

    @Test func anSCTFromTheFutureDoesNotCount() async throws {
        let chain = try leaf([
            .init(CTFixtures.argon), .init(CTFixtures.oak, time: Fixtures.now.addingTimeInterval(60)),
        ])
        let decision = await evaluate(chain, settings: try settings())
        #expect(decision.failure?.code == .ctTooFewSCTs)
        #expect(decision.transparencyReport?.scts.map(\.status) == [.valid, .fromTheFuture])
    }

    @Test func aRetiredLogCountsOnlyWhenTheCertificatesIssuancePredatesTheRetirement() async throws {
        // Chrome C7 / Apple "once-approved": the earliest SCT from a current log is the issuance.
        let retirement = Fixtures.now.addingTimeInterval(-7200)
        let retired = CTFixtures.oak.with(state: .init(.retired, since: retirement))
        let logs = [CTFixtures.argon, CTFixtures.nimbus, retired]
        // Oak's SCT predates the retirement, but the certificate's other SCTs (its issuance) do not.
        let late = try leaf([
            .init(CTFixtures.argon, time: retirement.addingTimeInterval(60)),
            .init(retired, time: retirement.addingTimeInterval(-60)),
        ])
        for policy in [CertificateTransparencyPolicy.apple, .chrome] {
            let decision = await evaluate(late, settings: try settings(logs, policy: policy))
            #expect(decision.failure?.code == .ctLogNotUsable, "\(policy)")
        }
        // Issued before the retirement: it counts.
        let early = try leaf([
            .init(CTFixtures.argon, time: retirement.addingTimeInterval(-120)),
            .init(retired, time: retirement.addingTimeInterval(-60)),
        ])
        for policy in [CertificateTransparencyPolicy.apple, .chrome] {
            #expect(await evaluate(early, settings: try settings(logs, policy: policy)).failure == nil, "\(policy)")
        }
    }

    @Test func embeddedSCTsNeedOneFromALogTrustedNow() async throws {
        // Both logs retired after their SCTs: "once approved", but none is current.
        let sctTime = Fixtures.now.addingTimeInterval(-7200)
        let a = CTFixtures.argon.with(state: .init(.retired, since: sctTime.addingTimeInterval(60)))
        let b = CTFixtures.oak.with(state: .init(.retired, since: sctTime.addingTimeInterval(60)))
        let chain = try leaf([.init(a, time: sctTime), .init(b, time: sctTime)])
        let decision = await evaluate(chain, settings: try settings([a, b], policy: .chrome))
        #expect(decision.failure?.code == .ctLogNotUsable)
    }

    @Test func appleCountsAReadOnlyLogOnlyForSCTsIssuedBeforeItFroze() async throws {
        let frozen = Fixtures.now.addingTimeInterval(-7200)
        let readonly = CTFixtures.oak.with(state: .init(.readonly, since: frozen))
        let chain = try leaf([.init(CTFixtures.argon), .init(readonly, time: frozen.addingTimeInterval(60))])
        let apple = await evaluate(chain, settings: try settings([CTFixtures.argon, readonly], policy: .apple))
        #expect(apple.failure?.code == .ctLogNotUsable)
        // Chrome counts ReadOnly logs as they are.
        #expect(
            await evaluate(chain, settings: try settings([CTFixtures.argon, readonly], policy: .chrome)).failure == nil
        )
        let before = try leaf([.init(CTFixtures.argon), .init(readonly, time: frozen.addingTimeInterval(-60))])
        #expect(
            await evaluate(before, settings: try settings([CTFixtures.argon, readonly], policy: .apple)).failure == nil
        )
    }

    @Test func appleCountsAShardedLogOnlyForCertificatesExpiringInItsInterval() async throws {
        let chain = try leaf([.init(CTFixtures.argon), .init(CTFixtures.oak)])
        let notAfter = chain.leaf.notValidAfter
        let outside = CTFixtures.oak.with {
            $0.temporalInterval = notAfter.addingTimeInterval(1)..<notAfter.addingTimeInterval(365 * 86_400)
        }
        #expect(
            await evaluate(chain, settings: try settings([CTFixtures.argon, outside], policy: .apple)).failure?.code
                == .ctLogNotUsable
        )
        let inside = CTFixtures.oak.with { $0.temporalInterval = notAfter..<notAfter.addingTimeInterval(1) }
        #expect(
            await evaluate(chain, settings: try settings([CTFixtures.argon, inside], policy: .apple)).failure == nil
        )
        // Chrome does not look at the interval.
        #expect(
            await evaluate(chain, settings: try settings([CTFixtures.argon, outside], policy: .chrome)).failure == nil
        )
    }

    @Test func oneSCTMustComeFromAnRFC6962LogForAppleAndForChromeUntilApril2026() async throws {
        let tiledA = CTFixtures.argon.with { $0.isRFC6962 = false }
        let tiledB = CTFixtures.oak.with { $0.isRFC6962 = false }
        let chain = try leaf(
            [.init(tiledA), .init(tiledB), .init(CTFixtures.nimbus.with { $0.isRFC6962 = false })],
            lifetime: 200 * day
        )
        let logs = [tiledA, tiledB, CTFixtures.nimbus.with { $0.isRFC6962 = false }]
        let apple = await evaluate(chain, settings: try settings(logs, policy: .apple))
        #expect(apple.failure?.code == .ctTooFewSCTs)
        #expect(apple.failure?.message.contains("RFC 6962") == true)
        #expect(await evaluate(chain, settings: try settings(logs, policy: .chrome)).failure?.code == .ctTooFewSCTs)
        // From 2026-04-15 Chrome no longer asks for it (the list is a day old then).
        let after = Date(timeIntervalSince1970: 1_776_211_200)
        let later = await evaluate(
            chain,
            settings: try settings(logs, policy: .chrome, listTime: after.addingTimeInterval(-86_400)),
            at: after
        )
        #expect(later.failure == nil)
        let justBefore = await evaluate(
            chain,
            settings: try settings(logs, policy: .chrome, listTime: after.addingTimeInterval(-86_400)),
            at: after.addingTimeInterval(-1)
        )
        #expect(justBefore.failure?.code == .ctTooFewSCTs)
        // One RFC 6962 log among them is enough.
        let mixed = [tiledA, CTFixtures.oak, CTFixtures.nimbus.with { $0.isRFC6962 = false }]
        let chain2 = try leaf([.init(tiledA), .init(CTFixtures.oak), .init(mixed[2])], lifetime: 200 * day)
        #expect(await evaluate(chain2, settings: try settings(mixed, policy: .apple)).failure == nil)
    }

    @Test func anSCTsOperatorIsTheOneRunningTheLogWhenItWasIssued() async throws {
        // Xenon is Operator A's now, but Operator Z ran it until after the SCT.
        let sctTime = Fixtures.now.addingTimeInterval(-3600)
        let handedOver = CTFixtures.xenon.with {
            $0.previousOperators = [.init(name: "Operator Z", endTime: sctTime.addingTimeInterval(60))]
        }
        let chain = try leaf([.init(CTFixtures.argon, time: sctTime), .init(handedOver, time: sctTime)])
        let decision = await evaluate(chain, settings: try settings([CTFixtures.argon, handedOver], policy: .chrome))
        #expect(decision.failure == nil)
        #expect(decision.transparencyReport?.scts.map(\.operatorName) == ["Operator A", "Operator Z"])
        // Handed over before the SCT: both SCTs are Operator A's.
        let earlier = CTFixtures.xenon.with {
            $0.previousOperators = [.init(name: "Operator Z", endTime: sctTime.addingTimeInterval(-60))]
        }
        let refused = await evaluate(chain, settings: try settings([CTFixtures.argon, earlier], policy: .chrome))
        #expect(refused.failure?.code == .ctTooFewSCTs)
    }

    @Test func appleAcceptsOneDeliveredSCTWithAnEmbeddedOneAndChromeWantsTwoDelivered() async throws {
        let made = try leaf([.init(CTFixtures.argon)])
        let delivered = [try CTFixtures.oak.sign(certificate: made.leaf, at: Fixtures.now.addingTimeInterval(-60))]
        let apple = await evaluate(made, settings: try settings(policy: .apple), delivered: delivered)
        #expect(apple.failure == nil)
        #expect(apple.transparencyReport?.scts.map(\.counts) == [true, true])
        let chrome = await evaluate(made, settings: try settings(policy: .chrome), delivered: delivered)
        #expect(chrome.failure?.code == .ctTooFewSCTs)
    }

    // MARK: - Lifetime and operators

    @Test func aCertificateOfExactly180DaysNeedsTwoSCTsAndOneSecondLongerNeedsThree() async throws {
        let two: [TestPKI.SCTSpec] = [.init(CTFixtures.argon), .init(CTFixtures.oak)]
        let atLimit = await evaluate(try leaf(two, lifetime: 180 * day), settings: try settings())
        #expect(atLimit.failure == nil)
        #expect(atLimit.transparencyReport?.requiredSCTs == 2)

        let beyond = await evaluate(try leaf(two, lifetime: 180 * day + 1), settings: try settings())
        #expect(beyond.failure?.code == .ctTooFewSCTs)
        #expect(beyond.transparencyReport?.requiredSCTs == 3)

        let three = two + [.init(CTFixtures.nimbus)]
        let enough = await evaluate(try leaf(three, lifetime: 180 * day + 1), settings: try settings())
        #expect(enough.failure == nil)
    }

    @Test func twoSCTsFromTheSameLogCountOnce() async throws {
        let chain = try leaf([
            .init(CTFixtures.argon), .init(CTFixtures.argon, time: Fixtures.now.addingTimeInterval(-7200)),
        ])
        let decision = await evaluate(chain, settings: try settings())
        #expect(decision.failure?.code == .ctTooFewSCTs)
    }

    @Test(arguments: [CertificateTransparencyPolicy.apple, .chrome])
    func sctsFromOneOperatorOnlyAreRefused(policy: CertificateTransparencyPolicy) async throws {
        // Argon and Xenon are both run by Operator A.
        let chain = try leaf([.init(CTFixtures.argon), .init(CTFixtures.xenon)])
        let decision = await evaluate(chain, settings: try settings(policy: policy))
        #expect(decision.failure?.code == .ctTooFewSCTs)
        #expect(decision.failure?.message.contains("one log operator") == true)
        // A third SCT from another operator fixes it.
        let fixed = try leaf([.init(CTFixtures.argon), .init(CTFixtures.xenon), .init(CTFixtures.oak)])
        #expect(await evaluate(fixed, settings: try settings(policy: policy)).failure == nil)
    }

    // MARK: - SCTs delivered outside the certificate

    @Test func sctsFromTheTLSExtensionSignTheCertificateItself() async throws {
        let chain = try pki.validChain()
        let delivered = [
            try CTFixtures.argon.sign(certificate: chain.leaf, at: Fixtures.now.addingTimeInterval(-60)),
            try CTFixtures.oak.sign(certificate: chain.leaf, at: Fixtures.now.addingTimeInterval(-60)),
        ]
        let decision = await evaluate(chain, settings: try settings(), delivered: delivered)
        #expect(decision.failure == nil)
        #expect(decision.transparencyReport?.scts.map(\.origin) == [.tlsExtension, .tlsExtension])

        // Signed for another certificate: they do not verify.
        let other = try pki.validChain()
        let wrong = [
            try CTFixtures.argon.sign(certificate: other.leaf, at: Fixtures.now.addingTimeInterval(-60)),
            try CTFixtures.oak.sign(certificate: other.leaf, at: Fixtures.now.addingTimeInterval(-60)),
        ]
        let refused = await evaluate(chain, settings: try settings(), delivered: wrong)
        #expect(refused.failure?.code == .ctBadSignature)
    }

    @Test func deliveredSCTsMustComeFromLogsTrustedNow() async throws {
        let chain = try pki.validChain()
        let sctTime = Fixtures.now.addingTimeInterval(-3600)
        let retired = CTFixtures.oak.with(state: .init(.retired, since: sctTime.addingTimeInterval(60)))
        let delivered = [
            try CTFixtures.argon.sign(certificate: chain.leaf, at: sctTime),
            try retired.sign(certificate: chain.leaf, at: sctTime),
        ]
        let decision = await evaluate(chain, settings: try settings([CTFixtures.argon, retired]), delivered: delivered)
        #expect(decision.failure?.code == .ctLogNotUsable)
        #expect(decision.transparencyReport?.scts.map(\.counts) == [true, false])
    }

    // MARK: - The log list's age

    @Test func aStaleLogListIsNotEnforcedAndReported() async throws {
        let chain = try pki.validChain()  // no SCTs at all
        // Chrome C9: enforced while the list is younger than 70 days; at 70 days exactly it is not.
        let fresh = Fixtures.now.addingTimeInterval(-CertificateTransparencySettings.defaultMaximumLogListAge + 1)
        let enforced = await evaluate(chain, settings: try settings(listTime: fresh))
        #expect(enforced.failure?.code == .ctNoSCTs)

        let stale = fresh.addingTimeInterval(-1)
        let decision = await evaluate(chain, settings: try settings(listTime: stale))
        #expect(decision.failure == nil)
        #expect(decision.transparencyReport?.result == .notEnforcedStaleLogList)
        #expect(decision.transparencyReport?.failureCode == "ctLogListStale")
    }

    @Test func aStaleDecisionIsNotCachedAndACompliantOneEndsWithItsList() async throws {
        let chain = try leaf([.init(CTFixtures.argon), .init(CTFixtures.oak)])
        let listTime = Fixtures.now.addingTimeInterval(-69 * day)
        var requirements = ConnectionRequirements(host: "localhost", trustAnchors: pki.trustAnchors)
        requirements.certificateTransparency = try settings(listTime: listTime)
        let cache = TrustDecisionCache()
        let decision = await ServerTrust().evaluate(
            presentedChain: chain.derChain,
            requirements: requirements,
            now: Fixtures.now,
            cache: cache
        )
        #expect(decision.transparencyReport?.result == .compliant)
        #expect(cache.count == 1)
        // Still cached just before the list turns stale, gone just after (the leaf is valid for 89 more days).
        let expiry = listTime.addingTimeInterval(CertificateTransparencySettings.defaultMaximumLogListAge)
        #expect(
            cache.lookup(presentedChain: chain.derChain, requirements: requirements, now: expiry.addingTimeInterval(-1))
                != nil
        )
        #expect(cache.lookup(presentedChain: chain.derChain, requirements: requirements, now: expiry) == nil)

        // A decision under a stale list is never kept.
        let staleCache = TrustDecisionCache()
        let later = expiry.addingTimeInterval(1)
        let stale = await ServerTrust().evaluate(
            presentedChain: chain.derChain,
            requirements: requirements,
            now: later,
            cache: staleCache
        )
        #expect(stale.transparencyReport?.result == .notEnforcedStaleLogList)
        #expect(staleCache.count == 0)
    }

    // MARK: - Policy

    @Test func theATSKeyTurnsCTOnPerDomainAndARequiringHostWithoutAListIsRefused() throws {
        var policy = TransportSecurityPolicy(trustAnchors: pki.trustAnchors)
        policy.setException(
            DomainException(includesSubdomains: true, requiresCertificateTransparency: true),
            for: "bank.example"
        )
        #expect(throws: ServerTrustError(.ctLogListMissing, "")) {
            try policy.requirements(for: URL(string: "https://api.bank.example/")!)
        }
        #expect(try policy.requirements(for: URL(string: "https://other.example/")!).certificateTransparency == nil)

        policy.certificateTransparency.logList = try TestPKI.logList(CTFixtures.logs)
        #expect(try policy.requirements(for: URL(string: "https://api.bank.example/")!).certificateTransparency != nil)
        #expect(try policy.requirements(for: URL(string: "https://other.example/")!).certificateTransparency == nil)

        // Globally on, off for one domain.
        policy.requiresCertificateTransparency = true
        policy.setException(DomainException(requiresCertificateTransparency: false), for: "legacy.example")
        #expect(try policy.requirements(for: URL(string: "https://other.example/")!).certificateTransparency != nil)
        #expect(try policy.requirements(for: URL(string: "https://legacy.example/")!).certificateTransparency == nil)
    }

    @Test func thePolicyFileReadsTheCTKeys() throws {
        let json = """
            {
              "requiresCertificateTransparency": true,
              "certificateTransparency": { "policy": "chrome", "maximumLogListAgeDays": 30 },
              "exceptionDomains": { "legacy.example": { "requiresCertificateTransparency": false } }
            }
            """
        let policy = try TransportSecurityPolicy(json: Data(json.utf8))
        #expect(policy.requiresCertificateTransparency)
        #expect(policy.certificateTransparency.policy == .chrome)
        #expect(policy.certificateTransparency.maximumLogListAge == 30 * day)
        #expect(policy.exception(for: "legacy.example")?.requiresCertificateTransparency == false)

        let bad = #"{ "certificateTransparency": { "policy": "firefox" } }"#
        do {
            _ = try TransportSecurityPolicy(json: Data(bad.utf8))
            Issue.record("an unknown CT policy was accepted")
        } catch {
            #expect(error.code == .invalidPolicyFile)
            #expect(error.keyPath == "$.certificateTransparency.policy")
        }
        let badAge = #"{ "certificateTransparency": { "maximumLogListAgeDays": 0 } }"#
        #expect(throws: ServerTrustError(.invalidPolicyFile, "")) {
            try TransportSecurityPolicy(json: Data(badAge.utf8))
        }
    }
}

/// The RFC 6962 encodings: SCT lists and the precertificate TBS.
@Suite("SCT encoding")
struct SCTEncodingTests {
    func sample() -> SignedCertificateTimestamp {
        SignedCertificateTimestamp(
            logID: Array(repeating: 7, count: 32),
            timestamp: 1_700_000_000_000,
            signatureAlgorithm: 3,
            signature: [1, 2, 3],
            origin: .tlsExtension
        )
    }

    @Test func aListRoundTrips() throws {
        let list = SignedCertificateTimestamp.serializeList([sample(), sample()])
        let parsed = try SignedCertificateTimestamp.parseList(list, origin: .tlsExtension)
        #expect(parsed == [sample(), sample()])
        #expect(parsed[0].date == Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test(
        arguments: [
            ("empty input", [UInt8]()),
            ("empty list", [0, 0]),
            ("truncated list", [0, 10, 0, 1]),
            (
                "trailing bytes",
                SignedCertificateTimestamp.serializeList([
                    SignedCertificateTimestamp(
                        logID: Array(repeating: 7, count: 32),
                        timestamp: 1,
                        signatureAlgorithm: 3,
                        signature: [1],
                        origin: .embedded
                    )
                ]) + [0]
            ),
            ("empty SCT", [0, 2, 0, 0]),
        ] as [(String, [UInt8])]
    )
    func malformedListsAreRefused(name: String, bytes: [UInt8]) {
        #expect(throws: ServerTrustError(.ctMalformedSCT, ""), "\(name)") {
            try SignedCertificateTimestamp.parseList(bytes, origin: .embedded)
        }
    }

    @Test func anSCTOfAnotherVersionOrWithTrailingBytesIsRefused() {
        var v2 = sample().serialized
        v2[0] = 1
        var list: [UInt8] = [0, UInt8(v2.count + 2), 0, UInt8(v2.count)] + v2
        #expect(throws: ServerTrustError(.ctMalformedSCT, "")) {
            try SignedCertificateTimestamp.parseList(list, origin: .embedded)
        }

        let long = sample().serialized + [9]
        list = [0, UInt8(long.count + 2), 0, UInt8(long.count)] + long
        #expect(throws: ServerTrustError(.ctMalformedSCT, "")) {
            try SignedCertificateTimestamp.parseList(list, origin: .embedded)
        }
    }

    @Test func aListOfMoreThan32SCTsIsRefused() throws {
        let ok = SignedCertificateTimestamp.serializeList(Array(repeating: sample(), count: 32))
        #expect(try SignedCertificateTimestamp.parseList(ok, origin: .embedded).count == 32)
        let tooMany = SignedCertificateTimestamp.serializeList(Array(repeating: sample(), count: 33))
        #expect(throws: ServerTrustError(.ctMalformedSCT, "")) {
            try SignedCertificateTimestamp.parseList(tooMany, origin: .embedded)
        }
    }

    @Test func thePrecertificateTBSIsTheCertificatesWithoutItsSCTList() throws {
        let made = try Fixtures.pki.leafWithSCTs(scts: [.init(CTFixtures.argon), .init(CTFixtures.oak)])
        let rebuilt = try SignedCertificateTimestamp.precertificateTBS(of: made.chain.leaf)
        // The precertificate's TBS without the poison is the same bytes (RFC 6962 §3.2).
        let precertificateTBS = try DERWalkerTests.rebuiltTBS(
            made.precertificate.tbsCertificateBytes,
            removing: SignedCertificateTimestamp.poisonExtension
        )
        #expect(rebuilt == precertificateTBS)
        #expect(rebuilt != Array(made.chain.leaf.tbsCertificateBytes))
        #expect(made.precertificate.extensions[oid: SignedCertificateTimestamp.poisonExtension]?.critical == true)
        #expect(made.chain.leaf.extensions[oid: SignedCertificateTimestamp.poisonExtension] == nil)
        #expect(try SignedCertificateTimestamp.embedded(in: made.chain.leaf).count == 2)
        #expect(try SignedCertificateTimestamp.embedded(in: made.precertificate).isEmpty)
    }
}
