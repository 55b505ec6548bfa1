#if Tools
import Foundation
import Testing

/// `securenet audit`, the built binary: formats, `--fail-on` and exit statuses, `--output`, errors.
@Suite("securenet audit")
struct AuditCommandTests {
    typealias TemporaryDirectory = CLI.TemporaryDirectory

    /// The fixture app project of SecurityAuditTests (37 findings, 22 high, 10 medium, 5 low).
    static let sampleApp = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../SecurityAuditTests/Fixtures/SampleApp").standardizedFileURL.path
    static let sarifSchema = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../SecurityAuditTests/Fixtures/sarif-schema-2.1.0.json").standardizedFileURL.path

    func audit(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        try await CLI.run(
            try CLI.securenet(),
            arguments,
            subcommand: "audit"
        )
    }

    @Test func theFixtureProjectFailsOnItsHighFindingsUnlessToldNever() async throws {
        let text = try await self.audit([Self.sampleApp])
        #expect(text.status == 2)
        #expect(
            text.output.hasSuffix("37 findings (22 high, 10 medium, 5 low), 2 suppressed, 12 files scanned\n"),
            "\(text.output.suffix(200))"
        )
        #expect(
            text.output.contains(
                "SampleApp/Info.plist:15:3: high: NSAllowsArbitraryLoads disables App Transport Security for every connection [SN001 ats-arbitrary-loads]"
            )
        )
        #expect(text.error.isEmpty)
        let never = try await self.audit([Self.sampleApp, "--fail-on", "never"])
        #expect(never.status == 0)
        #expect(never.output == text.output)
    }

    @Test func failOnCountsOnlyFindingsAtOrAboveItsSeverity() async throws {
        // One low finding (a debuggable entitlement) and one suppressed medium one.
        let directory = try TemporaryDirectory()
        _ = try directory.write(
            "App.entitlements",
            Array(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict>
                <key>get-task-allow</key><true/>
                </dict></plist>
                """.utf8
            )
        )
        _ = try directory.write(
            "Printer.swift",
            Array(
                #"let printer = "http://printer.backend.com/status" // securenet:ignore SN005 LAN printer without TLS"#
                    .utf8
            )
        )
        for (threshold, status) in [("high", 0), ("medium", 0), ("low", 2), ("never", 0)] as [(String, Int32)] {
            let result = try await self.audit([directory.url.path, "--fail-on", threshold])
            #expect(result.status == status, "--fail-on \(threshold)")
        }
        let json = try await self.audit([directory.url.path, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let findings = try #require(report["findings"] as? [[String: Any]])
        #expect(findings.map { $0["ruleID"] as? String } == ["SN015"])
        #expect(findings.first?["severity"] as? String == "low")
        let suppressed = try #require(report["suppressed"] as? [[String: Any]])
        #expect(suppressed.map { $0["ruleID"] as? String } == ["SN005"])
        #expect(report["filesScanned"] as? Int == 2)
    }

    @Test func sarifWrittenToAFileValidatesAgainstTheSchema() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("securenet.sarif").path
        let result = try await self.audit([Self.sampleApp, "--format", "sarif", "--output", file])
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        let log = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any]
        )
        #expect(log["version"] as? String == "2.1.0")
        let run = try #require((log["runs"] as? [[String: Any]])?.first)
        let results = try #require(run["results"] as? [[String: Any]])
        #expect(results.count == 39)  // 37 findings and 2 suppressed ones
        #expect(results.filter { $0["suppressions"] != nil }.count == 2)
        let driver = try #require((run["tool"] as? [String: Any])?["driver"] as? [String: Any])
        #expect(driver["name"] as? String == "securenet audit")
        #expect((driver["rules"] as? [[String: Any]])?.count == 17)

        let validation = try await CLI.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))",
                file, Self.sarifSchema,
            ],
            subcommand: ""
        )
        #expect(validation.status == 0, "\(validation.error)")
    }

    /// This package's own sources pass their own audit at the strictest threshold.
    @Test func theLibrarysOwnSourcesHaveNoFinding() async throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources").standardizedFileURL.path
        let result = try await self.audit([sources, "--fail-on", "low"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.hasPrefix("0 findings (0 high, 0 medium, 0 low), 1 suppressed, "), "\(result.output)")
    }

    @Test func aMissingPathOrAnUnparsableFileIsAnError() async throws {
        let missing = try await self.audit(["/nonexistent/securenet-audit"])
        #expect(missing.status == 1)
        #expect(missing.error.hasPrefix("securenet: /nonexistent/securenet-audit: "))

        let directory = try TemporaryDirectory()
        _ = try directory.write("Info.plist", Array("<plist><dict><key>unterminated".utf8))
        let broken = try await self.audit([directory.url.path])
        #expect(broken.status == 1)
        #expect(broken.error.contains("Info.plist: not audited"))

        let usage = try await self.audit([directory.url.path, "--fail-on", "critical"])
        #expect(usage.status == 64)
    }

    /// `--output` often points into the audited tree, which may be hostile: a symbolic link
    /// planted there is refused, not followed, and the file it points to is left alone; an
    /// existing regular file is replaced.
    @Test func outputRefusesASymbolicLinkPlantedInTheTree() async throws {
        let directory = try TemporaryDirectory()
        let victim = try directory.write("victim.txt", Array("keep me\n".utf8))
        let tree = directory.url.appendingPathComponent("tree")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        try Data(#"let u = "http://printer.backend.com/status""#.utf8).write(to: tree.appendingPathComponent("A.swift"))
        let link = tree.appendingPathComponent("report.txt").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)

        let refused = try await self.audit([tree.path, "--fail-on", "never", "--output", link])
        #expect(refused.status == 1)
        #expect(refused.error == "securenet: \(link): refused: a symbolic link\n")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me\n")

        let existing = try directory.write("report.txt", Array("old report\n".utf8))
        let replaced = try await self.audit([tree.path, "--fail-on", "never", "--output", existing])
        #expect(replaced.status == 0, "\(replaced.error)")
        #expect(try String(contentsOfFile: existing, encoding: .utf8).hasPrefix("A.swift:1:9: medium: "))
    }
}
#endif
