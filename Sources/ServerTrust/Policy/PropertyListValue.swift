import Foundation
import SecureNetworkingInternal

/// Any property-list value: XML read with `PropertyListDecoder`, binary with
/// `PropertyListSerialization`, both only after their nesting was bounded, and OpenStep text
/// with ``OpenStepPropertyList`` (which bounds its own).
///
/// Fuzzing the Info.plist reader found a fault in each of Foundation's two readers on Linux:
/// - CoreFoundation's XML parser (behind `PropertyListSerialization`) spends about 150 ms
///   under AddressSanitizer refusing the three bytes `<?x`, and leaks a `CFError` for every
///   malformed file. XML therefore goes to swift-foundation's `PropertyListDecoder`.
/// - `PropertyListDecoder`'s binary reader follows object references without remembering the
///   objects it is inside, so a 43-byte binary plist whose array contains itself recurses until
///   the stack overflows. CoreFoundation's binary reader refuses such a cycle, so binary
///   property lists stay with `PropertyListSerialization`.
enum PropertyListValue: Decodable {
    case bool(Bool)
    case integer(Int)
    case real(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    /// The most nested arrays and dictionaries a property list may have: the decoders recurse
    /// once per level, and an Info.plist's ATS keys are four levels deep.
    static let maximumDepth = 64
    /// The most values a binary property list may expand to: its objects can be shared, so a
    /// few hundred bytes can describe a tree of billions (the "billion laughs" of plists).
    static let maximumValues = 1_000_000

    /// Why a property list is refused before any decoder sees it.
    struct Refusal: Error, Equatable {
        let reason: String
    }

    /// Reads an XML (UTF-8), binary or OpenStep (old-style ASCII) property list, as `Bool`,
    /// `NSNumber`, `String`, `Data`, `Date`, `[Any]` and `[String: Any]` (OpenStep: strings,
    /// data, arrays and dictionaries only, as Foundation reads it).
    ///
    /// Both decoders recurse once per level of nesting, so the depth is bounded before either
    /// runs: XML by ``nestingDepth(ofXML:)``, binary by ``BinaryPropertyListShape``. OpenStep
    /// text (its first character after white space `{` or `(`) goes to
    /// ``OpenStepPropertyList``, which bounds its own depth and names the line of a fault.
    /// Other formats (UTF-16 or UTF-32 XML, an encoding other than UTF-8) are refused:
    /// `PropertyListDecoder` would convert or parse them out of sight of the depth check.
    /// - Throws: ``Refusal`` with the reason, or the decoder's error.
    static func read(_ data: Data) throws -> Any {
        let bytes = Array(data)
        if OpenStepPropertyList.looksLikeOpenStep(bytes) {
            do {
                return try OpenStepPropertyList.parse(bytes, maximumDepth: Self.maximumDepth).foundationValue
            } catch {
                throw Refusal(reason: "malformed OpenStep property list: \(error)")
            }
        }
        if bytes.starts(with: Array("bplist".utf8)) {
            do {
                try BinaryPropertyListShape.check(
                    bytes,
                    maximumDepth: Self.maximumDepth,
                    maximumValues: Self.maximumValues
                )
            } catch {
                throw Refusal(reason: error.reason)
            }
            return try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        }
        if let refusal = Self.textRefusal(bytes) { throw Refusal(reason: refusal) }
        guard Self.nestingDepth(ofXML: bytes) <= Self.maximumDepth else {
            throw Refusal(reason: "arrays and dictionaries nested deeper than \(Self.maximumDepth) levels")
        }
        return try PropertyListDecoder().decode(PropertyListValue.self, from: data).foundationValue
    }

    /// Why text is not an XML property list this reader will hand to the decoder, or nil (an
    /// OpenStep one is read before this is asked): it must be UTF-8 (a UTF-8 byte-order mark is allowed, `encoding=` must say UTF-8) and its
    /// first character after white space `<`, as `PropertyListDecoder` decides it is XML.
    static func textRefusal(_ bytes: [UInt8]) -> String? {
        switch (bytes.count > 0 ? bytes[0] : nil, bytes.count > 1 ? bytes[1] : nil) {
        case (0xFE, 0xFF), (0xFF, 0xFE), (0x00, _):
            return "not UTF-8 (a UTF-16 or UTF-32 property list is not read)"
        default:
            break
        }
        let hasByteOrderMark = bytes.starts(with: [0xEF, 0xBB, 0xBF])
        if !hasByteOrderMark, let encoding = Self.declaredEncoding(bytes), encoding.lowercased() != "utf-8" {
            return "encoding \"\(String(decoding: encoding.utf8.prefix(40), as: UTF8.self))\" is not read (UTF-8 only)"
        }
        let first = bytes.dropFirst(hasByteOrderMark ? 3 : 0).first { !Self.isXMLSpace($0) }
        guard first == UInt8(ascii: "<") else {
            return "not an XML, binary or OpenStep property list"
        }
        return nil
    }

    /// The `encoding="…"` of a leading `<?xml …?>`, found as `PropertyListDecoder` finds it:
    /// the first `encoding=` before a `?` or `>`, and the text up to the closing quote.
    static func declaredEncoding(_ bytes: [UInt8]) -> String? {
        guard bytes.starts(with: Array("<?xml".utf8)) else { return nil }
        let key = Array("encoding=".utf8)
        var index = 5
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "?") || bytes[index] == UInt8(ascii: ">") { return nil }
            if bytes[index...].starts(with: key) {
                let start = index + key.count
                guard start < bytes.count, bytes[start] == UInt8(ascii: "\"") || bytes[start] == UInt8(ascii: "'")
                else { return nil }
                let end = bytes[(start + 1)...].firstIndex(of: bytes[start]) ?? bytes.count
                return String(decoding: bytes[(start + 1)..<end], as: UTF8.self)
            }
            index += 1
        }
        return nil
    }

    static func isXMLSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// How deeply `<array>` and `<dict>` elements nest, counted by a tokenizer that reads
    /// markup as `PropertyListDecoder`'s XML scanner does: comments (`<!-- … -->`), CDATA
    /// sections, processing instructions and the DOCTYPE are skipped, so a `</array>` inside
    /// them closes nothing; a tag ends at its first `>`; `<array/>` opens nothing.
    ///
    /// Where the two could part, the count errs upwards (every `<array…` or `<dict…` opens, a
    /// processing instruction after the root element may end at the `?` that opened it, a close
    /// never takes the count below zero), so a document under the limit really is.
    static func nestingDepth(ofXML bytes: [UInt8]) -> Int {
        var depth = 0
        var deepest = 0
        var inProlog = true
        var index = 0
        func matches(_ text: String, at position: Int) -> Bool {
            position <= bytes.count && bytes[position...].starts(with: text.utf8)
        }
        /// The index after the first `pattern` at or after `start`, or nil.
        func end(of pattern: String, from start: Int) -> Int? {
            let pattern = Array(pattern.utf8)
            var position = start
            while position + pattern.count <= bytes.count {
                if bytes[position] == pattern[0], bytes[position...].starts(with: pattern) {
                    return position + pattern.count
                }
                position += 1
            }
            return nil
        }
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            let next = index + 1
            let skipTo: Int?
            if matches("!--", at: next) {
                skipTo = end(of: "-->", from: next + 3)
            } else if matches("![CDATA[", at: next) {
                skipTo = end(of: "]]>", from: next + 8)
            } else if matches("?", at: next) {
                // The decoder searches for `?>` from after the `?` before the root element,
                // from the `?` itself inside it.
                skipTo = end(of: "?>", from: inProlog ? next + 1 : next)
            } else if matches("!", at: next) {
                skipTo = end(of: ">", from: next + 1)
            } else if matches("/", at: next) {
                var position = next + 1
                if matches("array", at: position) {
                    position += 5
                } else if matches("dict", at: position) {
                    position += 4
                } else {
                    index = next
                    continue
                }
                while position < bytes.count, Self.isXMLSpace(bytes[position]) { position += 1 }
                if position < bytes.count, bytes[position] == UInt8(ascii: ">") {
                    depth = max(depth - 1, 0)
                }
                index = next
                continue
            } else {
                inProlog = false
                guard let close = bytes[next...].firstIndex(of: UInt8(ascii: ">")) else { break }
                if matches("array", at: next) || matches("dict", at: next), bytes[close - 1] != UInt8(ascii: "/") {
                    depth += 1
                    deepest = max(deepest, depth)
                }
                skipTo = close + 1
            }
            // Unterminated: the decoder fails there, having nested no deeper than counted.
            guard let skipTo else { break }
            index = skipTo
        }
        return deepest
    }

    init(from decoder: any Decoder) throws {
        if let fields = try? decoder.container(keyedBy: AnyKey.self) {
            var dictionary: [String: PropertyListValue] = [:]
            for key in fields.allKeys {
                dictionary[key.stringValue] = try fields.decode(PropertyListValue.self, forKey: key)
            }
            self = .dictionary(dictionary)
            return
        }
        if var elements = try? decoder.unkeyedContainer() {
            var array: [PropertyListValue] = []
            while !elements.isAtEnd {
                array.append(try elements.decode(PropertyListValue.self))
            }
            self = .array(array)
            return
        }
        let single = try decoder.singleValueContainer()
        if let flag = try? single.decode(Bool.self) {
            self = .bool(flag)
        } else if let text = try? single.decode(String.self) {
            self = .string(text)
        } else if let number = try? single.decode(Int.self) {
            self = .integer(number)
        } else if let number = try? single.decode(Double.self) {
            self = .real(number)
        } else if let date = try? single.decode(Date.self) {
            self = .date(date)
        } else {
            self = .data(try single.decode(Data.self))
        }
    }

    /// The value as the reader walks it: `Bool`, `NSNumber`, `String`, `Data`, `Date`, `[Any]`
    /// and `[String: Any]`, as `PropertyListSerialization` gave them.
    var foundationValue: Any {
        switch self {
        case .bool(let flag): flag
        case .integer(let number): NSNumber(value: number)
        case .real(let number): NSNumber(value: number)
        case .string(let text): text
        case .data(let data): data
        case .date(let date): date
        case .array(let array): array.map(\.foundationValue)
        case .dictionary(let dictionary): dictionary.mapValues(\.foundationValue)
        }
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        let intValue: Int? = nil
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
