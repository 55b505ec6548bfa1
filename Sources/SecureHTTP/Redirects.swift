import Foundation
import HTTPTypes
import HTTPTypesFoundation

/// The origin of a URL: scheme, host and effective port (RFC 6454).
struct Origin: Hashable, Sendable, CustomStringConvertible {
    let scheme: String
    let host: String
    let port: Int

    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else {
            return nil
        }
        self.scheme = scheme
        self.host = host
        self.port = url.port ?? (scheme == "http" ? 80 : 443)
    }

    var description: String { "\(self.scheme)://\(self.host):\(self.port)" }
}

/// One request of a redirect chain, as a transport sends it.
struct RedirectHop: Sendable {
    var request: HTTPRequest
    var body: Data?

    /// The hop's URL, built from the request when needed (a policy decision not yet memoised,
    /// a redirect to resolve): a keep-alive request to a known origin never parses one.
    var url: URL {
        // Every hop is checked before it is sent (``RequestTarget/isValid(_:)``), and a redirect
        // hop is built from a parsed URL, so this never falls back in practice.
        self.request.url ?? URL(string: "about:blank")!
    }
}

/// Checks of a request's target made without building a `URL`.
enum RequestTarget {
    /// Whether the request has a scheme, a non-empty authority and a path made only of the
    /// characters RFC 3986 allows in a path and query (unreserved, sub-delims, `:`, `@`, `/`,
    /// `?` and percent-encoded octets). No space, control character or quote can reach the
    /// request line.
    static func isValid(_ request: HTTPRequest) -> Bool {
        guard let scheme = request.scheme, !scheme.isEmpty, let authority = request.authority, !authority.isEmpty,
            let path = request.path, path.utf8.first == UInt8(ascii: "/")
        else {
            return false
        }
        let authorityBytes = Self.authorityBytes
        let pathBytes = Self.pathBytes
        for byte in authority.utf8 where !authorityBytes.contains(byte) {
            return false
        }
        var pending = 0  // hex digits still expected after a %
        for byte in path.utf8 {
            if pending > 0 {
                guard Self.isHexDigit(byte) else { return false }
                pending -= 1
            } else if byte == UInt8(ascii: "%") {
                pending = 2
            } else if !pathBytes.contains(byte) {
                return false
            }
        }
        return pending == 0
    }

    /// The ASCII bytes allowed, as a 128-bit set: one shift and mask per byte of every
    /// request's path and authority.
    struct ByteSet {
        private let low: UInt64
        private let high: UInt64

        init(_ member: (UInt8) -> Bool) {
            var low: UInt64 = 0
            var high: UInt64 = 0
            for byte in UInt8(0)..<128 where member(byte) {
                if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
            }
            self.low = low
            self.high = high
        }

        func contains(_ byte: UInt8) -> Bool {
            if byte < 64 { return self.low >> UInt64(byte) & 1 == 1 }
            if byte < 128 { return self.high >> UInt64(byte - 64) & 1 == 1 }
            return false
        }
    }

    private static let pathBytes = ByteSet(Self.allowedInPath)
    private static let authorityBytes = ByteSet(Self.allowedInAuthority)

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "~")
    }

    private static func isSubDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="):
            true
        default:
            false
        }
    }

    private static func allowedInPath(_ byte: UInt8) -> Bool {
        Self.isUnreserved(byte) || Self.isSubDelimiter(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@")
            || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?")
    }

    private static func allowedInAuthority(_ byte: UInt8) -> Bool {
        Self.isUnreserved(byte) || Self.isSubDelimiter(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@")
            || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "%")
    }
}

/// The redirect rules, without I/O: which statuses redirect, how the method and body change,
/// which credentials are dropped, and what is refused.
struct RedirectRules: Sendable {
    let policy: RedirectPolicy
    /// The fields removed when a redirect leaves the origin.
    let strippedFields: [HTTPField.Name]
    /// Whether a cross-origin 307/308 keeps the body.
    let forwardsBodyAcrossOrigins: Bool
    private(set) var followed = 0
    /// Whether a redirect has left the origin of the hop before it; sticky, because the fields
    /// removed then are not restored.
    private(set) var crossedOrigin = false
    /// The hops visited so far, as method and URL. The first hop's key is only written when a
    /// redirect actually happens, so a plain request builds no string for it.
    private var visited: Set<String> = []
    private var first: RedirectHop?

    init(
        policy: RedirectPolicy,
        first: RedirectHop,
        strippedFields: [HTTPField.Name] = HTTPTransportConfiguration.defaultCrossOriginStrippedFields,
        forwardsBodyAcrossOrigins: Bool = false
    ) {
        self.policy = policy
        self.first = first
        self.strippedFields = strippedFields
        self.forwardsBodyAcrossOrigins = forwardsBodyAcrossOrigins
    }

    static func isRedirect(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: true
        default: false
        }
    }

    /// The next hop after `response`, or nil when the response is final.
    ///
    /// - Throws: ``SecureHTTPError/Code/insecureRedirect`` (https → http),
    ///   ``SecureHTTPError/Code/tooManyRedirects``, ``SecureHTTPError/Code/redirectLoop``,
    ///   ``SecureHTTPError/Code/invalidRedirect`` (a `Location` that is not a URL).
    mutating func next(after response: HTTPResponse, of hop: RedirectHop) throws(SecureHTTPError) -> RedirectHop? {
        guard self.policy.maximum > 0, Self.isRedirect(response.status.code),
            let location = response.headerFields[.location]
        else {
            return nil
        }
        guard let target = URL(string: location, relativeTo: hop.url)?.absoluteURL,
            let targetOrigin = Origin(target), let sourceOrigin = Origin(hop.url)
        else {
            throw SecureHTTPError(.invalidRedirect, "\(response.status.code) with a Location that is not a URL")
        }
        if sourceOrigin.scheme == "https" && targetOrigin.scheme != "https" {
            throw SecureHTTPError(
                .insecureRedirect,
                "refused redirect from \(sourceOrigin) to \(targetOrigin): https is never downgraded"
            )
        }
        if self.followed >= self.policy.maximum {
            throw SecureHTTPError(.tooManyRedirects, "more than \(self.policy.maximum) redirects")
        }

        if let first = self.first {
            self.visited.insert(Self.visitKey(first))
            self.first = nil
        }
        var request = hop.request
        var body = hop.body
        let status = response.status.code
        if status == 303 && request.method != .head || (status == 301 || status == 302) && request.method == .post {
            request.method = .get
            body = nil
            request.headerFields[.contentType] = nil
            request.headerFields[.contentLength] = nil
            request.headerFields[.transferEncoding] = nil
        }
        if targetOrigin != sourceOrigin {
            self.crossedOrigin = true
            for name in self.strippedFields {
                request.headerFields[name] = nil
            }
            // A 307/308 keeps the method and body (RFC 9110 §15.4.8, §15.4.9); a body bound for
            // one origin (a password, a refresh token) does not go to another unless asked.
            if body != nil, !self.forwardsBodyAcrossOrigins {
                body = nil
                request.headerFields[.contentType] = nil
                request.headerFields[.contentLength] = nil
                request.headerFields[.transferEncoding] = nil
            }
        }
        request.url = target
        let next = RedirectHop(request: request, body: body)
        let key = Self.visitKey(next)
        if self.visited.contains(key) {
            throw SecureHTTPError(.redirectLoop, "redirect loop back to \(targetOrigin)\(target.path)")
        }
        self.visited.insert(key)
        self.followed += 1
        return next
    }

    private static func visitKey(_ hop: RedirectHop) -> String {
        "\(hop.request.method.rawValue) \(hop.url.absoluteString)"
    }
}
