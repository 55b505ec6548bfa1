#if Tools
import Foundation
import SecurityAudit

/// Locations of the committed fixtures and helpers shared by the suites.
enum Fixtures {
    /// `Tests/SecurityAuditTests/Fixtures`.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures", isDirectory: true)
    /// The fixture app project.
    static let sampleApp = directory.appendingPathComponent("SampleApp", isDirectory: true)
    /// The OASIS SARIF 2.1.0 JSON schema.
    static let sarifSchema = directory.appendingPathComponent("sarif-schema-2.1.0.json")
}

/// A finding reduced to what the expectations compare.
struct Triple: Hashable, CustomStringConvertible {
    let ruleID: String
    let path: String
    let line: Int
    let severity: AuditSeverity

    init(_ ruleID: String, _ path: String, _ line: Int, _ severity: AuditSeverity) {
        self.ruleID = ruleID
        self.path = path
        self.line = line
        self.severity = severity
    }

    init(_ finding: AuditFinding) {
        self.init(finding.ruleID, finding.path, finding.line, finding.severity)
    }

    var description: String { "(\(ruleID), \(path), \(line), .\(severity))" }
}

/// A fresh temporary directory, removed by the caller with `cleanUp`.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("SecurityAuditTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Audits Swift source and returns `(ruleID, line)` pairs of the unsuppressed findings.
func swiftFindings(_ source: String) -> [String] {
    SecurityAuditor().audit(swiftSource: source, path: "T.swift").findings.map { "\($0.ruleID)@\($0.line)" }
}

/// Wraps `<dict>` contents in a property-list document (the first content line is line 5).
func plist(_ body: String) -> Data {
    let document = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \(body)
        </dict>
        </plist>
        """
    return Data(document.utf8)
}
#endif
