import Crypto
public import Foundation
import SecureNetworkingInternal
import _CryptoExtras

/// One CT log of a ``CertificateTransparencyLogList``.
public struct CertificateTransparencyLog: Hashable, Sendable {
    /// A log's state in the list (Chrome's "log states", which Apple's list uses too), with the
    /// time it entered that state.
    public struct State: Hashable, Sendable {
        /// The states of the v3 log list schema.
        public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
            /// Submitted for inclusion; its SCTs never count.
            case pending
            /// Being monitored for compliance; its SCTs count.
            case qualified
            /// Fully trusted; its SCTs count.
            case usable
            /// Frozen (no new entries) but trusted; its SCTs count.
            case readonly
            /// No longer trusted; its SCTs count only if issued before the retirement.
            case retired
            /// Never trusted; its SCTs never count.
            case rejected
        }

        /// The state.
        public let kind: Kind
        /// When the log entered it.
        public let since: Date

        /// Creates a state.
        public init(_ kind: Kind, since: Date) {
            self.kind = kind
            self.since = since
        }
    }

    /// SHA-256 of ``key``, as SCTs name the log.
    public let logID: [UInt8]
    /// The log's public key (DER SubjectPublicKeyInfo).
    public let key: [UInt8]
    /// The log's description (its name).
    public let description: String
    /// The name of the organisation that runs the log.
    public let operatorName: String
    /// The log's submission URL, if listed.
    public let url: String?
    /// The log's state; nil when the list gives none (its SCTs never count).
    public let state: State?
    /// For a temporally sharded log: the range of certificate expiry dates it accepts
    /// (`start_inclusive`, `end_exclusive`).
    public let temporalInterval: Range<Date>?
    /// Whether the log speaks RFC 6962 (listed under `logs`) rather than the static-ct-api
    /// (`tiled_logs`). Apple's policy requires one counted SCT from an RFC 6962 log.
    public let isRFC6962: Bool
    /// `log_type`: `prod` (or absent), `test` or `monitoring_only`. Only production logs count.
    public let logType: String?
    /// Operators that ran the log before ``operatorName``, each until its `end_time`, oldest
    /// first: an SCT's operator is the one running the log when the SCT was issued (Chrome's
    /// policy, "Log Operator uniqueness").
    public let previousOperators: [PreviousOperator]

    /// An earlier operator of a log.
    public struct PreviousOperator: Hashable, Sendable {
        /// The operator's name.
        public let name: String
        /// The last moment it ran the log.
        public let endTime: Date

        /// Creates an entry.
        public init(name: String, endTime: Date) {
            self.name = name
            self.endTime = endTime
        }
    }

    /// The operator running the log at `time`.
    public func operatorName(at time: Date) -> String {
        self.previousOperators.sorted { $0.endTime < $1.endTime }.first { time < $0.endTime }?.name ?? self.operatorName
    }

    /// The log ID as base64, as log lists and reports write it.
    public var logIDBase64: String { Data(self.logID).base64EncodedString() }

    /// Creates a log entry; its ``logID`` is computed from `key`.
    public init(
        key: [UInt8],
        description: String,
        operatorName: String,
        url: String? = nil,
        state: State?,
        temporalInterval: Range<Date>? = nil,
        isRFC6962: Bool = true,
        logType: String? = nil,
        previousOperators: [PreviousOperator] = []
    ) {
        self.isRFC6962 = isRFC6962
        self.logType = logType
        self.previousOperators = previousOperators
        self.logID = Array(SHA256.hash(data: key))
        self.key = key
        self.description = description
        self.operatorName = operatorName
        self.url = url
        self.state = state
        self.temporalInterval = temporalInterval
    }
}

/// A list of trusted CT logs in the v3 JSON format that Chrome and Apple publish
/// (`https://www.gstatic.com/ct/log_list/v3/log_list.json`,
/// `https://valid.apple.com/ct/log_list/current_log_list.json`).
///
/// The library never fetches a list: the app ships one, or fetches and verifies one itself, and
/// hands it over. A list older than ``CertificateTransparencySettings/maximumLogListAge`` (70 days
/// by default, as Chrome) is *stale*: CT is then not enforced (reported), because with an old
/// list new logs are unknown and a compliant certificate would be refused.
///
/// Two lists are equal when they were read from the same bytes (a SHA-256 digest of them), so
/// comparing requirements that carry a list costs 32 bytes, not every log.
public struct CertificateTransparencyLogList: Hashable, Sendable {
    /// `log_list_timestamp`: when the list was published. For a list without one, the time the
    /// caller says it was fetched; when both are known, the earlier.
    public let timestamp: Date
    /// The list's `version`, if any.
    public let version: String?
    /// Every log of every operator (`logs` and `tiled_logs`).
    public let logs: [CertificateTransparencyLog]
    /// SHA-256 of the bytes the list was read from (or of its logs, for a list built in code).
    public let digest: [UInt8]
    private let byID: [[UInt8]: Int]
    private let verifiers: [LogKey]

    /// The most bytes read as a log list (the published lists are about 40 KB).
    public static let maximumSize = 8 << 20
    /// The most logs read from a list.
    public static let maximumLogCount = 4096

    /// Builds a list from logs (for tests and for lists kept in another form).
    ///
    /// - Throws: ``ServerTrustError/Code/invalidLogList`` for two logs with the same ID or more than
    ///   ``maximumLogCount`` logs.
    public init(timestamp: Date, logs: [CertificateTransparencyLog], version: String? = nil) throws(ServerTrustError) {
        var hasher = SHA256()
        hasher.update(data: Array("\(timestamp.timeIntervalSince1970)|\(version ?? "")".utf8))
        for log in logs {
            hasher.update(data: log.key)
            hasher.update(
                data: Array(
                    "|\(log.description)|\(log.operatorName)|\(log.isRFC6962)|\(log.logType ?? "")|\(log.previousOperators.map { "\($0.name)@\($0.endTime.timeIntervalSince1970)" })|\(log.state?.kind.rawValue ?? "")|\(log.state?.since.timeIntervalSince1970 ?? 0)|\(log.temporalInterval.map { "\($0.lowerBound.timeIntervalSince1970)-\($0.upperBound.timeIntervalSince1970)" } ?? "")"
                        .utf8
                )
            )
        }
        try self.init(timestamp: timestamp, version: version, logs: logs, digest: Array(hasher.finalize()))
    }

    private init(
        timestamp: Date,
        version: String?,
        logs: [CertificateTransparencyLog],
        digest: [UInt8]
    ) throws(ServerTrustError) {
        guard logs.count <= Self.maximumLogCount else {
            throw ServerTrustError(.invalidLogList, "the log list has more than \(Self.maximumLogCount) logs")
        }
        var byID: [[UInt8]: Int] = [:]
        for (index, log) in logs.enumerated() {
            guard byID.updateValue(index, forKey: log.logID) == nil else {
                throw ServerTrustError(.invalidLogList, "the log list names the log \(log.logIDBase64) twice")
            }
        }
        self.timestamp = timestamp
        self.version = version
        self.logs = logs
        self.digest = digest
        self.byID = byID
        self.verifiers = logs.map { LogKey(spki: $0.key) }
    }

    /// Reads a v3 log list.
    ///
    /// Unknown keys are ignored (the format grows); the keys a decision depends on are checked:
    /// `log_list_timestamp`, and per log `log_id` (which must be the SHA-256 of `key`), `key`
    /// (base64 DER), `description`, `state` (one of the known states with its `timestamp`) and
    /// `temporal_interval`. Timestamps are RFC 3339.
    ///
    /// - Parameters:
    ///   - json: the list's JSON, as Chrome and Apple publish it.
    ///   - timestamp: when the list was fetched, for a list without `log_list_timestamp`
    ///     (Apple's `current_log_list.json` has none). When the list has its own timestamp, the
    ///     earlier of the two is the list's time: a fetch time never makes an old list look fresh.
    /// - Throws: ``ServerTrustError/Code/invalidLogList`` with the key path (`$.operators[2].logs[0].key`)
    ///   and the reason.
    public init(json: Data, timestamp: Date? = nil) throws(ServerTrustError) {
        guard json.count <= Self.maximumSize else {
            throw ServerTrustError(
                .invalidLogList,
                "the log list is larger than \(Self.maximumSize) bytes",
                keyPath: "$"
            )
        }
        let root = try JSONValue.parse(json, failing: .invalidLogList, what: "the log list")
        let reader = LogListReader()
        let (listed, version, logs) = try reader.list(root, timestampRequired: timestamp == nil)
        // The list's own publication time wins; a caller's time may only make it older (a list
        // fetched before it claims to be published is dated by the fetch).
        let claimed = listed.map { listed in timestamp.map { min(listed, $0) } ?? listed } ?? timestamp
        guard let when = claimed else {
            throw ServerTrustError(.invalidLogList, "$.log_list_timestamp: missing", keyPath: "$.log_list_timestamp")
        }
        var hasher = SHA256()
        hasher.update(data: json)
        hasher.update(data: Array("\(when.timeIntervalSince1970)".utf8))
        try self.init(timestamp: when, version: version, logs: logs, digest: Array(hasher.finalize()))
    }

    /// Reads a v3 log list from a file.
    /// - Throws: ``ServerTrustError/Code/unreadableFile``, or as ``init(json:timestamp:)``.
    public init(contentsOfFile path: String, timestamp: Date? = nil) throws(ServerTrustError) {
        try self.init(json: try readFile(path, what: "the log list"), timestamp: timestamp)
    }

    /// The log with `logID`, if listed.
    public func log(id logID: [UInt8]) -> CertificateTransparencyLog? {
        self.byID[logID].map { self.logs[$0] }
    }

    /// Whether `signature` by the log `logID` over `data` verifies; nil when the log is not listed.
    func verify(
        logID: [UInt8],
        hashAlgorithm: UInt8,
        signatureAlgorithm: UInt8,
        signature: [UInt8],
        data: [UInt8]
    ) -> Bool? {
        guard let index = self.byID[logID] else { return nil }
        // RFC 6962 §2.1.4: SHA-256 with ECDSA (NIST P-256) or RSA (PKCS #1 v1.5); anything else
        // does not verify.
        guard hashAlgorithm == 4 else { return false }
        return self.verifiers[index].isValid(signatureAlgorithm: signatureAlgorithm, signature: signature, data: data)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.digest == rhs.digest }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.digest) }
}

/// A log's key, loaded once.
private enum LogKey: Sendable {
    case p256(P256.Signing.PublicKey)
    case rsa(_RSA.Signing.PublicKey)
    case unsupported

    init(spki: [UInt8]) {
        if let key = try? P256.Signing.PublicKey(derRepresentation: spki) {
            self = .p256(key)
        } else if let key = try? _RSA.Signing.PublicKey(derRepresentation: spki) {
            self = .rsa(key)
        } else {
            self = .unsupported
        }
    }

    func isValid(signatureAlgorithm: UInt8, signature: [UInt8], data: [UInt8]) -> Bool {
        switch (self, signatureAlgorithm) {
        case (.p256(let key), 3):
            guard let raw = DERWalker.p256Signature(signature),
                let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: raw)
            else { return false }
            return key.isValidSignature(parsed, for: data)
        case (.rsa(let key), 1):
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature),
                for: data,
                padding: .insecurePKCS1v1_5
            )
        default:
            return false
        }
    }
}

/// Walks a v3 log list, keeping the key path for error messages.
private struct LogListReader {
    func fail(_ path: String, _ reason: String) -> ServerTrustError {
        ServerTrustError(.invalidLogList, "\(path): \(reason)", keyPath: path)
    }

    func object(_ value: JSONValue?, _ path: String) throws(ServerTrustError) -> [String: JSONValue] {
        guard let value else { throw self.fail(path, "missing") }
        guard case .object(let fields) = value else {
            throw self.fail(path, "expected an object, found \(value.typeName)")
        }
        return fields
    }

    func array(_ value: JSONValue?, _ path: String) throws(ServerTrustError) -> [JSONValue] {
        guard let value else { throw self.fail(path, "missing") }
        guard case .array(let items) = value else {
            throw self.fail(path, "expected an array, found \(value.typeName)")
        }
        return items
    }

    func string(_ value: JSONValue?, _ path: String) throws(ServerTrustError) -> String {
        guard let value else { throw self.fail(path, "missing") }
        guard case .string(let text) = value else {
            throw self.fail(path, "expected a string, found \(value.typeName)")
        }
        return text
    }

    func date(_ value: JSONValue?, _ path: String) throws(ServerTrustError) -> Date {
        let text = try self.string(value, path)
        guard let date = Self.parseDate(text) else {
            throw self.fail(path, "'\(text.prefix(40))' is not an RFC 3339 time such as 2025-01-01T00:00:00Z")
        }
        return date
    }

    static func parseDate(_ text: String) -> Date? {
        InternetDateTime.parse(text, fractionalSeconds: true)
    }

    func base64(_ value: JSONValue?, _ path: String) throws(ServerTrustError) -> [UInt8] {
        let text = try self.string(value, path)
        guard let data = Data(base64Encoded: text), !data.isEmpty else { throw self.fail(path, "not base64") }
        return Array(data)
    }

    func list(
        _ root: JSONValue,
        timestampRequired: Bool
    ) throws(ServerTrustError) -> (Date?, String?, [CertificateTransparencyLog]) {
        let fields = try self.object(root, "$")
        let timestamp: Date? =
            (timestampRequired || fields["log_list_timestamp"] != nil)
            ? try self.date(fields["log_list_timestamp"], "$.log_list_timestamp") : nil
        let version: String? = if case .string(let text) = fields["version"] { text } else { nil }
        var logs: [CertificateTransparencyLog] = []
        for (index, value) in try self.array(fields["operators"], "$.operators").enumerated() {
            let path = "$.operators[\(index)]"
            let operatorFields = try self.object(value, path)
            let name = try self.string(operatorFields["name"], path + ".name")
            for kind in ["logs", "tiled_logs"] {
                guard operatorFields[kind] != nil else { continue }
                for (logIndex, log) in try self.array(operatorFields[kind], "\(path).\(kind)").enumerated() {
                    logs.append(
                        try self.log(log, "\(path).\(kind)[\(logIndex)]", operatorName: name, isRFC6962: kind == "logs")
                    )
                    guard logs.count <= CertificateTransparencyLogList.maximumLogCount else {
                        throw self.fail(path, "more than \(CertificateTransparencyLogList.maximumLogCount) logs")
                    }
                }
            }
        }
        return (timestamp, version, logs)
    }

    func log(
        _ value: JSONValue,
        _ path: String,
        operatorName: String,
        isRFC6962: Bool
    ) throws(ServerTrustError) -> CertificateTransparencyLog {
        let fields = try self.object(value, path)
        let key = try self.base64(fields["key"], path + ".key")
        let logID = try self.base64(fields["log_id"], path + ".log_id")
        guard logID == Array(SHA256.hash(data: key)) else {
            throw self.fail(path + ".log_id", "is not the SHA-256 of the log's key")
        }
        // Optional in the schema: a log without one is named by its ID.
        let description =
            fields["description"] == nil
            ? Data(logID).base64EncodedString() : try self.string(fields["description"], path + ".description")
        var url: String?
        for key in ["url", "submission_url"] {
            if case .string(let text) = fields[key] { url = text }
        }
        var state: CertificateTransparencyLog.State?
        if let value = fields["state"] {
            let states = try self.object(value, path + ".state")
            guard states.count == 1, let (name, detail) = states.first else {
                throw self.fail(path + ".state", "expected exactly one state")
            }
            guard let kind = CertificateTransparencyLog.State.Kind(rawValue: name) else {
                throw self.fail(
                    path + ".state." + name,
                    "unknown state (known: \(CertificateTransparencyLog.State.Kind.allCases.map(\.rawValue).joined(separator: ", ")))"
                )
            }
            let since = try self.date(
                try self.object(detail, path + ".state." + name)["timestamp"],
                path + ".state.\(name).timestamp"
            )
            state = .init(kind, since: since)
        }
        var interval: Range<Date>?
        if let value = fields["temporal_interval"] {
            let bounds = try self.object(value, path + ".temporal_interval")
            let start = try self.date(bounds["start_inclusive"], path + ".temporal_interval.start_inclusive")
            let end = try self.date(bounds["end_exclusive"], path + ".temporal_interval.end_exclusive")
            guard start < end else { throw self.fail(path + ".temporal_interval", "the interval is empty") }
            interval = start..<end
        }
        var previous: [CertificateTransparencyLog.PreviousOperator] = []
        if fields["previous_operators"] != nil {
            for (index, item) in try self.array(fields["previous_operators"], path + ".previous_operators").enumerated()
            {
                let itemPath = "\(path).previous_operators[\(index)]"
                let entry = try self.object(item, itemPath)
                previous.append(
                    .init(
                        name: try self.string(entry["name"], itemPath + ".name"),
                        endTime: try self.date(entry["end_time"], itemPath + ".end_time")
                    )
                )
            }
        }
        let logType: String? = if case .string(let text) = fields["log_type"] { text } else { nil }
        return CertificateTransparencyLog(
            key: key,
            description: description,
            operatorName: operatorName,
            url: url,
            state: state,
            temporalInterval: interval,
            isRFC6962: isRFC6962,
            logType: logType,
            previousOperators: previous
        )
    }
}
