#if Tools
import Foundation

/// An in-source suppression comment: `securenet:ignore SN004 reason text`.
///
/// The comment must be on the same line as the finding: a `//` line comment in Swift and `.xcconfig`
/// files, an XML comment (`<!-- securenet:ignore SN001 reason -->`) in XML property lists. Several
/// rule IDs may be given, separated by commas (`SN001,SN002` or `SN001, SN002`). A reason is required:
/// a comment without one, or naming an unknown rule, suppresses nothing and is itself reported as
/// rule `SN000` (invalid suppression).
public struct Suppression: Sendable, Codable, Hashable {
    /// The rule IDs the comment names.
    public let ruleIDs: [String]
    /// The justification written after the IDs.
    public let reason: String
    /// 1-based line of the comment.
    public let line: Int

    /// Creates a suppression.
    public init(ruleIDs: [String], reason: String, line: Int) {
        self.ruleIDs = ruleIDs
        self.reason = reason
        self.line = line
    }
}

/// Parses suppression comments and applies them to findings.
enum SuppressionParser {
    static let marker = "securenet:ignore"

    /// The result of parsing one comment.
    enum Parsed: Equatable {
        case valid(Suppression)
        case invalid(line: Int, column: Int, problem: String)
    }

    /// Parses the text of one comment (without `//` or `<!--`/`-->`) found on `line`.
    /// Returns nil when the comment does not contain the marker.
    static func parse(comment: String, line: Int, column: Int) -> Parsed? {
        guard let range = comment.range(of: marker) else { return nil }
        var rest = Substring(comment[range.upperBound...])
        var ids: [String] = []
        // Read a comma-separated list of IDs; a token ending with "," continues the list.
        while true {
            rest = rest.drop(while: { $0 == " " || $0 == "\t" })
            let token = rest.prefix(while: { $0 != " " && $0 != "\t" })
            if token.isEmpty { break }
            let parts = token.split(separator: ",", omittingEmptySubsequences: true).map(String.init)
            let looksLikeIDs = !parts.isEmpty && parts.allSatisfy(isRuleIDShaped)
            if !looksLikeIDs { break }
            ids += parts
            rest = rest.dropFirst(token.count)
            if !token.hasSuffix(",") {
                // A following token that starts with "," continues the list too.
                let next = rest.drop(while: { $0 == " " || $0 == "\t" })
                if next.first == "," {
                    rest = next.dropFirst()
                    continue
                }
                break
            }
        }
        let reason = rest.trimmingCharacters(in: .whitespaces)
        if ids.isEmpty {
            return .invalid(line: line, column: column, problem: "names no rule ID")
        }
        let unknown = ids.filter { AuditRule.byID[$0] == nil || $0 == AuditRule.invalidSuppression.id }
        if !unknown.isEmpty {
            return .invalid(
                line: line,
                column: column,
                problem: "names unknown rule \(unknown.joined(separator: ", "))"
            )
        }
        if reason.isEmpty {
            return .invalid(line: line, column: column, problem: "has no reason")
        }
        return .valid(Suppression(ruleIDs: ids, reason: reason, line: line))
    }

    static func isRuleIDShaped(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= 3, scalars[0] == "S", scalars[1] == "N" else { return false }
        return scalars.dropFirst(2).allSatisfy { ("0"..."9").contains($0) }
    }

    /// Finds `//` comments carrying the marker in line-oriented text (xcconfig). Swift sources use the
    /// syntax tree's trivia instead, so that `//` inside string literals is never mistaken for a comment.
    static func scanLineComments(in text: String) -> [Parsed] {
        guard text.containsUTF8(marker) else { return [] }
        var result: [Parsed] = []
        for (index, line) in text.lines.enumerated() {
            guard line.contains(marker), let start = line.range(of: "//") else { continue }
            let column = line.utf8.distance(from: line.startIndex, to: start.lowerBound) + 1
            if let parsed = parse(comment: String(line[start.upperBound...]), line: index + 1, column: column) {
                result.append(parsed)
            }
        }
        return result
    }

    /// Finds `<!-- … -->` comments carrying the marker in XML text.
    static func scanXMLComments(in text: String) -> [Parsed] {
        guard text.containsUTF8(marker) else { return [] }
        var result: [Parsed] = []
        for (index, line) in text.lines.enumerated() {
            guard line.contains(marker), let open = line.range(of: "<!--") else { continue }
            var body = line[open.upperBound...]
            if let close = body.range(of: "-->") { body = body[..<close.lowerBound] }
            let column = line.utf8.distance(from: line.startIndex, to: open.lowerBound) + 1
            if let parsed = parse(comment: String(body), line: index + 1, column: column) {
                result.append(parsed)
            }
        }
        return result
    }

    /// Splits `findings` into active and suppressed ones and adds an `SN000` finding per invalid comment.
    static func apply(
        _ comments: [Parsed],
        to findings: [AuditFinding],
        path: String
    ) -> (active: [AuditFinding], suppressed: [AuditFinding]) {
        if comments.isEmpty { return (findings, []) }
        var byLine: [Int: Suppression] = [:]
        var active: [AuditFinding] = []
        var suppressed: [AuditFinding] = []
        for comment in comments {
            switch comment {
            case .valid(let suppression):
                byLine[suppression.line] = suppression
            case .invalid(let line, let column, let problem):
                let rule = AuditRule.invalidSuppression
                active.append(
                    AuditFinding(
                        ruleID: rule.id,
                        severity: rule.severity,
                        path: path,
                        line: line,
                        column: column,
                        message: "securenet:ignore comment \(problem), so it suppresses nothing",
                        fix: rule.fix
                    )
                )
            }
        }
        for finding in findings {
            if let suppression = byLine[finding.line], suppression.ruleIDs.contains(finding.ruleID) {
                suppressed.append(finding.suppressed(by: suppression))
            } else {
                active.append(finding)
            }
        }
        return (active, suppressed)
    }
}
#endif
