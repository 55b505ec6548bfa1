#if Tools
import Foundation
import ServerTrust

extension AuditReport {
    /// The report in compiler style, one finding per line followed by an indented fix:
    ///
    /// ```
    /// SampleApp/Info.plist:9:5: high: NSAllowsArbitraryLoads disables … [SN001 ats-arbitrary-loads]
    ///     fix: Remove NSAllowsArbitraryLoads; …
    /// path/to/Broken.plist: unreadable: malformed XML property list near line 3: …
    /// 2 findings (1 high, 1 medium, 0 low), 1 suppressed, 12 files scanned
    /// ```
    ///
    /// Findings in test, preview and mock code that were set aside are counted on a line of
    /// their own before the summary. A finding inside a conditional-compilation branch names it.
    ///
    /// Suppressed findings are only counted. Unreadable files are listed after the findings and counted
    /// in the summary when there are any. Paths and messages come from the audited tree, so each line
    /// goes through ``textLine(_:)``: a file name cannot start a line of its own or a CI command.
    public func text() -> String {
        var lines: [String] = []
        for finding in findings {
            let name = finding.rule?.name ?? "unknown-rule"
            lines.append(
                "\(finding.path):\(finding.line):\(finding.column): \(finding.severity.rawValue): "
                    + "\(finding.message)\(Self.annotation(finding)) [\(finding.ruleID) \(name)]"
            )
            lines.append("    fix: \(finding.fix)")
        }
        for file in unreadableFiles {
            lines.append("\(file.path): unreadable: \(file.reason)")
        }
        if !testCodeFindings.isEmpty {
            let count = testCodeFindings.count
            lines.append(
                "\(count) more finding\(count == 1 ? "" : "s") in test, preview, mock and debug-only code not shown "
                    + "(--include-tests lists them)"
            )
        }
        let total = findings.count
        var summary =
            "\(total) finding\(total == 1 ? "" : "s") (\(count(of: .high)) high, "
            + "\(count(of: .medium)) medium, \(count(of: .low)) low), \(suppressed.count) suppressed, "
            + "\(filesScanned) file\(filesScanned == 1 ? "" : "s") scanned"
        if !unreadableFiles.isEmpty { summary += ", \(unreadableFiles.count) unreadable" }
        lines.append(summary)
        return lines.map(Self.textLine).joined(separator: "\n") + "\n"
    }

    /// ` (in test code; inside #if DEBUG)`, or "" for shipping code outside conditional branches.
    static func annotation(_ finding: AuditFinding) -> String {
        var parts: [String] = []
        if finding.context == .test {
            parts.append(TestCodeDetection.isDebugOnly(condition: finding.condition) ? "debug-only" : "in test code")
        }
        if let condition = finding.condition { parts.append("inside \(condition)") }
        return parts.isEmpty ? "" : " (" + parts.joined(separator: "; ") + ")"
    }

    /// `text` made safe to print as one line of a terminal or a CI log: ServerTrust's one rule
    /// for outside text, `OutsideText.escaped(_:)`.
    ///
    /// - Control characters (C0, DEL, C1), every white space but U+0020, the Unicode line and
    ///   paragraph separators and the bidirectional marks, overrides and isolates are written as
    ///   `\u{…}`, so a file name cannot end the line, rewrite the terminal or reorder what the
    ///   reader sees, and no Unicode space the Actions runner trims can come before a `::`.
    /// - A line that starts (after spaces) with `::` would be a GitHub Actions workflow command,
    ///   and `##[` anywhere an old-style one: their first character is written as `\u{3A}` or
    ///   `\u{23}`.
    public static func textLine(_ text: String) -> String {
        OutsideText.escaped(text)
    }
}
#endif
