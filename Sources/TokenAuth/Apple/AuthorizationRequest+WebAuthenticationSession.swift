#if canImport(AuthenticationServices)
public import AuthenticationServices

@available(macOS 10.15, iOS 13.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
extension AuthorizationRequest {
    /// Shows the authorization page in an `ASWebAuthenticationSession` and returns the checked
    /// response, for ``OAuthTokenEndpoint/exchange(_:for:)``.
    ///
    /// Thin by design: the session listens for ``callbackURLScheme``, and its completion goes to
    /// ``response(fromBrowserCallback:userCancelled:)``, which decides. The session is made and
    /// started on the main actor (where AuthenticationServices asks the provider for its
    /// presentation anchor); its completion handler is `@Sendable`, because AuthenticationServices
    /// calls it off the main thread, where a main-actor closure would trap.
    ///
    /// - Parameters:
    ///   - presentationContextProvider: the window the page is presented over.
    ///   - prefersEphemeralWebBrowserSession: no cookies shared with Safari. Default true, so a
    ///     sign-out in the app is not undone by a browser session that is still signed in.
    /// - Throws: ``TokenAuthError/Code/authorizationCancelled`` when the user cancels,
    ///   ``TokenAuthError/Code/invalidAuthorizationResponse`` when the session cannot start or
    ///   ends without a callback, or as ``response(from:)``.
    @MainActor
    public func authorize(
        presentationContextProvider: any ASWebAuthenticationPresentationContextProviding,
        prefersEphemeralWebBrowserSession: Bool = true
    ) async throws(TokenAuthError) -> AuthorizationResponse {
        try await self.authorize(
            presentationContextProvider: presentationContextProvider,
            prefersEphemeralWebBrowserSession: prefersEphemeralWebBrowserSession,
            makeSession: { url, callbackURLScheme, completion in
                // `completion` as WebAuthenticationFlow made it, `@Sendable`. A closure literal in
                // its place, formed on the main actor, would be main-actor isolated, and Swift 6
                // checks the executor at its entry: called from AuthenticationServices' thread, it
                // would trap.
                ASWebAuthenticationSession(
                    url: url,
                    callbackURLScheme: callbackURLScheme,
                    completionHandler: completion
                )
            }
        )
    }

    /// ``authorize(presentationContextProvider:prefersEphemeralWebBrowserSession:)`` with the
    /// session made by `makeSession` (a test's subclass that completes from a background thread).
    @MainActor
    func authorize(
        presentationContextProvider: any ASWebAuthenticationPresentationContextProviding,
        prefersEphemeralWebBrowserSession: Bool,
        makeSession: (
            _ url: URL, _ callbackURLScheme: String?,
            _ completion: @escaping @Sendable (URL?, (any Error)?) -> Void
        ) -> ASWebAuthenticationSession
    ) async throws(TokenAuthError) -> AuthorizationResponse {
        let outcome = await WebAuthenticationFlow.run(
            makeSession: { completion in makeSession(self.url, self.callbackURLScheme, completion) },
            start: { session in
                session.presentationContextProvider = presentationContextProvider
                session.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
                return session.start()
            }
        )
        let cancelled = (outcome.error as? ASWebAuthenticationSessionError)?.code == .canceledLogin
        return try self.response(fromBrowserCallback: outcome.callbackURL, userCancelled: cancelled)
    }
}
#endif
