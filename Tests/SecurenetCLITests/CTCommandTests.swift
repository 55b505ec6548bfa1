#if Tools
import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing

/// `securenet ct`: the SCTs of a certificate and the verdict of each policy, as text and JSON.
@Suite("securenet ct")
struct CTCommandTests {
    typealias TemporaryDirectory = CLI.TemporaryDirectory

    func run(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        try await CLI.run(try CLI.securenet(), arguments, subcommand: "ct")
    }

    let at = "2026-01-01T00:00:00Z"  // TestPKI's reference time

    @Test func aCompliantCertificateIsListedWithItsLogsAndVerdicts() async throws {
        let directory = try TemporaryDirectory()
        let chain = try Fixtures.pki.leafWithSCTs(scts: [.init(CTFixtures.argon), .init(CTFixtures.oak)]).chain
        let pem = try directory.write("chain.pem", Array(chain.pem.utf8))
        let list = try directory.write("list.json", Array(TestPKI.logListJSON(CTFixtures.logs)))

        let text = try await run([pem, "--log-list", list, "--at", at])
        #expect(text.status == 0, "\(text.error)")
        #expect(text.output.contains("embedded SCTs: 2"))
        #expect(text.output.contains("log:       Test Argon \(CTFixtures.argon.entry.logIDBase64)"))
        #expect(text.output.contains("operator:  Operator B, state usable"))
        #expect(text.output.contains("signature: ECDSA, valid"))
        #expect(text.output.contains("time:      2025-12-31T23:00:00Z"))
        #expect(text.output.contains("apple policy: compliant"))
        #expect(text.output.contains("chrome policy: compliant"))

        let json = try await run([pem, "--log-list", list, "--at", at, "--json", "--policy", "chrome"])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect((object["scts"] as? [Any])?.count == 2)
        #expect(object["issuerFound"] as? Bool == true)
        let verdicts = try #require(object["verdicts"] as? [[String: Any]])
        #expect(verdicts.map { $0["policy"] as? String } == ["chrome"])
        #expect(verdicts.first?["result"] as? String == "compliant")
    }

    @Test func aBadSCTIsFlaggedAndTheExitStatusSaysNotCompliant() async throws {
        let directory = try TemporaryDirectory()
        let chain = try Fixtures.pki.leafWithSCTs(scts: [
            .init(CTFixtures.argon, signsWrongTBS: true), .init(CTFixtures.oak),
        ]).chain
        let pem = try directory.write("chain.pem", Array(chain.pem.utf8))
        let list = try directory.write("list.json", Array(TestPKI.logListJSON(CTFixtures.logs)))
        let result = try await run([pem, "--log-list", list, "--at", at])
        #expect(result.status == 2)
        #expect(result.output.contains("signature: ECDSA, INVALID"))
        #expect(result.output.contains("apple policy: NOT compliant (ctBadSignature)"))

        // Without a list: the SCTs are listed, no verdict.
        let bare = try await run([pem])
        #expect(bare.status == 2)
        #expect(bare.output.contains("not checked (no log list)"))
        #expect(bare.output.contains("pass --log-list FILE"))

        // Without the issuer in the file, the signatures cannot verify.
        let leafOnly = try directory.write("leaf.pem", Array(chain.leafIdentity.pem.utf8))
        let noIssuer = try await run([leafOnly, "--log-list", list, "--at", at])
        #expect(noIssuer.status == 2)
        #expect(noIssuer.output.contains("not in the file: SCT signatures cannot be checked"))

        let badList = try directory.write("bad.json", Array("{}".utf8))
        let refused = try await run([pem, "--log-list", badList])
        #expect(refused.status == 1)
        #expect(refused.error.contains("log_list_timestamp") || refused.error.contains("operators"))
    }
}
#endif
