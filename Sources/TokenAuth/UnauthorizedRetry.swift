/// What a client does when the server answers 401 to the access token it sent: one refresh and
/// one retry; after that, a retry only when the token was replaced or expired on its way (a
/// request that waited long while another refreshed), at most ``maximumReplacements`` times.
/// A 401 judges the token only where the token was sent: one from another origin, after a
/// redirect the token did not follow, refreshes nothing and is not retried. A DPoP
/// `use_dpop_nonce` 401 is no judgement of the token either: ``DPoPNonceRetry`` answers it first.
///
/// ``AuthenticatedTransport`` applies it, and `SecureAPIClient` and the OpenAPI `TokenMiddleware`
/// both send through that transport, so a 401 means the same thing whichever client an app uses.
/// Use one value per request:
///
/// ```swift
/// var rule = UnauthorizedRetry()
/// while let response = try await send(token), response.status == 401 {
///     guard let next = try await rule.token(
///         after401To: token, redirectedAcrossOrigins: response.redirectedAcrossOrigins, tokens: manager
///     ) else { break }
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
    /// - Parameters:
    ///   - sentToken: the access token the request carried.
    ///   - redirectedAcrossOrigins: whether the 401 came from another origin than the one the
    ///     token was sent to (a redirect the token did not follow). Then the answer is nil at
    ///     once: the 401 says nothing about the token, and five such in a minute would otherwise
    ///     trip the refresh-loop guard.
    ///   - tokens: the session.
    /// - Throws: ``TokenAuthError``: the refresh token was refused (the session ended), or the
    ///   refresh failed.
    public mutating func token(
        after401To sentToken: String,
        redirectedAcrossOrigins: Bool,
        tokens: TokenManager
    ) async throws(TokenAuthError)
        -> String?
    {
        guard !redirectedAcrossOrigins else { return nil }
        if !self.refreshed {
            self.refreshed = true
            return try await tokens.handleUnauthorized(sentToken: sentToken)
        }
        guard self.replacements < Self.maximumReplacements else { return nil }
        self.replacements += 1
        return try await tokens.replacement(forRefused: sentToken)
    }
}
