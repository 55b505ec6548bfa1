import Foundation

/// Any property-list value, read with `PropertyListDecoder` (XML or binary).
///
/// The Info.plist reader used `PropertyListSerialization`, which on Linux is CoreFoundation's C
/// parser: fuzzing found that it leaks a `CFError` for every malformed file and spends about
/// 150 ms (under AddressSanitizer) refusing a three-byte `<?x`. `PropertyListDecoder` is
/// swift-foundation's Swift implementation of the same formats.
enum PropertyListValue: Decodable {
    case bool(Bool)
    case integer(Int)
    case real(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    /// Reads an XML or binary property list.
    static func read(_ data: Data) throws -> PropertyListValue {
        try PropertyListDecoder().decode(PropertyListValue.self, from: data)
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
