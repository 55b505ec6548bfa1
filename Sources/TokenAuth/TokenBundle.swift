public import Foundation

/// The tokens of a session: what the token endpoint issued, with the expiry as an absolute date.
///
/// Its description and debug description show the token type, expiry and scope, never a token.
public struct TokenBundle: Codable, Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The access token sent in `Authorization`.
    public var accessToken: String
    /// The refresh token, when the server issued one.
    public var refreshToken: String?
    /// When the access token expires.
    public var expiresAt: Date
    /// When the access token was issued (used to refresh short-lived tokens early enough).
    public var issuedAt: Date?
    /// The token type, normally `Bearer`.
    public var tokenType: String
    /// The granted scope, if the server said.
    public var scope: String?

    /// Creates a bundle.
    public init(
        accessToken: String,
        refreshToken: String?,
        expiresAt: Date,
        issuedAt: Date? = nil,
        tokenType: String = "Bearer",
        scope: String? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.tokenType = tokenType
        self.scope = scope
    }

    /// Builds the bundle for a token response received at `now`. A response without a refresh
    /// token keeps `previousRefreshToken` (servers that do not rotate omit it), and one without
    /// a scope keeps `previousScope`: a refresh that asks for no scope is granted the scope of
    /// the session (RFC 6749 §6), and the server may then leave it out (§5.1).
    public init(
        _ response: TokenResponse,
        receivedAt now: Date,
        previousRefreshToken: String? = nil,
        previousScope: String? = nil
    ) {
        self.init(
            accessToken: response.accessToken,
            refreshToken: response.refreshToken ?? previousRefreshToken,
            expiresAt: now.addingTimeInterval(response.expiresIn ?? TokenResponse.assumedLifetime),
            issuedAt: now,
            tokenType: response.tokenType,
            scope: response.scope ?? previousScope
        )
    }

    /// The `Authorization` header value: `Bearer <token>`, or `DPoP <token>` for a DPoP-bound
    /// token.
    public var authorizationValue: String {
        Self.authorizationValue(tokenType: self.tokenType, accessToken: self.accessToken)
    }

    /// Whether the access token is bound to a DPoP key (`token_type` `DPoP`, RFC 9449 §5): it is
    /// sent as `Authorization: DPoP` with a proof.
    public var isDPoPBound: Bool { Self.isDPoP(tokenType: self.tokenType) }

    /// Whether `tokenType` names DPoP (token types compare case-insensitively, RFC 6749 §7.1).
    public static func isDPoP(tokenType: String) -> Bool { tokenType.lowercased() == "dpop" }

    /// The `Authorization` value for an access token of `tokenType`: `Bearer <token>`
    /// (RFC 6750 §2.1) or `DPoP <token>` (RFC 9449 §7.1), the scheme spelled canonically
    /// whatever the case the server used; another type as it is.
    public static func authorizationValue(tokenType: String, accessToken: String) -> String {
        switch tokenType.lowercased() {
        case "bearer": "Bearer \(accessToken)"
        case "dpop": "DPoP \(accessToken)"
        default: "\(tokenType) \(accessToken)"
        }
    }

    /// Type, expiry and scope; the tokens are redacted.
    public var description: String {
        let refresh = self.refreshToken == nil ? "none" : "<redacted>"
        return
            "TokenBundle(\(self.tokenType), access: <redacted>, refresh: \(refresh), expires: \(self.expiresAt), scope: \(self.scope ?? "-"))"
    }

    /// The same as ``description``.
    public var debugDescription: String { self.description }
}

extension TokenBundle: CustomReflectable {
    /// What `dump()`, debuggers and `Mirror` see: the token type, times and scope, the tokens redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accessToken": "<redacted>",
                "refreshToken": self.refreshToken == nil ? "nil" : "<redacted>",
                "expiresAt": self.expiresAt,
                "issuedAt": self.issuedAt as Any,
                "tokenType": self.tokenType,
                "scope": self.scope as Any,
            ],
            displayStyle: .struct
        )
    }
}
