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
    /// Suppressed findings are only counted. Unreadable files are listed after the findings and counted
    /// in the summary when there are any.
    public func text() -> String {
        var lines: [String] = []
        for finding in findings {
            let name = finding.rule?.name ?? "unknown-rule"
            lines.append(
                "\(finding.path):\(finding.line):\(finding.column): \(finding.severity.rawValue): "
                    + "\(finding.message) [\(finding.ruleID) \(name)]"
            )
            lines.append("    fix: \(finding.fix)")
        }
        for file in unreadableFiles {
            lines.append("\(file.path): unreadable: \(file.reason)")
        }
        let total = findings.count
        var summary =
            "\(total) finding\(total == 1 ? "" : "s") (\(count(of: .high)) high, "
            + "\(count(of: .medium)) medium, \(count(of: .low)) low), \(suppressed.count) suppressed, "
            + "\(filesScanned) file\(filesScanned == 1 ? "" : "s") scanned"
        if !unreadableFiles.isEmpty { summary += ", \(unreadableFiles.count) unreadable" }
        lines.append(summary)
        return lines.joined(separator: "\n") + "\n"
    }
}
