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
    var url: URL
    var body: Data?
}

/// The redirect rules, without I/O: which statuses redirect, how the method and body change,
/// which credentials are dropped, and what is refused.
struct RedirectRules: Sendable {
    let policy: RedirectPolicy
    private(set) var followed = 0
    /// The hops visited so far, as method and URL. The first hop's key is only written when a
    /// redirect actually happens, so a plain request builds no string for it.
    private var visited: Set<String> = []
    private var first: RedirectHop?

    init(policy: RedirectPolicy, first: RedirectHop) {
        self.policy = policy
        self.first = first
    }

    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The next hop after `response`, or nil when the response is final.
    ///
    /// - Throws: ``SecureHTTPError/Code/insecureRedirect`` (https → http),
    ///   ``SecureHTTPError/Code/tooManyRedirects``, ``SecureHTTPError/Code/redirectLoop``,
    ///   ``SecureHTTPError/Code/invalidRedirect`` (a `Location` that is not a URL).
    mutating func next(after response: HTTPResponse, of hop: RedirectHop) throws(SecureHTTPError) -> RedirectHop? {
        guard self.policy.maximum > 0, Self.redirectStatuses.contains(response.status.code),
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
            for name in SensitiveFields.crossOrigin {
                request.headerFields[name] = nil
            }
        }
        request.url = target
        let next = RedirectHop(request: request, url: target, body: body)
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
