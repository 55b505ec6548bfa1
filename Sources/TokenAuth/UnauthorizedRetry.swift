/// What a client does when the server answers 401 to the access token it sent: one refresh and
/// one retry; after that, a retry only when the token was replaced or expired on its way (a
/// request that waited long while another refreshed), at most ``maximumReplacements`` times.
///
/// `SecureAPIClient` and the OpenAPI `TokenMiddleware` both follow it, so a 401 means the same
/// thing whichever client an app uses. Use one value per request:
///
/// ```swift
/// var rule = UnauthorizedRetry()
/// while let response = try await send(token), response.status == 401 {
///     guard let next = try await rule.token(after401To: token, tokens: manager) else { break }
///     token = next
/// }
/// ```
public struct UnauthorizedRetry: Sendable {
    /// How often one request is retried with a token that replaced the one it sent, beyond the
    /// one refresh-and-retry.
    public static let maximumReplacements = 2

    private var refreshed = false
    private var replacements = 0

    /// A rule for one request.
    public init() {}

    /// The token to retry with after a 401 to `sentToken`, or nil: give up and return the 401.
    ///
    /// The first 401 asks `tokens` to refresh (``TokenManager/handleUnauthorized(sentToken:)``:
    /// one refresh however many requests got a 401 for the same token). Later ones retry only
    /// with a token that already replaced the one sent (``TokenManager/replacement(forRefused:)``).
    ///
    /// - Throws: ``TokenAuthError``: the refresh token was refused (the session ended), or the
    ///   refresh failed.
    public mutating func token(
        after401To sentToken: String,
        tokens: TokenManager
    ) async throws(TokenAuthError)
        -> String?
    {
        if !self.refreshed {
            self.refreshed = true
            return try await tokens.handleUnauthorized(sentToken: sentToken)
        }
        guard self.replacements < Self.maximumReplacements else { return nil }
        self.replacements += 1
        return try await tokens.replacement(forRefused: sentToken)
    }
}
