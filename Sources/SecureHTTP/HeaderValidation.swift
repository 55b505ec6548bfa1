public import HTTPTypes

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
