import Foundation

/// Any property-list value: XML read with `PropertyListDecoder`, binary with
/// `PropertyListSerialization`.
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

    /// The most nested arrays and dictionaries an XML property list may have: the decoder
    /// recurses once per level, and an Info.plist's ATS keys are four levels deep.
    static let maximumDepth = 64

    /// Reads an XML or binary property list, as `Bool`, `NSNumber`, `String`, `Data`, `Date`,
    /// `[Any]` and `[String: Any]`.
    static func read(_ data: Data) throws -> Any {
        if data.starts(with: Array("bplist".utf8)) {
            return try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        }
        guard Self.nestingDepth(ofXML: data) <= Self.maximumDepth else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "nested too deeply"))
        }
        return try PropertyListDecoder().decode(PropertyListValue.self, from: data).foundationValue
    }

    /// How deeply `<array>` and `<dict>` elements nest, counted without parsing: opening tags
    /// (not `<array/>`) add one, closing tags take one away. Text that only looks like a tag
    /// can only make the count larger, so a document under the limit really is.
    static func nestingDepth(ofXML data: Data) -> Int {
        var depth = 0
        var deepest = 0
        let bytes = Array(data)
        var index = 0
        while index < bytes.count {
            defer { index += 1 }
            guard bytes[index] == UInt8(ascii: "<") else { continue }
            let rest = bytes[(index + 1)...]
            let closing = rest.first == UInt8(ascii: "/")
            let name = closing ? rest.dropFirst() : rest
            let opensContainer = name.starts(with: Array("array".utf8)) || name.starts(with: Array("dict".utf8))
            guard opensContainer else { continue }
            if closing {
                depth -= 1
                continue
            }
            // A self-closing `<array/>` or `<dict/>` adds nothing.
            if let end = name.firstIndex(of: UInt8(ascii: ">")), end > name.startIndex,
                bytes[end - 1] == UInt8(ascii: "/")
            {
                continue
            }
            depth += 1
            deepest = max(deepest, depth)
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
