public import HTTPTypes
import ServerTrust

extension HTTPField {
    /// Creates a field, refusing a value that would be rewritten on the wire.
    ///
    /// swift-http-types silently turns CR, LF and NUL into spaces; a security library must
    /// instead refuse them, because a value built from user input with a line break is an
    /// attempt at header injection, and a mangled credential is a bug nobody sees.
    ///
    /// - Throws: ``SecureHTTPError/Code/invalidHeaderValue`` for a value with CR, LF, NUL or
    ///   another byte RFC 9110 forbids, or an invalid name. The error names the header, never
    ///   the value.
    public static func checked(name: String, value: String) throws(SecureHTTPError) -> HTTPField {
        guard let fieldName = HTTPField.Name(name) else {
            throw SecureHTTPError(.invalidHeaderValue, "'\(name.prefix(64))' is not a valid header name")
        }
        return try self.checked(name: fieldName, value: value)
    }

    /// Creates a field with a known name, refusing a value with CR, LF, NUL or another byte
    /// RFC 9110 forbids.
    ///
    /// - Throws: ``SecureHTTPError/Code/invalidHeaderValue``.
    public static func checked(name: HTTPField.Name, value: String) throws(SecureHTTPError) -> HTTPField {
        if value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) {
            throw SecureHTTPError(.invalidHeaderValue, "the value of \(name) contains CR, LF or NUL")
        }
        guard HTTPField.isValidValue(value) else {
            throw SecureHTTPError(.invalidHeaderValue, "the value of \(name) contains a character HTTP forbids")
        }
        return HTTPField(name: name, value: value)
    }
}

extension HTTPFields {
    /// Appends a field after checking its value with ``HTTPTypes/HTTPField/checked(name:value:)-(HTTPField.Name,_)``.
    ///
    /// - Throws: ``SecureHTTPError/Code/invalidHeaderValue``.
    public mutating func appendChecked(name: HTTPField.Name, value: String) throws(SecureHTTPError) {
        self.append(try HTTPField.checked(name: name, value: value))
    }

    /// Sets a field (replacing any of the same name) after checking its value.
    ///
    /// - Throws: ``SecureHTTPError/Code/invalidHeaderValue``.
    public mutating func setChecked(name: HTTPField.Name, value: String) throws(SecureHTTPError) {
        let field = try HTTPField.checked(name: name, value: value)
        self[name] = field.value
    }
}

extension HTTPField.Name {
    /// Whether the field carries credentials (`Authorization`, `Cookie`, `Set-Cookie`,
    /// `Proxy-Authorization`): its value is never logged or described, and tools that print an
    /// exchange redact it.
    public var carriesCredentials: Bool { SensitiveFields.names.contains(self) }
}

/// Credential-bearing header fields, whose values are never logged or described.
enum SensitiveFields {
    /// `DPoP` (RFC 9449) is among them: a proof is replayable until its `iat` window ends at a
    /// server that keeps no `jti` cache.
    static let names: Set<HTTPField.Name> = [
        .authorization, .cookie, .setCookie, .proxyAuthorization, HTTPField.Name("DPoP")!,
    ]

    /// A request target for logs: the path without its query (reset codes, API keys and
    /// `access_token=` travel there), `?…` marking that one was left out.
    static func loggablePath(_ target: String?) -> String {
        guard let target else { return "" }
        guard let query = target.firstIndex(of: "?") else { return target }
        return target[..<query] + "?…"
    }

    /// `name: value` lines with credential values replaced by `<redacted>`.
    static func redacted(_ fields: HTTPFields) -> String {
        fields.map { field in
            Self.names.contains(field.name) ? "\(field.name): <redacted>" : "\(field.name): \(field.value)"
        }.joined(separator: ", ")
    }
}

/// The `Host` field an app sets on a request (issue 51 item 20).
///
/// On HTTP/1.1 the field is written as the app set it; HTTP/2 has no `Host` (RFC 9113
/// §8.3.1: `:authority` carries the URL's authority) and drops it. A `Host` that named another
/// host than the URL would so reach the server on one protocol and not the other, and which one
/// a connection speaks is the server's choice in ALPN: both transports refuse it instead, the
/// same way on both protocols. A `Host` equal to the authority (host names compared without
/// case, the scheme's default port implied) is accepted; on HTTP/2 it becomes `:authority`.
enum HostField {
    static let name = HTTPField.Name("host")!

    /// - Throws: ``SecureHTTPError/Code/invalidRequest`` for more than one `Host` field, or one
    ///   that differs from the request's authority. The message names the authority, not the
    ///   field's value.
    static func check(_ request: HTTPRequest) throws(SecureHTTPError) {
        let values = request.headerFields[values: Self.name]
        guard let value = values.first else { return }
        guard values.count == 1 else {
            throw SecureHTTPError(.invalidRequest, "the request has more than one Host field")
        }
        guard let authority = request.authority,
            Self.sameAuthority(value, authority, defaultPort: Self.defaultPort(request.scheme))
        else {
            throw SecureHTTPError(
                .invalidRequest,
                "the request's Host field differs from its URL's authority "
                    + "\(OutsideText.escaped(request.authority ?? "(none)")): HTTP/2 sends only the URL's "
                    + "authority, so the field would reach the server on HTTP/1.1 only; put the host in the URL "
                    + "instead (a Host equal to the authority is accepted)"
            )
        }
    }

    static func defaultPort(_ scheme: String?) -> Int? {
        switch scheme?.lowercased() {
        case "https": return 443
        case "http": return 80
        default: return nil
        }
    }

    /// Whether two `host[:port]` texts name the same authority: the host without case, a
    /// missing port the scheme's default.
    static func sameAuthority(_ first: String, _ second: String, defaultPort: Int?) -> Bool {
        guard let first = Self.split(first), let second = Self.split(second) else { return false }
        return first.host.lowercased() == second.host.lowercased()
            && (first.port ?? defaultPort) == (second.port ?? defaultPort)
    }

    /// `host` and its port, the brackets of an IPv6 literal kept; nil for a malformed port.
    static func split(_ authority: String) -> (host: Substring, port: Int?)? {
        let text = authority[...]
        let hostEnd: Substring.Index
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            hostEnd = text.index(after: close)
        } else {
            hostEnd = text.firstIndex(of: ":") ?? text.endIndex
        }
        let host = text[..<hostEnd]
        let rest = text[hostEnd...]
        guard !host.isEmpty else { return nil }
        guard let colon = rest.first else { return (host, nil) }
        guard colon == ":", let port = Int(rest.dropFirst()), (0...65_535).contains(port),
            rest.dropFirst().allSatisfy(\.isASCII)
        else { return nil }
        return (host, port)
    }
}
