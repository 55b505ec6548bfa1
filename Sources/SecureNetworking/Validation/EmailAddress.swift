import Foundation

/// An e-mail address checked with practical RFC 5321/5322 rules, not a regex.
///
/// Accepted: one `@`; a local part of 1–64 octets of RFC 5322 `atext` (letters, digits,
/// `!#$%&'*+/=?^_{|}~-` and the grave accent) or non-ASCII letters (RFC 6531), in dot-separated runs; a domain of
/// dot-separated labels (letters, digits, hyphens not at either end, internationalised labels
/// allowed), at least two labels, a top-level label that is not all digits; at most 254
/// characters in all, with the domain measured in its ASCII (Punycode) form. Refused: quoted
/// local parts, comments and IP-literal domains, which real sign-up forms do not need.
public struct EmailAddress: Hashable, Sendable, CustomStringConvertible {
    /// The local part, as given.
    public let localPart: String
    /// The domain, lower-cased (Unicode form).
    public let domain: String
    /// The domain in ASCII-compatible form (`xn--…` labels), for sending.
    public let asciiDomain: String

    /// The address: local part, `@`, lower-cased domain.
    public var description: String { "\(self.localPart)@\(self.domain)" }

    /// The address with an ASCII domain, as an SMTP client would send it.
    public var asciiAddress: String { "\(self.localPart)@\(self.asciiDomain)" }

    private static let atext = Set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+/=?^_`{|}~-".unicodeScalars
    )

    /// Checks and parses an address; surrounding white space is trimmed.
    ///
    /// - Throws: ``ValidationError/Code/invalidEmail`` (or ``ValidationError/Code/tooLong``);
    ///   the message says which rule, never the address.
    /// The most UTF-8 octets accepted before any other work (normalisation, Punycode): 254
    /// octets of address in its ASCII form, written with up to 4 octets per character.
    public static let maximumInputOctets = 1_024

    public init(_ text: String) throws(ValidationError) {
        guard text.utf8.count <= Self.maximumInputOctets else {
            throw ValidationError(
                .tooLong,
                "the address is longer than \(Self.maximumInputOctets) octets as entered",
                fieldPath: "email"
            )
        }
        let address = text.trimmingCharacters(in: .whitespaces).precomposedStringWithCanonicalMapping
        func fail(_ rule: String) -> ValidationError {
            ValidationError(.invalidEmail, rule, fieldPath: "email")
        }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw fail("an address has exactly one @") }
        let local = String(parts[0])
        let domain = String(parts[1]).lowercased()

        guard !local.isEmpty else { throw fail("the part before @ is empty") }
        guard local.utf8.count <= 64 else {
            throw ValidationError(.tooLong, "the part before @ is longer than 64 octets", fieldPath: "email")
        }
        for run in local.split(separator: ".", omittingEmptySubsequences: false) {
            guard !run.isEmpty else { throw fail("the part before @ has a leading, trailing or double dot") }
            for scalar in run.unicodeScalars where !Self.atext.contains(scalar) {
                guard !scalar.isASCII, scalar.properties.isAlphabetic || scalar.properties.numericType != nil else {
                    throw fail("the part before @ has a character addresses cannot contain")
                }
            }
        }

        let labels = domain.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard labels.count >= 2 else { throw fail("the domain needs a dot") }
        var asciiLabels: [String] = []
        for label in labels {
            guard !label.isEmpty else { throw fail("the domain has an empty label") }
            guard !label.hasPrefix("-"), !label.hasSuffix("-") else {
                throw fail("a domain label starts or ends with a hyphen")
            }
            for scalar in label.unicodeScalars {
                let allowed =
                    scalar.isASCII
                    ? (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-")
                    : (scalar.properties.isAlphabetic || scalar.properties.numericType != nil
                        || scalar.properties.generalCategory == .nonspacingMark
                        || scalar.properties.generalCategory == .spacingMark)
                guard allowed else { throw fail("the domain has a character domains cannot contain") }
            }
            // A label whose A-label can fit in 63 octets has at most 59 code points.
            guard label.unicodeScalars.count <= 63, let ascii = Punycode.asciiLabel(label), ascii.count <= 63 else {
                throw ValidationError(.tooLong, "a domain label is longer than 63 octets", fieldPath: "email")
            }
            asciiLabels.append(ascii)
        }
        guard let top = labels.last, !top.allSatisfy(\.isNumber) else { throw fail("the top-level domain is numeric") }
        let asciiDomain = asciiLabels.joined(separator: ".")
        guard asciiDomain.count <= 253 else {
            throw ValidationError(.tooLong, "the domain is longer than 253 octets", fieldPath: "email")
        }
        guard local.utf8.count + 1 + asciiDomain.count <= 254 else {
            throw ValidationError(.tooLong, "the address is longer than 254 octets", fieldPath: "email")
        }
        self.localPart = local
        self.domain = domain
        self.asciiDomain = asciiDomain
    }
}
