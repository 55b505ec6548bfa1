package import Foundation

/// Finds a key that appears twice in one JSON object: text that parsers read differently
/// (`JSONDecoder` keeps the first, `jq` and Python the last), so that what is signed or reviewed
/// is not what is applied. Every JSON document this package trusts is checked with it before it
/// is decoded.
///
/// Keys are compared as the decoder compares them: after their escapes are decoded
/// (`"pinned\u0044omains"` is `"pinnedDomains"`) and as Swift strings (canonically equivalent
/// spellings are one key). The walk keeps its own stack, so deep nesting cannot overflow the
/// thread's.
package enum JSONDuplicateKeys {
    /// One step of the path to a key.
    package enum Component: Equatable, Sendable {
        /// A member of an object.
        case key(String)
        /// An element of an array.
        case index(Int)
    }

    /// What the scan found.
    package enum Finding: Equatable, Sendable {
        /// The path to the second appearance of a key (the key itself last).
        case duplicate([Component])
        /// The text is not JSON in UTF-8, or holds a key that is not valid Unicode (an invalid
        /// UTF-8 sequence, a lone surrogate escape): refused, as a decoder might read it as
        /// another key.
        case malformed
    }

    private enum Frame {
        /// An object and the key of its member being read (its keys so far are in
        /// `Scanner.keySets`, one set per open object).
        case object(key: String?)
        case array(count: Int)
    }

    /// The first duplicate key of `data`, `.malformed` for text that is not JSON, or nil.
    package static func scan(_ data: Data) -> Finding? {
        let bytes = [UInt8](data)
        var scanner = Scanner(bytes: bytes)
        return scanner.run()
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var stack: [Frame] = []
        /// The keys of each open object, innermost last. Kept apart from `stack` so that a
        /// key is inserted into its set in place: a set carried in an enum payload is copied
        /// on every member, which made an object of many keys cost quadratic time.
        var keySets: [Set<String>] = []

        init(bytes: [UInt8]) {
            self.bytes = bytes
            // A UTF-8 byte order mark (RFC 8259 §8.1 lets a parser ignore it).
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { self.index = 3 }
        }

        var path: [Component] {
            self.stack.compactMap { frame in
                switch frame {
                case .object(let key): key.map(Component.key)
                case .array(let count): .index(count - 1)
                }
            }
        }

        mutating func skipSpace() {
            while self.index < self.bytes.count {
                switch self.bytes[self.index] {
                case 0x20, 0x09, 0x0A, 0x0D: self.index += 1
                default: return
                }
            }
        }

        mutating func expect(_ literal: String) -> Bool {
            let expected = Array(literal.utf8)
            guard self.bytes.count - self.index >= expected.count,
                Array(self.bytes[self.index..<self.index + expected.count]) == expected
            else { return false }
            self.index += expected.count
            return true
        }

        /// A string starting at `index` (on its opening quote), its escapes decoded; nil when
        /// it is not a valid string.
        mutating func string() -> String? {
            self.index += 1
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            // The raw bytes since the last escape, which must be UTF-8 (not overlong, no
            // surrogates), as scalars.
            func flush() -> Bool {
                guard !raw.isEmpty else { return true }
                var decoder = UTF8()
                var iterator = raw.makeIterator()
                while true {
                    switch decoder.decode(&iterator) {
                    case .scalarValue(let scalar): scalars.append(scalar)
                    case .emptyInput:
                        raw.removeAll(keepingCapacity: true)
                        return true
                    case .error: return false
                    }
                }
            }
            while self.index < self.bytes.count {
                let byte = self.bytes[self.index]
                self.index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard flush() else { return nil }
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    guard flush(), self.index < self.bytes.count else { return nil }
                    let escape = self.bytes[self.index]
                    self.index += 1
                    switch escape {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        guard let scalar = self.unicodeEscape() else { return nil }
                        scalars.append(scalar)
                    default: return nil
                    }
                case 0x00..<0x20:
                    return nil
                default:
                    raw.append(byte)
                }
            }
            return nil
        }

        /// The scalar of `XXXX` (after `\u`), or of a surrogate pair `XXXX\uXXXX`.
        mutating func unicodeEscape() -> Unicode.Scalar? {
            guard let high = self.hex4() else { return nil }
            if (0xD800...0xDBFF).contains(high) {
                guard self.expect("\\u"), let low = self.hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            }
            return Unicode.Scalar(high)
        }

        mutating func hex4() -> UInt32? {
            guard self.bytes.count - self.index >= 4 else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = self.bytes[self.index]
                self.index += 1
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }

        /// A number, true, false or null: skipped (the decoder judges them).
        mutating func scalarValue() -> Bool {
            let start = self.index
            while self.index < self.bytes.count {
                switch self.bytes[self.index] {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                    UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "a")...UInt8(ascii: "z"):
                    self.index += 1
                default:
                    return self.index > start
                }
            }
            return self.index > start
        }

        /// After a value: a comma or the end of its container, or the end of the text.
        /// Returns nil to go on, or the scan's result.
        mutating func afterValue() -> Finding?? {
            while true {
                self.skipSpace()
                guard let top = self.stack.last else {
                    return self.index == self.bytes.count ? .some(nil) : .some(.malformed)
                }
                guard self.index < self.bytes.count else { return .some(.malformed) }
                let byte = self.bytes[self.index]
                self.index += 1
                switch (top, byte) {
                case (.object, UInt8(ascii: ",")):
                    return self.member()
                case (.array(let count), UInt8(ascii: ",")):
                    self.stack[self.stack.count - 1] = .array(count: count + 1)
                    return nil
                case (.object, UInt8(ascii: "}")):
                    self.stack.removeLast()
                    self.keySets.removeLast()
                case (.array, UInt8(ascii: "]")):
                    self.stack.removeLast()
                default:
                    return .some(.malformed)
                }
            }
        }

        /// A member's key and colon, after `{` or a comma in an object.
        mutating func member() -> Finding?? {
            self.skipSpace()
            guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "\""),
                let key = self.string(),
                case .object? = self.stack.last, !self.keySets.isEmpty
            else { return .some(.malformed) }
            self.stack[self.stack.count - 1] = .object(key: key)
            let inserted = self.keySets[self.keySets.count - 1].insert(key).inserted
            if !inserted { return .some(.duplicate(self.path)) }
            self.skipSpace()
            guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: ":") else {
                return .some(.malformed)
            }
            self.index += 1
            return nil
        }

        mutating func run() -> Finding? {
            while true {
                self.skipSpace()
                guard self.index < self.bytes.count else { return .malformed }
                switch self.bytes[self.index] {
                case UInt8(ascii: "{"):
                    self.index += 1
                    self.stack.append(.object(key: nil))
                    self.keySets.append([])
                    self.skipSpace()
                    if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "}") {
                        self.index += 1
                        self.stack.removeLast()
                        self.keySets.removeLast()
                        if let result = self.afterValue() { return result }
                        continue
                    }
                    if let result = self.member() { return result }
                case UInt8(ascii: "["):
                    self.index += 1
                    self.stack.append(.array(count: 1))
                    self.skipSpace()
                    if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "]") {
                        self.index += 1
                        self.stack.removeLast()
                        if let result = self.afterValue() { return result }
                    }
                case UInt8(ascii: "\""):
                    guard self.string() != nil else { return .malformed }
                    if let result = self.afterValue() { return result }
                default:
                    guard self.scalarValue() else { return .malformed }
                    if let result = self.afterValue() { return result }
                }
            }
        }
    }
}
