/// DER and PEM for X25519 keys (RFC 8410), written and read as fixed byte layouts.
///
/// An X25519 SubjectPublicKeyInfo and an RFC 5208 PKCS#8 PrivateKeyInfo have exactly one DER
/// encoding each, so reading compares against that encoding rather than running a general ASN.1
/// parser: any other algorithm, length, trailing data or optional field is refused.
enum X25519KeyEncoding {
    /// `SEQUENCE { SEQUENCE { OID 1.3.101.110 }, BIT STRING (0 unused bits) <32 bytes> }`.
    static let publicKeyPrefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x6E, 0x03, 0x21, 0x00]
    /// `SEQUENCE { INTEGER 0, SEQUENCE { OID 1.3.101.110 }, OCTET STRING { OCTET STRING <32 bytes> } }`.
    static let privateKeyPrefix: [UInt8] = [
        0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x6E, 0x04, 0x22, 0x04, 0x20,
    ]
    static let keyByteCount = 32
    /// Longer PEM input is refused before decoding (a key's PEM is under 150 bytes).
    static let maximumPEMLength = 1024

    static func publicKeyDER(raw: [UInt8]) -> [UInt8] { Self.publicKeyPrefix + raw }
    static func privateKeyDER(raw: [UInt8]) -> [UInt8] { Self.privateKeyPrefix + raw }

    /// The 32 key bytes of `der` if it is exactly `prefix` followed by 32 bytes.
    static func rawKey(fromDER der: [UInt8], prefix: [UInt8]) -> [UInt8]? {
        guard der.count == prefix.count + Self.keyByteCount, der.starts(with: prefix) else { return nil }
        return Array(der.suffix(Self.keyByteCount))
    }

    /// A PEM document: the label lines and the base64 body wrapped at 64 characters.
    static func pem(label: String, der: [UInt8]) -> String {
        let body = Array(PHCBase64.encode(der).utf8)
        let padding = String(repeating: "=", count: (3 - der.count % 3) % 3)
        var lines = ["-----BEGIN \(label)-----"]
        var start = 0
        let padded = body + Array(padding.utf8)
        while start < padded.count {
            let end = min(start + 64, padded.count)
            lines.append(String(decoding: padded[start..<end], as: UTF8.self))
            start = end
        }
        lines.append("-----END \(label)-----")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The DER inside a PEM document with exactly this label, or `nil`.
    ///
    /// Accepts LF or CRLF line ends and surrounding whitespace; refuses other labels, headers,
    /// text around the block, and non-canonical base64.
    static func der(fromPEM pem: String, label: String) -> [UInt8]? {
        guard pem.utf8.count <= Self.maximumPEMLength else { return nil }
        let lines = pem.split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
            .map { $0.trimmingASCIIWhitespace() }
            .filter { !$0.isEmpty }
        guard lines.count >= 3,
            lines[0] == "-----BEGIN \(label)-----",
            lines[lines.count - 1] == "-----END \(label)-----"
        else { return nil }
        var body = lines[1..<(lines.count - 1)].joined()
        var paddingCount = 0
        while body.hasSuffix("=") && paddingCount < 2 {
            body.removeLast()
            paddingCount += 1
        }
        guard let der = PHCBase64.decode(Substring(body)) else { return nil }
        guard paddingCount == (3 - der.count % 3) % 3 else { return nil }
        return der
    }
}

extension Substring {
    /// Drops leading and trailing spaces and tabs.
    fileprivate func trimmingASCIIWhitespace() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
