#if Tools
import Foundation

/// Rules for SecureNetworking's own transport-security policy files (`*.json` containing
/// `"pinnedDomains"`, `"exceptionDomains"` or `"allowsArbitraryLoads"`, the format read by
/// `TransportSecurityPolicy(json:)`): SN001–SN004 for the ATS-like keys and SN014 for pin sets with fewer
/// than two pins (`pins` + `caPins` + `leafPins`; report-only sets are exempt). JSON has no comments, so
/// these findings cannot be suppressed in source. Other JSON files are not audited and not counted.
enum JSONPolicyRules {
    static let markers = ["\"pinnedDomains\"", "\"exceptionDomains\"", "\"allowsArbitraryLoads\""]

    /// Whether `data` looks like a policy file.
    static func isPolicy(_ data: Data) -> Bool {
        let text = String(decoding: data, as: UTF8.self)
        return markers.contains(where: text.contains)
    }

    static func audit(data: Data, path: String) throws(PropertyListParser.Failure) -> [AuditFinding] {
        var parser = LineTrackingJSONParser(bytes: Array(data))
        let root = try parser.parseDocument()
        var findings: [AuditFinding] = []
        func add(_ rule: AuditRule, _ line: Int, _ severity: AuditSeverity, _ message: String) {
            findings.append(
                AuditFinding(
                    ruleID: rule.id,
                    severity: severity,
                    path: path,
                    line: line,
                    column: parser.column(ofLine: line),
                    message: message,
                    fix: rule.fix
                )
            )
        }
        if let entry = root["allowsArbitraryLoads"], entry.node.boolValue == true {
            add(.atsArbitraryLoads, entry.keyLine, .high, "allowsArbitraryLoads turns off the policy for every host")
        }
        if let entry = root["minimumTLSVersion"], let version = entry.node.stringValue, isWeak(version) {
            add(
                .atsWeakTLSVersion,
                entry.keyLine,
                .high,
                "minimumTLSVersion \(version) allows deprecated TLS everywhere"
            )
        }
        if let entry = root["requiresForwardSecrecy"], entry.node.boolValue == false {
            add(.atsForwardSecrecyDisabled, entry.keyLine, .medium, "requiresForwardSecrecy false for every host")
        }
        for domain in root["exceptionDomains"]?.node.entries ?? [] where !LocalHosts.isLocal(domain.key) {
            let subdomains = domain.node["includesSubdomains"]?.node.boolValue == true
            let scope = subdomains ? "\(domain.key) and all its subdomains" : domain.key
            if let entry = domain.node["allowsInsecureHTTPLoads"], entry.node.boolValue == true {
                add(
                    .atsInsecureHTTPException,
                    entry.keyLine,
                    subdomains ? .high : .medium,
                    "allowsInsecureHTTPLoads allows cleartext HTTP to \(scope)"
                )
            }
            if let entry = domain.node["minimumTLSVersion"], let version = entry.node.stringValue, isWeak(version) {
                add(
                    .atsWeakTLSVersion,
                    entry.keyLine,
                    subdomains ? .high : .medium,
                    "minimumTLSVersion \(version) allows deprecated TLS for \(scope)"
                )
            }
            if let entry = domain.node["requiresForwardSecrecy"], entry.node.boolValue == false {
                add(
                    .atsForwardSecrecyDisabled,
                    entry.keyLine,
                    subdomains ? .medium : .low,
                    "requiresForwardSecrecy false allows cipher suites without forward secrecy for \(scope)"
                )
            }
            if let pins = domain.node["pins"], let count = pinCount(pins.node), count < 2 {
                add(.pinWithoutBackup, pins.keyLine, .medium, "\(domain.key) has \(count) pin; add a backup pin")
            }
        }
        for domain in root["pinnedDomains"]?.node.entries ?? [] {
            if let count = pinCount(domain.node), count < 2 {
                add(.pinWithoutBackup, domain.keyLine, .medium, "\(domain.key) has \(count) pin; add a backup pin")
            }
        }
        return findings
    }

    private static func isWeak(_ version: String) -> Bool {
        version != "TLSv1.2" && version != "TLSv1.3"
    }

    /// Pins in an enforced pin set, or nil for a report-only set.
    private static func pinCount(_ set: PlistNode) -> Int? {
        if set["reportOnly"]?.node.boolValue == true { return nil }
        return ["pins", "caPins", "leafPins"].compactMap { set[$0]?.node.arrayCount }.reduce(0, +)
    }
}

/// A small JSON parser that records the line of every object key (Foundation's parsers do not).
struct LineTrackingJSONParser {
    let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStarts: [Int] = [0]
    /// Open arrays and objects; at most ``PropertyListParser/maximumDepth``, as the parser
    /// recurses once per level.
    private var depth = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The first non-blank column (1-based) of `line`.
    func column(ofLine line: Int) -> Int {
        guard line >= 1, line <= lineStarts.count else { return 1 }
        var position = lineStarts[line - 1]
        while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x09 { position += 1 }
        return position - lineStarts[line - 1] + 1
    }

    mutating func parseDocument() throws(PropertyListParser.Failure) -> PlistNode {
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected text after the JSON value") }
        return value
    }

    private func failure(_ message: String) -> PropertyListParser.Failure {
        PropertyListParser.Failure(reason: "malformed JSON policy: \(message) at line \(line)")
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x0A:
                line += 1
                index += 1
                lineStarts.append(index)
            case 0x20, 0x09, 0x0D:
                index += 1
            default:
                return
            }
        }
    }

    private mutating func parseValue() throws(PropertyListParser.Failure) -> PlistNode {
        skipWhitespace()
        guard index < bytes.count else { throw failure("unexpected end of input") }
        let startLine = line
        switch bytes[index] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth < PropertyListParser.maximumDepth else {
                throw failure("arrays and objects \(PropertyListParser.tooDeep)")
            }
            depth += 1
            defer { depth -= 1 }
            return bytes[index] == UInt8(ascii: "{") ? try parseObject(startLine) : try parseArray(startLine)
        case UInt8(ascii: "\""):
            return PlistNode(value: .string(try parseString()), line: startLine)
        default:
            return try parseScalar(startLine)
        }
    }

    /// Parses an object starting at its `{`.
    private mutating func parseObject(_ startLine: Int) throws(PropertyListParser.Failure) -> PlistNode {
        index += 1
        var entries: [PlistEntry] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return PlistNode(value: .dictionary(entries), line: startLine)
        }
        while true {
            skipWhitespace()
            let keyLine = line
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            entries.append(PlistEntry(key: key, keyLine: keyLine, node: try parseValue()))
            skipWhitespace()
            guard index < bytes.count else { throw failure("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return PlistNode(value: .dictionary(entries), line: startLine)
            } else {
                throw failure("expected ',' or '}'")
            }
        }
    }

    /// Parses an array starting at its `[`.
    private mutating func parseArray(_ startLine: Int) throws(PropertyListParser.Failure) -> PlistNode {
        index += 1
        var items: [PlistNode] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return PlistNode(value: .array(items), line: startLine)
        }
        while true {
            items.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw failure("unterminated array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return PlistNode(value: .array(items), line: startLine)
            } else {
                throw failure("expected ',' or ']'")
            }
        }
    }

    /// Parses `true`, `false`, `null` or a number.
    private mutating func parseScalar(_ startLine: Int) throws(PropertyListParser.Failure) -> PlistNode {
        let start = index
        while index < bytes.count, !",]} \t\r\n".utf8.contains(bytes[index]) { index += 1 }
        let word = String(decoding: bytes[start..<index], as: UTF8.self)
        switch word {
        case "true": return PlistNode(value: .bool(true), line: startLine)
        case "false": return PlistNode(value: .bool(false), line: startLine)
        case "null": return PlistNode(value: .other, line: startLine)
        default:
            guard Double(word) != nil else { throw failure("unexpected '\(word.prefix(20))'") }
            return PlistNode(value: .number(word), line: startLine)
        }
    }

    /// Parses a string starting at the opening quote.
    private mutating func parseString() throws(PropertyListParser.Failure) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var pending: [UInt8] = []
        func flush() {
            scalars.append(contentsOf: String(decoding: pending, as: UTF8.self).unicodeScalars)
            pending.removeAll()
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { break }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "n"): pending.append(0x0A)
                case UInt8(ascii: "t"): pending.append(0x09)
                case UInt8(ascii: "r"): pending.append(0x0D)
                case UInt8(ascii: "b"): pending.append(0x08)
                case UInt8(ascii: "f"): pending.append(0x0C)
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count,
                        let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
                    else { throw failure("bad \\u escape") }
                    index += 4
                    flush()
                    scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                default: pending.append(escaped)
                }
            case 0x0A:
                throw failure("newline in string")
            default:
                pending.append(byte)
            }
        }
        throw failure("unterminated string")
    }
}
#endif
