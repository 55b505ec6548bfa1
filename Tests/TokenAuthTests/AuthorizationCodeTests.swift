#if TestServers
import Foundation
import HTTPTypes
import HTTPTypesFoundation
import NIOConcurrencyHelpers
import NIOCore
import SecureHTTP
import SecureNetworkingTesting
import SecureStorage
import Testing

@testable import TokenAuth

/// The authorization code grant with PKCE: the request, the redirect's checks, and the whole
/// flow against the reference server's `/oauth/authorize` and `/oauth/token`.
@Suite("Authorization code with PKCE")
struct AuthorizationCodeTests {
    static let endpoint = URL(string: "https://auth.example.com/oauth/authorize?tenant=a")!
    static let redirect = URL(string: "com.example.app:/oauth/callback")!

    static func request(scopes: [String] = ["profile"]) -> AuthorizationRequest {
        AuthorizationRequest(
            authorizationEndpoint: Self.endpoint,
            clientID: "ios-app",
            redirectURI: Self.redirect,
            scopes: scopes
        )
    }

    /// RFC 7636 Appendix B.
    @Test func theChallengeIsS256OfTheVerifier() throws {
        let pkce = try PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(!String(describing: pkce).contains("dBjf"))
        let fresh = PKCE()
        #expect(fresh.verifier.utf8.count == 43)
        #expect(fresh.verifier != PKCE().verifier)
        for bad in [
            String(repeating: "a", count: 42), String(repeating: "a", count: 129),
            String(repeating: "a", count: 42) + "+",
        ] {
            #expect(throws: TokenAuthError(.invalidAuthorizationResponse, "")) { try PKCE(verifier: bad) }
        }
        #expect((try? PKCE(verifier: String(repeating: "~", count: 128))) != nil)
    }

    @Test func theURLCarriesEveryParameter() throws {
        let request = Self.request(scopes: ["openid", "profile"])
        let components = try #require(URLComponents(url: request.url, resolvingAgainstBaseURL: false))
        let items = Dictionary(uniqueKeysWithValues: (components.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        #expect(components.host == "auth.example.com" && components.path == "/oauth/authorize")
        #expect(items["tenant"] == "a")
        #expect(items["response_type"] == "code")
        #expect(items["client_id"] == "ios-app")
        #expect(items["redirect_uri"] == "com.example.app:/oauth/callback")
        #expect(items["scope"] == "openid profile")
        #expect(items["state"] == request.state)
        #expect(items["code_challenge"] == request.pkce.challenge)
        #expect(items["code_challenge_method"] == "S256")
        #expect(items["nonce"] == request.nonce && request.nonce != nil)
        #expect(request.url.absoluteString.contains("redirect_uri=com.example.app%3A%2Foauth%2Fcallback"))
        #expect(!request.url.absoluteString.contains(request.pkce.verifier))
        // Without openid there is no nonce; every request has its own state.
        #expect(Self.request().nonce == nil)
        #expect(Self.request().state != Self.request().state)
        #expect(request.state.utf8.count == 43)
    }

    @Test func theRedirectIsCheckedStateFirst() throws {
        let request = Self.request()
        func redirect(_ query: String, base: String = "com.example.app:/oauth/callback") -> URL {
            URL(string: base + "?" + query)!
        }
        #expect(try request.response(from: redirect("code=abc&state=\(request.state)")).code == "abc")

        func expectCode(_ url: URL, _ code: TokenAuthError.Code, oauthError: String? = nil) {
            do {
                _ = try request.response(from: url)
                Issue.record("accepted \(url)")
            } catch {
                #expect(error.code == code, "\(url)")
                #expect(error.oauthError == oauthError)
            }
        }
        expectCode(redirect("code=abc"), .invalidAuthorizationResponse)
        expectCode(redirect("code=abc&state=other"), .invalidAuthorizationResponse)
        expectCode(redirect("state=\(request.state)"), .invalidAuthorizationResponse)
        expectCode(
            redirect("code=abc&state=\(request.state)", base: "com.example.app:/elsewhere"),
            .invalidAuthorizationResponse
        )
        expectCode(
            redirect("code=abc&state=\(request.state)", base: "evil.example:/oauth/callback"),
            .invalidAuthorizationResponse
        )
        // An error redirect counts only with the right state (else anyone could sign the user out).
        expectCode(
            redirect("error=access_denied&state=\(request.state)"),
            .authorizationRejected,
            oauthError: "access_denied"
        )
        expectCode(redirect("error=access_denied&state=forged"), .invalidAuthorizationResponse)
        #expect(!String(describing: request).contains(request.state))
    }

    /// What the Apple adapter hands over from ASWebAuthenticationSession's completion.
    @Test func anInAppBrowserSessionsCompletionIsDecidedHere() throws {
        let request = Self.request()
        let callback = URL(string: "com.example.app:/oauth/callback?code=abc&state=\(request.state)")!
        #expect(try request.response(fromBrowserCallback: callback, userCancelled: false).code == "abc")
        #expect(throws: TokenAuthError(.authorizationCancelled, "")) {
            try request.response(fromBrowserCallback: nil, userCancelled: true)
        }
        #expect(throws: TokenAuthError(.invalidAuthorizationResponse, "")) {
            try request.response(fromBrowserCallback: nil, userCancelled: false)
        }
        // A forged callback is refused even when it comes through the session.
        #expect(throws: TokenAuthError(.invalidAuthorizationResponse, "")) {
            try request.response(
                fromBrowserCallback: URL(string: "com.example.app:/oauth/callback?code=abc&state=x")!,
                userCancelled: false
            )
        }
        #expect(request.callbackURLScheme == "com.example.app")
        let loopback = AuthorizationRequest(
            authorizationEndpoint: Self.endpoint,
            clientID: "cli",
            redirectURI: URL(string: "http://127.0.0.1:8080/callback")!
        )
        #expect(loopback.callbackURLScheme == nil)
    }

    // MARK: Against the reference server

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static let user = ReferenceAuthServer.User(
        email: "ada@example.com",
        password: "analytical engine",
        displayName: "Ada"
    )

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    struct Flow {
        let server: ReferenceAuthServer
        let transport: NIOHTTPTransport
        let endpoint: OAuthTokenEndpoint
        let redirectURI: URL

        func request() -> AuthorizationRequest {
            AuthorizationRequest(
                authorizationEndpoint: self.server.baseURL.appendingPathComponent("oauth/authorize"),
                clientID: "ios-app",
                redirectURI: self.redirectURI,
                scopes: ["profile"]
            )
        }

        /// What the browser would do: GET the authorization URL, return the 302's Location.
        func authorize(_ url: URL) async throws -> (status: Int, location: URL?) {
            let response = try await self.transport.send(
                HTTPRequest(url: url),
                body: nil,
                options: HTTPRequestOptions(redirects: RedirectPolicy.none)
            )
            return (response.response.status.code, response.response.headerFields[.location].flatMap(URL.init(string:)))
        }

        func profileStatus(_ accessToken: String) async throws -> Int {
            var request = HTTPRequest(url: self.server.baseURL.appendingPathComponent("user/profile"))
            request.headerFields[.authorization] = "Bearer \(accessToken)"
            return try await self.transport.send(request).response.status.code
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    func withFlow(now: (@Sendable () -> Date)? = nil, _ body: (Flow) async throws -> Void) async throws {
        var configuration = ReferenceAuthServer.Configuration(chain: try Live.pki.validChain(), users: [Self.user])
        if let now { configuration.now = now }
        try await withReferenceAuthServer(configuration) { server in
            try await withNIOHTTPTransport(configuration: Live.configuration) { transport in
                let endpoint = OAuthTokenEndpoint(
                    url: server.baseURL.appendingPathComponent("oauth/token"),
                    transport: transport,
                    client: .publicClient(id: "ios-app")
                )
                // RFC 8252 §7.3: a loopback redirect; the port is the app's.
                let redirect = URL(string: "http://127.0.0.1:49152/callback")!
                try await body(Flow(server: server, transport: transport, endpoint: endpoint, redirectURI: redirect))
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theCodeIsExchangedOnceForTokensThatWork() async throws {
        try await withFlow { flow in
            let request = flow.request()
            let (status, location) = try await flow.authorize(request.url)
            #expect(status == 302)
            let redirect = try #require(location)
            #expect(redirect.absoluteString.hasPrefix("http://127.0.0.1:49152/callback?code="))
            let response = try request.response(from: redirect)
            let tokens = try await flow.endpoint.exchange(response, for: request)
            #expect(tokens.refreshToken != nil)
            #expect(try await flow.profileStatus(tokens.accessToken) == 200)

            // The tokens start a session the manager refreshes as usual.
            let manager = TokenManager(store: InMemoryStore(), refresher: flow.endpoint)
            try await manager.signIn(TokenBundle(tokens, receivedAt: Date()))
            #expect(try await manager.validAccessToken() == tokens.accessToken)

            // A second exchange of the same code is refused and revokes what the first issued.
            await #expect(throws: TokenAuthError(.invalidGrant, "")) {
                try await flow.endpoint.exchange(response, for: request)
            }
            #expect(try await flow.profileStatus(tokens.accessToken) == 401)
            if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) {
                #expect(flow.server.statistics.authorizationCodes == 1)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aCodeNeedsItsVerifierClientAndRedirect() async throws {
        try await withFlow { flow in
            // Another request's verifier (an attacker who intercepted the code has no verifier).
            let request = flow.request()
            let response = try request.response(from: try #require(try await flow.authorize(request.url).location))
            let other = AuthorizationRequest(
                authorizationEndpoint: request.authorizationEndpoint,
                clientID: request.clientID,
                redirectURI: request.redirectURI,
                scopes: request.scopes,
                state: request.state,
                nonce: nil,
                pkce: PKCE()
            )
            await #expect(throws: TokenAuthError(.invalidGrant, "")) {
                try await flow.endpoint.exchange(response, for: other)
            }

            // Another redirect URI than the one the code was issued for.
            let second = flow.request()
            let secondResponse = try second.response(from: try #require(try await flow.authorize(second.url).location))
            let moved = AuthorizationRequest(
                authorizationEndpoint: second.authorizationEndpoint,
                clientID: second.clientID,
                redirectURI: URL(string: "http://127.0.0.1:49153/callback")!,
                scopes: second.scopes,
                state: second.state,
                nonce: nil,
                pkce: second.pkce
            )
            await #expect(throws: TokenAuthError(.invalidGrant, "")) {
                try await flow.endpoint.exchange(secondResponse, for: moved)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func anExpiredCodeIsRefused() async throws {
        let clock = TestClock(Date())
        try await withFlow(now: clock.function) { flow in
            let request = flow.request()
            let response = try request.response(from: try #require(try await flow.authorize(request.url).location))
            clock.advance(60)
            await #expect(throws: TokenAuthError(.invalidGrant, "")) {
                try await flow.endpoint.exchange(response, for: request)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theServerRequiresPKCEWithS256AndARegisteredRedirect() async throws {
        try await withFlow { flow in
            let request = flow.request()
            func without(_ name: String, replacing value: String? = nil) -> URL {
                var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)!
                components.queryItems = components.queryItems!.compactMap { item in
                    item.name == name ? value.map { URLQueryItem(name: name, value: $0) } : item
                }
                return components.url!
            }
            for (url, description) in [
                (without("code_challenge"), "PKCE is required"),
                (without("code_challenge_method", replacing: "plain"), "S256"),
            ] {
                let (status, location) = try await flow.authorize(url)
                #expect(status == 302)
                let redirected = try #require(location)
                do throws(TokenAuthError) {
                    _ = try request.response(from: redirected)
                    Issue.record("accepted \(redirected)")
                } catch {
                    #expect(error.code == .authorizationRejected)
                    #expect(error.oauthError == "invalid_request")
                    #expect(error.message.contains(description), "\(error.message)")
                }
            }
            let unsupported = try await flow.authorize(without("response_type", replacing: "token"))
            #expect(unsupported.location?.absoluteString.contains("error=unsupported_response_type") == true)
            // An unregistered redirect URI is never redirected to.
            let evil = try await flow.authorize(without("redirect_uri", replacing: "https://evil.example/callback"))
            #expect(evil.status == 400)
            #expect(evil.location == nil)
            if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) {
                #expect(flow.server.statistics.authorizationCodes == 0)
            }
        }
    }
}

/// RFC 8252 §7.3: the loopback redirect of a command-line app, end to end.
@Suite("Loopback redirect receiver")
struct LoopbackRedirectReceiverTests {
    /// The browser's part: plain HTTP to the app's loopback listener, through the transport with
    /// local networking allowed.
    static func browserGet(_ url: URL) async throws -> Int {
        var configuration = Live.configuration
        configuration.policy.allowsLocalNetworking = true
        return try await withNIOHTTPTransport(configuration: configuration) { transport in
            try await transport.send(HTTPRequest(url: url)).response.status.code
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aCommandLineAppSignsInThroughTheLoopbackRedirect() async throws {
        let receiver = try await LoopbackRedirectReceiver.start()
        #expect(receiver.redirectURI.absoluteString.hasPrefix("http://127.0.0.1:"))
        #expect(receiver.redirectURI.path == "/callback")
        try await AuthorizationCodeTests().withFlow { flow in
            let request = AuthorizationRequest(
                authorizationEndpoint: flow.server.baseURL.appendingPathComponent("oauth/authorize"),
                clientID: "ios-app",
                redirectURI: receiver.redirectURI,
                scopes: ["profile"]
            )
            let location = try #require(try await flow.authorize(request.url).location)
            // A browser asks for its icon first: 404, and the receiver keeps waiting.
            let port = try #require(receiver.redirectURI.port)
            #expect(try await Self.browserGet(URL(string: "http://127.0.0.1:\(port)/favicon.ico")!) == 404)
            // The browser may be redirected before the app waits: its GET is kept and judged then.
            #expect(try await Self.browserGet(location) == 200)
            let redirected = try await receiver.redirect(for: request, within: .seconds(30))
            #expect(redirected == location)
            let tokens = try await flow.endpoint.exchange(try request.response(from: redirected), for: request)
            #expect(try await flow.profileStatus(tokens.accessToken) == 200)
            // One redirect only: the listener is closed. (Asked of the receiver, not by
            // connecting again: a parallel test's listener may already have the freed port.)
            #expect(receiver.isListening == false)
        }
    }

    @Test func noRedirectInTimeIsAnErrorAndClosesTheListener() async throws {
        let receiver = try await LoopbackRedirectReceiver.start(path: "cb")
        #expect(receiver.redirectURI.path == "/cb")
        #expect(receiver.isListening)
        let request = AuthorizationRequest(
            authorizationEndpoint: URL(string: "https://auth.example.com/authorize")!,
            clientID: "cli",
            redirectURI: receiver.redirectURI
        )
        do throws(TokenAuthError) {
            _ = try await receiver.redirect(for: request, within: .milliseconds(50))
            Issue.record("a redirect arrived")
        } catch {
            #expect(error.code == .invalidAuthorizationResponse)
        }
        #expect(receiver.isListening == false)
        await receiver.close()
    }

    /// Any local process can send a GET to the callback path: only the request's own `state`
    /// ends the wait; another `state`, or none, is answered 400 and the receiver keeps waiting.
    @Test func aRedirectWithAnotherStateIsRefusedAndTheWaitGoesOn() async throws {
        let receiver = try await LoopbackRedirectReceiver.start()
        let request = AuthorizationRequest(
            authorizationEndpoint: URL(string: "https://auth.example.com/authorize")!,
            clientID: "cli",
            redirectURI: receiver.redirectURI
        )
        let waiting = Task { try await receiver.redirect(for: request, within: .seconds(60)) }
        // Once the wait has begun (a GET before it is kept with 200 and judged when it begins).
        try await waitFor { receiver.isWaitingForRedirect }
        let callback = receiver.redirectURI.absoluteString
        #expect(try await Self.browserGet(URL(string: callback + "?code=forged&state=guessed")!) == 400)
        #expect(try await Self.browserGet(URL(string: callback + "?code=forged")!) == 400)
        #expect(try await Self.browserGet(URL(string: callback + "?error=access_denied")!) == 400)
        #expect(receiver.isListening)
        let right = URL(string: callback + "?code=good&state=\(request.state)")!
        #expect(try await Self.browserGet(right) == 200)
        #expect(try await waiting.value == right)
        #expect(try request.response(from: try await waiting.value).code == "good")
        #expect(receiver.isListening == false)
    }

    /// A receiver that goes away closes its listening socket (it is not left open for the
    /// process's lifetime).
    @Test func aDroppedReceiverStopsListening() async throws {
        var receiver: LoopbackRedirectReceiver? = try await LoopbackRedirectReceiver.start()
        let closed = try #require(receiver?.listenerClosed)
        #expect(receiver?.isListening == true)
        receiver = nil
        // Bounded, so that a receiver that never closes fails the test instead of hanging it.
        let waiting = NIOLockedValueBox<CheckedContinuation<Bool, Never>?>(nil)
        @Sendable func resume(_ closedInTime: Bool) {
            waiting.withLockedValue { continuation in
                defer { continuation = nil }
                return continuation
            }?.resume(returning: closedInTime)
        }
        let closedInTime = await withCheckedContinuation { continuation in
            waiting.withLockedValue { $0 = continuation }
            closed.whenComplete { _ in resume(true) }
            closed.eventLoop.scheduleTask(in: .seconds(30)) { resume(false) }
        }
        #expect(closedInTime)
    }
}
#endif
