#if Tools
import Foundation
import SecurityAudit
import Testing

@Suite("Report formats")
struct ReportFormatTests {
    static let source = """
        let u = "http://e.com"
        let s = "http://f.com" // securenet:ignore SN005 local test double
        let k = [kSecAttrAccessible: kSecAttrAccessibleAlways]
        """

    @Test("text output is compiler-style with fix lines and a summary")
    func text() {
        let report = SecurityAuditor().audit(swiftSource: Self.source, path: "Sources/A.swift")
        #expect(
            report.text() == """
                Sources/A.swift:1:9: medium: cleartext URL to e.com can be read and altered on the network \
                [SN005 cleartext-http-url]
                    fix: Use https:// (and keep ATS enabled).
                Sources/A.swift:3:30: high: kSecAttrAccessibleAlways keeps the Keychain item readable while the device \
                is locked [SN009 keychain-accessible-always]
                    fix: Use kSecAttrAccessibleWhenUnlockedThisDeviceOnly or \
                kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly.
                2 findings (1 high, 1 medium, 0 low), 1 suppressed, 1 file scanned

                """
        )
        #expect(report.findings(atOrAbove: .high).map(\.ruleID) == ["SN009"])
        #expect(report.findings(atOrAbove: .low).count == 2)
    }

    @Test("JSON has the documented top-level keys and round-trips")
    func jsonRoundTrip() throws {
        let report = SecurityAuditor().audit(swiftSource: Self.source, path: "Sources/A.swift")
        let data = try report.json()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "findings", "suppressed", "testCodeFindings", "filesScanned", "unreadableFiles", "rules",
            ]
        )
        #expect((object["rules"] as? [[String: Any]])?.count == AuditRule.all.count)
        #expect(object["filesScanned"] as? Int == 1)
        let decoded = try JSONDecoder().decode(AuditReport.self, from: data)
        #expect(decoded == report)
        #expect(decoded.suppressed.first?.suppression?.reason == "local test double")
        #expect(decoded.findings.first?.fingerprint.count == 16)
    }

    @Test("SARIF has rules, levels, locations, fingerprints and in-source suppressions")
    func sarifContent() throws {
        let report = SecurityAuditor().audit(swiftSource: Self.source, path: "Sources/A.swift")
        let data = try report.sarif(toolVersion: "1.2.3", informationURI: "https://backend.com/securenet")
        let log = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(log["version"] as? String == "2.1.0")
        #expect(log["$schema"] as? String == "https://json.schemastore.org/sarif-2.1.0.json")
        let run = try #require((log["runs"] as? [[String: Any]])?.first)
        let driver = try #require((run["tool"] as? [String: Any])?["driver"] as? [String: Any])
        #expect(driver["name"] as? String == "securenet audit")
        #expect(driver["semanticVersion"] as? String == "1.2.3")
        let rules = try #require(driver["rules"] as? [[String: Any]])
        #expect(rules.map { $0["id"] as? String } == AuditRule.all.map(\.id))
        let sn009 = rules[9]
        #expect((sn009["defaultConfiguration"] as? [String: Any])?["level"] as? String == "error")
        #expect((sn009["properties"] as? [String: Any])?["security-severity"] as? String == "8.0")
        let results = try #require(run["results"] as? [[String: Any]])
        #expect(results.map { $0["ruleId"] as? String } == ["SN005", "SN005", "SN009"])
        #expect(results.map { $0["ruleIndex"] as? Int } == [5, 5, 9])
        #expect(results.map { $0["level"] as? String } == ["warning", "warning", "error"])
        let suppressions = results.map { $0["suppressions"] as? [[String: String]] }
        #expect(suppressions[0] == nil)
        #expect(suppressions[1] == [["kind": "inSource", "justification": "local test double"]])
        let location = try #require(
            (results[2]["locations"] as? [[String: Any]])?.first?["physicalLocation"]
                as? [String: Any]
        )
        #expect(
            (location["artifactLocation"] as? [String: String]) == ["uri": "Sources/A.swift", "uriBaseId": "%SRCROOT%"]
        )
        #expect((location["region"] as? [String: Int]) == ["startLine": 3, "startColumn": 30])
        let fingerprints = results.compactMap { ($0["partialFingerprints"] as? [String: String])?["securenet/v1"] }
        #expect(fingerprints.count == 3)
        #expect(Set(fingerprints).count == 3)
    }

    @Test("fingerprints survive inserted lines")
    func stableFingerprints() {
        let before = SecurityAuditor().audit(swiftSource: "let u = \"http://e.com\"\n", path: "A.swift")
        let after = SecurityAuditor().audit(
            swiftSource: "import Foundation\n\nlet u = \"http://e.com\"\n",
            path: "A.swift"
        )
        #expect(before.findings.first?.line == 1)
        #expect(after.findings.first?.line == 3)
        #expect(before.findings.first?.fingerprint == after.findings.first?.fingerprint)
    }

    @Test("SARIF validates against the OASIS 2.1.0 schema; a broken log does not")
    func sarifSchemaValidation() async throws {
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: Fixtures.sarifSchema)) as? [String: Any]
        #expect(schema?["$schema"] as? String == "http://json-schema.org/draft-07/schema#")
        #expect((schema?["title"] as? String)?.contains("SARIF") == true)
        #expect((schema?["title"] as? String)?.contains("2.1.0") == true)

        let fixtureReport = try SecurityAuditor().audit(path: Fixtures.sampleApp.path)
        let unreadable = AuditReport(
            findings: fixtureReport.findings,
            suppressed: fixtureReport.suppressed,
            filesScanned: 12,
            unreadableFiles: [UnreadableFile(path: "Broken Dir/Bad.plist", reason: "malformed")]
        )
        let valid = try unreadable.sarif(
            toolVersion: "0.1.0",
            informationURI: "https://backend.com/securenet",
            sourceRoot: Fixtures.sampleApp.path
        )
        let (status, output) = try await validate(valid)
        #expect(status == 0, Comment(rawValue: output))

        var broken = try #require(try JSONSerialization.jsonObject(with: valid) as? [String: Any])
        var runs = try #require(broken["runs"] as? [[String: Any]])
        var results = try #require(runs[0]["results"] as? [[String: Any]])
        results[0]["level"] = "fatal"
        runs[0]["results"] = results
        broken["runs"] = runs
        let (brokenStatus, brokenOutput) = try await validate(JSONSerialization.data(withJSONObject: broken))
        #expect(brokenStatus != 0)
        #expect(brokenOutput.contains("'fatal' is not one of"))

        var missingVersion = try #require(try JSONSerialization.jsonObject(with: valid) as? [String: Any])
        missingVersion["version"] = nil
        #expect(try await validate(JSONSerialization.data(withJSONObject: missingVersion)).status != 0)
    }

    /// Runs Python's `jsonschema` (draft-07) over `sarif`; returns the exit status and standard
    /// error. The child is waited for on a thread of its own, never on a cooperative thread.
    private func validate(_ sarif: Data) async throws -> (status: Int32, output: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try Self.blockingValidate(sarif) }) }
        }
    }

    private static func blockingValidate(_ sarif: Data) throws -> (status: Int32, output: String) {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("report.sarif")
        try sarif.write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import json,sys,jsonschema; "
                + "jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))",
            file.path, Fixtures.sarifSchema.path,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
#endif
