public import Foundation

/// A policy read from an app's Info.plist, with what the reader noticed but did not apply.
public struct InfoPlistPolicy: Sendable {
    /// A key that was read but changes nothing here, with the reason.
    public struct Warning: Hashable, Sendable, CustomStringConvertible {
        /// Where, as `NSAppTransportSecurity.NSExceptionDomains["a.com"].NSFoo`.
        public let keyPath: String
        /// Why it changes nothing.
        public let message: String

        public var description: String { "\(self.keyPath): \(self.message)" }
    }

    /// The policy.
    public let policy: TransportSecurityPolicy
    /// Unknown keys, keys that do not apply outside a web view or media player, and keys that
    /// ATS ignores because of another key.
    public let warnings: [Warning]
}

extension TransportSecurityPolicy {
    /// Reads the `NSAppTransportSecurity` dictionary of an Info.plist (XML or binary), with ATS's
    /// meaning; warnings are dropped (see ``readInfoPlist(_:)`` for them).
    /// - Throws: as ``readInfoPlist(_:)``.
    public init(infoPlist data: Data) throws(ServerTrustError) {
        self = try Self.readInfoPlist(data).policy
    }

    /// Reads an Info.plist file (XML or binary).
    /// - Throws: ``ServerTrustError/Code/unreadableFile``, or as ``readInfoPlist(_:)``.
    public static func readInfoPlist(contentsOfFile path: String) throws(ServerTrustError) -> InfoPlistPolicy {
        try self.readInfoPlist(try readFile(path, what: "the Info.plist"))
    }

    /// Reads the `NSAppTransportSecurity` dictionary of an Info.plist (XML or binary) as ATS does:
    ///
    /// - `NSAllowsArbitraryLoads`: plain HTTP to every host without an exception; *ignored*
    ///   (warned) when `NSAllowsLocalNetworking`, `NSAllowsArbitraryLoadsForMedia` or
    ///   `NSAllowsArbitraryLoadsInWebContent` is present, as ATS does since iOS 10.
    /// - `NSAllowsArbitraryLoadsForMedia`, `NSAllowsArbitraryLoadsInWebContent`: recognised, not
    ///   applicable (this library loads no media or web content; warned).
    /// - `NSAllowsLocalNetworking`.
    /// - `NSExceptionDomains`: per domain `NSIncludesSubdomains`,
    ///   `NSExceptionAllowsInsecureHTTPLoads`, `NSExceptionMinimumTLSVersion` (`TLSv1.0` to
    ///   `TLSv1.3`), `NSExceptionRequiresForwardSecrecy`, `NSRequiresCertificateTransparency`, and
    ///   the `NSThirdPartyException…` variants (the same meaning; the first-party key wins when
    ///   both are there). A domain in `NSExceptionDomains` is not affected by
    ///   `NSAllowsArbitraryLoads`.
    /// - `NSPinnedDomains`: per domain `NSIncludesSubdomains`, `NSPinnedCAIdentities` and
    ///   `NSPinnedLeafIdentities` (arrays of `{SPKI-SHA256-BASE64: …}`), as a
    ///   ``PinSet/init(certificateAuthorityPins:leafPins:expiration:mode:)``: CA identities match
    ///   an intermediate or the anchor, leaf identities the leaf, both must match when both are
    ///   given.
    ///
    /// Two rules are stricter than ATS's: a pinned identity list needs a backup (two identities;
    /// ATS accepts one, and one key rotation then locks every installed app out), and the
    /// TLS 1.2 cipher suites stay AEAD-only (set ``DomainException/cipherSuites`` to
    /// ``CipherSuitePolicy/ats`` for ATS's CBC suites). Unknown keys are warnings, as ATS
    /// ignores them; a wrong type, a bad TLS version, domain or pin is an error.
    ///
    /// XML must be UTF-8; OpenStep (old-style ASCII) property lists are refused. Arrays and
    /// dictionaries may nest at most 64 levels deep, and a binary property list may expand to at
    /// most a million values: both are checked before the property list is decoded.
    ///
    /// - Throws: ``ServerTrustError/Code/invalidPolicyFile`` with the key path (such as
    ///   `NSAppTransportSecurity.NSExceptionDomains["a.com"].NSExceptionMinimumTLSVersion`) and
    ///   the reason.
    public static func readInfoPlist(_ data: Data) throws(ServerTrustError) -> InfoPlistPolicy {
        let root: Any
        do {
            root = try PropertyListValue.read(data)
        } catch let refusal as PropertyListValue.Refusal {
            throw ServerTrustError(.invalidPolicyFile, "$: \(refusal.reason)", keyPath: "$")
        } catch {
            throw ServerTrustError(.invalidPolicyFile, "$: not a property list (XML or binary)", keyPath: "$")
        }
        var reader = InfoPlistReader()
        let policy = try reader.read(root)
        return InfoPlistPolicy(policy: policy, warnings: reader.warnings)
    }
}

/// Walks the property list, keeping the key path for errors and warnings.
private struct InfoPlistReader {
    var warnings: [InfoPlistPolicy.Warning] = []

    static let topKeys: Set<String> = [
        "NSAllowsArbitraryLoads", "NSAllowsArbitraryLoadsForMedia", "NSAllowsArbitraryLoadsInWebContent",
        "NSAllowsLocalNetworking", "NSExceptionDomains", "NSPinnedDomains",
    ]
    static let exceptionKeys: Set<String> = [
        "NSIncludesSubdomains", "NSExceptionAllowsInsecureHTTPLoads", "NSExceptionMinimumTLSVersion",
        "NSExceptionRequiresForwardSecrecy", "NSRequiresCertificateTransparency",
        "NSThirdPartyExceptionAllowsInsecureHTTPLoads", "NSThirdPartyExceptionMinimumTLSVersion",
        "NSThirdPartyExceptionRequiresForwardSecrecy",
    ]
    static let pinnedKeys: Set<String> = ["NSIncludesSubdomains", "NSPinnedCAIdentities", "NSPinnedLeafIdentities"]

    func fail(_ path: String, _ reason: String) -> ServerTrustError {
        ServerTrustError(.invalidPolicyFile, "\(path): \(reason)", keyPath: path)
    }

    static func typeName(_ value: Any) -> String {
        if type(of: value) == Bool.self { return "a boolean" }
        switch value {
        case is String: return "a string"
        case is NSNumber: return "a number"
        case is [Any]: return "an array"
        case is [String: Any]: return "a dictionary"
        case is Data: return "data"
        case is Date: return "a date"
        default: return "\(type(of: value))"
        }
    }

    /// A dictionary; unknown keys are warned about.
    mutating func dictionary(
        _ value: Any,
        _ path: String,
        known: Set<String>?
    ) throws(ServerTrustError) -> [String: Any] {
        guard let fields = value as? [String: Any] else {
            throw self.fail(path, "expected a dictionary, found \(Self.typeName(value))")
        }
        if let known {
            for key in fields.keys.sorted() where !known.contains(key) {
                self.warnings.append(
                    .init(keyPath: "\(path).\(key)", message: "unknown key, ignored (ATS ignores it too)")
                )
            }
        }
        return fields
    }

    /// A `<true/>` or `<false/>`; an integer is not a boolean here, whatever Foundation bridges.
    func bool(_ fields: [String: Any], _ key: String, _ path: String) throws(ServerTrustError) -> Bool? {
        guard let value = fields[key] else { return nil }
        guard type(of: value) == Bool.self, let flag = value as? Bool else {
            throw self.fail("\(path).\(key)", "expected a boolean (<true/> or <false/>), found \(Self.typeName(value))")
        }
        return flag
    }

    func string(_ fields: [String: Any], _ key: String, _ path: String) throws(ServerTrustError) -> String? {
        guard let value = fields[key] else { return nil }
        guard let text = value as? String else {
            throw self.fail("\(path).\(key)", "expected a string, found \(Self.typeName(value))")
        }
        return text
    }

    func tlsVersion(_ fields: [String: Any], _ key: String, _ path: String) throws(ServerTrustError) -> TLSVersion? {
        guard let text = try self.string(fields, key, path) else { return nil }
        // ATS's spellings only: TLSv1.0 to TLSv1.3.
        guard text.hasPrefix("TLSv"), let version = TLSVersion(text) else {
            throw self.fail(
                "\(path).\(key)",
                "'\(text.prefix(40))' is not an ATS TLS version (TLSv1.0, TLSv1.1, TLSv1.2 or TLSv1.3)"
            )
        }
        return version
    }

    /// A domain key of `NSExceptionDomains` or `NSPinnedDomains`: a host name, no wildcard.
    func domain(_ text: String, _ path: String) throws(ServerTrustError) -> HostPattern {
        guard !text.contains("*") else {
            throw self.fail(path, "a domain has no wildcard; use NSIncludesSubdomains")
        }
        do {
            return try HostPattern(text)
        } catch {
            throw self.fail(path, error.message)
        }
    }

    mutating func read(_ root: Any) throws(ServerTrustError) -> TransportSecurityPolicy {
        let plist = try self.dictionary(root, "$", known: nil)
        var policy = TransportSecurityPolicy()
        guard let value = plist["NSAppTransportSecurity"] else { return policy }
        let path = "NSAppTransportSecurity"
        let ats = try self.dictionary(value, path, known: Self.topKeys)

        let arbitrary = try self.bool(ats, "NSAllowsArbitraryLoads", path)
        let local = try self.bool(ats, "NSAllowsLocalNetworking", path)
        var overriding: [String] = local == nil ? [] : ["NSAllowsLocalNetworking"]
        for key in ["NSAllowsArbitraryLoadsForMedia", "NSAllowsArbitraryLoadsInWebContent"]
        where try self.bool(ats, key, path) != nil {
            overriding.append(key)
            self.warnings.append(
                .init(keyPath: "\(path).\(key)", message: "not applicable: this library loads no media or web content")
            )
        }
        if let arbitrary {
            if overriding.isEmpty {
                policy.allowsArbitraryLoads = arbitrary
            } else if arbitrary {
                self.warnings.append(
                    .init(
                        keyPath: "\(path).NSAllowsArbitraryLoads",
                        message: "ignored, as ATS ignores it when \(overriding.joined(separator: " or ")) is present"
                    )
                )
            }
        }
        policy.allowsLocalNetworking = local ?? false

        if let value = ats["NSExceptionDomains"] {
            let domainsPath = "\(path).NSExceptionDomains"
            let domains = try self.dictionary(value, domainsPath, known: nil)
            for name in domains.keys.sorted() {
                let entryPath = "\(domainsPath)[\"\(name)\"]"
                _ = try self.domain(name, entryPath)
                policy.setException(try self.exception(domains[name]!, entryPath), for: name)
            }
        }

        if let value = ats["NSPinnedDomains"] {
            let domainsPath = "\(path).NSPinnedDomains"
            let domains = try self.dictionary(value, domainsPath, known: nil)
            for name in domains.keys.sorted() {
                let entryPath = "\(domainsPath)[\"\(name)\"]"
                let exact = try self.domain(name, entryPath)
                let fields = try self.dictionary(domains[name]!, entryPath, known: Self.pinnedKeys)
                var pattern = exact
                if try self.bool(fields, "NSIncludesSubdomains", entryPath) == true {
                    do {
                        pattern = try HostPattern("**." + exact.domain)
                    } catch {
                        throw self.fail(entryPath, error.message)
                    }
                }
                let caPins = try self.identities(fields, "NSPinnedCAIdentities", entryPath)
                let leafPins = try self.identities(fields, "NSPinnedLeafIdentities", entryPath)
                guard caPins != nil || leafPins != nil else {
                    throw self.fail(
                        entryPath,
                        "a pinned domain needs NSPinnedCAIdentities, NSPinnedLeafIdentities or both"
                    )
                }
                do {
                    policy.pinning.pin(
                        pattern,
                        to: try PinSet(certificateAuthorityPins: caPins ?? [], leafPins: leafPins ?? [])
                    )
                } catch {
                    throw self.fail(entryPath, error.message)
                }
            }
        }
        return policy
    }

    mutating func exception(_ value: Any, _ path: String) throws(ServerTrustError) -> DomainException {
        let fields = try self.dictionary(value, path, known: Self.exceptionKeys)
        // Both keys are read (a wrong type in either is an error); the first-party one wins.
        func either<T>(_ first: T?, _ third: T?) -> T? { first ?? third }
        return DomainException(
            includesSubdomains: try self.bool(fields, "NSIncludesSubdomains", path) ?? false,
            minimumTLSVersion: either(
                try self.tlsVersion(fields, "NSExceptionMinimumTLSVersion", path),
                try self.tlsVersion(fields, "NSThirdPartyExceptionMinimumTLSVersion", path)
            ),
            requiresForwardSecrecy: either(
                try self.bool(fields, "NSExceptionRequiresForwardSecrecy", path),
                try self.bool(fields, "NSThirdPartyExceptionRequiresForwardSecrecy", path)
            ),
            allowsInsecureHTTPLoads: either(
                try self.bool(fields, "NSExceptionAllowsInsecureHTTPLoads", path),
                try self.bool(fields, "NSThirdPartyExceptionAllowsInsecureHTTPLoads", path)
            ) ?? false,
            requiresCertificateTransparency: try self.bool(fields, "NSRequiresCertificateTransparency", path)
        )
    }

    /// The pins of an `NSPinned…Identities` array, or nil when the key is absent.
    mutating func identities(_ fields: [String: Any], _ key: String, _ path: String) throws(ServerTrustError) -> [Pin]?
    {
        guard let value = fields[key] else { return nil }
        let listPath = "\(path).\(key)"
        guard let items = value as? [Any] else {
            throw self.fail(
                listPath,
                "expected an array of {SPKI-SHA256-BASE64} dictionaries, found \(Self.typeName(value))"
            )
        }
        guard !items.isEmpty else { throw self.fail(listPath, "an empty list pins nothing") }
        var pins: [Pin] = []
        for (index, item) in items.enumerated() {
            let itemPath = "\(listPath)[\(index)]"
            let identity = try self.dictionary(item, itemPath, known: ["SPKI-SHA256-BASE64"])
            guard let text = try self.string(identity, "SPKI-SHA256-BASE64", itemPath) else {
                throw self.fail("\(itemPath).SPKI-SHA256-BASE64", "missing")
            }
            do {
                pins.append(try Pin(text))
            } catch {
                throw self.fail("\(itemPath).SPKI-SHA256-BASE64", error.message)
            }
        }
        return pins
    }
}
