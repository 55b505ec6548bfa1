#if TestServers
import Foundation
import HTTPTypes
import SecureNetworking
import SecureNetworkingTesting
import Testing

/// Issue 51 item 9: a sign-in follows no redirect, so an open redirect on the login route cannot
/// hand the app a token answer from another origin (a login CSRF: the app signed in to the
/// attacker's account).
@Suite("Sign-in follows no redirect")
struct SignInRedirectTests {
    static let attackersTokens =
        #"{"access_token":"attacker-access","token_type":"Bearer","expires_in":3600,"refresh_token":"attacker-refresh"}"#

    @Test(arguments: [307, 308])
    func aTokenAnswerFromAnotherOriginIsNeverTaken(status: Int) async throws {
        let pki = try TestPKI(referenceTime: Date())
        let chain = try pki.validChain()
        let tokens: LoopbackHTTPServer.Response = .status(
            200,
            headers: [("Content-Type", "application/json")],
            body: Array(Self.attackersTokens.utf8)
        )
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: chain), handler: { _ in tokens }) { other in
            let target = other.baseURL.appendingPathComponent("oauth/token").absoluteString
            try await withLoopbackHTTPServer(
                LoopbackHTTPServer.TLS(chain: chain),
                handler: { request in request.uri == "/auth/login" ? .redirect(status, to: target) : .status(404) }
            ) { api in
                let manager = TokenManager(store: InMemoryStore(), refresher: CountingRefresher())
                var configuration = SecureAPIClient.Configuration(
                    baseURL: api.baseURL,
                    transport: HTTPTransportConfiguration(
                        policy: TransportSecurityPolicy(trustAnchors: pki.trustAnchors)
                    ),
                    authentication: .tokenManager(manager)
                )
                configuration.retry = RetryPolicy(maximumAttempts: 1)
                try await withSecureAPIClient(configuration) { client in
                    let login = Request<TokenResponse>.post(
                        "auth/login",
                        body: .json(LoginBody(email: "ada@example.com", password: "correct horse")),
                        requiresAuthentication: false
                    )
                    do throws(APIError) {
                        let bundle = try await client.signIn(login)
                        Issue.record(
                            "signed in with \(bundle.accessToken == "attacker-access" ? "the other origin's" : "some") tokens"
                        )
                    } catch {
                        #expect(error.code == .unexpectedStatus)
                        #expect(error.status == status)
                    }
                }
                // The other origin saw nothing (not even a request without the password), and
                // the session stays empty.
                #expect(other.statistics.requests.isEmpty)
                #expect(api.statistics.requests.map(\.uri) == ["/auth/login"])
                #expect(try await manager.currentBundle() == nil)
            }
        }
    }
}
#endif
