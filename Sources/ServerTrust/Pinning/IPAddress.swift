/// An IPv4 or IPv6 address parsed from text, as its network-order bytes.
///
/// Written in Swift rather than with `inet_pton` so that it behaves the same on every platform
/// and rejects the odd forms some C parsers accept (`1.2.3`, octal `010.0.0.1`).
struct IPAddress: Hashable, Sendable {
    let bytes: [UInt8]

    init?(_ text: String) {
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

    var isIPv4: Bool { self.bytes.count == 4 }

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
