public import Foundation
package import SecureNetworkingInternal

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

    /// Reads the `NSAppTransportSecurity` dictionary of an Info.plist (XML, binary or OpenStep)
    /// as ATS does:
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
    ///   `NSAllowsArbitraryLoads`. An IP address applies to that address (warned: ATS reads
    ///   addresses since iOS 17 and macOS 14 and ignores them before); a CIDR range is warned
    ///   and not applied (this library matches no address ranges, so those addresses keep the
    ///   default rules).
    /// - `NSPinnedDomains`: per domain `NSIncludesSubdomains`, `NSPinnedCAIdentities` and
    ///   `NSPinnedLeafIdentities` (arrays of `{SPKI-SHA256-BASE64: …}`), as a ``PinSet`` made
    ///   with ``PinSet/init(certificateAuthorityPins:leafPins:expiration:mode:)``'s meaning: CA
    ///   identities match an intermediate or the anchor, leaf identities the leaf, both must
    ///   match when both are given. A list of one identity loads and is enforced, as ATS enforces
    ///   it, with a warning: without a backup pin one key rotation locks every installed app out
    ///   (a JSON policy file refuses such a set).
    ///
    /// What ATS ignores is a ``InfoPlistPolicy/Warning`` with its key path, and the rest of the
    /// file applies: an unknown or misspelt key, a value of the wrong type (read as absent, which
    /// never weakens a rule: every key relaxes one or adds pins), an exception or pinned domain
    /// that names no host (a wildcard, a port, a CIDR range). An OpenStep property list has only
    /// strings, so there `YES`, `NO`, `true`, `false`, `1` and `0` are read as booleans, as
    /// Xcode and Foundation read them. The TLS 1.2 cipher suites stay AEAD-only (set
    /// ``DomainException/cipherSuites`` to ``CipherSuitePolicy/ats`` for ATS's CBC suites).
    ///
    /// XML must be UTF-8. Arrays and dictionaries may nest at most 64 levels deep, and a binary
    /// property list may expand to at most a million values: both are checked before the
    /// property list is decoded. A source Info.plist written for Xcode's Info.plist
    /// preprocessor (`#ifdef DEBUG` lines, `INFOPLIST_PREPROCESS = YES`) is refused with the line
    /// of its first directive: read the built Info.plist, or the output of
    /// `cpp -P -traditional` with the build's `-D` names, or pass the names to
    /// `securenet policy check -D NAME`.
    ///
    /// - Throws: ``ServerTrustError/Code/invalidPolicyFile`` with the key path (such as
    ///   `NSAppTransportSecurity.NSExceptionDomains["a.com"].NSExceptionMinimumTLSVersion`) and
    ///   the reason; `$` and the line for a file that is not a property list.
    public static func readInfoPlist(_ data: Data) throws(ServerTrustError) -> InfoPlistPolicy {
        let bytes = Array(data)
        if let directive = InfoPlistPreprocessor.firstDirective(in: bytes) {
            throw ServerTrustError(
                .invalidPolicyFile,
                "$: line \(directive.line): '\(directive.text)' is a preprocessor directive: this Info.plist is "
                    + "written for Xcode's Info.plist preprocessor (INFOPLIST_PREPROCESS = YES). Read the built "
                    + "Info.plist, or preprocess this one as the build does (cpp -P -traditional with the build's "
                    + "-D names, such as -DDEBUG), or pass the names to securenet policy check -D NAME",
                keyPath: "$"
            )
        }
        return try Self.readInfoPlist(bytes: bytes)
    }

    /// Reads an Info.plist written for Xcode's Info.plist preprocessor: the conditionals are
    /// evaluated with `definitions` (`-D NAME` is `NAME: 1`) as ``InfoPlistPreprocessor`` does,
    /// then the text is read as ``readInfoPlist(_:)`` reads it. A file without directives reads
    /// as it does there, with no branches.
    /// - Returns: the policy and every conditional branch, read or skipped.
    /// - Throws: as ``readInfoPlist(_:)``; `$` and the line for a directive the evaluator does
    ///   not read as `cpp -P -traditional` would (`#include`, a name defined as text, a
    ///   function-like macro; see ``InfoPlistPreprocessor``).
    package static func readInfoPlist(
        _ data: Data,
        preprocessorDefinitions definitions: [String: Int]
    ) throws(ServerTrustError) -> (read: InfoPlistPolicy, branches: [InfoPlistPreprocessor.Branch]) {
        let bytes = Array(data)
        guard InfoPlistPreprocessor.firstDirective(in: bytes) != nil else {
            return (try Self.readInfoPlist(bytes: bytes), [])
        }
        let result: InfoPlistPreprocessor.Result
        do {
            result = try InfoPlistPreprocessor.evaluate(
                String(decoding: bytes, as: UTF8.self),
                definitions: definitions
            )
        } catch {
            throw ServerTrustError(.invalidPolicyFile, "$: preprocessor: \(error)", keyPath: "$")
        }
        return (try Self.readInfoPlist(bytes: Array(result.text.utf8)), result.branches)
    }

    private static func readInfoPlist(bytes: [UInt8]) throws(ServerTrustError) -> InfoPlistPolicy {
        let root: Any
        do {
            root = try PropertyListValue.read(Data(bytes))
        } catch let refusal as PropertyListValue.Refusal {
            throw ServerTrustError(.invalidPolicyFile, "$: \(refusal.reason)", keyPath: "$")
        } catch {
            throw ServerTrustError(.invalidPolicyFile, "$: not a property list (XML, binary or OpenStep)", keyPath: "$")
        }
        var reader = InfoPlistReader(openStep: OpenStepPropertyList.looksLikeOpenStep(bytes))
        let policy = try reader.read(root)
        return InfoPlistPolicy(policy: policy, warnings: reader.warnings)
    }
}

extension PinSet {
    /// ATS's `NSPinnedDomains` pins with ATS's rule on backups: a group may hold a single pin,
    /// enforced. Only the Info.plist reader makes such a set (with a warning); the public
    /// initialisers keep refusing an enforced set without a backup.
    init(atsCertificateAuthorityPins certificateAuthorityPins: [Pin], leafPins: [Pin]) {
        func unique(_ pins: [Pin]) -> [Pin] {
            var seen = Set<Pin>()
            return pins.filter { seen.insert($0).inserted }
        }
        var groups: [Group] = []
        var all: [Pin] = []
        for (scope, pins) in [(Scope.certificateAuthority, certificateAuthorityPins), (.leaf, leafPins)] {
            let pins = unique(pins)
            guard !pins.isEmpty else { continue }
            groups.append(Group(scope: scope, pins: pins))
            all += pins.filter { !all.contains($0) }
        }
        self.groups = groups
        self.pins = all
        self.expiration = nil
        self.mode = .enforce
    }
}

/// Walks the property list, keeping the key path for errors and warnings.
///
/// What ATS ignores is warned and read as absent. Apple's Information Property List reference
/// ("NSAppTransportSecurity", "NSExceptionDomains"; developer.apple.com/documentation/
/// bundleresources/information-property-list/nsapptransportsecurity/nsexceptiondomains) lists
/// the keys and their types, and says a domain key is a DNS name, or, in iOS 17, iPadOS 17 and
/// macOS 14 and later, an IPv4 or IPv6 address or a CIDR range (earlier versions of the page:
/// "Don't use numerical IP addresses"); with no port and no wildcard ("use NSIncludesSubdomains").
/// A key ATS does not know, or a value of another type than the one documented, changes nothing
/// in ATS, and every ATS key relaxes a rule or adds pins, so reading it as absent never weakens
/// the policy below what ATS gives.
private struct InfoPlistReader {
    /// OpenStep property lists hold strings only: `YES`/`NO` stand for booleans there.
    let openStep: Bool
    var warnings: [InfoPlistPolicy.Warning] = []

    init(openStep: Bool) {
        self.openStep = openStep
    }

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

    mutating func warn(_ path: String, _ message: String) {
        self.warnings.append(.init(keyPath: path, message: message))
    }

    /// The warning for a value ATS reads as absent.
    mutating func wrongType(_ path: String, expected: String, _ value: Any) {
        self.warn(path, "expected \(expected), found \(Self.typeName(value)): ignored, as ATS ignores it")
    }

    static func typeName(_ value: Any) -> String {
        if type(of: value) == Bool.self { return "a boolean" }
        switch value {
        case let text as String: return "a string ('\(text.prefix(20))')"
        case is NSNumber: return "a number"
        case is [Any]: return "an array"
        case is [String: Any]: return "a dictionary"
        case is Data: return "data"
        case is Date: return "a date"
        default: return "\(type(of: value))"
        }
    }

    /// A dictionary, or nil (warned) for another type; unknown keys are warned about.
    mutating func dictionary(_ value: Any, _ path: String, known: Set<String>?) -> [String: Any]? {
        guard let fields = value as? [String: Any] else {
            self.wrongType(path, expected: "a dictionary", value)
            return nil
        }
        if let known {
            for key in fields.keys.sorted() where !known.contains(key) {
                self.warn(
                    "\(path).\(key)",
                    "unknown key, ignored (ATS ignores it too)\(KeySuggestion.phrase(for: key, among: known))"
                )
            }
        }
        return fields
    }

    /// A `<true/>` or `<false/>` (in OpenStep, `YES`, `NO`, `true`, `false`, `1` or `0`); an
    /// integer is not a boolean here, whatever Foundation bridges: another value is warned and
    /// read as absent.
    mutating func bool(_ fields: [String: Any], _ key: String, _ path: String) -> Bool? {
        guard let value = fields[key] else { return nil }
        if type(of: value) == Bool.self, let flag = value as? Bool { return flag }
        if self.openStep, let text = value as? String {
            switch text.lowercased() {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: break
            }
        }
        self.wrongType(
            "\(path).\(key)",
            expected: self.openStep ? "a boolean (YES or NO)" : "a boolean (<true/> or <false/>)",
            value
        )
        return nil
    }

    mutating func string(_ fields: [String: Any], _ key: String, _ path: String) -> String? {
        guard let value = fields[key] else { return nil }
        guard let text = value as? String else {
            self.wrongType("\(path).\(key)", expected: "a string", value)
            return nil
        }
        return text
    }

    mutating func tlsVersion(
        _ fields: [String: Any],
        _ key: String,
        _ path: String
    ) throws(ServerTrustError)
        -> TLSVersion?
    {
        guard let text = self.string(fields, key, path) else { return nil }
        guard let version = TLSVersion(atsName: text) else {
            throw self.fail("\(path).\(key)", TLSVersion.refusal(of: text))
        }
        return version
    }

    /// A CIDR range (`10.0.0.0/8`, `2001:db8::/32`): an address, `/` and a prefix length.
    static func isCIDRRange(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let address = IPAddress(String(parts[0])), let length = Int(parts[1]),
            parts[1].allSatisfy(\.isASCII)
        else { return false }
        return (0...(address.isIPv4 ? 32 : 128)).contains(length)
    }

    /// A domain key of `NSExceptionDomains` or `NSPinnedDomains` as a host pattern, or nil
    /// (warned) for a key that names no host: ATS compares it with host names as written, so
    /// it matches nothing there and nothing here.
    mutating func domain(_ text: String, _ path: String, pinned: Bool) -> HostPattern? {
        if Self.isCIDRRange(text) {
            self.warn(
                path,
                pinned
                    ? "a CIDR range names no host: ignored (ATS pins domain names)"
                    : "a CIDR range: ATS applies it to the addresses of the range in iOS 17, iPadOS 17 and macOS 14 "
                        + "and later and ignores it before; SecureNetworking matches no address ranges and does not "
                        + "apply it, so these addresses get the rest of the policy's rules (NSAllowsLocalNetworking "
                        + "covers private and link-local addresses)"
            )
            return nil
        }
        guard !text.contains("*") else {
            self.warn(
                path,
                "a domain has no wildcard (ATS matches this key as written, so never): ignored; "
                    + "write the domain and set NSIncludesSubdomains"
            )
            return nil
        }
        let pattern: HostPattern
        do {
            pattern = try HostPattern(text)
        } catch {
            self.warn(path, "not a host name (\(error.message)): ignored, as ATS matches no host with it")
            return nil
        }
        if IPAddress(text) != nil, !pinned {
            self.warn(
                path,
                "an IP address: ATS applies it in iOS 17, iPadOS 17 and macOS 14 and later and ignores it before; "
                    + "SecureNetworking applies it to this address"
            )
        }
        return pattern
    }

    mutating func read(_ root: Any) throws(ServerTrustError) -> TransportSecurityPolicy {
        guard let plist = root as? [String: Any] else {
            throw self.fail("$", "expected a dictionary, found \(Self.typeName(root))")
        }
        var policy = TransportSecurityPolicy()
        let path = "NSAppTransportSecurity"
        guard let value = plist[path], let ats = self.dictionary(value, path, known: Self.topKeys) else {
            return policy
        }

        let arbitrary = self.bool(ats, "NSAllowsArbitraryLoads", path)
        let local = self.bool(ats, "NSAllowsLocalNetworking", path)
        var overriding: [String] = local == nil ? [] : ["NSAllowsLocalNetworking"]
        for key in ["NSAllowsArbitraryLoadsForMedia", "NSAllowsArbitraryLoadsInWebContent"]
        where self.bool(ats, key, path) != nil {
            overriding.append(key)
            self.warn("\(path).\(key)", "not applicable: this library loads no media or web content")
        }
        if let arbitrary {
            if overriding.isEmpty {
                policy.allowsArbitraryLoads = arbitrary
            } else if arbitrary {
                self.warn(
                    "\(path).NSAllowsArbitraryLoads",
                    "ignored, as ATS ignores it when \(overriding.joined(separator: " or ")) is present"
                )
            }
        }
        policy.allowsLocalNetworking = local ?? false

        if let value = ats["NSExceptionDomains"],
            let domains = self.dictionary(value, "\(path).NSExceptionDomains", known: nil)
        {
            for name in domains.keys.sorted() {
                let entryPath = "\(path).NSExceptionDomains[\"\(name)\"]"
                guard self.domain(name, entryPath, pinned: false) != nil,
                    let exception = try self.exception(domains[name]!, entryPath)
                else { continue }
                policy.setException(exception, for: name)
            }
        }

        if let value = ats["NSPinnedDomains"],
            let domains = self.dictionary(value, "\(path).NSPinnedDomains", known: nil)
        {
            for name in domains.keys.sorted() {
                let entryPath = "\(path).NSPinnedDomains[\"\(name)\"]"
                guard let exact = self.domain(name, entryPath, pinned: true),
                    let fields = self.dictionary(domains[name]!, entryPath, known: Self.pinnedKeys)
                else { continue }
                try self.pin(name, exact, fields, entryPath, into: &policy)
            }
        }
        return policy
    }

    mutating func pin(
        _ name: String,
        _ exact: HostPattern,
        _ fields: [String: Any],
        _ entryPath: String,
        into policy: inout TransportSecurityPolicy
    ) throws(ServerTrustError) {
        var pattern = exact
        if self.bool(fields, "NSIncludesSubdomains", entryPath) == true {
            do {
                pattern = try HostPattern("**." + exact.domain)
            } catch {
                throw self.fail(entryPath, error.message)
            }
        }
        let caPins = try self.identities(fields, "NSPinnedCAIdentities", entryPath)
        let leafPins = try self.identities(fields, "NSPinnedLeafIdentities", entryPath)
        guard caPins != nil || leafPins != nil else {
            if fields["NSPinnedCAIdentities"] != nil || fields["NSPinnedLeafIdentities"] != nil {
                // Present, of the wrong type (warned): ATS pins nothing for the domain, nor does this.
                self.warn(entryPath, "no identity list ATS reads: the domain is not pinned, by ATS or here")
                return
            }
            throw self.fail(entryPath, "a pinned domain needs NSPinnedCAIdentities, NSPinnedLeafIdentities or both")
        }
        for (key, pins, what) in [
            ("NSPinnedCAIdentities", caPins, "a CA certificate (an intermediate or the root) with this key"),
            ("NSPinnedLeafIdentities", leafPins, "a leaf certificate with this key"),
        ] where Set(pins ?? []).count == 1 {
            self.warn(
                "\(entryPath).\(key)",
                "one identity, no backup pin. ATS: loads it and refuses every chain to \(pattern) without "
                    + "\(what). SecureNetworking: the same (the pin is enforced as ATS enforces it; a JSON policy "
                    + "file would refuse a pin set without a backup). When the server's certificates move to a key "
                    + "not listed here (a new CA, a lost or rotated key), every installed copy of the app fails to "
                    + "connect to \(pattern) until an update with the new pin ships: add a backup pin (the SPKI hash "
                    + "of a second CA, or of a spare key kept offline)"
            )
        }
        do {
            policy.pinning.pin(
                pattern,
                to: try PinSet(certificateAuthorityPins: caPins ?? [], leafPins: leafPins ?? [])
            )
        } catch let error where error.code == .missingBackupPin {
            policy.pinning.pin(pattern, to: PinSet(atsCertificateAuthorityPins: caPins ?? [], leafPins: leafPins ?? []))
        } catch {
            throw self.fail(entryPath, error.message)
        }
    }

    /// The exception of an `NSExceptionDomains` entry, or nil (warned) when it is not a dictionary.
    mutating func exception(_ value: Any, _ path: String) throws(ServerTrustError) -> DomainException? {
        guard let fields = self.dictionary(value, path, known: Self.exceptionKeys) else { return nil }
        // Both keys are read (a wrong type in either is warned); the first-party one wins.
        let includesSubdomains = self.bool(fields, "NSIncludesSubdomains", path) ?? false
        let minimum = try self.tlsVersion(fields, "NSExceptionMinimumTLSVersion", path)
        let thirdPartyMinimum = try self.tlsVersion(fields, "NSThirdPartyExceptionMinimumTLSVersion", path)
        let forwardSecrecy = self.bool(fields, "NSExceptionRequiresForwardSecrecy", path)
        let thirdPartyForwardSecrecy = self.bool(fields, "NSThirdPartyExceptionRequiresForwardSecrecy", path)
        let insecure = self.bool(fields, "NSExceptionAllowsInsecureHTTPLoads", path)
        let thirdPartyInsecure = self.bool(fields, "NSThirdPartyExceptionAllowsInsecureHTTPLoads", path)
        return DomainException(
            includesSubdomains: includesSubdomains,
            minimumTLSVersion: minimum ?? thirdPartyMinimum,
            requiresForwardSecrecy: forwardSecrecy ?? thirdPartyForwardSecrecy,
            allowsInsecureHTTPLoads: insecure ?? thirdPartyInsecure ?? false,
            requiresCertificateTransparency: self.bool(fields, "NSRequiresCertificateTransparency", path)
        )
    }

    /// The pins of an `NSPinned…Identities` array, or nil when the key is absent or not an
    /// array (warned). An identity that is not a dictionary, or whose digest is not a string, is
    /// warned and skipped; an empty list and a digest that is not one are errors.
    mutating func identities(_ fields: [String: Any], _ key: String, _ path: String) throws(ServerTrustError) -> [Pin]?
    {
        guard let value = fields[key] else { return nil }
        let listPath = "\(path).\(key)"
        guard let items = value as? [Any] else {
            self.wrongType(listPath, expected: "an array of {SPKI-SHA256-BASE64} dictionaries", value)
            return nil
        }
        guard !items.isEmpty else { throw self.fail(listPath, "an empty list pins nothing") }
        var pins: [Pin] = []
        for (index, item) in items.enumerated() {
            let itemPath = "\(listPath)[\(index)]"
            guard let identity = self.dictionary(item, itemPath, known: ["SPKI-SHA256-BASE64"]) else { continue }
            guard identity["SPKI-SHA256-BASE64"] != nil else {
                throw self.fail("\(itemPath).SPKI-SHA256-BASE64", "missing")
            }
            guard let text = self.string(identity, "SPKI-SHA256-BASE64", itemPath) else { continue }
            do {
                pins.append(try Pin(text))
            } catch {
                throw self.fail("\(itemPath).SPKI-SHA256-BASE64", error.message)
            }
        }
        return pins.isEmpty ? nil : pins
    }
}
