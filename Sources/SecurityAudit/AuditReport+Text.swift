#if Tools
import Foundation

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

    /// `text` made safe to print as one line of a terminal or a CI log.
    ///
    /// - Control characters (C0, DEL, C1), the Unicode line and paragraph separators and the
    ///   bidirectional overrides and isolates are written as `\u{…}`, so a file name cannot end the
    ///   line, rewrite the terminal or reorder what the reader sees.
    /// - A line that starts (after blanks) with `::` would be a GitHub Actions workflow command, and
    ///   `##[` anywhere an old-style one: their first character is written as `\u{3A}` or `\u{23}`.
    public static func textLine(_ text: String) -> String {
        // Every scalar escaped below has a UTF-8 byte under 0x20, 0x7F, or a lead byte 0xC2
        // (U+0080–U+00BF) or 0xE2 (U+2000–U+2FFF): text without one is copied as it is, not
        // scalar by scalar (the report of a file with thousands of findings spent a fifth of
        // its time here).
        var line = text
        if text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 }) {
            line = ""
            line.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
            for scalar in text.unicodeScalars {
                switch scalar.value {
                case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
                    line += Self.escaped(scalar)
                default:
                    line.unicodeScalars.append(scalar)
                }
            }
        }
        let blanks = line.prefix { $0 == " " }
        if line.dropFirst(blanks.count).hasPrefix("::") {
            line = blanks + Self.escaped(":") + line.dropFirst(blanks.count + 1)
        }
        if line.containsUTF8("##[") {
            line = line.replacingOccurrences(of: "##[", with: "#" + Self.escaped("#") + "[")
        }
        return line
    }

    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    }
}
#endif
