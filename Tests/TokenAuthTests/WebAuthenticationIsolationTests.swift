import Foundation
import NIOConcurrencyHelpers
import Testing
import WebAuthenticationStandIn

@testable import TokenAuth

/// GitHub issue 36, item 2: AuthenticationServices calls the web authentication session's
/// completion handler off the main thread (always on macOS, sometimes on iOS). A closure literal
/// handed to the session in a main-actor function without `@Sendable` is main-actor isolated, and
/// because the session comes from a module that is not in Swift 6 mode, Swift 6 checks the
/// executor at the closure's entry (SE-0423): the call traps (`_dispatch_assert_queue_fail`).
///
/// The stand-in session is compiled in Swift 5 mode, as Swift imports AuthenticationServices, and
/// completes on a thread of its own. ``signIn(_:configure:)`` drives it as
/// `authorize(presentationContextProvider:)` drives `ASWebAuthenticationSession`: through
/// ``WebAuthenticationFlow``, whose `@Sendable` completion goes to the session as it is.
/// ``signInAsBeforeTheFix(_:reporting:)`` is the adapter's body before the fix. A trap kills the
/// process, so the background completions run in exit tests.
@Suite("Web authentication completion off the main thread")
struct WebAuthenticationIsolationTests {
    static let redirect = URL(string: "com.example.app:/oauth/callback")!

    static func request() -> AuthorizationRequest {
        AuthorizationRequest(
            authorizationEndpoint: URL(string: "https://auth.example.com/oauth/authorize")!,
            clientID: "ios-app",
            redirectURI: Self.redirect,
            scopes: ["profile"],
            state: "state-36",
            nonce: nil,
            pkce: try! PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        )
    }

    /// What one sign-in through the stand-in saw.
    struct SignIn {
        var result: Result<AuthorizationResponse, TokenAuthError>
        var completedOnMainThread: Bool?
        var startCount: Int
        var url: URL
        var callbackURLScheme: String?
        var prefersEphemeralWebBrowserSession: Bool
    }

    /// `authorize(presentationContextProvider:)`'s body with the stand-in for
    /// `ASWebAuthenticationSession`: made and started on the main actor, its completion handed
    /// over as the flow made it.
    @MainActor
    static func signIn(
        _ request: AuthorizationRequest,
        configure: (StandInWebAuthenticationSession) -> Void
    ) async -> SignIn {
        var made: StandInWebAuthenticationSession?
        let outcome = await WebAuthenticationFlow.run(
            makeSession: { completion in
                StandInWebAuthenticationSession(
                    url: request.url,
                    callbackURLScheme: request.callbackURLScheme,
                    completionHandler: completion
                )
            },
            start: { session in
                made = session
                configure(session)
                session.prefersEphemeralWebBrowserSession = true
                return session.start()
            }
        )
        let cancelled = (outcome.error as? StandInWebAuthenticationSessionError)?.code == .canceledLogin
        let result = Result { () throws(TokenAuthError) -> AuthorizationResponse in
            try request.response(fromBrowserCallback: outcome.callbackURL, userCancelled: cancelled)
        }
        let session = made!
        return SignIn(
            result: result,
            completedOnMainThread: session.completedOnMainThread,
            startCount: session.startCount,
            url: session.url,
            callbackURLScheme: session.callbackURLScheme,
            prefersEphemeralWebBrowserSession: session.prefersEphemeralWebBrowserSession
        )
    }

    /// The adapter's body before the fix, verbatim but for the stand-in: the completion is a
    /// closure literal handed to the session on the main actor, so it is main-actor isolated.
    @MainActor
    static func signInAsBeforeTheFix(_ request: AuthorizationRequest, reporting callbackURL: URL) async -> Bool {
        let (callbackURL, cancelled) = await withCheckedContinuation {
            (continuation: CheckedContinuation<(URL?, Bool), Never>) in
            let holder = NIOLockedValueBox<(session: StandInWebAuthenticationSession?, resumed: Bool)>((nil, false))
            let finish: (URL?, Bool) -> Void = { url, cancelled in
                let first = holder.withLockedValue { state -> Bool in
                    defer { state = (nil, true) }
                    return !state.resumed
                }
                if first { continuation.resume(returning: (url, cancelled)) }
            }
            let session = StandInWebAuthenticationSession(
                url: request.url,
                callbackURLScheme: request.callbackURLScheme
            ) { url, error in
                finish(url, (error as? StandInWebAuthenticationSessionError)?.code == .canceledLogin)
            }
            holder.withLockedValue { $0.session = session }
            session.reportedCallbackURL = callbackURL
            session.prefersEphemeralWebBrowserSession = true
            if !session.start() { finish(nil, false) }
        }
        return callbackURL != nil && !cancelled
    }

    // MARK: Completion on a background thread (exit tests: a trap ends the child process)

    // Exit tests run where Swift Testing can start a child process (not on iOS, tvOS, watchOS or
    // visionOS).
    #if os(macOS) || os(Linux) || os(FreeBSD) || os(OpenBSD) || os(Windows)

    @Test func aCallbackFromABackgroundThreadReturnsTheResponse() async {
        await #expect(processExitsWith: .success) {
            let request = WebAuthenticationIsolationTests.request()
            let signIn = await WebAuthenticationIsolationTests.signIn(request) { session in
                session.reportedCallbackURL = URL(string: "com.example.app:/oauth/callback?code=abc&state=state-36")!
            }
            #expect(signIn.completedOnMainThread == false)
            #expect((try? signIn.result.get())?.code == "abc")
            #expect(signIn.startCount == 1)
            #expect(signIn.url == request.url)
            #expect(signIn.callbackURLScheme == "com.example.app")
            #expect(signIn.prefersEphemeralWebBrowserSession)
        }
    }

    /// The cause, reproduced: before the fix, the session's call from its own thread trapped at
    /// the closure's entry (Swift 6's dynamic isolation check; `_dispatch_assert_queue_fail`).
    /// Kept as a control: if this stopped trapping, the tests above would prove nothing.
    @Test func theCompletionAsBeforeTheFixTrapsOffTheMainThread() async {
        let result = await #expect(processExitsWith: .failure) {
            _ = await WebAuthenticationIsolationTests.signInAsBeforeTheFix(
                WebAuthenticationIsolationTests.request(),
                reporting: URL(string: "com.example.app:/oauth/callback?code=abc&state=state-36")!
            )
        }
        // Killed by the trap's signal (SIGILL on x86_64, SIGTRAP on arm64), not an exit code.
        let killedBySignal = if case .signal = result?.exitStatus { true } else { false }
        #expect(killedBySignal, "\(String(describing: result?.exitStatus))")
    }

    @Test func aCancelFromABackgroundThreadIsAuthorizationCancelled() async {
        await #expect(processExitsWith: .success) {
            let signIn = await WebAuthenticationIsolationTests.signIn(WebAuthenticationIsolationTests.request()) {
                session in
                session.reportedError = StandInWebAuthenticationSessionError(.canceledLogin)
            }
            #expect(signIn.completedOnMainThread == false)
            #expect(throws: TokenAuthError(.authorizationCancelled, "")) { try signIn.result.get() }
        }
    }

    @Test func aForgedCallbackFromABackgroundThreadIsRefused() async {
        await #expect(processExitsWith: .success) {
            let signIn = await WebAuthenticationIsolationTests.signIn(WebAuthenticationIsolationTests.request()) {
                session in
                session.reportedCallbackURL = URL(string: "com.example.app:/oauth/callback?code=abc&state=forged")!
            }
            #expect(signIn.completedOnMainThread == false)
            #expect(throws: TokenAuthError(.invalidAuthorizationResponse, "")) { try signIn.result.get() }
        }
    }

    #endif

    // MARK: Start (no other thread involved)

    @Test func aSessionThatCannotStartEndsWithoutACallback() async {
        let signIn = await Self.signIn(Self.request()) { session in session.startSucceeds = false }
        #expect(signIn.completedOnMainThread == nil)
        #expect(signIn.startCount == 1)
        #expect(throws: TokenAuthError(.invalidAuthorizationResponse, "")) { try signIn.result.get() }
    }

    /// A session may call its completion before `start()` returns false; the wait ends once,
    /// with the completion's answer.
    @Test func aCompletionBeforeAFailedStartIsTheAnswer() async {
        let signIn = await Self.signIn(Self.request()) { session in
            session.completesDuringStart = true
            session.startSucceeds = false
            session.reportedError = StandInWebAuthenticationSessionError(.canceledLogin)
        }
        #expect(signIn.completedOnMainThread != nil)
        #expect(throws: TokenAuthError(.authorizationCancelled, "")) { try signIn.result.get() }
    }
}
