/// A `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3).
///
/// `error="invalid_token"` means the access token expired or was revoked (refresh and retry
/// once); `insufficient_scope` means a refresh will not help.
public struct BearerChallenge: Hashable, Sendable {
    /// `realm`.
    public var realm: String?
    /// `error`: `invalid_request`, `invalid_token` or `insufficient_scope`.
    public var error: String?
    /// `error_description`.
    public var errorDescription: String?
    /// `scope`.
    public var scope: String?

    /// Whether the token itself was refused (`invalid_token`): refreshing may help.
    public var isInvalidToken: Bool { self.error == "invalid_token" }

    /// Parses the challenge of `scheme` (`Bearer` by default; `DPoP` challenges of RFC 9449 §7.1
    /// have the same parameters) in a `WWW-Authenticate` value, or nil when there is none.
    ///
    /// Other schemes in the same value (`Basic realm="x", Bearer error="…"`) are skipped.
    public init?(parsing header: String, scheme wanted: String = "Bearer") {
        var scanner = ChallengeScanner(Array(header.utf8))
        while let scheme = scanner.token() {
            let parameters = scanner.parameters()
            if scheme.lowercased() == wanted.lowercased() {
                self.realm = parameters["realm"]
                self.error = parameters["error"]
                self.errorDescription = parameters["error_description"]
                self.scope = parameters["scope"]
                return
            }
        }
        return nil
    }
}

/// A small scanner for `challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ]` (RFC 9110 §11).
private struct ChallengeScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    private mutating func skip(_ set: [UInt8]) {
        while self.index < self.bytes.count, set.contains(self.bytes[self.index]) { self.index += 1 }
    }

    mutating func token() -> String? {
        self.skip([0x20, 0x09, UInt8(ascii: ",")])
        let start = self.index
        while self.index < self.bytes.count, Self.isTokenByte(self.bytes[self.index]) { self.index += 1 }
        return start == self.index ? nil : String(decoding: self.bytes[start..<self.index], as: UTF8.self)
    }

    /// Reads `name=value` pairs until the next scheme (a token not followed by `=`).
    mutating func parameters() -> [String: String] {
        var result: [String: String] = [:]
        while true {
            let save = self.index
            self.skip([0x20, 0x09, UInt8(ascii: ",")])
            guard let name = self.token() else { return result }
            self.skip([0x20, 0x09])
            guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "=") else {
                self.index = save  // a new scheme starts here
                return result
            }
            self.index += 1
            self.skip([0x20, 0x09])
            result[name.lowercased()] = self.value()
        }
    }

    private mutating func value() -> String {
        guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "\"") else {
            return self.token() ?? ""
        }
        self.index += 1
        var output: [UInt8] = []
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            self.index += 1
            if byte == UInt8(ascii: "\\"), self.index < self.bytes.count {
                output.append(self.bytes[self.index])
                self.index += 1
            } else if byte == UInt8(ascii: "\"") {
                break
            } else {
                output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
