#if Tools
import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing

/// `securenet ct` with a log list older than 70 days: CT is not enforced with it (the runtime
/// rule, unchanged), but the command still verifies every SCT with the list it was given and
/// prints the list's age beside the result.
@Suite("securenet ct with a stale log list")
struct CTStaleLogListCommandTests {
    typealias TemporaryDirectory = CLI.TemporaryDirectory

    func run(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        try await CLI.run(try CLI.securenet(), arguments, subcommand: "ct")
    }

    let at = "2026-01-01T00:00:00Z"  // TestPKI's reference time
    /// 93 days before it.
    static let listTime = TestPKI.referenceTime.addingTimeInterval(-93 * 86_400)
    static let staleness =
        "log list is 93 days old (published 2025-09-30T00:00:00Z); Chrome/Apple policy requires ≤ 70 days for enforcement: SCTs verified for diagnosis only"

    @Test func everySCTIsVerifiedAndTheStalenessIsPrinted() async throws {
        let directory = try TemporaryDirectory()
        let chain = try Fixtures.pki.leafWithSCTs(scts: [.init(CTFixtures.argon), .init(CTFixtures.oak)]).chain
        let pem = try directory.write("chain.pem", Array(chain.pem.utf8))
        let list = try directory.write(
            "list.json",
            Array(TestPKI.logListJSON(CTFixtures.logs, timestamp: Self.listTime))
        )

        let text = try await run([pem, "--log-list", list, "--at", at])
        // Not enforced: the exit status stays "not checked".
        #expect(text.status == 2, "\(text.error)")
        #expect(text.output.contains("log:       Test Argon \(CTFixtures.argon.entry.logIDBase64)"), "\(text.output)")
        #expect(text.output.contains("log:       Test Oak \(CTFixtures.oak.entry.logIDBase64)"))
        #expect(text.output.contains("operator:  Operator B, state usable"))
        #expect(text.output.components(separatedBy: "signature: ECDSA, valid").count == 3)
        #expect(!text.output.contains("(unknown)"))
        #expect(!text.output.contains("not checked (no log list)"))
        #expect(text.output.contains(Self.staleness), "\(text.output)")
        #expect(
            text.output.contains(
                "apple policy: not checked: the CT log list is 93 days old (limit 70): CT not enforced; with this list, for diagnosis: compliant"
            ),
            "\(text.output)"
        )
        #expect(text.output.contains("chrome policy: not checked: "))
        #expect(text.output.contains("with this list, for diagnosis: compliant"))

        let json = try await run([pem, "--log-list", list, "--at", at, "--json", "--policy", "chrome"])
        #expect(json.status == 2)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let verdicts = try #require(object["verdicts"] as? [[String: Any]])
        #expect(verdicts.map { $0["result"] as? String } == ["notEnforcedStaleLogList"])
        let staleness = try #require(object["logListStaleness"] as? [String: Any])
        #expect(staleness["ageDays"] as? Int == 93)
        #expect(staleness["maximumAgeDays"] as? Int == 70)
        #expect(staleness["published"] as? String == "2025-09-30T00:00:00Z")
        let diagnoses = try #require(object["diagnosticVerdicts"] as? [[String: Any]])
        #expect(diagnoses.map { $0["result"] as? String } == ["compliant"])
        let scts = try #require(diagnoses.first?["scts"] as? [[String: Any]])
        #expect(scts.map { $0["status"] as? String } == ["valid", "valid"])
    }

    @Test func aTamperedSCTIsReportedAsInvalid() async throws {
        let directory = try TemporaryDirectory()
        let chain = try Fixtures.pki.leafWithSCTs(scts: [
            .init(CTFixtures.argon, signsWrongTBS: true), .init(CTFixtures.oak),
        ]).chain
        let pem = try directory.write("chain.pem", Array(chain.pem.utf8))
        let list = try directory.write(
            "list.json",
            Array(TestPKI.logListJSON(CTFixtures.logs, timestamp: Self.listTime))
        )
        let result = try await run([pem, "--log-list", list, "--at", at])
        #expect(result.status == 2)
        #expect(result.output.contains("signature: ECDSA, INVALID"), "\(result.output)")
        #expect(result.output.contains("signature: ECDSA, valid"))
        #expect(result.output.contains(Self.staleness))
        #expect(
            result.output.contains(
                "apple policy: not checked: the CT log list is 93 days old (limit 70): CT not enforced"
            )
        )
        #expect(result.output.contains("with this list, for diagnosis: NOT compliant (ctBadSignature): "))
        #expect(!result.output.contains("for diagnosis: compliant"))
    }

    /// A fresh list prints no staleness and no second verdict (the command as before).
    @Test func aFreshListPrintsNoStaleness() async throws {
        let directory = try TemporaryDirectory()
        let chain = try Fixtures.pki.leafWithSCTs(scts: [.init(CTFixtures.argon), .init(CTFixtures.oak)]).chain
        let pem = try directory.write("chain.pem", Array(chain.pem.utf8))
        let list = try directory.write(
            "list.json",
            Array(
                TestPKI.logListJSON(CTFixtures.logs, timestamp: TestPKI.referenceTime.addingTimeInterval(-69 * 86_400))
            )
        )
        let result = try await run([pem, "--log-list", list, "--at", at])
        #expect(result.status == 0, "\(result.error)")
        #expect(!result.output.contains("days old"))
        #expect(!result.output.contains("for diagnosis"))
        #expect(result.output.contains("apple policy: compliant"))
    }

    /// The runtime rule is the verifier's and unchanged: a stale list is not enforced (and not
    /// checked); only `diagnose` verifies with it.
    @Test func theVerifierStillDoesNotEnforceAStaleList() async throws {
        let chain = try Fixtures.pki.leafWithSCTs(scts: [
            .init(CTFixtures.argon, signsWrongTBS: true), .init(CTFixtures.oak),
        ]).chain
        let verifier = CertificateTransparencyVerifier(
            logList: try TestPKI.logList(CTFixtures.logs, timestamp: Self.listTime),
            policy: .apple
        )
        let now = TestPKI.referenceTime
        #expect(verifier.isLogListStale(at: now))
        #expect(!verifier.isLogListStale(at: Self.listTime.addingTimeInterval(70 * 86_400 - 1)))
        #expect(verifier.isLogListStale(at: Self.listTime.addingTimeInterval(70 * 86_400)))
        let issuer = chain.certificates[1]
        let enforced = verifier.check(leaf: chain.leaf, issuer: issuer, now: now)
        #expect(enforced.report.result == .notEnforcedStaleLogList)
        #expect(enforced.report.scts.isEmpty)
        #expect(enforced.failure == nil)
        let diagnosed = verifier.diagnose(leaf: chain.leaf, issuer: issuer, now: now)
        #expect(diagnosed.report.result == .notCompliant)
        #expect(diagnosed.failure?.code == .ctBadSignature)
        #expect(diagnosed.report.scts.map(\.status) == [.invalidSignature, .valid])
    }
}
#endif
