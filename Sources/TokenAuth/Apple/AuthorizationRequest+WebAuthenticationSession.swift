#if canImport(AuthenticationServices)
public import AuthenticationServices
import NIOConcurrencyHelpers

@available(macOS 10.15, iOS 13.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
extension AuthorizationRequest {
    /// Shows the authorization page in an `ASWebAuthenticationSession` and returns the checked
    /// response, for ``OAuthTokenEndpoint/exchange(_:for:)``.
    ///
    /// Thin by design: the session listens for ``callbackURLScheme``, and its completion goes to
    /// ``response(fromBrowserCallback:userCancelled:)``, which decides.
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
        let (callbackURL, cancelled) = await withCheckedContinuation {
            (continuation: CheckedContinuation<(URL?, Bool), Never>) in
            // The session must outlive this scope until it completes: the holder keeps it, and
            // lets the continuation resume once whichever of completion and a failed start comes.
            let holder = NIOLockedValueBox<(session: ASWebAuthenticationSession?, resumed: Bool)>((nil, false))
            let finish: (URL?, Bool) -> Void = { url, cancelled in
                let first = holder.withLockedValue { state -> Bool in
                    defer { state = (nil, true) }
                    return !state.resumed
                }
                if first { continuation.resume(returning: (url, cancelled)) }
            }
            let session = ASWebAuthenticationSession(url: self.url, callbackURLScheme: self.callbackURLScheme) {
                url,
                error in
                finish(url, (error as? ASWebAuthenticationSessionError)?.code == .canceledLogin)
            }
            holder.withLockedValue { $0.session = session }
            session.presentationContextProvider = presentationContextProvider
            session.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
            if !session.start() { finish(nil, false) }
        }
        return try self.response(fromBrowserCallback: callbackURL, userCancelled: cancelled)
    }
}
#endif
