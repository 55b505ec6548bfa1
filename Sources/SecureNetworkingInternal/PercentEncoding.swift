/// Percent-encoding of everything but RFC 3986's unreserved characters (`A–Z a–z 0–9 - . _ ~`),
/// byte by byte of the UTF-8 form: a query component, a path segment, or (with `spaceAsPlus`)
/// `application/x-www-form-urlencoded` as RFC 6749 Appendix B writes it.
package enum PercentEncoder {
    private static let hex = Array("0123456789ABCDEF".utf8)

    /// `text` with every byte outside the unreserved set written `%XX` (upper-case hex); a space
    /// as `+` when `spaceAsPlus` is set, else as `%20`.
    package static func encode(_ text: String, spaceAsPlus: Bool = false) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.append(byte)
            case UInt8(ascii: " ") where spaceAsPlus:
                output.append(UInt8(ascii: "+"))
            default:
                output += [UInt8(ascii: "%"), Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
