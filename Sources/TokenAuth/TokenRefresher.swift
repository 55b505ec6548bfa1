public import Foundation

/// Exchanges a refresh token for new tokens. ``OAuthTokenEndpoint`` is the real one; tests may
/// script their own.
public protocol TokenRefresher: Sendable {
    /// Calls the token endpoint with the refresh-token grant.
    ///
    /// - Throws: ``TokenAuthError``; terminal codes (``TokenAuthError/Code/invalidGrant``, …)
    ///   end the session, the others keep it.
    func refresh(using refreshToken: String) async throws(TokenAuthError) -> TokenResponse

    /// Revokes a refresh token at the authorization server (RFC 7009), when the refresher knows
    /// a revocation endpoint; ``TokenManager`` calls it when a session is signed out. The
    /// default does nothing.
    func revoke(refreshToken: String) async throws(TokenAuthError)
}

extension TokenRefresher {
    /// Does nothing: this refresher knows no revocation endpoint.
    public func revoke(refreshToken: String) async throws(TokenAuthError) {}
}

/// A successful token response (RFC 6749 §5.1). Its description redacts the tokens.
public struct TokenResponse: Codable, Hashable, Sendable, CustomStringConvertible {
    /// A lifetime assumed when the server omits `expires_in`: short, so the token is refreshed soon.
    public static let assumedLifetime: TimeInterval = 300

    /// `access_token`.
    public var accessToken: String
    /// `token_type`, normally `Bearer`.
    public var tokenType: String
    /// `expires_in`, in seconds.
    public var expiresIn: TimeInterval?
    /// `refresh_token`: a new (rotated) refresh token, when issued.
    public var refreshToken: String?
    /// `scope`.
    public var scope: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case scope
    }

    /// Creates a response.
    public init(
        accessToken: String,
        tokenType: String = "Bearer",
        expiresIn: TimeInterval?,
        refreshToken: String? = nil,
        scope: String? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.scope = scope
    }

    /// Whether the token endpoint issued a DPoP-bound token (`token_type` `DPoP`, RFC 9449 §5).
    public var isDPoPBound: Bool { TokenBundle.isDPoP(tokenType: self.tokenType) }

    /// Type, lifetime and scope; the tokens are redacted.
    public var description: String {
        "TokenResponse(\(self.tokenType), expires_in: \(self.expiresIn.map { "\($0)" } ?? "-"), refresh: \(self.refreshToken == nil ? "none" : "<redacted>"))"
    }
}

extension TokenResponse: CustomReflectable {
    /// What `dump()`, debuggers and `Mirror` see: the token type, lifetime and scope, the tokens redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accessToken": "<redacted>",
                "tokenType": self.tokenType,
                "expiresIn": self.expiresIn as Any,
                "refreshToken": self.refreshToken == nil ? "nil" : "<redacted>",
                "scope": self.scope as Any,
            ],
            displayStyle: .struct
        )
    }
}
