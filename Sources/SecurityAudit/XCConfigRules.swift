#if Tools
import Foundation

/// Rules for `*.xcconfig` build settings: SN005 cleartext URLs and SN012 hard-coded credentials.
///
/// In xcconfig files `//` always starts a comment, so URLs are written `http:/$()/host`; the empty
/// `$()` is removed before checking. Values that reference other settings (`$(API_KEY)`) are not
/// credentials.
enum XCConfigRules {
    static func audit(text: String, path: String) -> (active: [AuditFinding], suppressed: [AuditFinding]) {
        var findings: [AuditFinding] = []
        for (index, rawLine) in text.lines.enumerated() {
            var line = Substring(rawLine)
            if let comment = line.range(of: "//") { line = line[..<comment.lowerBound] }
            // `NAME[sdk=iphoneos*] = value`: the assignment's `=` comes after any condition brackets.
            guard var equals = line.firstIndex(of: "=") else { continue }
            if let open = line.firstIndex(of: "["), open < equals,
                let close = line[open...].firstIndex(of: "]"),
                let afterCondition = line[close...].firstIndex(of: "=")
            {
                equals = afterCondition
            }
            let trimmedStart = line.drop(while: { $0 == " " || $0 == "\t" })
            if trimmedStart.hasPrefix("#") { continue }
            var name = line[..<equals].trimmingCharacters(in: .whitespaces)
            if let bracket = name.firstIndex(of: "[") { name = String(name[..<bracket]) }
            let rawValue = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            let value = rawValue.replacingOccurrences(of: "$()", with: "")
            let column = rawLine.utf8.prefix(while: { $0 == 0x20 || $0 == 0x09 }).count + 1
            func add(_ rule: AuditRule, _ message: String) {
                findings.append(
                    AuditFinding(
                        ruleID: rule.id,
                        severity: rule.severity,
                        path: path,
                        line: index + 1,
                        column: column,
                        message: message,
                        fix: rule.fix
                    )
                )
            }
            if let host = CleartextURL.nonLocalHost(in: value) {
                add(.cleartextHTTPURL, "\(name) is a cleartext URL to \(host)")
            }
            let unquoted =
                value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2
                ? String(value.dropFirst().dropLast()) : value
            if !unquoted.contains("$("), SecretNames.isSecret(name),
                CredentialLiteral.isCredential(unquoted, passwordName: SecretNames.isPassword(name))
            {
                add(.hardcodedCredential, "build setting \(name) holds a hard-coded credential")
            }
        }
        let comments = SuppressionParser.scanLineComments(in: text)
        return SuppressionParser.apply(comments, to: findings, path: path)
    }
}
#endif
