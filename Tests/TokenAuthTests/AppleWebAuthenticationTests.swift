#if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
import AuthenticationServices
import Foundation
import Testing

@testable import TokenAuth

/// GitHub issue 36, items 2 and 6, on Apple platforms: `authorize(presentationContextProvider:)`
/// with a real `ASWebAuthenticationSession` subclass whose `start()` shows nothing and calls the
/// completion from a background queue, as AuthenticationServices does on macOS (and sometimes on
/// iOS). Before the completion was `@Sendable`, these tests trapped at the closure's entry
/// (`_dispatch_assert_queue_fail`). The Linux counterpart is `WebAuthenticationIsolationTests`.
@Suite("Web authentication session on Apple platforms")
struct AppleWebAuthenticationTests {
    static func request() -> AuthorizationRequest {
        AuthorizationRequest(
            authorizationEndpoint: URL(string: "https://auth.example.com/oauth/authorize")!,
            clientID: "ios-app",
            redirectURI: URL(string: "com.example.app:/oauth/callback")!,
            scopes: ["profile"],
            state: "state-36",
            nonce: nil,
            pkce: try! PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        )
    }

    /// Signs in through the adapter with a session that answers `callbackURL` and `error` from a
    /// background queue.
    @MainActor
    static func authorize(
        answering callbackURL: URL?,
        error: (any Error)?
    ) async throws(TokenAuthError) -> AuthorizationResponse {
        let provider = PresentationAnchorProvider()
        return try await Self.request().authorize(
            presentationContextProvider: provider,
            prefersEphemeralWebBrowserSession: true
        ) { url, callbackURLScheme, completion in
            BackgroundCompletingWebAuthenticationSession(
                url: url,
                callbackURLScheme: callbackURLScheme,
                answer: BackgroundCompletingWebAuthenticationSession.Answer(callbackURL: callbackURL, error: error),
                completion: completion
            )
        }
    }

    @Test func aCallbackFromABackgroundQueueReturnsTheResponse() async throws {
        let callback = URL(string: "com.example.app:/oauth/callback?code=abc&state=state-36")!
        let response = try await Self.authorize(answering: callback, error: nil)
        #expect(response.code == "abc")
    }

    @Test func aCancelFromABackgroundQueueIsAuthorizationCancelled() async {
        await #expect(throws: TokenAuthError(.authorizationCancelled, "")) {
            try await Self.authorize(answering: nil, error: ASWebAuthenticationSessionError(.canceledLogin))
        }
    }
}

/// A session that shows no page: `start()` calls the completion from a background queue with
/// its answer, as AuthenticationServices may, and never calls `super.start()`.
final class BackgroundCompletingWebAuthenticationSession: ASWebAuthenticationSession {
    /// What the session reports.
    struct Answer: Sendable {
        var callbackURL: URL?
        var error: (any Error)?
    }

    private let answer: Answer
    private let completion: @Sendable (URL?, (any Error)?) -> Void

    init(
        url: URL,
        callbackURLScheme: String?,
        answer: Answer,
        completion: @escaping @Sendable (URL?, (any Error)?) -> Void
    ) {
        self.answer = answer
        self.completion = completion
        super.init(url: url, callbackURLScheme: callbackURLScheme, completionHandler: completion)
    }

    override func start() -> Bool {
        let (answer, completion) = (self.answer, self.completion)
        DispatchQueue.global().async {
            precondition(!Thread.isMainThread)
            completion(answer.callbackURL, answer.error)
        }
        return true
    }
}

/// A window for the page; never asked for, since the session shows nothing.
@MainActor
final class PresentationAnchorProvider: NSObject, ASWebAuthenticationPresentationContextProviding {
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        ASPresentationAnchor()
    }
}
#endif
