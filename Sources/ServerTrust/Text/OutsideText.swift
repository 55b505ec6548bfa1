/// Text that came from outside the program, made safe to show: one rule for every certificate
/// subject and issuer name, host name, file name and server message that this package renders in
/// a message, a log, a terminal or a CI log.
///
/// A name a server or a file chose can hold what a terminal or a log reader obeys: ESC starts a
/// sequence that erases or rewrites the line, CR returns to its start, LF starts a line of its own
/// (a forged `::error::` on GitHub Actions), a bidirectional override reorders what the reader
/// sees, and a leading Unicode space is trimmed by the Actions runner, which then reads the `::`
/// after it as a workflow command. The rule writes each of these as a visible escape, `\u{1B}`,
/// and leaves the rest (letters of every script, `Zürich`, emoji, punctuation) as they are:
///
/// - the C0 controls, DEL and the C1 controls (U+0000–U+001F, U+007F–U+009F);
/// - every Unicode white space other than the space U+0020 (tab, NBSP U+00A0, U+1680,
///   U+2000–U+200A, U+202F, U+205F, the ideographic space U+3000, NEL) and the line and
///   paragraph separators U+2028 and U+2029;
/// - the bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F,
///   U+202A–U+202E, U+2066–U+2069) and the invisible U+180E, U+200B and U+FEFF;
/// - `::` at the start of the text (after spaces), written `\u{3A}:`, and `##[` anywhere,
///   written `#\u{23}[`, so that no line the text begins or contains is a workflow command.
///
/// A backslash is left alone by ``OutsideText/escaped(_:)`` (a message can name `C:\keys`);
/// ``OutsideText/quoted(_:)`` escapes it, for a value whose every character must read back
/// unambiguously.
public enum OutsideText {
    /// `text` with every scalar of the rule written as `\u{…}` (upper-case hexadecimal), and no
    /// workflow command at its start or inside it.
    ///
    /// The result holds no control character, no line break and no white space but U+0020.
    public static func escaped(_ text: String) -> String {
        var result = text
        if text.utf8.contains(where: Self.mayStartEscapedScalar) {
            result = ""
            result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
            for scalar in text.unicodeScalars {
                if Self.isEscaped(scalar) {
                    result += Self.escape(scalar)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return Self.withoutWorkflowCommands(result)
    }

    /// `text` with each of its lines (split at LF) ``OutsideText/escaped(_:)``, the LFs kept: for a message
    /// this package wrote on several lines, whose inserted names were escaped already. A CR, or
    /// a `::` at the start of any line, can then no longer reach the reader.
    public static func escapedLines(_ text: String) -> String {
        guard text.utf8.contains(0x0A) else { return Self.escaped(text) }
        // Split on the scalar: "\r\n" is one Character, and its CR is escaped like any other.
        return text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
            .map { Self.escaped(String(String.UnicodeScalarView($0))) }
            .joined(separator: "\n")
    }

    /// `text` between double quotes as a Swift string literal writes it: `"` and `\` escaped
    /// (`\"`, `\\`), LF, CR and tab as `\n`, `\r`, `\t`, and every other scalar of the rule as
    /// `\u{…}`.
    public static func quoted(_ text: String) -> String {
        var quoted = "\""
        quoted.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            default:
                if Self.isEscaped(scalar) {
                    quoted += Self.escape(scalar)
                } else {
                    quoted.unicodeScalars.append(scalar)
                }
            }
        }
        return Self.withoutWorkflowCommands(quoted + "\"")
    }

    /// Whether the rule writes `scalar` as an escape wherever it appears.
    public static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20: return false
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x180E, 0x200B, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF: return true
        default: return scalar.properties.isWhitespace
        }
    }

    /// Whether a UTF-8 byte is, or leads, the encoding of a scalar ``isEscaped(_:)`` may
    /// accept: text without any is copied as it is, not scalar by scalar. Every escaped scalar
    /// is under U+0020, U+007F, or starts with 0xC2 (U+0080–U+00BF), 0xD8 (U+061C), 0xE1
    /// (U+1680, U+180E), 0xE2 (U+2000–U+2FFF), 0xE3 (U+3000) or 0xEF (U+FEFF).
    private static func mayStartEscapedScalar(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x00...0x1F, 0x7F, 0xC2, 0xD8, 0xE1, 0xE2, 0xE3, 0xEF: return true
        default: return false
        }
    }

    /// `::` after the leading spaces and `##[` anywhere, broken with an escape. Every other
    /// white space is already an escape, so spaces are all the runner can trim.
    private static func withoutWorkflowCommands(_ text: String) -> String {
        var text = text
        let blanks = text.utf8.prefix { $0 == 0x20 }.count
        if text.utf8.dropFirst(blanks).starts(with: [0x3A, 0x3A]) {
            text =
                String(repeating: " ", count: blanks) + Self.escape(":")
                + String(text.unicodeScalars.dropFirst(blanks + 1))
        }
        if text.utf8.count >= 3, text.contains("##[") {
            text = text.replacing("##[", with: "#" + Self.escape("#") + "[")
        }
        return text
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    }
}
