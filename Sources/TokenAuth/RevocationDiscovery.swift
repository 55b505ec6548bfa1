import Foundation
import HTTPTypes
import HTTPTypesFoundation
import SecureHTTP
import SecureNetworkingInternal
import SecureStorage

/// The revocation endpoint a server advertises in its authorization server metadata (RFC 8414),
/// read once, at the first sign-out that needs it.
///
/// The metadata is fetched from `/.well-known/oauth-authorization-server` on the token
/// endpoint's origin, through the endpoint's transport (its policy and pins), without following
/// a redirect. Its `revocation_endpoint` is used only when it is an `https` URL on that same
/// origin and the metadata's `issuer` (when present) is that origin (RFC 8414 §3.3): a refresh
/// token is never sent to a host the app did not configure. Only a definite answer is remembered
/// for the life of the process: a 404 (no metadata), or a 200 whose body is metadata (naming a
/// usable endpoint or not). Anything else says nothing lasting about the server and is asked
/// again at the next sign-out: a 5xx or 429 (an error, so the sign-out reports that it did not
/// revoke), a request that fails in the transport (an error too), or another status or a body
/// that is not metadata (no revocation this time).
final class RevocationDiscovery: Sendable {
    /// Where the metadata is read.
    let metadataURL: URL
    /// The origin the endpoint must be on: `scheme://host[:port]`, lowercased.
    private let origin: String
    /// nil: not read yet; `.some(nil)`: the server advertises none.
    private let found = Locked<URL??>(nil)

    /// The largest metadata document read.
    static let maximumMetadataSize = 64 * 1024

    /// Discovery for the server of `tokenEndpoint`; nil when that URL has no https origin.
    init?(tokenEndpoint: URL) {
        guard let origin = Self.origin(of: tokenEndpoint), origin.hasPrefix("https://") else { return nil }
        guard let url = URL(string: origin + "/.well-known/oauth-authorization-server") else { return nil }
        self.origin = origin
        self.metadataURL = url
    }

    /// The advertised revocation endpoint, or nil when the server advertises none on its origin.
    ///
    /// - Throws: ``TokenAuthError/Code/transportFailure`` when the metadata cannot be fetched,
    ///   ``TokenAuthError/Code/serverError`` when the server answered 5xx or 429 (with its
    ///   ``TokenAuthError/retryAfter``); neither is remembered.
    func endpoint(using transport: any HTTPTransport) async throws(TokenAuthError) -> URL? {
        if let known = self.found.withLock({ $0 }) { return known }
        var request = HTTPRequest(method: .get, url: self.metadataURL)
        request.headerFields[.accept] = "application/json"
        let response: HTTPTransportResponse
        do {
            response = try await transport.send(request, body: nil, options: .tokenEndpoint)
        } catch {
            throw TokenAuthError(
                .transportFailure,
                "the server's metadata (RFC 8414) could not be read",
                transportError: error
            )
        }
        let status = response.response.status.code
        if status == 429 || status >= 500 {
            // A server that is down or busy now may well publish metadata: ask again next time.
            throw TokenAuthError(
                .serverError,
                "the server's metadata (RFC 8414) could not be read: it answered \(status)",
                retryAfter: RetryAfter.parse(response.response.headerFields[.retryAfter], now: Date())
            )
        }
        let answer = self.answer(in: response)
        if answer.isDefinite {
            self.found.withLock { $0 = .some(answer.endpoint) }
        }
        return answer.endpoint
    }

    /// The revocation endpoint a metadata answer names, when it may be used.
    func revocationEndpoint(in response: HTTPTransportResponse) -> URL? {
        self.answer(in: response).endpoint
    }

    /// What a metadata answer says: the endpoint to use (nil: none), and whether that holds for
    /// the life of the process (a 404, or a 200 that is metadata) or only for this sign-out.
    func answer(in response: HTTPTransportResponse) -> (endpoint: URL?, isDefinite: Bool) {
        let status = response.response.status.code
        guard status == 200 else { return (nil, status == 404) }
        guard response.body.count <= Self.maximumMetadataSize,
            let metadata = try? JSONDecoder().decode(Metadata.self, from: response.body)
        else { return (nil, false) }
        if let issuer = metadata.issuer {
            // RFC 8414 §3.3: the issuer must be the one the metadata was asked of.
            guard let issuerURL = URL(string: issuer), Self.origin(of: issuerURL) == self.origin,
                issuerURL.path.isEmpty || issuerURL.path == "/"
            else { return (nil, true) }
        }
        guard let text = metadata.revocationEndpoint, let url = URL(string: text),
            Self.origin(of: url) == self.origin, url.query == nil, url.fragment == nil
        else { return (nil, true) }
        return (url, true)
    }

    /// `scheme://host[:port]` of `url`, lowercased, the port left out when it is the scheme's
    /// default; nil when the URL has no scheme or host, or carries user information.
    static func origin(of url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased(), !host.isEmpty,
            components.user == nil, components.password == nil
        else { return nil }
        let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
        let hostText = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port = components.port, port != defaultPort {
            return "\(scheme)://\(hostText):\(port)"
        }
        return "\(scheme)://\(hostText)"
    }

    /// The fields of RFC 8414 §2 the client reads.
    private struct Metadata: Decodable {
        var issuer: String?
        var revocationEndpoint: String?

        enum CodingKeys: String, CodingKey {
            case issuer
            case revocationEndpoint = "revocation_endpoint"
        }
    }
}
