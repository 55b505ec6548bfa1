import Crypto
public import Foundation
import SecureNetworkingInternal

/// A Proof Key for Code Exchange (RFC 7636) with the `S256` method, the only one this library
/// sends (RFC 9700 §2.1.1: `plain` offers no protection against a stolen authorization code).
public struct PKCE: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// `code_verifier`: 43 to 128 characters of `[A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~"`
    /// (RFC 7636 §4.1). Sent only to the token endpoint; never logged or described.
    public let verifier: String

    /// A verifier from 32 random bytes, base64url without padding (43 characters, as RFC 7636
    /// §4.1 recommends).
    public init() {
        self.verifier = Base64URL.encode(Self.randomBytes(32))
    }

    /// A given verifier (for tests and known-answer vectors).
    /// - Throws: ``TokenAuthError/Code/invalidAuthorizationResponse`` when it is not 43 to 128
    ///   unreserved characters.
    public init(verifier: String) throws(TokenAuthError) {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        guard (43...128).contains(verifier.utf8.count), verifier.utf8.allSatisfy(allowed.contains) else {
            throw TokenAuthError(.invalidAuthorizationResponse, "a PKCE verifier is 43 to 128 unreserved characters")
        }
        self.verifier = verifier
    }

    /// `code_challenge`: BASE64URL(SHA256(ASCII(code_verifier))) (RFC 7636 §4.2).
    public var challenge: String {
        Base64URL.encode(Array(SHA256.hash(data: Data(self.verifier.utf8))))
    }

    /// `code_challenge_method`: always `S256`.
    public static let method = "S256"

    /// The method; the verifier is redacted.
    public var description: String { "PKCE(S256, verifier <redacted>)" }

    /// The same as ``description``.
    public var debugDescription: String { self.description }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

/// An authorization request with the authorization code grant and PKCE (RFC 6749 §4.1.1,
/// RFC 7636 §4.3; RFC 8252 for native apps), and the check of the redirect that answers it.
///
/// ```swift
/// let request = AuthorizationRequest(
///     authorizationEndpoint: URL(string: "https://auth.example.com/oauth/authorize")!,
///     clientID: "ios-app",
///     redirectURI: URL(string: "com.example.app:/oauth/callback")!,
///     scopes: ["profile"]
/// )
/// // Open request.url in ASWebAuthenticationSession (or a browser with a loopback redirect),
/// // then, with the URL the browser was redirected to:
/// let response = try request.response(from: redirectedURL)
/// let tokens = try await tokenEndpoint.exchange(response, for: request)
/// try await tokenManager.signIn(TokenBundle(tokens, receivedAt: Date()))
/// ```
///
/// Each request has its own `state` (32 random bytes) and PKCE verifier, and a `nonce` when the
/// scopes include `openid`. Keep the request until its redirect arrives; use it once.
public struct AuthorizationRequest: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The authorization server's authorization endpoint.
    public let authorizationEndpoint: URL
    /// `client_id`.
    public let clientID: String
    /// `redirect_uri`: a claimed `https` URL, a private-use scheme (`com.example.app:/callback`)
    /// or a loopback `http://127.0.0.1:PORT/…` (RFC 8252 §7).
    public let redirectURI: URL
    /// `scope`, space-separated on the wire.
    public let scopes: [String]
    /// `state`: binds the redirect to this request (RFC 6749 §10.12).
    public let state: String
    /// `nonce` (OpenID Connect Core §3.1.2.1), when the scopes include `openid`.
    public let nonce: String?
    /// The PKCE verifier and challenge.
    public let pkce: PKCE
    /// The authorization server the request is sent to, when the app knows it: its redirect's
    /// `iss` (RFC 9207) is checked against it. Nil: `iss` is not checked.
    public let issuer: Issuer?

    /// The authorization server's issuer identifier (RFC 8414 `issuer`) and whether it says it
    /// sends `iss` in its authorization responses (RFC 9207 §3,
    /// `authorization_response_iss_parameter_supported`).
    ///
    /// A redirect whose `iss` differs from ``identifier`` is refused (a mix-up attack: another
    /// server's response sent to this request's redirect URI). A redirect without `iss` is
    /// accepted from a server that does not say it sends one (most do not yet), and refused from
    /// one that does (RFC 9207 §2.4): there the missing `iss` can only mean a response that did
    /// not come from it.
    public struct Issuer: Sendable, Hashable {
        /// The issuer identifier: an `https` URL without query or fragment, compared with `iss`
        /// character for character (RFC 9207 §2.4, RFC 3986 §6.2.1).
        public var identifier: String
        /// Whether the server's metadata has `authorization_response_iss_parameter_supported:
        /// true`: then every redirect must carry `iss`.
        public var sendsIssuerInResponses: Bool

        /// An issuer.
        public init(_ identifier: String, sendsIssuerInResponses: Bool = false) {
            self.identifier = identifier
            self.sendsIssuerInResponses = sendsIssuerInResponses
        }
    }

    /// A request with a fresh `state`, PKCE verifier and (for `openid`) `nonce`, whose redirect's
    /// `iss` is not checked (RFC 9207 needs the issuer: see ``init(authorizationEndpoint:clientID:redirectURI:scopes:issuer:)``).
    public init(authorizationEndpoint: URL, clientID: String, redirectURI: URL, scopes: [String] = []) {
        self.init(
            authorizationEndpoint: authorizationEndpoint,
            clientID: clientID,
            redirectURI: redirectURI,
            scopes: scopes,
            issuer: nil
        )
    }

    /// A request with a fresh `state`, PKCE verifier and (for `openid`) `nonce`.
    ///
    /// - Parameters:
    ///   - authorizationEndpoint: the server's authorization endpoint.
    ///   - clientID: the app's client identifier.
    ///   - redirectURI: where the server sends the browser back.
    ///   - scopes: the scopes asked for.
    ///   - issuer: the authorization server, when known: the redirect's `iss` is checked against
    ///     it (RFC 9207).
    public init(
        authorizationEndpoint: URL,
        clientID: String,
        redirectURI: URL,
        scopes: [String] = [],
        issuer: Issuer?
    ) {
        self.init(
            authorizationEndpoint: authorizationEndpoint,
            clientID: clientID,
            redirectURI: redirectURI,
            scopes: scopes,
            state: Base64URL.encode(PKCE.randomBytes(32)),
            nonce: scopes.contains("openid") ? Base64URL.encode(PKCE.randomBytes(32)) : nil,
            pkce: PKCE(),
            issuer: issuer
        )
    }

    /// A request with given values (for tests and known-answer vectors).
    public init(
        authorizationEndpoint: URL,
        clientID: String,
        redirectURI: URL,
        scopes: [String],
        state: String,
        nonce: String?,
        pkce: PKCE
    ) {
        self.init(
            authorizationEndpoint: authorizationEndpoint,
            clientID: clientID,
            redirectURI: redirectURI,
            scopes: scopes,
            state: state,
            nonce: nonce,
            pkce: pkce,
            issuer: nil
        )
    }

    /// A request with given values and an issuer (for tests and known-answer vectors).
    public init(
        authorizationEndpoint: URL,
        clientID: String,
        redirectURI: URL,
        scopes: [String],
        state: String,
        nonce: String?,
        pkce: PKCE,
        issuer: Issuer?
    ) {
        self.authorizationEndpoint = authorizationEndpoint
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.state = state
        self.nonce = nonce
        self.pkce = pkce
        self.issuer = issuer
    }

    /// The URL to open: the endpoint with `response_type=code`, `client_id`, `redirect_uri`,
    /// `scope`, `state`, `code_challenge`, `code_challenge_method=S256` and `nonce`, added to
    /// any query the endpoint already has.
    public var url: URL {
        var components = URLComponents(url: self.authorizationEndpoint, resolvingAgainstBaseURL: false)
        var items = components?.queryItems ?? []
        items += [
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "client_id", value: self.clientID),
            URLQueryItem(name: "redirect_uri", value: self.redirectURI.absoluteString),
        ]
        if !self.scopes.isEmpty { items.append(URLQueryItem(name: "scope", value: self.scopes.joined(separator: " "))) }
        items += [
            URLQueryItem(name: "state", value: self.state),
            URLQueryItem(name: "code_challenge", value: self.pkce.challenge),
            URLQueryItem(name: "code_challenge_method", value: PKCE.method),
        ]
        if let nonce { items.append(URLQueryItem(name: "nonce", value: nonce)) }
        // Spaces as %20, which form decoding and RFC 3986 decoding read alike (`+` is a space
        // only to the former).
        func encode(_ text: String) -> String { PercentEncoder.encode(text) }
        components?.percentEncodedQuery = items.map { "\(encode($0.name))=\(encode($0.value ?? ""))" }.joined(
            separator: "&"
        )
        return components?.url ?? self.authorizationEndpoint
    }

    /// Reads the redirect that answers this request (RFC 6749 §4.1.2): its `state` must be this
    /// request's (compared in constant time), its `iss` the request's ``issuer`` (RFC 9207, see
    /// ``Issuer``), then either a `code` or an error (§4.1.2.1).
    ///
    /// - Throws: ``TokenAuthError/Code/invalidAuthorizationResponse`` for a redirect to another
    ///   URI, without `state`, with another `state`, with an `iss` that is not the ``issuer``'s
    ///   (or without one from an issuer that sends it), or without `code`;
    ///   ``TokenAuthError/Code/authorizationRejected`` with ``TokenAuthError/oauthError`` for an
    ///   error redirect whose `state` matches (`access_denied`, `invalid_request`, …).
    public func response(from redirect: URL) throws(TokenAuthError) -> AuthorizationResponse {
        guard Self.sameEndpoint(redirect, self.redirectURI) else {
            throw TokenAuthError(.invalidAuthorizationResponse, "the redirect is not to this request's redirect URI")
        }
        let fields = FormEncoding.decode(
            URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
        )
        guard let state = fields["state"] else {
            throw TokenAuthError(.invalidAuthorizationResponse, "the redirect has no state")
        }
        guard constantTimeEquals(Array(state.utf8), Array(self.state.utf8)) else {
            throw TokenAuthError(.invalidAuthorizationResponse, "the redirect's state is not this request's")
        }
        // RFC 9207 §2.4: checked before the response is used, error responses included.
        if let issuer = self.issuer {
            if let iss = fields["iss"] {
                guard iss == issuer.identifier else {
                    throw TokenAuthError(
                        .invalidAuthorizationResponse,
                        "the redirect's issuer (iss) is not this request's authorization server"
                    )
                }
            } else if issuer.sendsIssuerInResponses {
                throw TokenAuthError(
                    .invalidAuthorizationResponse,
                    "the redirect has no issuer (iss), which this authorization server always sends (RFC 9207)"
                )
            }
        }
        if let error = fields["error"] {
            let description = fields["error_description"].map { ": \($0.prefix(200))" } ?? ""
            throw TokenAuthError(
                .authorizationRejected,
                "the authorization server answered \(error.prefix(64))\(description)",
                oauthError: error
            )
        }
        guard let code = fields["code"], !code.isEmpty else {
            throw TokenAuthError(.invalidAuthorizationResponse, "the redirect has no code")
        }
        return AuthorizationResponse(code: code)
    }

    /// What the completion of an in-app browser session (`ASWebAuthenticationSession`) means:
    /// the callback URL is read as the redirect (``response(from:)``); without one, a
    /// cancellation by the user, or a session that ended some other way. The Apple adapter
    /// passes its completion here, so every decision is made by this portable code.
    ///
    /// - Throws: ``TokenAuthError/Code/authorizationCancelled`` when the user cancelled;
    ///   ``TokenAuthError/Code/invalidAuthorizationResponse`` when the session ended without a
    ///   callback; or as ``response(from:)``.
    public func response(
        fromBrowserCallback callbackURL: URL?,
        userCancelled: Bool
    ) throws(TokenAuthError) -> AuthorizationResponse {
        if let callbackURL { return try self.response(from: callbackURL) }
        if userCancelled { throw TokenAuthError(.authorizationCancelled, "the user cancelled the sign-in") }
        throw TokenAuthError(.invalidAuthorizationResponse, "the browser session ended without a callback")
    }

    /// The callback scheme an in-app browser session listens for: the redirect URI's, unless it
    /// is `http` or `https` (a claimed or loopback redirect is no custom scheme).
    public var callbackURLScheme: String? {
        guard let scheme = self.redirectURI.scheme?.lowercased(), scheme != "http", scheme != "https" else {
            return nil
        }
        return scheme
    }

    /// Scheme, host, port and path equal (RFC 3986 §6.2.2 case rules: scheme and host ignore case).
    static func sameEndpoint(_ lhs: URL, _ rhs: URL) -> Bool {
        lhs.scheme?.lowercased() == rhs.scheme?.lowercased() && lhs.host?.lowercased() == rhs.host?.lowercased()
            && lhs.port == rhs.port && lhs.path == rhs.path
    }

    /// The endpoint, client and redirect URI; state, nonce and verifier are redacted.
    public var description: String {
        "AuthorizationRequest(\(self.authorizationEndpoint.absoluteString), client \(self.clientID), redirect \(self.redirectURI.absoluteString), state, nonce and verifier <redacted>)"
    }

    /// The same as ``description``.
    public var debugDescription: String { self.description }
}

/// The `code` of a successful authorization redirect, to exchange once at the token endpoint.
public struct AuthorizationResponse: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The authorization code: short-lived and single-use.
    public let code: String

    /// Redacted.
    public var description: String { "AuthorizationResponse(code <redacted>)" }

    /// The same as ``description``.
    public var debugDescription: String { self.description }
}

// A code and its verifier are a grant: `dump()`, debuggers and `Mirror` would otherwise walk
// the stored properties and show them.

extension PKCE: CustomReflectable {
    /// What `dump()`, debuggers and `Mirror` see: the method, the verifier redacted.
    public var customMirror: Mirror {
        Mirror(self, children: ["method": Self.method, "verifier": "<redacted>"], displayStyle: .struct)
    }
}

extension AuthorizationRequest: CustomReflectable {
    /// What `dump()`, debuggers and `Mirror` see: endpoint, client, redirect URI and scopes;
    /// `state`, `nonce` and the PKCE verifier redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "authorizationEndpoint": self.authorizationEndpoint,
                "clientID": self.clientID,
                "redirectURI": self.redirectURI,
                "scopes": self.scopes,
                "issuer": self.issuer.map(\.identifier) as Any,
                "state": "<redacted>",
                "nonce": self.nonce == nil ? "nil" : "<redacted>",
                "pkce": self.pkce,
            ],
            displayStyle: .struct
        )
    }
}

extension AuthorizationResponse: CustomReflectable {
    /// What `dump()`, debuggers and `Mirror` see: the code redacted.
    public var customMirror: Mirror {
        Mirror(self, children: ["code": "<redacted>"], displayStyle: .struct)
    }
}

extension OAuthTokenEndpoint {
    /// Exchanges an authorization code (RFC 6749 §4.1.3) with the request's PKCE verifier
    /// (RFC 7636 §4.5) and redirect URI.
    ///
    /// - Throws: ``TokenAuthError``: ``TokenAuthError/Code/invalidGrant`` for a code that is
    ///   unknown, used, expired, or whose verifier does not match.
    public func exchange(
        _ response: AuthorizationResponse,
        for request: AuthorizationRequest
    ) async throws(TokenAuthError) -> TokenResponse {
        try await self.grant(
            "authorization_code",
            [
                ("code", response.code),
                ("redirect_uri", request.redirectURI.absoluteString),
                ("code_verifier", request.pkce.verifier),
            ]
        )
    }
}
