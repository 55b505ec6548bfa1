/// base64url without padding (RFC 4648 §5), as JWS segments (RFC 7515 §2), PKCE (RFC 7636
/// Appendix A) and DPoP proofs use it.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The unpadded base64url text of `bytes`.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        // Direct, not Foundation's base64 and three replacements: a DPoP proof encodes three
        // segments per request.
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            for shift in [18, 12, 6, 0] { output.append(Self.alphabet[Int(value >> UInt32(shift) & 0x3F)]) }
            index += 3
        }
        let remaining = input.count - index
        if remaining > 0 {
            var value = UInt32(input[index]) << 16
            if remaining == 2 { value |= UInt32(input[index + 1]) << 8 }
            output.append(Self.alphabet[Int(value >> 18 & 0x3F)])
            output.append(Self.alphabet[Int(value >> 12 & 0x3F)])
            if remaining == 2 { output.append(Self.alphabet[Int(value >> 6 & 0x3F)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }

}
