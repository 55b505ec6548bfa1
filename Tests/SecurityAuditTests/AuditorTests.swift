#if Tools
import Foundation
import SecurityAudit
import Testing

@Suite("Walking and scheduling")
struct AuditorTests {
    @Test("a missing path throws the typed error")
    func missingPath() {
        #expect(throws: AuditError(code: .pathNotFound, path: "/no/such/project")) {
            try SecurityAuditor().audit(path: "/no/such/project")
        }
    }

    @Test("error codes are stable text, encoded as that text, and read back")
    func errorCodesAreText() throws {
        #expect(AuditError.Code.pathNotFound.description == "pathNotFound")
        #expect(AuditError(code: .pathUnreadable, path: "/p").description == "cannot read: /p")
        let encoded = try JSONEncoder().encode([AuditError.Code.pathNotFound, .pathUnreadable])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["pathNotFound","pathUnreadable"]"#)
        #expect(try JSONDecoder().decode([AuditError.Code].self, from: encoded) == [.pathNotFound, .pathUnreadable])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([AuditError.Code].self, from: Data(#"["nope"]"#.utf8))
        }
    }

    @Test("malformed plists and non-UTF-8 Swift files are reported as unreadable, not skipped")
    func unreadableFiles() throws {
        let root = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("<?xml version=\"1.0\"?>\n<plist><dict><key>A</key><string>x</dict></plist>".utf8)
            .write(to: root.appendingPathComponent("Broken.plist"))
        try Data([0x6C, 0x65, 0x74, 0x20, 0xFF, 0xFE, 0x0A]).write(to: root.appendingPathComponent("Latin.swift"))
        try Data("not a plist at all".utf8).write(to: root.appendingPathComponent("Text.entitlements"))
        try Data("let u = \"http://e.com\"\n".utf8).write(to: root.appendingPathComponent("Good.swift"))
        let report = try SecurityAuditor().audit(path: root.path)
        #expect(report.filesScanned == 4)
        #expect(report.findings.map { "\($0.ruleID) \($0.path)" } == ["SN005 Good.swift"])
        #expect(report.unreadableFiles.map(\.path) == ["Broken.plist", "Latin.swift", "Text.entitlements"])
        #expect(report.unreadableFiles[1].reason == "not valid UTF-8")
        #expect(
            report.text().hasSuffix(
                "1 finding (0 high, 1 medium, 0 low), 0 suppressed, 4 files scanned, 3 unreadable\n"
            )
        )
    }

    @Test("a single file can be audited; its path is the file name")
    func singleFile() throws {
        let file = Fixtures.sampleApp.appendingPathComponent("SampleApp/SampleApp.entitlements")
        let report = try SecurityAuditor().audit(path: file.path)
        #expect(report.findings.map(Triple.init) == [Triple("SN015", "SampleApp.entitlements", 9, .low)])
        #expect(report.filesScanned == 1)
    }

    @Test("skipped directories and symbolic links are not followed")
    func skipsAndSymlinks() throws {
        let root = try makeTemporaryDirectory()
        let outside = try makeTemporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: outside)
        }
        let bad = Data("let u = \"http://e.com\"\n".utf8)
        try bad.write(to: outside.appendingPathComponent("Outside.swift"))
        let manager = FileManager.default
        for directory in [
            "App", ".build", ".build-linux", "Pods", "Carthage", "node_modules", ".swiftpm", ".git",
            "DerivedData", ".hidden",
        ] {
            try manager.createDirectory(at: root.appendingPathComponent(directory), withIntermediateDirectories: true)
            try bad.write(to: root.appendingPathComponent(directory).appendingPathComponent("File.swift"))
        }
        try manager.createSymbolicLink(
            at: root.appendingPathComponent("App/Linked"),
            withDestinationURL: outside
        )
        let report = try SecurityAuditor().audit(path: root.path)
        #expect(report.findings.map(\.path) == ["App/File.swift"])
        #expect(report.filesScanned == 1)
        let excluded = try SecurityAuditor(excludedPaths: ["App/"]).audit(path: root.path)
        #expect(excluded.filesScanned == 0)
        #expect(excluded.findings.isEmpty)
    }

    @Test("JSON policy files: ATS-like keys and pin sets; other JSON is neither audited nor counted")
    func jsonPolicies() throws {
        let root = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let policy = """
            {
              "allowsArbitraryLoads": true,
              "exceptionDomains": {
                "old.backend.com": {
                  "includesSubdomains": true,
                  "allowsInsecureHTTPLoads": true,
                  "minimumTLSVersion": "TLSv1.1",
                  "pins": { "leafPins": ["sha256/a"] }
                },
                "localhost": { "allowsInsecureHTTPLoads": true }
              },
              "pinnedDomains": { "**.backend.com": { "pins": ["sha256/a", "sha256/b"] } }
            }
            """
        try Data(policy.utf8).write(to: root.appendingPathComponent("policy.json"))
        try Data("{\"pinnedDomains\": {".utf8).write(to: root.appendingPathComponent("broken.json"))
        try Data("{\"name\": \"http://backend.com\"}".utf8).write(to: root.appendingPathComponent("package.json"))
        let report = try SecurityAuditor().audit(path: root.path)
        #expect(
            report.findings.map(Triple.init) == [
                Triple("SN001", "policy.json", 2, .high),
                Triple("SN002", "policy.json", 6, .high),
                Triple("SN003", "policy.json", 7, .high),
                Triple("SN014", "policy.json", 8, .medium),
            ]
        )
        #expect(report.findings.first?.column == 3)
        #expect(report.filesScanned == 2)
        #expect(report.unreadableFiles.map(\.path) == ["broken.json"])
        #expect(report.unreadableFiles.first?.reason.hasPrefix("malformed JSON policy") == true)
    }

    @Test("a synthetic tree of 500 files yields exactly 250 cleartext findings")
    func syntheticTree() throws {
        let root = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let planted = try SyntheticProject.write(files: 500, to: root)
        #expect(planted == 250)
        let report = try SecurityAuditor().audit(path: root.path)
        #expect(report.filesScanned == 500)
        #expect(report.findings.count == 250)
        #expect(Set(report.findings.map(\.ruleID)) == ["SN005"])
        #expect(report.findings.first?.path == "Module0/Model0.swift")
        #expect(report.unreadableFiles.isEmpty)
    }

    @Test("rule catalog: unique IDs and kebab-case names, documented severities")
    func catalog() {
        let ids = AuditRule.all.map(\.id)
        #expect(ids == (0...16).map { String(format: "SN%03d", $0) })
        #expect(Set(AuditRule.all.map(\.name)).count == AuditRule.all.count)
        #expect(
            AuditRule.all.allSatisfy { rule in
                rule.name.allSatisfy { $0.isLowercase || $0 == "-" } && !rule.summary.isEmpty && !rule.fix.isEmpty
            }
        )
        #expect(AuditSeverity.low < .medium && AuditSeverity.medium < .high)
    }
}
#endif
