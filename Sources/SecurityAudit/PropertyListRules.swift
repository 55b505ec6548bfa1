import Foundation

/// Rules for property lists (`Info.plist`, any `*.plist`) and entitlements (`*.entitlements`):
/// SN001–SN004 App Transport Security, SN005 cleartext URLs in string values, SN014 pins without a backup,
/// SN015 `get-task-allow`.
struct PropertyListRules {
    let path: String
    /// The file's lines, for columns; empty for binary property lists (column 1).
    let lines: [Substring]
    private(set) var findings: [AuditFinding] = []

    /// Parses and audits a property list. Throws when the file is not a property list.
    static func audit(
        data: Data,
        path: String
    ) throws(PropertyListParser.Failure) -> (active: [AuditFinding], suppressed: [AuditFinding]) {
        let root = try PropertyListParser.parse(data)
        let isBinary = data.starts(with: Array("bplist".utf8))
        let text = isBinary ? "" : String(decoding: data, as: UTF8.self)
        var rules = PropertyListRules(
            path: path,
            lines: isBinary ? [] : text.lines
        )
        rules.check(root)
        let comments = isBinary ? [] : SuppressionParser.scanXMLComments(in: text)
        return SuppressionParser.apply(comments, to: rules.findings, path: path)
    }

    private mutating func report(
        _ rule: AuditRule,
        line: Int,
        severity: AuditSeverity? = nil,
        message: String
    ) {
        var column = 1
        if line >= 1, line <= lines.count {
            column = lines[line - 1].utf8.prefix(while: { $0 == 0x20 || $0 == 0x09 }).count + 1
        }
        findings.append(
            AuditFinding(
                ruleID: rule.id,
                severity: severity ?? rule.severity,
                path: path,
                line: line,
                column: column,
                message: message,
                fix: rule.fix
            )
        )
    }

    private mutating func check(_ root: PlistNode) {
        if let ats = root["NSAppTransportSecurity"] { checkATS(ats.node) }
        for key in ["get-task-allow", "com.apple.security.get-task-allow"] {
            if let entry = root[key], entry.node.boolValue == true {
                report(
                    .debuggableEntitlement,
                    line: entry.keyLine,
                    message: "\(key) is true: any debugger can attach and read secrets from memory"
                )
            }
        }
        checkStrings(root)
    }

    // MARK: ATS

    private static let arbitraryLoadOverrides = [
        "NSAllowsArbitraryLoadsInWebContent", "NSAllowsArbitraryLoadsForMedia", "NSAllowsLocalNetworking",
    ]

    private mutating func checkATS(_ ats: PlistNode) {
        if let entry = ats["NSAllowsArbitraryLoads"], entry.node.boolValue == true {
            // Apple: on iOS 10+/macOS 10.12+ NSAllowsArbitraryLoads is ignored when one of these keys is present,
            // so it only weakens older systems.
            let overridden = Self.arbitraryLoadOverrides.contains { ats[$0] != nil }
            report(
                .atsArbitraryLoads,
                line: entry.keyLine,
                severity: overridden ? .medium : .high,
                message: overridden
                    ? "NSAllowsArbitraryLoads disables ATS on systems older than iOS 10 / macOS 10.12"
                    : "NSAllowsArbitraryLoads disables App Transport Security for every connection"
            )
        }
        for key in ["NSAllowsArbitraryLoadsInWebContent", "NSAllowsArbitraryLoadsForMedia"] {
            if let entry = ats[key], entry.node.boolValue == true {
                report(
                    .atsArbitraryLoads,
                    line: entry.keyLine,
                    severity: .medium,
                    message: "\(key) disables App Transport Security for "
                        + (key.hasSuffix("Media") ? "media" : "web views")
                )
            }
        }
        if let domains = ats["NSExceptionDomains"] {
            for domain in domains.node.entries where !LocalHosts.isLocal(domain.key) {
                checkExceptionDomain(domain)
            }
        }
        if let pinned = ats["NSPinnedDomains"] {
            for domain in pinned.node.entries {
                let count = ["NSPinnedCAIdentities", "NSPinnedLeafIdentities"]
                    .compactMap { domain.node[$0]?.node.arrayCount }
                    .reduce(0, +)
                if count < 2 {
                    report(
                        .pinWithoutBackup,
                        line: domain.keyLine,
                        message: "\(domain.key) is pinned to \(count) identit\(count == 1 ? "y" : "ies"); "
                            + "add a backup pin"
                    )
                }
            }
        }
    }

    private mutating func checkExceptionDomain(_ domain: PlistEntry) {
        let node = domain.node
        let subdomains = node["NSIncludesSubdomains"]?.node.boolValue == true
        let scope = subdomains ? "\(domain.key) and all its subdomains" : domain.key
        for key in ["NSExceptionAllowsInsecureHTTPLoads", "NSTemporaryExceptionAllowsInsecureHTTPLoads"] {
            if let entry = node[key], entry.node.boolValue == true {
                report(
                    .atsInsecureHTTPException,
                    line: entry.keyLine,
                    severity: subdomains ? .high : .medium,
                    message: "\(key) allows cleartext HTTP to \(scope)"
                )
            }
        }
        for key in ["NSExceptionMinimumTLSVersion", "NSTemporaryExceptionMinimumTLSVersion"] {
            if let entry = node[key], let version = entry.node.stringValue, version != "TLSv1.2", version != "TLSv1.3" {
                report(
                    .atsWeakTLSVersion,
                    line: entry.keyLine,
                    severity: subdomains ? .high : .medium,
                    message: "\(key) \(version) allows deprecated TLS for \(scope)"
                )
            }
        }
        for key in ["NSExceptionRequiresForwardSecrecy", "NSTemporaryExceptionRequiresForwardSecrecy"] {
            if let entry = node[key], entry.node.boolValue == false {
                report(
                    .atsForwardSecrecyDisabled,
                    line: entry.keyLine,
                    severity: subdomains ? .medium : .low,
                    message: "\(key) false allows cipher suites without forward secrecy for \(scope)"
                )
            }
        }
    }

    // MARK: Cleartext URLs in values

    private mutating func checkStrings(_ node: PlistNode) {
        switch node.value {
        case .dictionary(let entries):
            for entry in entries { checkStrings(entry.node) }
        case .array(let items):
            for item in items { checkStrings(item) }
        case .string(let text):
            if let host = CleartextURL.nonLocalHost(in: text) {
                report(
                    .cleartextHTTPURL,
                    line: node.line,
                    message: "cleartext URL to \(host) can be read and altered on the network"
                )
            }
        default:
            break
        }
    }
}
