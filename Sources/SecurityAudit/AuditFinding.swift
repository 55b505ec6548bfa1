#if Tools
import Foundation

/// One place in the audited project where a rule fired.
public struct AuditFinding: Sendable, Codable, Hashable {
    /// The rule's identifier, for example `"SN001"`.
    public let ruleID: String
    /// The severity of this particular finding. Some rules compute it per finding (by scope).
    public let severity: AuditSeverity
    /// Path of the file relative to the audited root, with `/` separators.
    public let path: String
    /// 1-based line number.
    public let line: Int
    /// 1-based column, counted in UTF-8 bytes from the start of the line (1 for property lists).
    public let column: Int
    /// One line explaining what is wrong at this place.
    public let message: String
    /// One line explaining how to fix it.
    public let fix: String
    /// The in-source suppression that silenced this finding, if any.
    public internal(set) var suppression: Suppression?
    /// A stable 64-bit FNV-1a hash (16 hex digits) of the rule ID, path and the trimmed text of the line, so
    /// that a finding keeps its identity when lines above it move. Used for SARIF `partialFingerprints`.
    public internal(set) var fingerprint: String
    /// Whether the finding is in shipping code or in test, preview, mock or fixture code (see
    /// ``CodeContext``). Findings in test code are left out of the report unless asked for.
    public internal(set) var context: CodeContext = .shipping
    /// The conditional-compilation branch the finding sits in, as written (for example
    /// `"#if DEBUG"` or `"#else of #if targetEnvironment(simulator)"`), or nil outside any.
    public internal(set) var condition: String?

    /// Creates a finding.
    public init(
        ruleID: String,
        severity: AuditSeverity,
        path: String,
        line: Int,
        column: Int,
        message: String,
        fix: String,
        suppression: Suppression? = nil,
        fingerprint: String = ""
    ) {
        self.ruleID = ruleID
        self.severity = severity
        self.path = path
        self.line = line
        self.column = column
        self.message = message
        self.fix = fix
        self.suppression = suppression
        self.fingerprint = fingerprint
    }

    /// The rule this finding belongs to, looked up in ``AuditRule/all``.
    public var rule: AuditRule? { AuditRule.byID[ruleID] }

    private enum CodingKeys: String, CodingKey {
        case ruleID, severity, path, line, column, message, fix, suppression, fingerprint, context, condition
    }

    /// Decodes a finding; `context` defaults to shipping and `condition` to none, as reports
    /// written before they existed have neither.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            ruleID: try container.decode(String.self, forKey: .ruleID),
            severity: try container.decode(AuditSeverity.self, forKey: .severity),
            path: try container.decode(String.self, forKey: .path),
            line: try container.decode(Int.self, forKey: .line),
            column: try container.decode(Int.self, forKey: .column),
            message: try container.decode(String.self, forKey: .message),
            fix: try container.decode(String.self, forKey: .fix),
            suppression: try container.decodeIfPresent(Suppression.self, forKey: .suppression),
            fingerprint: try container.decode(String.self, forKey: .fingerprint)
        )
        self.context = try container.decodeIfPresent(CodeContext.self, forKey: .context) ?? .shipping
        self.condition = try container.decodeIfPresent(String.self, forKey: .condition)
    }

    /// Encodes the finding; `condition` only when there is one.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ruleID, forKey: .ruleID)
        try container.encode(severity, forKey: .severity)
        try container.encode(path, forKey: .path)
        try container.encode(line, forKey: .line)
        try container.encode(column, forKey: .column)
        try container.encode(message, forKey: .message)
        try container.encode(fix, forKey: .fix)
        try container.encodeIfPresent(suppression, forKey: .suppression)
        try container.encode(fingerprint, forKey: .fingerprint)
        try container.encode(context, forKey: .context)
        try container.encodeIfPresent(condition, forKey: .condition)
    }

    func inContext(_ context: CodeContext, condition: String?) -> AuditFinding {
        var copy = self
        copy.context = context
        copy.condition = condition
        return copy
    }

    /// A copy of this finding with `suppression` set.
    func suppressed(by suppression: Suppression) -> AuditFinding {
        var copy = self
        copy.suppression = suppression
        return copy
    }

    /// A copy of this finding with `fingerprint` computed from the text of its line.
    func withFingerprint(_ fingerprint: String) -> AuditFinding {
        var copy = self
        copy.fingerprint = fingerprint
        return copy
    }

    /// The fingerprint from the line's text without its surrounding white space.
    func fingerprinted(trimmedLine trimmed: String) -> AuditFinding {
        let hash = Fingerprint.fnv1a64("\(ruleID)|\(path)|\(trimmed.isEmpty ? message : trimmed)")
        var copy = self
        copy.fingerprint = hash
        return copy
    }

    /// The deterministic report order: path, line, column, rule id, then message.
    static func areInReportOrder(_ lhs: AuditFinding, _ rhs: AuditFinding) -> Bool {
        if lhs.path != rhs.path { return lhs.path < rhs.path }
        if lhs.line != rhs.line { return lhs.line < rhs.line }
        if lhs.column != rhs.column { return lhs.column < rhs.column }
        if lhs.ruleID != rhs.ruleID { return lhs.ruleID < rhs.ruleID }
        return lhs.message < rhs.message
    }
}

/// A file inside the audited tree that could not be audited.
public struct UnreadableFile: Sendable, Codable, Hashable {
    /// Path relative to the audited root, with `/` separators.
    public let path: String
    /// Why the file could not be audited (for example "not valid UTF-8" or a parser error).
    public let reason: String

    /// Creates an entry.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}

/// Stable, platform-independent hashing for fingerprints.
enum Fingerprint {
    /// 64-bit FNV-1a of the UTF-8 bytes of `text`, as 16 lowercase hex digits.
    static func fnv1a64(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Sets the fingerprint of every finding from the lines of `text`.
    ///
    /// A line's fingerprint is computed once per rule: thousands of findings of one rule on one
    /// long line (a minified property list) would otherwise trim and hash that line once each,
    /// quadratic in the file (found by the security-audit fuzz target: 28 s for 4,500 URLs on
    /// one 130 KB line).
    static func assign(_ findings: [AuditFinding], text: String) -> [AuditFinding] {
        guard !findings.isEmpty else { return findings }
        let lines = text.lines
        var trimmedLines: [Int: String] = [:]
        var known: [String: String] = [:]
        return findings.map { finding in
            let number = finding.line
            let trimmed =
                trimmedLines[number]
                ?? {
                    let line = number >= 1 && number <= lines.count ? lines[number - 1] : ""
                    let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
                    trimmedLines[number] = trimmed
                    return trimmed
                }()
            // An empty line is fingerprinted by the message, which is short; a line by its text,
            // once per rule.
            guard !trimmed.isEmpty else { return finding.fingerprinted(trimmedLine: "") }
            let key = "\(finding.ruleID)|\(number)"
            if let fingerprint = known[key] { return finding.withFingerprint(fingerprint) }
            let fingerprinted = finding.fingerprinted(trimmedLine: trimmed)
            known[key] = fingerprinted.fingerprint
            return fingerprinted
        }
    }
}
#endif
