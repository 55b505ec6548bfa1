#if TestServers
import Foundation
import HTTPTypes
import SecureNetworking
import SecureNetworkingTesting
import Testing

// The README's "Signing in in the browser" example, verbatim.

/// A command-line or desktop app signs the user in in their browser (RFC 8252): PKCE, a loopback
/// redirect, one code exchange; the tokens start the app's session.
func signInWithBrowser(
    server: URL,
    transport: some HTTPTransport,
    tokens: TokenManager,
    openBrowser: (URL) async throws -> Void
) async throws {
    let receiver = try await LoopbackRedirectReceiver.start()  // http://127.0.0.1:<free port>/callback
    let request = AuthorizationRequest(
        authorizationEndpoint: server.appendingPathComponent("oauth/authorize"),
        clientID: "my-cli",
        redirectURI: receiver.redirectURI,
        scopes: ["profile"]
    )
    try await openBrowser(request.url)
    // The redirect must carry this request's state; its code is exchanged once, with the verifier.
    let response = try request.response(from: try await receiver.redirect(for: request, within: .seconds(300)))
    let endpoint = OAuthTokenEndpoint(
        url: server.appendingPathComponent("oauth/token"),
        transport: transport,
        client: .publicClient(id: "my-cli"),
        revocationURL: server.appendingPathComponent("oauth/revoke")  // signOut() revokes there
    )
    let tokenResponse = try await endpoint.exchange(response, for: request)
    try await tokens.signIn(TokenBundle(tokenResponse, receivedAt: Date()))
}

@Suite("README: signing in in the browser")
struct ReadmeBrowserSignInTests {
    @Test func theREADMEShowsThisFilesExample() throws {
        try ReadmeQuickStartTests.expectREADMEExample(
            under: "### Signing in in the browser",
            in: #filePath,
            minimumLines: 15
        )
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theExampleSignsInAtTheReferenceServer() async throws {
        let pki = try TestPKI(referenceTime: Date())
        let configuration = ReferenceAuthServer.Configuration(
            chain: try pki.validChain(),
            users: [.init(email: "ada@example.com", password: "analytical engine", displayName: "Ada")]
        )
        try await withReferenceAuthServer(configuration) { server in
            var transportConfiguration = HTTPTransportConfiguration(
                policy: TransportSecurityPolicy(trustAnchors: pki.trustAnchors)
            )
            transportConfiguration.policy.allowsLocalNetworking = true  // the browser's GET to the loopback redirect
            try await withNIOHTTPTransport(configuration: transportConfiguration) { transport in
                let tokens = TokenManager(store: InMemoryStore(), refresher: NoRefresh())
                try await signInWithBrowser(server: server.baseURL, transport: transport, tokens: tokens) { url in
                    // The browser: the server approves and redirects; the browser follows to the app.
                    let approval = try await transport.send(
                        HTTPRequest(url: url),
                        body: nil,
                        options: HTTPRequestOptions(redirects: RedirectPolicy.none)
                    )
                    let location = try #require(approval.response.headerFields[.location].flatMap(URL.init(string:)))
                    #expect(try await transport.send(HTTPRequest(url: location)).response.status == .ok)
                }
                let token = try await tokens.validAccessToken()
                var profile = HTTPRequest(url: server.baseURL.appendingPathComponent("user/profile"))
                profile.headerFields[.authorization] = "Bearer \(token)"
                #expect(try await transport.send(profile).response.status == .ok)
                #expect(server.statistics.authorizationCodes == 1)
            }
        }
    }
}

/// The session needs no refresh in this test.
struct NoRefresh: TokenRefresher {
    func refresh(using refreshToken: String) async throws(TokenAuthError) -> TokenResponse {
        throw TokenAuthError(.serverError, "not in this test")
    }
}
#endif
