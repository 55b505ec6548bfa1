public import Foundation
import HTTPTypes
import HTTPTypesFoundation
public import SecureHTTP
import SecureNetworkingInternal

/// An OAuth 2 token endpoint (RFC 6749) reached through an `HTTPTransport`: the refresh-token,
/// password and client-credentials grants, with RFC 6749 §5.2 errors parsed into
/// ``TokenAuthError``.
///
/// Requests carry `Cache-Control: no-store`; nothing in them (passwords, secrets, tokens) is
/// ever put in an error or a description.
public struct OAuthTokenEndpoint: TokenRefresher {
    /// How the client authenticates to the endpoint (RFC 6749 §2.3).
    public struct ClientAuthentication: Sendable, CustomStringConvertible {
        enum Method: Sendable {
            case none
            case basic(secret: String)
            case body(secret: String)
        }

        let clientID: String
        let method: Method

        /// A public client (a mobile app): `client_id` in the body, no secret.
        public static func publicClient(id: String) -> ClientAuthentication {
            ClientAuthentication(clientID: id, method: .none)
        }

        /// HTTP Basic with the form-encoded id and secret (`client_secret_basic`).
        public static func basic(id: String, secret: String) -> ClientAuthentication {
            ClientAuthentication(clientID: id, method: .basic(secret: secret))
        }

        /// Id and secret in the request body (`client_secret_post`).
        public static func post(id: String, secret: String) -> ClientAuthentication {
            ClientAuthentication(clientID: id, method: .body(secret: secret))
        }

        /// The client id and method; the secret is redacted.
        public var description: String {
            switch self.method {
            case .none: "ClientAuthentication(\(self.clientID), public)"
            case .basic: "ClientAuthentication(\(self.clientID), basic, secret redacted)"
            case .body: "ClientAuthentication(\(self.clientID), post, secret redacted)"
            }
        }
    }

    /// How the request body is encoded.
    public struct BodyEncoding: Hashable, Sendable {
        let isJSON: Bool
        /// `application/x-www-form-urlencoded`, as RFC 6749 requires.
        public static let form = BodyEncoding(isJSON: false)
        /// `application/json`, which many app backends expect instead.
        public static let json = BodyEncoding(isJSON: true)
    }

    /// The token endpoint's URL.
    public let url: URL
    /// The transport (policy, pins and limits apply to the token endpoint like any other host).
    public let transport: any HTTPTransport
    /// How the client authenticates.
    public let client: ClientAuthentication
    /// How the body is encoded. Default: form.
    public let encoding: BodyEncoding
    /// The revocation endpoint (RFC 7009) the endpoint was given, if any: a ``TokenManager``
    /// revokes the refresh token there when the user signs out. Requests to it are always
    /// form-encoded, as RFC 7009 §2.1 requires. nil with ``Revocation/advertised``.
    public let revocationURL: URL?
    /// Where a sign-out revokes the refresh token.
    public let revocation: Revocation
    /// The metadata reader of ``Revocation/advertised``.
    let discovery: RevocationDiscovery?
    /// The DPoP signer (RFC 9449), when the tokens are to be bound to its key: every token
    /// request carries a proof (§5), a `use_dpop_nonce` challenge is answered with the nonce the
    /// endpoint supplied, up to ``DPoPNonceRetry/maximumRetries`` times (§8), and a token response must say `token_type: DPoP` (a
    /// `Bearer` token, which anyone holding it could use, is refused with
    /// ``TokenAuthError/Code/invalidResponse``).
    public let dpop: DPoPSigner?

    /// Where a sign-out revokes the refresh token (RFC 7009).
    public struct Revocation: Sendable, CustomStringConvertible {
        enum Kind: Sendable {
            case none
            case url(URL)
            case advertised
        }

        let kind: Kind

        /// No revocation: a sign-out only forgets the tokens on the device, and the refresh token
        /// stays valid at the server until it expires or is used by whoever holds a copy.
        public static let none = Revocation(kind: .none)

        /// The revocation endpoint at `url`.
        ///
        /// - Parameter url: the endpoint, usually on the token endpoint's server.
        public static func at(_ url: URL) -> Revocation { Revocation(kind: .url(url)) }

        /// The `revocation_endpoint` the server advertises in its authorization server metadata
        /// (RFC 8414, `/.well-known/oauth-authorization-server` on the token endpoint's origin),
        /// read at the first sign-out and remembered once the server has answered it for good (a
        /// 404, or a 200 with metadata); a 5xx or 429 fails that sign-out's revocation
        /// (``TokenAuthError/Code/serverError``) and is asked again at the next. It is used only when it is on the token
        /// endpoint's own origin (scheme, host and port) and the metadata's `issuer` is that
        /// origin, so a refresh token never goes to a host the app did not configure. A server
        /// that publishes no metadata, or none naming a revocation endpoint, is not revoked at.
        public static let advertised = Revocation(kind: .advertised)

        /// `none`, `advertised`, or the endpoint's URL.
        public var description: String {
            switch self.kind {
            case .none: "none"
            case .url(let url): url.absoluteString
            case .advertised: "advertised"
            }
        }
    }

    /// Creates an endpoint client.
    ///
    /// - Parameters:
    ///   - url: the token endpoint.
    ///   - transport: the transport requests go through (its policy and pins apply).
    ///   - client: how the client authenticates.
    ///   - encoding: how request bodies are encoded. Default form.
    ///   - revocationURL: the revocation endpoint (RFC 7009), if the server has one. Default nil.
    ///   - dpop: the DPoP signer, when the tokens are to be bound to its key. Default nil.
    public init(
        url: URL,
        transport: any HTTPTransport,
        client: ClientAuthentication,
        encoding: BodyEncoding = .form,
        revocationURL: URL? = nil,
        dpop: DPoPSigner? = nil
    ) {
        self.init(
            url: url,
            transport: transport,
            client: client,
            encoding: encoding,
            revocation: revocationURL.map(Revocation.at) ?? .none,
            dpop: dpop
        )
    }

    /// Creates an endpoint client that revokes where `revocation` says.
    ///
    /// - Parameters:
    ///   - url: the token endpoint.
    ///   - transport: the transport requests go through (its policy and pins apply).
    ///   - client: how the client authenticates.
    ///   - encoding: how request bodies are encoded. Default form.
    ///   - revocation: where a sign-out revokes the refresh token: ``Revocation/advertised``
    ///     reads the server's metadata (RFC 8414).
    ///   - dpop: the DPoP signer, when the tokens are to be bound to its key. Default nil.
    public init(
        url: URL,
        transport: any HTTPTransport,
        client: ClientAuthentication,
        encoding: BodyEncoding = .form,
        revocation: Revocation,
        dpop: DPoPSigner? = nil
    ) {
        self.url = url
        self.transport = transport
        self.client = client
        self.encoding = encoding
        self.revocation = revocation
        switch revocation.kind {
        case .url(let revocationURL):
            self.revocationURL = revocationURL
            self.discovery = nil
        case .advertised:
            self.revocationURL = nil
            self.discovery = RevocationDiscovery(tokenEndpoint: url)
        case .none:
            self.revocationURL = nil
            self.discovery = nil
        }
        self.dpop = dpop
    }

    /// Revokes the refresh token (RFC 7009 §2.1, `token_type_hint` `refresh_token`) at
    /// ``revocationURL``, or at the endpoint the server advertises with ``Revocation/advertised``;
    /// does nothing when there is none.
    public func revoke(refreshToken: String) async throws(TokenAuthError) {
        var endpoint = self.revocationURL
        if endpoint == nil, let discovery = self.discovery {
            endpoint = try await discovery.endpoint(using: self.transport)
        }
        guard let endpoint else { return }
        try await self.revoke(refreshToken, typeHint: "refresh_token", at: endpoint)
    }

    /// Revokes a token (RFC 7009 §2.1) with the endpoint's client authentication. The server
    /// answers 200 whether or not it knew the token (§2.2).
    ///
    /// - Throws: ``TokenAuthError/Code/serverError`` for 503 or 429 (with
    ///   ``TokenAuthError/retryAfter``), ``TokenAuthError/Code/authorizationRejected`` for an
    ///   RFC 6749 §5.2 error such as `unsupported_token_type` (§2.2.1) or `invalid_client`,
    ///   ``TokenAuthError/Code/transportFailure`` when it cannot be reached.
    public func revoke(_ token: String, typeHint: String, at revocationURL: URL) async throws(TokenAuthError) {
        let response = try await self.post(
            [("token", token), ("token_type_hint", typeHint)],
            to: revocationURL,
            encoding: .form,
            what: "the revocation endpoint"
        )
        let status = response.response.status.code
        if status == 200 { return }
        if status == 429 || status >= 500 {
            let retryAfter = RetryAfter.parse(response.response.headerFields[.retryAfter], now: Date())
            throw TokenAuthError(.serverError, "the revocation endpoint answered \(status)", retryAfter: retryAfter)
        }
        let code = (try? JSONDecoder().decode(OAuthErrorBody.self, from: response.body))?.error
        throw TokenAuthError(
            code == "invalid_client" ? .invalidClient : .authorizationRejected,
            "the revocation endpoint answered \(status) \(code ?? "without an OAuth error")",
            oauthError: code
        )
    }

    /// The refresh-token grant (RFC 6749 §6).
    public func refresh(using refreshToken: String) async throws(TokenAuthError) -> TokenResponse {
        try await self.grant("refresh_token", [("refresh_token", refreshToken)])
    }

    /// The resource-owner password grant (RFC 6749 §4.3), for an app's own login screen.
    public func signIn(
        username: String,
        password: String,
        scope: String? = nil
    ) async throws(TokenAuthError) -> TokenResponse {
        var parameters = [("username", username), ("password", password)]
        if let scope { parameters.append(("scope", scope)) }
        return try await self.grant("password", parameters)
    }

    /// The client-credentials grant (RFC 6749 §4.4).
    public func clientCredentials(scope: String? = nil) async throws(TokenAuthError) -> TokenResponse {
        try await self.grant("client_credentials", scope.map { [("scope", $0)] } ?? [])
    }

    /// A token request of grant type `grant` (RFC 6749 §4) with the client's authentication.
    func grant(_ grant: String, _ parameters: [(String, String)]) async throws(TokenAuthError) -> TokenResponse {
        let response = try await self.post(
            [("grant_type", grant)] + parameters,
            to: self.url,
            encoding: self.encoding,
            what: "the token endpoint",
            dpop: self.dpop
        )
        let token = try Self.parse(response)
        if self.dpop != nil, !token.isDPoPBound {
            // RFC 9449 §5: a client that asked for a DPoP-bound token may discard a Bearer one.
            // It does: the app chose DPoP so that a stolen token would be useless.
            throw TokenAuthError(
                .invalidResponse,
                "the token endpoint issued a \(token.tokenType.prefix(20)) token to a request with a DPoP proof; only a DPoP-bound token is accepted"
            )
        }
        return token
    }

    /// POSTs `fields` with the client's authentication, on the token endpoint's lane (no
    /// redirects followed, no cache); with `dpop`, with a proof, and again with the nonce each
    /// `use_dpop_nonce` answer supplied, as ``DPoPNonceRetry`` says (RFC 9449 §8).
    private func post(
        _ parameters: [(String, String)],
        to url: URL,
        encoding: BodyEncoding,
        what: String,
        dpop: DPoPSigner? = nil
    ) async throws(TokenAuthError) -> HTTPTransportResponse {
        var fields = parameters
        var request = HTTPRequest(method: .post, url: url)
        request.headerFields[.accept] = "application/json"
        request.headerFields[.cacheControl] = "no-store"
        switch self.client.method {
        case .none:
            fields.append(("client_id", self.client.clientID))
        case .body(let secret):
            fields += [("client_id", self.client.clientID), ("client_secret", secret)]
        case .basic(let secret):
            let credentials = "\(FormEncoding.encode(self.client.clientID)):\(FormEncoding.encode(secret))"
            request.headerFields[.authorization] = "Basic \(Data(credentials.utf8).base64EncodedString())"
        }
        let body: Data
        if encoding.isJSON {
            request.headerFields[.contentType] = "application/json"
            let object = Dictionary(fields, uniquingKeysWith: { _, last in last })
            body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        } else {
            request.headerFields[.contentType] = "application/x-www-form-urlencoded"
            body = Data(FormEncoding.encode(fields).utf8)
        }

        var nonces = DPoPNonceRetry()
        while true {
            if let dpop {
                request.headerFields[DPoPSigner.headerName] = try dpop.proof(for: request)
            }
            let response: HTTPTransportResponse
            do {
                response = try await self.transport.send(request, body: body, options: .tokenEndpoint)
            } catch {
                throw TokenAuthError(.transportFailure, "\(what) could not be reached", transportError: error)
            }
            guard let dpop else { return response }
            dpop.noteNonce(in: response.response, to: request)
            guard try nonces.shouldRetry(after: response.response, body: response.body) else { return response }
        }
    }

    /// Parses a token endpoint answer: a token response on 200, an RFC 6749 §5.2 error otherwise.
    static func parse(_ response: HTTPTransportResponse) throws(TokenAuthError) -> TokenResponse {
        let status = response.response.status.code
        if status == 200 {
            guard let token = try? JSONDecoder().decode(TokenResponse.self, from: response.body),
                !token.accessToken.isEmpty
            else {
                throw TokenAuthError(.invalidResponse, "the token endpoint's 200 answer is not a token response")
            }
            guard token.tokenType.lowercased() == "bearer" || token.tokenType.lowercased() == "dpop" else {
                throw TokenAuthError(.invalidResponse, "unsupported token type '\(token.tokenType.prefix(20))'")
            }
            return token
        }
        if (300...399).contains(status) {
            // RFC 6749 §3.2 gives the endpoint a fixed URL; following a redirect would re-send
            // the grant (a refresh token, a password, a client secret) to wherever it points.
            throw TokenAuthError(
                .invalidResponse,
                "the token endpoint answered \(status); redirects are never followed for the token endpoint"
            )
        }
        if status == 429 || status >= 500 {
            let retryAfter = RetryAfter.parse(response.response.headerFields[.retryAfter], now: Date())
            throw TokenAuthError(
                .serverError,
                "the token endpoint answered \(status)\(retryAfter.map { " (Retry-After: \($0))" } ?? "")",
                retryAfter: retryAfter
            )
        }
        let error = try? JSONDecoder().decode(OAuthErrorBody.self, from: response.body)
        let code = error?.error
        let detail = error?.errorDescription.map { ": \($0.prefix(200))" } ?? ""
        switch (status, code) {
        case (_, "invalid_dpop_proof"), (_, "use_dpop_nonce"):
            throw TokenAuthError(
                .proofOfPossessionFailed,
                "the token endpoint refused the DPoP proof (\(code!))\(detail)",
                oauthError: code
            )
        case (_, "invalid_grant"):
            throw TokenAuthError(
                .invalidGrant,
                "the token endpoint refused the grant (invalid_grant)\(detail)",
                oauthError: code
            )
        case (_, "invalid_client"):
            throw TokenAuthError(
                .invalidClient,
                "the token endpoint refused the client (invalid_client)\(detail)",
                oauthError: code
            )
        case (400, _), (401, _):
            throw TokenAuthError(
                .authorizationRejected,
                "the token endpoint answered \(status) \(code ?? "without an OAuth error")\(detail)",
                oauthError: code
            )
        default:
            throw TokenAuthError(.invalidResponse, "the token endpoint answered \(status)", oauthError: code)
        }
    }
}

/// An RFC 6749 §5.2 error body.
struct OAuthErrorBody: Decodable {
    let error: String
    let errorDescription: String?

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
    }
}

/// `application/x-www-form-urlencoded` (RFC 6749 Appendix B: UTF-8, then percent-encoding of
/// everything but unreserved characters, space as `+`).
enum FormEncoding {
    static func encode(_ text: String) -> String {
        PercentEncoder.encode(text, spaceAsPlus: true)
    }

    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
    }

    static func decode(_ body: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func unescape(_ part: Substring) -> String {
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            result[unescape(parts[0])] = parts.count > 1 ? unescape(parts[1]) : ""
        }
        return result
    }
}

extension OAuthTokenEndpoint.ClientAuthentication: CustomReflectable {
    /// What `dump()`, debuggers and `Mirror` see: the client id and method, the secret redacted.
    public var customMirror: Mirror {
        let method: String
        switch self.method {
        case .none: method = "public"
        case .basic: method = "basic, secret <redacted>"
        case .body: method = "post, secret <redacted>"
        }
        return Mirror(self, children: ["clientID": self.clientID, "method": method], displayStyle: .struct)
    }
}
