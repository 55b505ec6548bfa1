/// The base64 of the PHC string format: the standard alphabet (`A–Z a–z 0–9 + /`) without
/// `=` padding.
///
/// Decoding is strict so that each byte string has exactly one accepted text: characters outside
/// the alphabet, padding, a length of 1 modulo 4 and non-zero unused trailing bits are refused.
enum PHCBase64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static let decodeTable: [Int16] = {
        var table = [Int16](repeating: -1, count: 256)
        for (value, character) in alphabet.enumerated() {
            table[Int(character)] = Int16(value)
        }
        return table
    }()

    /// Encodes `bytes` without padding.
    static func encode(_ bytes: [UInt8]) -> String {
        var output = [UInt8]()
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output.append(alphabet[Int(chunk >> 18 & 0x3F)])
            output.append(alphabet[Int(chunk >> 12 & 0x3F)])
            output.append(alphabet[Int(chunk >> 6 & 0x3F)])
            output.append(alphabet[Int(chunk & 0x3F)])
            index += 3
        }
        let remaining = bytes.count - index
        if remaining == 1 {
            let chunk = UInt32(bytes[index]) << 16
            output.append(alphabet[Int(chunk >> 18 & 0x3F)])
            output.append(alphabet[Int(chunk >> 12 & 0x3F)])
        } else if remaining == 2 {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            output.append(alphabet[Int(chunk >> 18 & 0x3F)])
            output.append(alphabet[Int(chunk >> 12 & 0x3F)])
            output.append(alphabet[Int(chunk >> 6 & 0x3F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes unpadded base64, or returns `nil` if `text` is not the canonical encoding of
    /// some byte string.
    static func decode(_ text: Substring) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 != 1 else { return nil }
        var values = [UInt8]()
        values.reserveCapacity(characters.count)
        for character in characters {
            let value = decodeTable[Int(character)]
            guard value >= 0 else { return nil }
            values.append(UInt8(value))
        }

        var output = [UInt8]()
        output.reserveCapacity(characters.count * 3 / 4)
        var index = 0
        while index + 4 <= values.count {
            let chunk =
                UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12
                | UInt32(values[index + 2]) << 6 | UInt32(values[index + 3])
            output.append(UInt8(chunk >> 16 & 0xFF))
            output.append(UInt8(chunk >> 8 & 0xFF))
            output.append(UInt8(chunk & 0xFF))
            index += 4
        }
        let remaining = values.count - index
        if remaining == 2 {
            // 12 bits carry one byte; the low 4 bits must be zero.
            guard values[index + 1] & 0x0F == 0 else { return nil }
            output.append(values[index] << 2 | values[index + 1] >> 4)
        } else if remaining == 3 {
            // 18 bits carry two bytes; the low 2 bits must be zero.
            guard values[index + 2] & 0x03 == 0 else { return nil }
            output.append(values[index] << 2 | values[index + 1] >> 4)
            output.append(values[index + 1] << 4 | values[index + 2] >> 2)
        }
        return output
    }
}
