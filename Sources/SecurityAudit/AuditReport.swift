#if Tools
public import Foundation

/// The outcome of an audit.
///
/// Findings are sorted by path, line, column and rule ID, so two audits of the same tree produce identical
/// reports regardless of how files were scheduled.
public struct AuditReport: Sendable, Hashable, Codable {
    /// Findings not silenced by a suppression comment.
    public let findings: [AuditFinding]
    /// Findings silenced by a valid `securenet:ignore` comment; each carries its ``AuditFinding/suppression``.
    public let suppressed: [AuditFinding]
    /// How many candidate files (Swift, property lists, entitlements, xcconfig) were examined, including
    /// unreadable ones.
    public let filesScanned: Int
    /// Candidate files that could not be audited (malformed property list, non-UTF-8 text, I/O error).
    public let unreadableFiles: [UnreadableFile]
    /// Findings in test, preview and mock code, set aside because the auditor was not asked to
    /// include them (``SecurityAuditor/includesTestCode``): they are counted in the text summary,
    /// never make the audit fail, and are listed under `testCodeFindings` in JSON.
    public let testCodeFindings: [AuditFinding]

    /// Creates a report; the arrays are sorted into the deterministic report order.
    public init(
        findings: [AuditFinding],
        suppressed: [AuditFinding] = [],
        testCodeFindings: [AuditFinding] = [],
        filesScanned: Int,
        unreadableFiles: [UnreadableFile] = []
    ) {
        self.findings = findings.sorted(by: AuditFinding.areInReportOrder)
        self.suppressed = suppressed.sorted(by: AuditFinding.areInReportOrder)
        self.testCodeFindings = testCodeFindings.sorted(by: AuditFinding.areInReportOrder)
        self.filesScanned = filesScanned
        self.unreadableFiles = unreadableFiles.sorted { ($0.path, $0.reason) < ($1.path, $1.reason) }
    }

    /// Unsuppressed findings whose severity is `severity` or higher (for example, to fail a CI step only
    /// on `.high`).
    public func findings(atOrAbove severity: AuditSeverity) -> [AuditFinding] {
        findings.filter { $0.severity >= severity }
    }

    /// The number of unsuppressed findings with exactly `severity`.
    public func count(of severity: AuditSeverity) -> Int {
        findings.filter { $0.severity == severity }.count
    }

    // MARK: JSON

    private enum CodingKeys: String, CodingKey {
        case findings, suppressed, testCodeFindings, filesScanned, unreadableFiles, rules
    }

    /// Decodes a report produced by ``json()``; the `rules` array is ignored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            findings: try container.decode([AuditFinding].self, forKey: .findings),
            suppressed: try container.decode([AuditFinding].self, forKey: .suppressed),
            testCodeFindings: try container.decodeIfPresent([AuditFinding].self, forKey: .testCodeFindings) ?? [],
            filesScanned: try container.decode(Int.self, forKey: .filesScanned),
            unreadableFiles: try container.decode([UnreadableFile].self, forKey: .unreadableFiles)
        )
    }

    /// Encodes `findings`, `suppressed`, `filesScanned`, `unreadableFiles` and the `rules` catalog.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(findings, forKey: .findings)
        try container.encode(suppressed, forKey: .suppressed)
        try container.encode(testCodeFindings, forKey: .testCodeFindings)
        try container.encode(filesScanned, forKey: .filesScanned)
        try container.encode(unreadableFiles, forKey: .unreadableFiles)
        try container.encode(AuditRule.all, forKey: .rules)
    }

    /// The report as pretty-printed JSON with sorted keys:
    /// `{ "filesScanned", "findings", "rules", "suppressed", "unreadableFiles" }`.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

extension AuditRule: Codable {
    private enum CodingKeys: String, CodingKey {
        case id, name, severity, summary, fix, rationale, tags
    }

    /// Decodes a rule description.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            name: try container.decode(String.self, forKey: .name),
            severity: try container.decode(AuditSeverity.self, forKey: .severity),
            summary: try container.decode(String.self, forKey: .summary),
            fix: try container.decode(String.self, forKey: .fix),
            rationale: try container.decode(String.self, forKey: .rationale),
            tags: try container.decode([String].self, forKey: .tags)
        )
    }

    /// Encodes the rule description.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(severity, forKey: .severity)
        try container.encode(summary, forKey: .summary)
        try container.encode(fix, forKey: .fix)
        try container.encode(rationale, forKey: .rationale)
        try container.encode(tags, forKey: .tags)
    }
}
#endif
