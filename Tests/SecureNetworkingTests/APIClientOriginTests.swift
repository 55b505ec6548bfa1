#if TestServers
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import SecureNetworking
import SecureNetworkingTesting
import Testing

@Suite("API client: a 401 judges the token only where the token was sent")
struct APIClientOriginTests {
    @Test func aFourOhOneFromAnotherOriginAfterARedirectDoesNotRefresh() async throws {
        let pki = try TestPKI(referenceTime: Date())
        let chain = try pki.validChain()
        let unauthorized: LoopbackHTTPServer.Response = .status(
            401,
            headers: [("WWW-Authenticate", #"Bearer error="invalid_token""#)]
        )
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: chain), handler: { _ in unauthorized }) {
            other in
            let target = other.baseURL.appendingPathComponent("landing").absoluteString
            try await withLoopbackHTTPServer(
                LoopbackHTTPServer.TLS(chain: chain),
                handler: { request in
                    request.uri == "/moved" ? .redirect(307, to: target) : unauthorized
                }
            ) { api in
                let refresher = CountingRefresher()
                let manager = TokenManager(store: InMemoryStore(), refresher: refresher)
                try await manager.signIn(
                    TokenBundle(
                        accessToken: "access-0",
                        refreshToken: "refresh-0",
                        expiresAt: Date().addingTimeInterval(3600)
                    )
                )
                var configuration = SecureAPIClient.Configuration(
                    baseURL: api.baseURL,
                    transport: HTTPTransportConfiguration(
                        policy: TransportSecurityPolicy(trustAnchors: pki.trustAnchors)
                    ),
                    authentication: .tokenManager(manager)
                )
                configuration.retry = RetryPolicy(maximumAttempts: 1)
                let client = try SecureAPIClient(configuration: configuration)

                // Redirected to another origin, which never saw the token: its 401 says nothing
                // about the token, so there is no refresh and no retry.
                let moved = await expectAPIError(client, Request<Data>.get("moved"))
                #expect(moved?.code == .unauthorized)
                #expect(moved?.status == 401)
                #expect(refresher.calls.withLockedValue { $0 } == 0)
                #expect(other.statistics.requests.count == 1)
                #expect(other.statistics.requests.first?.header("Authorization") == nil)
                #expect(api.statistics.requests.map(\.uri) == ["/moved"])
                #expect(try await manager.validAccessToken() == "access-0")

                // The same 401 from the origin the token was sent to: one refresh, one retry.
                let own = await expectAPIError(client, Request<Data>.get("own"))
                #expect(own?.code == .unauthorized)
                #expect(refresher.calls.withLockedValue { $0 } == 1)
                #expect(
                    api.statistics.requests.suffix(2).map { $0.header("Authorization") } == [
                        "Bearer access-0", "Bearer access-1",
                    ]
                )
                await client.shutdown()
            }
        }
    }
}
#endif
