package import Foundation

/// A reader of OpenStep ("old-style ASCII") property lists, as CoreFoundation's
/// `__CFParseOldStylePropertyList` reads them: dictionaries `{ key = value; }`, arrays
/// `( a, b )`, quoted strings (`"…"` or `'…'`, with the escapes `\n`, `\t`, `\"`, `\\`,
/// `\U` and up to four hex digits, and up to three octal digits), unquoted strings of letters,
/// digits and `_$/:.-+`, data `<0fbd 7777>`, and `//` and `/* */` comments.
///
/// OpenStep has no booleans, numbers or dates: every scalar is a string (`YES` is the string
/// "YES"), as Foundation reads it. Every node keeps its line (1-based), for the audit's findings
/// and for the refusal of malformed text. Containers nest at most `maximumDepth` levels; the
/// parser recurses once per level, so the bound is checked before each level is entered.
package enum OpenStepPropertyList {
    /// A value: strings for every scalar, bytes for `<…>`, arrays and dictionaries.
    package indirect enum Value: Sendable {
        case string(String)
        case data([UInt8])
        case array([Node])
        /// Entries in file order; a key given twice appears twice (the last one wins in
        /// ``Node/foundationValue``, as in Foundation).
        case dictionary([Entry])
    }

    /// A value and the line it starts on.
    package struct Node: Sendable {
        package let value: Value
        package let line: Int
    }

    /// A dictionary entry and the line of its key.
    package struct Entry: Sendable {
        package let key: String
        package let keyLine: Int
        package let node: Node
    }

    /// Why text is not an OpenStep property list, with the line where the reader stopped.
    package struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        package let line: Int
        package let reason: String

        package var description: String { "line \(self.line): \(self.reason)" }

        package init(line: Int, reason: String) {
            self.line = line
            self.reason = reason
        }
    }

    /// Whether `bytes` are text whose first character after white space, comments (`//`,
    /// `/* */`) and a UTF-8 byte-order mark is `{` or `(`: the OpenStep property lists this
    /// reader reads.
    package static func looksLikeOpenStep(_ bytes: [UInt8]) -> Bool {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count {
            let byte = bytes[index]
            if [0x20, 0x09, 0x0A, 0x0D].contains(byte) {
                index += 1
            } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") {
                index = bytes[index...].firstIndex(of: 0x0A) ?? bytes.count
            } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                index += 2
                while index + 1 < bytes.count,
                    !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/"))
                {
                    index += 1
                }
                index += 2
            } else {
                return byte == UInt8(ascii: "{") || byte == UInt8(ascii: "(")
            }
        }
        return false
    }

    /// Parses one value (a dictionary or an array at the top) and refuses anything after it
    /// but white space and comments.
    /// - Throws: ``Failure`` with the line and the reason.
    package static func parse(_ bytes: [UInt8], maximumDepth: Int) throws(Failure) -> Node {
        let body = Array(bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...])
        guard String(validating: body, as: UTF8.self) != nil else {
            throw Failure(line: 1, reason: "not UTF-8")
        }
        var parser = Parser(bytes: body, maximumDepth: maximumDepth)
        try parser.skipSpace()
        guard parser.index < body.count else { throw Failure(line: parser.line, reason: "no value") }
        let root = try parser.value(depth: 0)
        try parser.skipSpace()
        guard parser.index == body.count else {
            throw Failure(line: parser.line, reason: "unexpected '\(parser.character)' after the property list")
        }
        return root
    }

    private struct Parser {
        let bytes: [UInt8]
        let maximumDepth: Int
        var index = 0
        var line = 1

        init(bytes: [UInt8], maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
        }

        /// The current character, for messages (a byte outside printable ASCII as `\xNN`).
        var character: String {
            guard self.index < self.bytes.count else { return "end of file" }
            let byte = self.bytes[self.index]
            return (0x21...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : String(format: "\\x%02X", byte)
        }

        func fail(_ reason: String) -> Failure { Failure(line: self.line, reason: reason) }

        mutating func advance() {
            if self.bytes[self.index] == 0x0A { self.line += 1 }
            self.index += 1
        }

        /// Skips white space and comments; an unterminated `/*` is an error.
        mutating func skipSpace() throws(Failure) {
            while self.index < self.bytes.count {
                let byte = self.bytes[self.index]
                if [0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C].contains(byte) {
                    self.advance()
                } else if byte == UInt8(ascii: "/"), self.index + 1 < self.bytes.count,
                    self.bytes[self.index + 1] == UInt8(ascii: "/")
                {
                    while self.index < self.bytes.count, self.bytes[self.index] != 0x0A { self.index += 1 }
                } else if byte == UInt8(ascii: "/"), self.index + 1 < self.bytes.count,
                    self.bytes[self.index + 1] == UInt8(ascii: "*")
                {
                    let start = self.line
                    self.index += 2
                    while true {
                        guard self.index + 1 < self.bytes.count else {
                            self.index = self.bytes.count
                            throw Failure(line: start, reason: "unterminated /* comment")
                        }
                        if self.bytes[self.index] == UInt8(ascii: "*"), self.bytes[self.index + 1] == UInt8(ascii: "/")
                        {
                            self.index += 2
                            break
                        }
                        self.advance()
                    }
                } else {
                    return
                }
            }
        }

        static func isUnquoted(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || Array("_$/:.-+".utf8).contains(byte)
        }

        mutating func value(depth: Int) throws(Failure) -> Node {
            guard self.index < self.bytes.count else { throw self.fail("unexpected end of file, expected a value") }
            let line = self.line
            switch self.bytes[self.index] {
            case UInt8(ascii: "{"):
                guard depth < self.maximumDepth else {
                    throw self.fail("arrays and dictionaries nested deeper than \(self.maximumDepth) levels")
                }
                self.advance()
                return Node(value: .dictionary(try self.dictionary(depth: depth + 1, opened: line)), line: line)
            case UInt8(ascii: "("):
                guard depth < self.maximumDepth else {
                    throw self.fail("arrays and dictionaries nested deeper than \(self.maximumDepth) levels")
                }
                self.advance()
                return Node(value: .array(try self.array(depth: depth + 1, opened: line)), line: line)
            case UInt8(ascii: "<"):
                self.advance()
                return Node(value: .data(try self.data(opened: line)), line: line)
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                return Node(value: .string(try self.quoted()), line: line)
            case let byte where Self.isUnquoted(byte):
                return Node(value: .string(self.unquoted()), line: line)
            default:
                throw self.fail("unexpected '\(self.character)', expected a value")
            }
        }

        mutating func dictionary(depth: Int, opened: Int) throws(Failure) -> [Entry] {
            var entries: [Entry] = []
            while true {
                try self.skipSpace()
                guard self.index < self.bytes.count else {
                    throw self.fail("unexpected end of file inside the dictionary opened on line \(opened)")
                }
                if self.bytes[self.index] == UInt8(ascii: "}") {
                    self.advance()
                    return entries
                }
                let keyLine = self.line
                let key: String
                switch self.bytes[self.index] {
                case UInt8(ascii: "\""), UInt8(ascii: "'"): key = try self.quoted()
                case let byte where Self.isUnquoted(byte): key = self.unquoted()
                default: throw self.fail("unexpected '\(self.character)', expected a key or '}'")
                }
                try self.skipSpace()
                guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "=") else {
                    throw self.fail("expected '=' after the key \"\(key.prefix(40))\", found \(self.found)")
                }
                self.advance()
                try self.skipSpace()
                let node = try self.value(depth: depth)
                entries.append(Entry(key: key, keyLine: keyLine, node: node))
                try self.skipSpace()
                guard self.index < self.bytes.count else {
                    throw self.fail("unexpected end of file inside the dictionary opened on line \(opened)")
                }
                switch self.bytes[self.index] {
                case UInt8(ascii: ";"): self.advance()
                // CoreFoundation asks for the `;` before `}` too; hand-written files forget it.
                case UInt8(ascii: "}"): break
                default: throw self.fail("expected ';' after the value of \"\(key.prefix(40))\", found \(self.found)")
                }
            }
        }

        mutating func array(depth: Int, opened: Int) throws(Failure) -> [Node] {
            var items: [Node] = []
            while true {
                try self.skipSpace()
                guard self.index < self.bytes.count else {
                    throw self.fail("unexpected end of file inside the array opened on line \(opened)")
                }
                if self.bytes[self.index] == UInt8(ascii: ")") {
                    self.advance()
                    return items
                }
                items.append(try self.value(depth: depth))
                try self.skipSpace()
                guard self.index < self.bytes.count else {
                    throw self.fail("unexpected end of file inside the array opened on line \(opened)")
                }
                switch self.bytes[self.index] {
                case UInt8(ascii: ","): self.advance()
                case UInt8(ascii: ")"): break
                default:
                    throw self.fail("expected ',' or ')' in the array opened on line \(opened), found \(self.found)")
                }
            }
        }

        /// What the reader found, for messages.
        var found: String { self.index < self.bytes.count ? "'\(self.character)'" : "the end of the file" }

        mutating func unquoted() -> String {
            let start = self.index
            while self.index < self.bytes.count, Self.isUnquoted(self.bytes[self.index]) { self.index += 1 }
            return String(decoding: self.bytes[start..<self.index], as: UTF8.self)
        }

        static func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }

        /// A quoted string, the index on its opening quote.
        mutating func quoted() throws(Failure) -> String {
            let quote = self.bytes[self.index]
            let opened = self.line
            self.advance()
            var text: [UInt8] = []
            var scalars = String.UnicodeScalarView()
            /// Moves the UTF-8 gathered so far into `scalars` (it is valid: the file was checked).
            func flush() {
                scalars.append(contentsOf: String(decoding: text, as: UTF8.self).unicodeScalars)
                text.removeAll(keepingCapacity: true)
            }
            while true {
                guard self.index < self.bytes.count else {
                    throw Failure(line: opened, reason: "unterminated quoted string")
                }
                let byte = self.bytes[self.index]
                if byte == quote {
                    self.advance()
                    flush()
                    return String(scalars)
                }
                guard byte == UInt8(ascii: "\\") else {
                    text.append(byte)
                    self.advance()
                    continue
                }
                self.advance()
                guard self.index < self.bytes.count else {
                    throw Failure(line: opened, reason: "unterminated quoted string")
                }
                let escaped = self.bytes[self.index]
                self.advance()
                switch escaped {
                case UInt8(ascii: "a"): text.append(0x07)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "v"): text.append(0x0B)
                case UInt8(ascii: "U"), UInt8(ascii: "u"):
                    var value: UInt32 = 0
                    var digits = 0
                    while digits < 4, self.index < self.bytes.count, let digit = Self.hexValue(self.bytes[self.index]) {
                        value = value << 4 | UInt32(digit)
                        digits += 1
                        self.index += 1
                    }
                    guard digits > 0 else { throw self.fail("\\U without hex digits in a quoted string") }
                    // A lone surrogate half (CoreFoundation keeps it in UTF-16) has no scalar: U+FFFD.
                    flush()
                    scalars.append(UnicodeScalar(value) ?? "\u{FFFD}")
                case UInt8(ascii: "0")...UInt8(ascii: "7"):
                    var value = UInt32(escaped - UInt8(ascii: "0"))
                    var digits = 1
                    while digits < 3, self.index < self.bytes.count,
                        (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(self.bytes[self.index])
                    {
                        value = value << 3 | UInt32(self.bytes[self.index] - UInt8(ascii: "0"))
                        digits += 1
                        self.index += 1
                    }
                    // CoreFoundation reads octal escapes above 127 in the NeXTSTEP encoding; this
                    // reader reads them as Latin-1 (the two agree on ASCII, which is all ATS keys use).
                    flush()
                    scalars.append(UnicodeScalar(UInt8(truncatingIfNeeded: value)))
                default:
                    // `\"`, `\'`, `\\` and any other character stand for themselves.
                    text.append(escaped)
                }
            }
        }

        /// `<hex digits and white space>`, the index after the `<`.
        mutating func data(opened: Int) throws(Failure) -> [UInt8] {
            var bytes: [UInt8] = []
            var high: UInt8?
            while true {
                guard self.index < self.bytes.count else {
                    throw Failure(line: opened, reason: "unterminated <data>")
                }
                let byte = self.bytes[self.index]
                if byte == UInt8(ascii: ">") {
                    self.advance()
                    guard high == nil else { throw self.fail("odd number of hex digits in <data>") }
                    return bytes
                }
                if [0x20, 0x09, 0x0A, 0x0D].contains(byte) {
                    self.advance()
                    continue
                }
                guard let digit = Self.hexValue(byte) else {
                    throw self.fail("unexpected '\(self.character)' in <data> (hex digits only)")
                }
                self.index += 1
                if let first = high {
                    bytes.append(first << 4 | digit)
                    high = nil
                } else {
                    high = digit
                }
            }
        }
    }
}

extension OpenStepPropertyList.Node {
    /// The value as `PropertyListSerialization` gives it: `String`, `Data`, `[Any]` and
    /// `[String: Any]` (a repeated key: the last one).
    package var foundationValue: Any {
        switch self.value {
        case .string(let text): text
        case .data(let bytes): Data(bytes)
        case .array(let items): items.map(\.foundationValue)
        case .dictionary(let entries):
            Dictionary(entries.map { ($0.key, $0.node.foundationValue) }, uniquingKeysWith: { _, last in last })
        }
    }
}
