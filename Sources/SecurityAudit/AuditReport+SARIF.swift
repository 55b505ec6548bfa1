#if Tools
public import Foundation
import ServerTrust

extension AuditReport {
    /// The `$schema` written into SARIF logs.
    public static let sarifSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

    /// The report as a SARIF 2.1.0 log with one run, following GitHub code scanning's SARIF support.
    ///
    /// - `tool.driver.rules` lists every rule with `defaultConfiguration.level` (`error` high, `warning`
    ///   medium, `note` low) and `properties["security-severity"]` (`"8.0"`, `"5.0"`, `"2.0"`).
    /// - Each result has `ruleId`, `ruleIndex`, the finding's own `level`, a location relative to
    ///   `%SRCROOT%` and `partialFingerprints["securenet/v1"]` (``AuditFinding/fingerprint``, with
    ///   `:n` appended for the n-th repeat of the same fingerprint).
    /// - Suppressed findings are emitted with `suppressions: [{kind: "inSource", justification}]`.
    /// - Unreadable files become `toolExecutionNotifications` of the run's invocation.
    ///
    /// Columns are UTF-8 byte columns; SARIF's default column unit is UTF-16 code units, which agree for
    /// ASCII lines.
    ///
    /// - Parameters:
    ///   - toolVersion: The `securenet` version (semantic version), written to `version` and
    ///     `semanticVersion`.
    ///   - informationURI: An absolute URI documenting the tool, if any.
    ///   - sourceRoot: The absolute path of the audited root; written to `originalUriBaseIds`.
    public func sarif(toolVersion: String, informationURI: String? = nil, sourceRoot: String? = nil) throws -> Data {
        let rules = AuditRule.all
        let ruleIndex = Dictionary(uniqueKeysWithValues: rules.enumerated().map { ($1.id, $0) })

        var driver: [String: JSONValue] = [
            "name": "securenet audit",
            "version": .string(toolVersion),
            "semanticVersion": .string(toolVersion),
            "rules": .array(rules.map(Self.sarifRule)),
        ]
        if let informationURI { driver["informationUri"] = .string(informationURI) }

        var seen: [String: Int] = [:]
        let all = (findings + suppressed).sorted(by: AuditFinding.areInReportOrder)
        let results: [JSONValue] = all.map { finding in
            let occurrence = seen[finding.fingerprint, default: 0]
            seen[finding.fingerprint] = occurrence + 1
            let fingerprint = occurrence == 0 ? finding.fingerprint : "\(finding.fingerprint):\(occurrence + 1)"
            var result: [String: JSONValue] = [
                "ruleId": .string(finding.ruleID),
                "level": .string(Self.sarifLevel(finding.severity)),
                // Messages quote the audited tree: the one rule for outside text (issue 51
                // item 10), as in the text report; the uri is percent-encoded.
                "message": ["text": .string(OutsideText.escaped(finding.message))],
                "locations": [
                    [
                        "physicalLocation": [
                            "artifactLocation": [
                                "uri": .string(Self.percentEncodedPath(finding.path)),
                                "uriBaseId": "%SRCROOT%",
                            ],
                            "region": [
                                "startLine": .int(max(finding.line, 1)),
                                "startColumn": .int(max(finding.column, 1)),
                            ],
                        ]
                    ]
                ],
                "partialFingerprints": ["securenet/v1": .string(fingerprint)],
            ]
            if let index = ruleIndex[finding.ruleID] { result["ruleIndex"] = .int(index) }
            if let suppression = finding.suppression {
                result["suppressions"] = [
                    ["kind": "inSource", "justification": .string(OutsideText.escaped(suppression.reason))]
                ]
            }
            return .object(result)
        }

        var root: [String: JSONValue] = ["description": ["text": "The root of the audited project."]]
        if let sourceRoot {
            let uri = URL(fileURLWithPath: sourceRoot, isDirectory: true).absoluteString
            root["uri"] = .string(uri.hasSuffix("/") ? uri : uri + "/")
        }
        let notifications: [JSONValue] = unreadableFiles.map { file in
            [
                "level": "warning",
                "message": ["text": .string(OutsideText.escaped("\(file.path) could not be audited: \(file.reason)"))],
                "locations": [
                    [
                        "physicalLocation": [
                            "artifactLocation": [
                                "uri": .string(Self.percentEncodedPath(file.path)), "uriBaseId": "%SRCROOT%",
                            ]
                        ]
                    ]
                ],
            ]
        }
        let run: JSONValue = [
            "tool": ["driver": .object(driver)],
            "originalUriBaseIds": ["%SRCROOT%": .object(root)],
            "invocations": [
                [
                    "executionSuccessful": true,
                    "toolExecutionNotifications": .array(notifications),
                ]
            ],
            "results": .array(results),
        ]
        let log: JSONValue = [
            "$schema": .string(Self.sarifSchemaURI),
            "version": "2.1.0",
            "runs": [run],
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(log)
    }

    static func sarifLevel(_ severity: AuditSeverity) -> String {
        switch severity {
        case .high: "error"
        case .medium: "warning"
        case .low: "note"
        }
    }

    static func securitySeverity(_ severity: AuditSeverity) -> String {
        switch severity {
        case .high: "8.0"
        case .medium: "5.0"
        case .low: "2.0"
        }
    }

    static func sarifRule(_ rule: AuditRule) -> JSONValue {
        let markdown = "**\(rule.summary)**\n\n\(rule.rationale)\n\n**Fix:** \(rule.fix)"
        return [
            "id": .string(rule.id),
            "name": .string(rule.name),
            "shortDescription": ["text": .string(rule.summary)],
            "fullDescription": ["text": .string(rule.rationale)],
            "help": [
                "text": .string("\(rule.summary) \(rule.rationale) Fix: \(rule.fix)"),
                "markdown": .string(markdown),
            ],
            "defaultConfiguration": ["level": .string(sarifLevel(rule.severity))],
            "properties": [
                "security-severity": .string(securitySeverity(rule.severity)),
                "tags": .array(rule.tags.map(JSONValue.string)),
                "precision": "high",
            ],
        ]
    }

    /// Percent-encodes a relative path for a SARIF `uri` (keeps `/`).
    static func percentEncodedPath(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: ":")
        return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    }
}

/// A minimal JSON tree for building SARIF with `JSONEncoder`.
enum JSONValue: Encodable, Sendable, ExpressibleByStringLiteral, ExpressibleByDictionaryLiteral,
    ExpressibleByArrayLiteral, ExpressibleByBooleanLiteral
{
    case string(String)
    case int(Int)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])

    init(stringLiteral value: String) { self = .string(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
#endif
