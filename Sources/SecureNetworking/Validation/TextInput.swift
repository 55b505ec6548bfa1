import Foundation
import SecureNetworkingInternal

/// Free text the user typed, made safe to send: Unicode NFC, control and bidirectional-override
/// characters removed, length limited in grapheme clusters (what the user sees as characters,
/// so `👍🏽` and `é` written as `e` + U+0301 count once).
public struct TextInput: Sendable {
    /// Whether line breaks (`\n`) and tabs are kept. Default: false (single-line fields).
    public var allowsLineBreaks: Bool
    /// The allowed length in grapheme clusters, after sanitising.
    public var length: ClosedRange<Int>
    /// Whether leading and trailing white space is trimmed. Default: true.
    public var trimsWhitespace: Bool

    /// Creates a rule.
    /// The most code points one character may have: a base and 30 non-starters, the
    /// Stream-Safe Text Format of UAX #15 §13, plus a joiner's worth for emoji sequences.
    public static let maximumScalarsPerCharacter = 32

    public init(length: ClosedRange<Int> = 0...1000, allowsLineBreaks: Bool = false, trimsWhitespace: Bool = true) {
        self.length = length
        self.allowsLineBreaks = allowsLineBreaks
        self.trimsWhitespace = trimsWhitespace
    }

    /// The sanitised text.
    ///
    /// - Parameters:
    ///   - text: what the user entered.
    ///   - field: a label for errors, such as `displayName`.
    /// - Throws: ``ValidationError/Code/tooLong`` / ``ValidationError/Code/tooShort`` (after
    ///   sanitising; counted in graphemes), ``ValidationError/Code/empty`` when the length
    ///   requires a value. Before any other work the input is bounded in bytes (at most
    ///   ``maximumScalarsPerCharacter`` × 4 UTF-8 octets per allowed character, else
    ///   `tooLong`), and no character may carry more than ``maximumScalarsPerCharacter`` scalars
    ///   (`invalidCharacters`): "e" followed by 100,000 combining marks is one grapheme, and
    ///   would otherwise pass a 64-character limit.
    public func sanitize(_ text: String, field: String) throws(ValidationError) -> String {
        let (maximumBytes, overflow) = self.length.upperBound.multipliedReportingOverflow(
            by: Self.maximumScalarsPerCharacter * 4
        )
        if !overflow, text.utf8.count > maximumBytes {
            throw ValidationError(.tooLong, "at most \(self.length.upperBound) characters", fieldPath: field)
        }
        var scalars = String.UnicodeScalarView()
        for scalar in text.precomposedStringWithCanonicalMapping.unicodeScalars where self.keeps(scalar) {
            scalars.append(scalar)
        }
        var result = String(scalars)
        if self.trimsWhitespace { result = result.trimmingCharacters(in: .whitespacesAndNewlines) }
        var count = 0
        for character in result {
            count += 1
            if character.unicodeScalars.count > Self.maximumScalarsPerCharacter {
                throw ValidationError(
                    .invalidCharacters,
                    "a character has more than \(Self.maximumScalarsPerCharacter) code points (combining marks)",
                    fieldPath: field
                )
            }
        }
        if count == 0, self.length.lowerBound > 0 {
            throw ValidationError(.empty, "a value is required", fieldPath: field)
        }
        if count < self.length.lowerBound {
            throw ValidationError(.tooShort, "at least \(self.length.lowerBound) characters", fieldPath: field)
        }
        if count > self.length.upperBound {
            throw ValidationError(.tooLong, "at most \(self.length.upperBound) characters", fieldPath: field)
        }
        return result
    }

    /// Control characters (C0, DEL, C1), bidirectional embeddings, overrides and isolates
    /// (used to disguise text, CVE-2021-42574), line and paragraph separators, and BOMs go.
    /// Zero-width joiners stay: emoji sequences need them.
    private func keeps(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return self.allowsLineBreaks
        case 0x0D: return false
        case 0x00...0x1F, 0x7F...0x9F: return false
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: return false
        case 0x2028, 0x2029, 0xFEFF: return false
        default:
            return scalar.properties.generalCategory != .unassigned && scalar.properties.generalCategory != .privateUse
        }
    }
}

/// An allow-list for identifiers (user names, slugs, reference codes): only the listed ASCII
/// characters, within a length.
public struct IdentifierRule: Hashable, Sendable {
    /// The characters allowed.
    public let allowed: Set<Character>
    /// The allowed length.
    public let length: ClosedRange<Int>

    /// Creates a rule from the allowed characters.
    public init(allowing characters: String, length: ClosedRange<Int>) {
        self.allowed = Set(characters)
        self.length = length
    }

    /// Lower-case letters, digits and `-`; 1–64.
    public static let slug = IdentifierRule(allowing: "abcdefghijklmnopqrstuvwxyz0123456789-", length: 1...64)
    /// ASCII letters and digits; 1–64.
    public static let alphanumeric = IdentifierRule(
        allowing: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        length: 1...64
    )
    /// ASCII letters, digits, `_`, `.` and `-`; 3–32.
    public static let username = IdentifierRule(
        allowing: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-",
        length: 3...32
    )

    /// Returns `value` when it is made only of allowed characters and its length fits.
    ///
    /// - Throws: ``ValidationError/Code/invalidCharacters``, ``ValidationError/Code/tooShort``,
    ///   ``ValidationError/Code/tooLong``.
    @discardableResult
    public func validate(_ value: String, field: String) throws(ValidationError) -> String {
        guard value.allSatisfy(self.allowed.contains) else {
            throw ValidationError(.invalidCharacters, "only the allowed characters may be used", fieldPath: field)
        }
        if value.count < self.length.lowerBound {
            throw ValidationError(.tooShort, "at least \(self.length.lowerBound) characters", fieldPath: field)
        }
        if value.count > self.length.upperBound {
            throw ValidationError(.tooLong, "at most \(self.length.upperBound) characters", fieldPath: field)
        }
        return value
    }
}

/// Percent-encoding for URL parts built from user input (RFC 3986): only unreserved characters
/// (`A–Z a–z 0–9 - . _ ~`) stay as they are, so a value can never add a path segment, a query
/// parameter or a fragment.
public enum PercentEncoding {
    /// One path segment: `a/b?c` becomes `a%2Fb%3Fc`. `.` and `..` are encoded so they cannot
    /// climb the path.
    public static func pathSegment(_ value: String) -> String {
        if value == "." { return "%2E" }
        if value == ".." { return "%2E%2E" }
        return Self.encode(value)
    }

    /// One query name or value: `&`, `=`, `+` and `#` are encoded.
    public static func queryComponent(_ value: String) -> String {
        Self.encode(value)
    }

    private static func encode(_ value: String) -> String {
        PercentEncoder.encode(value)
    }
}
