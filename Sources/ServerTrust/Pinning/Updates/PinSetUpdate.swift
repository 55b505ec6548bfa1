public import Foundation
import SecureNetworkingInternal

/// A pin-set update: the pins an app enforces from now on for the host patterns it lists,
/// published by the app's owner and signed (``SignedPinSetUpdate``), so that pins can rotate
/// without an app release.
///
/// The document is JSON (format `securenet-pin-set-update/1`):
///
/// ```json
/// {
///   "format": "securenet-pin-set-update/1",
///   "audience": "com.example.app/production",
///   "version": 7,
///   "issuedAt": "2026-11-27T00:00:00Z",
///   "notAfter": "2027-02-25T00:00:00Z",
///   "pinnedDomains": {
///     "api.example.com": { "caPins": ["sha256/…", "sha256/…"] },
///     "**.cdn.example.com": { "pins": ["sha256/…", "sha256/…"], "expiration": "2027-06-30T00:00:00Z" },
///     "legacy.example.com": { "unpin": true }
///   }
/// }
/// ```
///
/// - `audience`: the app (and environment) the document is for, such as
///   `com.example.app/production`: 1 to 128 of the characters `A–Z a–z 0–9 . - _ : /`. A
///   verifier accepts only documents for its own ``PinUpdateVerifier/audience``, so that with one
///   update key for several apps, or for staging and production, a document for one is never
///   applied by another (nor moves its version).
/// - `version`: a whole number from 1 to 2⁵³ − 1; an app applies a document only when its
///   version is greater than the one it applied last (no rollback to an older, replayed one).
/// - `issuedAt`, `notAfter`: RFC 3339 instants (`Z` or an offset, whole seconds); a document is applied only between them (a
///   withheld, frozen document stops being accepted at `notAfter`).
/// - `pinnedDomains`: host patterns (as in the policy file) mapped to a pin set, written as the
///   policy file writes one (`pins`, or `caPins` and/or `leafPins`, with `expiration` and
///   `reportOnly`; an enforced group needs a backup pin), or to `{"unpin": true}`, the explicit
///   statement that the pattern is no longer pinned.
///
/// Unknown keys are refused, and so is a key given twice in one object (JSON readers disagree
/// on which of the two wins). The document replaces the pins of the patterns it lists; the
/// app's compiled-in pins stay in force for the others (see ``PinningPolicy/applying(_:)``).
public struct PinSetUpdate: Hashable, Sendable {
    /// What the update says about one host pattern.
    public enum Entry: Hashable, Sendable {
        /// These pins from now on.
        case pinned(PinSet)
        /// No pins any more: an explicit, signed statement (a pattern simply left out of a
        /// document keeps the app's compiled-in pins, and one pinned now cannot be left out).
        case unpinned
    }

    /// The format identifier of this version of the document.
    public static let format = "securenet-pin-set-update/1"
    /// The largest `version` (2⁵³ − 1: every JSON parser reads it exactly).
    public static let maximumVersion: UInt64 = (1 << 53) - 1

    /// The longest ``audience``, in characters.
    public static let maximumAudienceLength = 128

    /// The app (and environment) the document is for; see ``PinUpdateVerifier/audience``.
    public let audience: String
    /// Increases with every document published; see ``PinUpdateVerifier``.
    public let version: UInt64
    /// When the document was issued.
    public let issuedAt: Date
    /// After this instant the document is no longer applied.
    public let notAfter: Date
    /// What the document says for each host pattern it lists.
    public let entries: [HostPattern: Entry]

    /// Creates a document (to publish it: ``jsonData()``, then sign the bytes).
    ///
    /// The document names instants in whole seconds, as it writes them: `issuedAt` and
    /// `notAfter` are rounded down (the document stops being applied no later than asked), and
    /// a pin set's `expiration` up (its pins are never dropped earlier than asked).
    /// - Throws: ``ServerTrustError/Code/malformedPinUpdate`` when `audience` is not 1 to
    ///   ``maximumAudienceLength`` of the characters `A–Z a–z 0–9 . - _ : /`, `version` is 0 or
    ///   above ``maximumVersion``, `notAfter` is not after `issuedAt`, a date is outside the
    ///   years 0000–9999 (RFC 3339 writes four digits), or there are no entries.
    public init(
        audience: String,
        version: UInt64,
        issuedAt: Date,
        notAfter: Date,
        entries: [HostPattern: Entry]
    ) throws(ServerTrustError) {
        if let problem = Self.audienceProblem(audience) {
            throw ServerTrustError(.malformedPinUpdate, "$.audience: \(problem)", keyPath: "$.audience")
        }
        guard version >= 1, version <= Self.maximumVersion else {
            throw ServerTrustError(
                .malformedPinUpdate,
                "$.version: a version is a whole number from 1 to \(Self.maximumVersion)",
                keyPath: "$.version"
            )
        }
        guard !entries.isEmpty else {
            throw ServerTrustError(
                .malformedPinUpdate,
                "$.pinnedDomains: a pin-set update lists at least one host pattern",
                keyPath: "$.pinnedDomains"
            )
        }
        var published: [HostPattern: Entry] = [:]
        for (pattern, entry) in entries {
            guard case .pinned(let set) = entry, let expiration = set.expiration else {
                published[pattern] = entry
                continue
            }
            let whole = Date(timeIntervalSince1970: expiration.timeIntervalSince1970.rounded(.up))
            try Self.requireWritable(whole, "$.pinnedDomains[\"\(pattern)\"].expiration")
            published[pattern] = .pinned(set.expiring(whole))
        }
        self.audience = audience
        self.version = version
        self.issuedAt = Date(timeIntervalSince1970: issuedAt.timeIntervalSince1970.rounded(.down))
        self.notAfter = Date(timeIntervalSince1970: notAfter.timeIntervalSince1970.rounded(.down))
        try Self.requireWritable(self.issuedAt, "$.issuedAt")
        try Self.requireWritable(self.notAfter, "$.notAfter")
        guard self.notAfter > self.issuedAt else {
            throw ServerTrustError(.malformedPinUpdate, "$.notAfter: must be after issuedAt", keyPath: "$.notAfter")
        }
        self.entries = published
    }

    /// Why `audience` is not an audience, or nil when it is one.
    static func audienceProblem(_ audience: String) -> String? {
        guard !audience.isEmpty, audience.unicodeScalars.count <= Self.maximumAudienceLength else {
            return
                "an audience is 1 to \(Self.maximumAudienceLength) characters, such as \"com.example.app/production\""
        }
        let allowed = audience.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "A"..."Z", "a"..."z", "0"..."9", ".", "-", "_", ":", "/": true
            default: false
            }
        }
        guard allowed else {
            return
                "an audience is made of A-Z a-z 0-9 . - _ : / only (such as \"com.example.app/production\"), not \(OutsideText.quoted(String(audience.prefix(Self.maximumAudienceLength))))"
        }
        return nil
    }

    private static func requireWritable(_ date: Date, _ path: String) throws(ServerTrustError) {
        guard InternetDateTime.format(date) == nil else { return }
        throw ServerTrustError(
            .malformedPinUpdate,
            "\(path): a date must lie between the years 0000 and 9999",
            keyPath: path
        )
    }

    /// Parses a document (the exact bytes that were signed).
    /// - Throws: ``ServerTrustError/Code/malformedPinUpdate`` with the key path: not JSON, a key
    ///   given twice in one object, an unknown key, a missing or wrong-typed field, another
    ///   format, a missing or bad audience, a bad version, date, host pattern or pin;
    ///   ``ServerTrustError/Code/missingBackupPin`` (with the key path) for an
    ///   enforced pin set without a backup pin.
    public init(json: Data) throws(ServerTrustError) {
        let root = try JSONValue.parse(json, failing: .malformedPinUpdate, what: "the pin-set update")
        var reader = PolicyReader(baseDirectory: nil)
        reader.failureCode = .malformedPinUpdate
        let fields = try reader.object(
            root,
            "$",
            allowed: ["format", "audience", "version", "issuedAt", "notAfter", "pinnedDomains"]
        )
        guard let format = try reader.string(fields, "format", "$") else {
            throw reader.fail("$.format", "missing: expected \"\(Self.format)\"")
        }
        guard format == Self.format else {
            throw reader.fail("$.format", "unsupported format '\(format.prefix(60))' (expected \"\(Self.format)\")")
        }
        guard let audience = try reader.string(fields, "audience", "$") else {
            throw reader.fail(
                "$.audience",
                "missing: the app (and environment) the update is for, such as \"com.example.app/production\""
            )
        }
        guard case .number(let number)? = fields["version"] else {
            throw reader.fail("$.version", "missing or not a number: expected a whole number from 1")
        }
        guard number >= 1, number <= Double(Self.maximumVersion), number == number.rounded() else {
            throw reader.fail("$.version", "a version is a whole number from 1 to \(Self.maximumVersion)")
        }
        let issuedAt = try Self.date(fields, "issuedAt", reader)
        let notAfter = try Self.date(fields, "notAfter", reader)
        guard case .object(let patterns)? = fields["pinnedDomains"] else {
            throw reader.fail("$.pinnedDomains", "missing or not an object: expected host patterns and their pins")
        }
        var entries: [HostPattern: Entry] = [:]
        for text in patterns.keys.sorted() {
            let path = "$.pinnedDomains[\"\(text)\"]"
            let pattern = try reader.hostPattern(text, path)
            guard entries[pattern] == nil else {
                throw reader.fail(path, "the pattern \(pattern) is listed twice")
            }
            let value = patterns[text] ?? .null
            if case .object(let object) = value, object["unpin"] != nil {
                guard object.count == 1, case .bool(true) = object["unpin"] else {
                    throw reader.fail(path + ".unpin", "an unpin statement is {\"unpin\": true} and nothing else")
                }
                entries[pattern] = .unpinned
            } else {
                entries[pattern] = .pinned(try reader.pinSet(value, path))
            }
        }
        do {
            try self.init(
                audience: audience,
                version: UInt64(number),
                issuedAt: issuedAt,
                notAfter: notAfter,
                entries: entries
            )
        } catch {
            throw error
        }
    }

    private static func date(
        _ fields: [String: JSONValue],
        _ key: String,
        _ reader: PolicyReader
    ) throws(ServerTrustError) -> Date {
        guard let text = try reader.string(fields, key, "$") else {
            throw reader.fail("$.\(key)", "missing: expected an RFC 3339 date such as 2027-06-30T00:00:00Z")
        }
        guard let date = InternetDateTime.parse(text) else {
            throw reader.fail("$.\(key)", "'\(text.prefix(40))' is not an RFC 3339 date such as 2027-06-30T00:00:00Z")
        }
        return date
    }

    /// The document as JSON, keys sorted and dates in whole seconds (the bytes to sign).
    public func jsonData() -> Data {
        // Every date of a document is within InternetDateTime's range (the initialiser checks).
        let format = { (date: Date) in InternetDateTime.format(date) ?? "" }
        var domains: [String: Any] = [:]
        for (pattern, entry) in self.entries {
            switch entry {
            case .unpinned:
                domains[pattern.description] = ["unpin": true]
            case .pinned(let set):
                var object: [String: Any] = [:]
                for group in set.groups {
                    let key =
                        group.scope == .leaf ? "leafPins" : group.scope == .certificateAuthority ? "caPins" : "pins"
                    object[key] = group.pins.map(\.description)
                }
                if let expiration = set.expiration { object["expiration"] = format(expiration) }
                if set.mode == .reportOnly { object["reportOnly"] = true }
                domains[pattern.description] = object
            }
        }
        let root: [String: Any] = [
            "format": Self.format,
            "audience": self.audience,
            "version": self.version,
            "issuedAt": format(self.issuedAt),
            "notAfter": format(self.notAfter),
            "pinnedDomains": domains,
        ]
        // Only strings, numbers, booleans, arrays and dictionaries of them: serialisable.
        return
            (try? JSONSerialization.data(
                withJSONObject: root,
                options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            )) ?? Data()
    }
}

extension PinningPolicy {
    /// This policy with `update` applied: each pattern the update pins gets its pins, each it
    /// unpins loses them, and the others keep theirs. Applied to the app's compiled-in pins
    /// (never to an earlier update), so those stay the floor.
    public func applying(_ update: PinSetUpdate) -> PinningPolicy {
        var result = self
        for (pattern, entry) in update.entries {
            switch entry {
            case .pinned(let set): result.pin(pattern, to: set)
            case .unpinned: result.unpin(pattern)
            }
        }
        return result
    }
}
