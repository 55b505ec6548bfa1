/// An HTTP proxy that `NIOHTTPTransport` opens every connection through, as a `CONNECT` tunnel
/// (RFC 9110 §9.3.6).
///
/// The proxy only relays bytes: TLS runs end to end through the tunnel, with the origin's host
/// name in SNI and the same chain, host-name and pin checks as a direct connection, so a proxy
/// that terminates TLS itself (a debugging proxy, an attacker) is refused unless the app trusts
/// its CA and pins nothing. The `CONNECT` request itself is plain HTTP to the proxy, as every
/// HTTP proxy expects. `URLSessionTransport` does not read this setting: on Apple platforms
/// URLSession follows the system's proxy settings.
public struct HTTPProxy: Hashable, Sendable, CustomStringConvertible {
    /// The proxy's host name or IP address.
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// The `Proxy-Authorization` value sent with each `CONNECT` (RFC 9110 §11.7.2), such as
    /// `Basic …`; nil sends none. It is a credential: never logged or described.
    public var authorization: String?

    /// Creates a proxy setting.
    public init(host: String, port: Int, authorization: String? = nil) {
        self.host = host
        self.port = port
        self.authorization = authorization
    }

    /// `http://host:port`, with `(authorization redacted)` when one is set.
    public var description: String {
        let authority = self.host.contains(":") ? "[\(self.host)]:\(self.port)" : "\(self.host):\(self.port)"
        return "http://\(authority)" + (self.authorization == nil ? "" : " (authorization redacted)")
    }

    /// Checks the setting before any connection is made: a host, a port in 1...65535 and an
    /// authorization value without CR, LF or NUL.
    func validate() throws(SecureHTTPError) {
        guard !self.host.isEmpty, !self.host.contains(where: { $0 == "/" || $0.isWhitespace }) else {
            throw SecureHTTPError(.invalidRequest, "the proxy host is not a host name or address")
        }
        guard (1...65_535).contains(self.port) else {
            throw SecureHTTPError(.invalidRequest, "the proxy port \(self.port) is not in 1...65535")
        }
        if let authorization = self.authorization,
            authorization.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 })
        {
            throw SecureHTTPError(.invalidHeaderValue, "the Proxy-Authorization value holds CR, LF or NUL")
        }
    }

    /// The authority-form request target of a `CONNECT` to `host:port` (RFC 9110 §9.3.6),
    /// bracketing an IPv6 literal (RFC 3986 §3.2.2).
    static func connectTarget(host: String, port: Int) -> (host: String, port: Int) {
        (host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host, port)
    }
}
