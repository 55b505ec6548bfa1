public import Foundation
import SecureNetworkingInternal

extension TransportSecurityPolicy {
    /// Loads a policy from a JSON file.
    ///
    /// A relative certificate path under `trustAnchors` is resolved against the folder that holds
    /// the policy file, so a policy and its CA file can move together.
    ///
    /// - Parameter path: the policy file; a relative path starts from the current directory.
    /// - Throws: ``ServerTrustError/Code/unreadableFile`` with the absolute path (escaped for
    ///   printing) and why: no such file, permission denied, or a directory; or
    ///   ``ServerTrustError/Code/invalidPolicyFile`` as ``init(json:)`` does.
    public init(contentsOfFile path: String) throws(ServerTrustError) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        try self.init(json: try readFile(path, what: "the policy file"), relativeTo: folder)
    }

    /// Parses a JSON policy. Every key is optional and defaults to the strict setting:
    ///
    /// ```json
    /// {
    ///   "allowsArbitraryLoads": false,
    ///   "allowsLocalNetworking": false,
    ///   "minimumTLSVersion": "TLSv1.2",
    ///   "requiresForwardSecrecy": true,
    ///   "requiresCertificateTransparency": false,
    ///   "certificateTransparency": { "policy": "apple", "maximumLogListAgeDays": 70 },
    ///   "trustAnchors": {
    ///     "system": true,
    ///     "certificates": ["ca.pem", "-----BEGIN CERTIFICATE-----\n…\n-----END CERTIFICATE-----"],
    ///     "profile": "webPKI"
    ///   },
    ///   "exceptionDomains": {
    ///     "legacy.example.com": {
    ///       "includesSubdomains": true,
    ///       "minimumTLSVersion": "TLSv1.2",
    ///       "requiresForwardSecrecy": false,
    ///       "cipherSuites": "aead",
    ///       "allowsInsecureHTTPLoads": false,
    ///       "requiresCertificateTransparency": true,
    ///       "pins": { "pins": ["sha256/…", "sha256/…"] }
    ///     }
    ///   },
    ///   "pinnedDomains": {
    ///     "**.example.com": {
    ///       "pins": ["sha256/…", "sha256/…"],
    ///       "expiration": "2027-06-30T00:00:00Z",
    ///       "reportOnly": false
    ///     }
    ///   }
    /// }
    /// ```
    ///
    /// A pin set gives `pins` (matching any certificate of the validated chain), or `caPins`
    /// and/or `leafPins` with the meaning of ATS's `NSPinnedCAIdentities` and
    /// `NSPinnedLeafIdentities` (see ``PinSet/init(certificateAuthorityPins:leafPins:expiration:mode:)``).
    /// Its `expiration` is an RFC 3339 instant (`Z` or an offset); a day that does not exist,
    /// `24:00` or a leap second is refused rather than moved to another instant.
    ///
    /// `trustAnchors` says which roots a chain must lead to (absent: the system roots). `system`
    /// (default true) keeps the system roots; each entry of `certificates` is a PEM (or DER) file
    /// path or inline PEM text, holding CA certificates only; `profile` is `"webPKI"` (the
    /// default) or `"privatePKI"`, which needs `"system": false` (see
    /// ``TrustAnchors/only(_:profile:)``). A relative path is resolved against the policy file's
    /// folder (``init(contentsOfFile:)``) or the folder given to ``init(json:relativeTo:)``; with
    /// ``init(json:)`` it is refused.
    ///
    /// `minimumTLSVersion` is spelt as ATS's `NSExceptionMinimumTLSVersion` is, exactly:
    /// `TLSv1.0`, `TLSv1.1`, `TLSv1.2` or `TLSv1.3` (``TLSVersion/init(atsName:)``, the Info.plist
    /// reader's rule too); `TLS1.2` or `tlsv1.3` is refused, with the spelling meant. An unknown
    /// key is refused with the known key it is one or two edits from, if any ("did you mean
    /// allowsArbitraryLoads?"), as the Info.plist reader warns.
    ///
    /// The CT log list is not part of the file: set ``certificateTransparency``'s `logList` in
    /// code (from a list the app ships or fetches). A host that requires CT without one is
    /// refused.
    ///
    /// - Parameter json: the policy's JSON text.
    /// - Throws: ``ServerTrustError/Code/invalidPolicyFile`` with the key path and the reason: the
    ///   text is not JSON, an unknown key, a wrong type, a bad TLS version, host pattern, pin or
    ///   date, an enforced pin set without a backup pin, or a trust anchor that cannot be read,
    ///   is not a certificate, is not a CA certificate, or is a relative path.
    public init(json: Data) throws(ServerTrustError) {
        let root = try JSONValue.parse(json, failing: .invalidPolicyFile, what: "the policy")
        var reader = PolicyReader(baseDirectory: nil)
        self = try reader.policy(root)
    }

    /// Parses a JSON policy whose relative certificate paths are resolved against a folder.
    ///
    /// - Parameters:
    ///   - json: the policy's JSON text, as ``init(json:)`` reads it.
    ///   - directory: the folder relative paths under `trustAnchors.certificates` start from.
    /// - Throws: ``ServerTrustError/Code/invalidPolicyFile`` with the key path and the reason, as
    ///   ``init(json:)`` does.
    public init(json: Data, relativeTo directory: URL) throws(ServerTrustError) {
        let root = try JSONValue.parse(json, failing: .invalidPolicyFile, what: "the policy")
        var reader = PolicyReader(baseDirectory: directory)
        self = try reader.policy(root)
    }
}

/// A JSON value, decoded without Foundation's loose conversions (a number is never a Bool).
enum JSONValue: Decodable {
    /// The JSON text in `data`, refused when one object names a key twice
    /// (``JSONDuplicateKeys``): parsers disagree on which of the two wins (`JSONDecoder` keeps
    /// the first, `jq` and Python the last), so a reviewer, a signer and the app could each read
    /// another document.
    /// - Throws: a ServerTrustError with `code`, at key path `$`, when it is not JSON in UTF-8;
    ///   at the key's path (`$.pinnedDomains`, `$.exceptionDomains["a.com"].pins`), naming the
    ///   key, when a key appears twice.
    static func parse(
        _ data: Data,
        failing code: ServerTrustError.Code,
        what: String
    ) throws(ServerTrustError) -> JSONValue {
        switch JSONDuplicateKeys.scan(data) {
        case .malformed?:
            throw ServerTrustError(code, "$: \(what) is not valid JSON", keyPath: "$")
        case .duplicate(let components)?:
            let path = Self.keyPath(components)
            let key: String
            if case .key(let name)? = components.last { key = name } else { key = "" }
            throw ServerTrustError(
                code,
                "\(path): the key \(key.quotedForMessage) appears twice in one object; a key is given once (JSON readers disagree on which of two wins)",
                keyPath: path
            )
        case nil:
            break
        }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ServerTrustError(code, "$: \(what) is not valid JSON", keyPath: "$")
        }
    }

    /// `$.pinnedDomains["api.example.com"].pins[1]`: a key that is a plain name after a dot,
    /// any other in brackets, quoted and escaped.
    static func keyPath(_ components: [JSONDuplicateKeys.Component]) -> String {
        var path = "$"
        for component in components {
            switch component {
            case .index(let index):
                path += "[\(index)]"
            case .key(let key):
                let plain =
                    !key.isEmpty
                    && key.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
                path += plain ? "." + key : "[" + key.quotedForMessage + "]"
            }
        }
        return path
    }

    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            while !array.isAtEnd { values.append(try array.decode(JSONValue.self)) }
            self = .array(values)
            return
        }
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            var values: [String: JSONValue] = [:]
            for key in object.allKeys { values[key.stringValue] = try object.decode(JSONValue.self, forKey: key) }
            self = .object(values)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Double.self) {
            self = .number(value)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// Walks the JSON tree, keeping the key path for error messages.
struct PolicyReader {
    static let topKeys: Set<String> = [
        "allowsArbitraryLoads", "allowsLocalNetworking", "minimumTLSVersion", "requiresForwardSecrecy",
        "exceptionDomains", "pinnedDomains", "requiresCertificateTransparency", "certificateTransparency",
        "trustAnchors",
    ]
    static let transparencyKeys: Set<String> = ["policy", "maximumLogListAgeDays"]
    static let exceptionKeys: Set<String> = [
        "includesSubdomains", "minimumTLSVersion", "requiresForwardSecrecy", "allowsInsecureHTTPLoads", "pins",
        "cipherSuites",
        "requiresCertificateTransparency",
    ]
    static let pinSetKeys: Set<String> = ["pins", "caPins", "leafPins", "expiration", "reportOnly"]

    /// The folder relative certificate paths start from; nil refuses them.
    let baseDirectory: URL?
    /// The code of every refusal: the policy file's, or a pin-set update's (which keeps
    /// ``ServerTrustError/Code/missingBackupPin`` for a pin set without a backup).
    var failureCode: ServerTrustError.Code = .invalidPolicyFile

    func fail(_ path: String, _ reason: String) -> ServerTrustError {
        ServerTrustError(self.failureCode, "\(path): \(reason)", keyPath: path)
    }

    func object(
        _ value: JSONValue,
        _ path: String,
        allowed: Set<String>
    ) throws(ServerTrustError) -> [String: JSONValue] {
        guard case .object(let fields) = value else {
            throw self.fail(path, "expected an object, found \(value.typeName)")
        }
        if let unknown = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw self.fail(
                path + "." + unknown,
                "unknown key\(KeySuggestion.phrase(for: unknown, among: allowed)) (allowed: \(allowed.sorted().joined(separator: ", ")))"
            )
        }
        return fields
    }

    func bool(_ fields: [String: JSONValue], _ key: String, _ path: String) throws(ServerTrustError) -> Bool? {
        guard let value = fields[key] else { return nil }
        guard case .bool(let flag) = value else {
            throw self.fail(path + "." + key, "expected a boolean, found \(value.typeName)")
        }
        return flag
    }

    func string(_ fields: [String: JSONValue], _ key: String, _ path: String) throws(ServerTrustError) -> String? {
        guard let value = fields[key] else { return nil }
        guard case .string(let text) = value else {
            throw self.fail(path + "." + key, "expected a string, found \(value.typeName)")
        }
        return text
    }

    func tlsVersion(_ fields: [String: JSONValue], _ path: String) throws(ServerTrustError) -> TLSVersion? {
        guard let text = try self.string(fields, "minimumTLSVersion", path) else { return nil }
        guard let version = TLSVersion(atsName: text) else {
            throw self.fail(path + ".minimumTLSVersion", TLSVersion.refusal(of: text))
        }
        return version
    }

    mutating func policy(_ root: JSONValue) throws(ServerTrustError) -> TransportSecurityPolicy {
        let fields = try self.object(root, "$", allowed: Self.topKeys)
        var policy = TransportSecurityPolicy()
        policy.allowsArbitraryLoads = try self.bool(fields, "allowsArbitraryLoads", "$") ?? false
        policy.allowsLocalNetworking = try self.bool(fields, "allowsLocalNetworking", "$") ?? false
        policy.minimumTLSVersion = try self.tlsVersion(fields, "$") ?? .v1_2
        policy.requiresForwardSecrecy = try self.bool(fields, "requiresForwardSecrecy", "$") ?? true
        policy.requiresCertificateTransparency = try self.bool(fields, "requiresCertificateTransparency", "$") ?? false
        if let value = fields["certificateTransparency"] {
            let path = "$.certificateTransparency"
            let settings = try self.object(value, path, allowed: Self.transparencyKeys)
            if let name = try self.string(settings, "policy", path) {
                guard let ctPolicy = CertificateTransparencyPolicy(name) else {
                    throw self.fail(
                        path + ".policy",
                        "unknown CT policy '\(name.prefix(40))': use \"apple\" or \"chrome\""
                    )
                }
                policy.certificateTransparency.policy = ctPolicy
            }
            if let days = settings["maximumLogListAgeDays"] {
                guard case .number(let count) = days, count >= 1, count <= 3650, count == count.rounded() else {
                    throw self.fail(path + ".maximumLogListAgeDays", "expected a whole number of days from 1 to 3650")
                }
                policy.certificateTransparency.maximumLogListAge = count * 86_400
            }
        }

        if let anchors = fields["trustAnchors"] {
            policy.trustAnchors = try self.trustAnchors(anchors, "$.trustAnchors")
        }

        if let exceptions = fields["exceptionDomains"] {
            guard case .object(let domains) = exceptions else {
                throw self.fail("$.exceptionDomains", "expected an object, found \(exceptions.typeName)")
            }
            for domain in domains.keys.sorted() {
                let path = "$.exceptionDomains[\"\(domain)\"]"
                do {
                    _ = try HostPattern(domain)
                } catch {
                    throw self.fail(path, error.message)
                }
                guard !domain.contains("*") else {
                    throw self.fail(path, "an exception domain has no wildcard; use includesSubdomains")
                }
                policy.setException(try self.exception(domains[domain]!, path), for: domain)
            }
        }

        if let pinned = fields["pinnedDomains"] {
            guard case .object(let patterns) = pinned else {
                throw self.fail("$.pinnedDomains", "expected an object, found \(pinned.typeName)")
            }
            for text in patterns.keys.sorted() {
                let path = "$.pinnedDomains[\"\(text)\"]"
                policy.pinning.pin(try self.hostPattern(text, path), to: try self.pinSet(patterns[text]!, path))
            }
        }
        return policy
    }

    func exception(_ value: JSONValue, _ path: String) throws(ServerTrustError) -> DomainException {
        let fields = try self.object(value, path, allowed: Self.exceptionKeys)
        return DomainException(
            includesSubdomains: try self.bool(fields, "includesSubdomains", path) ?? false,
            minimumTLSVersion: try self.tlsVersion(fields, path),
            requiresForwardSecrecy: try self.bool(fields, "requiresForwardSecrecy", path),
            allowsInsecureHTTPLoads: try self.bool(fields, "allowsInsecureHTTPLoads", path) ?? false,
            pins: try fields["pins"].map { value throws(ServerTrustError) in try self.pinSet(value, path + ".pins") },
            cipherSuites: try self.cipherSuites(fields, path),
            requiresCertificateTransparency: try self.bool(fields, "requiresCertificateTransparency", path)
        )
    }

    func cipherSuites(_ fields: [String: JSONValue], _ path: String) throws(ServerTrustError) -> CipherSuitePolicy {
        guard let name = try self.string(fields, "cipherSuites", path) else { return .aeadOnly }
        guard let policy = CipherSuitePolicy(name) else {
            throw self.fail(
                path + ".cipherSuites",
                "unknown cipher suite list '\(name.prefix(40))': use \"aead\" or \"ats\""
            )
        }
        return policy
    }

    /// The host pattern `text`, a key of `pinnedDomains` at `path`.
    func hostPattern(_ text: String, _ path: String) throws(ServerTrustError) -> HostPattern {
        do {
            return try HostPattern(text)
        } catch {
            throw self.fail(path, error.message)
        }
    }

    func pinSet(_ value: JSONValue, _ path: String) throws(ServerTrustError) -> PinSet {
        let fields = try self.object(value, path, allowed: Self.pinSetKeys)
        let scoped = fields["caPins"] != nil || fields["leafPins"] != nil
        if scoped, fields["pins"] != nil {
            throw self.fail(
                path + ".pins",
                "give pins (any certificate of the chain), or caPins and/or leafPins (as ATS's NSPinnedDomains), not both"
            )
        }
        guard scoped || fields["pins"] != nil else {
            throw self.fail(path + ".pins", "missing: a pin set needs its pins")
        }
        let pins = try self.pinList(fields, "pins", path)
        let caPins = try self.pinList(fields, "caPins", path)
        let leafPins = try self.pinList(fields, "leafPins", path)
        var expiration: Date?
        if let text = try self.string(fields, "expiration", path) {
            guard let date = InternetDateTime.parse(text) else {
                throw self.fail(
                    path + ".expiration",
                    "'\(text.prefix(40))' is not an RFC 3339 date such as 2027-06-30T00:00:00Z"
                )
            }
            expiration = date
        }
        let reportOnly = try self.bool(fields, "reportOnly", path) ?? false
        let mode: PinSet.Mode = reportOnly ? .reportOnly : .enforce
        do {
            if scoped {
                return try PinSet(
                    certificateAuthorityPins: caPins,
                    leafPins: leafPins,
                    expiration: expiration,
                    mode: mode
                )
            }
            return try PinSet(pins: pins, expiration: expiration, mode: mode)
        } catch {
            let at = path + (scoped ? "" : ".pins")
            if self.failureCode == .malformedPinUpdate, error.code == .missingBackupPin {
                throw ServerTrustError(.missingBackupPin, "\(at): \(error.message)", keyPath: at)
            }
            throw self.fail(at, error.message)
        }
    }

    /// The pins under `key` (none when the key is absent).
    func pinList(_ fields: [String: JSONValue], _ key: String, _ path: String) throws(ServerTrustError) -> [Pin] {
        guard let list = fields[key] else { return [] }
        guard case .array(let items) = list else {
            throw self.fail("\(path).\(key)", "expected an array of pins, found \(list.typeName)")
        }
        var pins: [Pin] = []
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else {
                throw self.fail("\(path).\(key)[\(index)]", "expected a string, found \(item.typeName)")
            }
            do {
                pins.append(try Pin(text))
            } catch {
                throw self.fail("\(path).\(key)[\(index)]", error.message)
            }
        }
        return pins
    }
}
