#if Tools
import Foundation
import SecureNetworkingInternal

/// Rules for property lists (`Info.plist`, any `*.plist`) and entitlements (`*.entitlements`):
/// SN001–SN004 App Transport Security, SN005 cleartext URLs in string values, SN012 credentials
/// of a known format in string values, SN014 pins without a backup, SN015 `get-task-allow`.
///
/// XML, binary and OpenStep property lists are read. A source Info.plist written for Xcode's
/// Info.plist preprocessor (`#ifdef DEBUG` … `#endif`) is read with every branch at once (the
/// directive lines emptied); when that is not a property list (the branches hold alternative
/// halves of an element), it is read twice, with every name the directives test undefined and
/// with every one defined. A finding inside a conditional names its branch in
/// ``AuditFinding/condition`` (`#ifdef DEBUG`, `#else of #ifdef DEBUG`).
struct PropertyListRules {
    let path: String
    /// The file's lines, for columns; empty for binary property lists (column 1).
    let lines: [Substring]
    /// For a preprocessed Info.plist: the conditional branch of each line inside one.
    var conditions: [Int: String] = [:]
    private(set) var findings: [AuditFinding] = []
    /// The string values already checked, with their keys and lines: the same value under the
    /// same key on the same line can only repeat a finding (a minified property list holds
    /// everything on line 1, and a binary one has no lines; CoreFoundation's writer stores equal
    /// strings once, however often they are referenced).
    private var checkedStrings: Set<String> = []

    /// Parses and audits a property list. Throws when the file is not a property list.
    static func audit(
        data: Data,
        path: String
    ) throws(PropertyListParser.Failure) -> (active: [AuditFinding], suppressed: [AuditFinding]) {
        let isBinary = data.starts(with: Array("bplist".utf8))
        let text = isBinary ? "" : String(decoding: data, as: UTF8.self)
        // Split once: a large file split again by each step costs more than the audit itself.
        let sourceLines = isBinary ? [] : InfoPlistPreprocessor.lines(of: text)
        var rules = PropertyListRules(
            path: path,
            lines: sourceLines.map { $0.last == "\r" ? $0.dropLast() : $0 }
        )
        if !isBinary, InfoPlistPreprocessor.hasDirective(sourceLines) {
            rules.conditions = InfoPlistPreprocessor.conditions(lines: sourceLines)
            for root in try Self.branches(of: text, lines: sourceLines) { rules.check(root) }
        } else {
            rules.check(try PropertyListParser.parse(data))
        }
        // Two readings of a preprocessed file report what both branches share twice, and one
        // line may hold the same value many times (a minified file): a finding that says the
        // same thing at the same place is reported once.
        var seen = Set<String>()
        rules.findings = rules.findings.filter { seen.insert("\($0.ruleID) \($0.line) \($0.message)").inserted }
        let comments: [SuppressionParser.Parsed]
        if isBinary {
            comments = []
        } else if OpenStepPropertyList.looksLikeOpenStep(Array(data)) {
            comments = SuppressionParser.scanLineComments(in: text)
        } else {
            comments = SuppressionParser.scanXMLComments(in: text)
        }
        return SuppressionParser.apply(comments, to: rules.findings, path: path)
    }

    /// The readings of a preprocessed property list: every branch at once if that parses, else
    /// every tested name undefined and every one defined (whichever parse).
    static func branches(
        of text: String,
        lines: [Substring]
    ) throws(PropertyListParser.Failure) -> [PlistNode] {
        let failure: PropertyListParser.Failure
        do {
            let everyBranch = InfoPlistPreprocessor.withoutDirectives(lines: lines, text: text)
            return [try PropertyListParser.parse(Data(everyBranch.utf8))]
        } catch {
            failure = error
        }
        var names: [String: Int] = [:]
        for (index, line) in lines.enumerated() {
            guard let directive = InfoPlistPreprocessor.directive(line, number: index + 1),
                ["if", "ifdef", "ifndef", "elif"].contains(directive.name)
            else { continue }
            let words = directive.text.dropFirst().split { !($0.isLetter || $0.isNumber || $0 == "_") }.dropFirst()
            for word in words where word != "defined" && word.first?.isNumber == false { names[String(word)] = 1 }
        }
        var roots: [PlistNode] = []
        for definitions in [[:], names] {
            guard let result = try? InfoPlistPreprocessor.evaluate(lines: lines, text: text, definitions: definitions),
                let root = try? PropertyListParser.parse(Data(result.text.utf8))
            else { continue }
            roots.append(root)
        }
        guard !roots.isEmpty else { throw failure }
        return roots
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
        var finding = AuditFinding(
            ruleID: rule.id,
            severity: severity ?? rule.severity,
            path: path,
            line: line,
            column: column,
            message: message,
            fix: rule.fix
        )
        // The branch, as Swift findings carry theirs: the text report adds "(inside #ifdef DEBUG)".
        let condition = conditions[line]
        finding = finding.inContext(
            TestCodeDetection.isDebugOnly(condition: condition) ? .test : .shipping,
            condition: condition
        )
        findings.append(finding)
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
            // `.onion` (RFC 7686): Tor already encrypts and authenticates the connection.
            for domain in domains.node.entries
            where !LocalHosts.isLocal(domain.key) && !ReservedHosts.isOnion(domain.key) {
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

    // MARK: Cleartext URLs and credentials in values

    /// Keys whose value describes the file rather than something the app fetches: a theme's
    /// `CreatorHomePage` (NetNewsWire's bundled themes), an author's website, a license.
    static func isMetadataKey(_ key: String?) -> Bool {
        guard let key else { return false }
        let words = NameWords.split(key)
        let metadata: Set<String> = ["homepage", "website", "author", "creator", "copyright", "license", "credits"]
        return words.contains(where: metadata.contains)
            || zip(words, words.dropFirst()).contains { $0 == "home" && $1 == "page" }
    }

    private mutating func checkStrings(_ node: PlistNode, key: String? = nil) {
        switch node.value {
        case .dictionary(let entries):
            for entry in entries { checkStrings(entry.node, key: entry.key) }
        case .array(let items):
            for item in items { checkStrings(item, key: key) }
        case .string(let text):
            guard self.checkedStrings.insert("\(node.line)\u{0}\(key ?? "")\u{0}\(text)").inserted else { return }
            if let host = CleartextURL.nonLocalHost(in: text), !Self.isMetadataKey(key) {
                report(
                    .cleartextHTTPURL,
                    line: node.line,
                    message: "cleartext URL to \(host) can be read and altered on the network"
                )
            }
            checkCredential(text, key: key, line: node.line)
        default:
            break
        }
    }

    /// A string value of a known credential format (``CredentialLiteral/knownFormat(_:)``: Google
    /// API keys `AIza…`, AWS access key IDs `AKIA…`, PEM private keys, Stripe, GitHub and Slack
    /// tokens), whatever its key is named: a plist ships in the app bundle as it is written.
    /// The message names the format and the key, never the value.
    ///
    /// Firebase's `GoogleService-Info.plist` (and its `-Debug`/`-Release` variants) holds the
    /// project's `API_KEY`, an `AIza…` key that Google documents as not secret (it identifies the
    /// project; access is governed by Firebase Security Rules and App Check,
    /// firebase.google.com/docs/projects/api-keys): it must ship in the app, so it is not a
    /// finding. (Restricting it to the app and the Firebase APIs is done in the Google Cloud
    /// console, which an audit of the source cannot see; issue 39's corpus labelled the two it
    /// met false.)
    private mutating func checkCredential(_ text: String, key: String?, line: Int) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let format = CredentialLiteral.knownFormat(trimmed) else { return }
        let under = key.map { " under the key \($0)" } ?? ""
        let isFirebaseConfiguration = (path as NSString).lastPathComponent.hasPrefix("GoogleService-Info")
        if format == "Google API key", isFirebaseConfiguration { return }
        report(
            .hardcodedCredential,
            line: line,
            message: "\(format) in a property-list value\(under): it ships in the app bundle, readable by anyone"
        )
    }
}
#endif
