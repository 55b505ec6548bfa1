/// An IPv4 or IPv6 address parsed from text, as its network-order bytes.
///
/// Written in Swift rather than with `inet_pton` so that it behaves the same on every platform
/// and rejects the odd forms some C parsers accept (`1.2.3`, octal `010.0.0.1`).
package struct IPAddress: Hashable, Sendable {
    package let bytes: [UInt8]

    /// The address `text` spells (IPv4 dotted decimal, or IPv6 with `::` and an embedded IPv4
    /// tail), after ``HostName`` normalisation; nil for anything else.
    package init?(_ text: String) {
        let text = HostName.normalise(text)
        if let v4 = Self.parseIPv4(Substring(text)) {
            self.bytes = v4
        } else if let v6 = Self.parseIPv6(text) {
            self.bytes = v6
        } else {
            return nil
        }
    }

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The IPv4 address a host written in one of the numeric forms URL parsers accept denotes
    /// (WHATWG URL §3.5 "IPv4 parser", as browsers and `getaddrinfo` read them): one to four
    /// dot-separated numbers in decimal, octal (leading `0`) or hexadecimal (`0x`), the last
    /// filling the remaining bytes. `134744072` and `0x08080808` are both 8.8.8.8. Nil when the
    /// host is not such a number, or when a number is out of range.
    /// Whether a URL parser must read the host as an IPv4 address (WHATWG URL §3.5 "ends in a
    /// number"): its last label is decimal digits or `0x` and hexadecimal digits.
    static func endsInANumber(_ host: String) -> Bool {
        guard let last = host.split(separator: ".", omittingEmptySubsequences: false).last, !last.isEmpty else {
            return false
        }
        if last.allSatisfy({ $0.isASCII && $0.isNumber }) { return true }
        guard last.hasPrefix("0x") || last.hasPrefix("0X") else { return false }
        return last.dropFirst(2).allSatisfy(\.isHexDigit)
    }

    static func numericIPv4(_ host: String) -> [UInt8]? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            var digits = Substring(part)
            var radix = 10
            if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
                digits = digits.dropFirst(2)
                radix = 16
            } else if digits.count > 1, digits.hasPrefix("0") {
                digits = digits.dropFirst()
                radix = 8
            }
            if digits.isEmpty {
                guard radix == 16 || part == "0" else { return nil }  // `0x` alone is zero.
                numbers.append(0)
                continue
            }
            guard digits.count <= 32, let value = UInt64(digits, radix: radix) else { return nil }
            numbers.append(value)
        }
        guard let last = numbers.last, numbers.dropLast().allSatisfy({ $0 < 256 }) else { return nil }
        let remainingBytes = 5 - numbers.count
        guard last < UInt64(1) << (8 * remainingBytes) else { return nil }
        var bytes = numbers.dropLast().map { UInt8($0) }
        for shift in stride(from: remainingBytes - 1, through: 0, by: -1) {
            bytes.append(UInt8((last >> (8 * UInt64(shift))) & 0xFF))
        }
        return bytes
    }

    var isIPv4: Bool { self.bytes.count == 4 }

    /// The IPv4 address an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, RFC 4291 §2.5.5.2)
    /// carries: the same host on the wire, so rules judge it as that IPv4 address. Any other
    /// address is itself.
    var unmapped: IPAddress {
        guard self.bytes.count == 16, self.bytes[0..<10].allSatisfy({ $0 == 0 }), self.bytes[10] == 0xFF,
            self.bytes[11] == 0xFF
        else { return self }
        return IPAddress(bytes: Array(self.bytes[12...]))
    }

    /// The address in its one canonical spelling: IPv4 as dotted decimal, IPv6 as RFC 5952
    /// (§4: lowercase, no leading zeros, the longest run of two or more zero groups as `::`,
    /// the first on a tie; §5: an IPv4-mapped address ends in dotted decimal).
    var canonicalText: String {
        if self.isIPv4 { return self.bytes.map(String.init).joined(separator: ".") }
        let groups = stride(from: 0, to: 16, by: 2).map { UInt16(self.bytes[$0]) << 8 | UInt16(self.bytes[$0 + 1]) }
        if self.unmapped.isIPv4 { return "::ffff:" + self.unmapped.canonicalText }
        var best = (start: -1, length: 1)  // a single zero group is not shortened (§4.2.2)
        var index = 0
        while index < groups.count {
            guard groups[index] == 0 else {
                index += 1
                continue
            }
            var end = index
            while end < groups.count, groups[end] == 0 { end += 1 }
            if end - index > best.length { best = (index, end - index) }
            index = end
        }
        let hex = groups.map { String($0, radix: 16) }
        guard best.start >= 0 else { return hex.joined(separator: ":") }
        let head = hex[..<best.start].joined(separator: ":")
        let tail = hex[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }

    private static func parseIPv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var out: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            guard part.count == 1 || part.first != "0", let value = UInt8(part) else { return nil }
            out.append(value)
        }
        return out
    }

    private static func parseIPv6(_ text: String) -> [UInt8]? {
        guard text.contains(":"), !text.contains(":::") else { return nil }
        let halves = text.split(separator: "::", omittingEmptySubsequences: false).map(String.init)
        guard halves.count <= 2 else { return nil }

        func groups(_ part: String) -> [UInt8]? {
            if part.isEmpty { return [] }
            var out: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains(".") {
                    guard let v4 = parseIPv4(piece) else { return nil }
                    out += v4
                    continue
                }
                guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                out += [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            return out
        }

        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + Array(repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}
