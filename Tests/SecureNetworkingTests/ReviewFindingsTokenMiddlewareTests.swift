#if OpenAPI
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import OpenAPIRuntime
import SecureNetworking
import SecureNetworkingOpenAPI
import SecureNetworkingTesting
import Testing

@Suite("OpenAPI TokenMiddleware: a 401 judges the token only where the token was sent")
struct ReviewFindingsTokenMiddlewareTests {
    /// The rule `SecureAPIClient` follows (`UnauthorizedRetry`): after a redirect to another
    /// origin the token was not sent, so that origin's 401 refreshes nothing. Six of them in a
    /// row would otherwise be six refreshes, and the fifth in a minute trips the loop guard.
    @Test func fourOhOnesFromAnotherOriginAfterARedirectRefreshNothing() async throws {
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
                    TokenBundle(accessToken: "access-0", refreshToken: "refresh-0", expiresAt: Date() + 3600)
                )
                try await withNIOHTTPTransport(
                    configuration: HTTPTransportConfiguration(
                        policy: TransportSecurityPolicy(trustAnchors: pki.trustAnchors)
                    )
                ) { (nio: NIOHTTPTransport) async throws in
                    let transport = SecureClientTransport(nio)
                    let middleware = TokenMiddleware(tokens: manager)
                    func call(_ path: String) async throws -> HTTPResponse.Status {
                        let (response, _) = try await middleware.intercept(
                            HTTPRequest(method: .get, scheme: nil, authority: nil, path: path),
                            body: nil,
                            baseURL: api.baseURL,
                            operationID: "op"
                        ) { request, body, baseURL in
                            try await transport.send(request, body: body, baseURL: baseURL, operationID: "op")
                        }
                        return response.status
                    }

                    for _ in 0..<6 {
                        #expect(try await call("/moved") == .unauthorized)
                    }
                    #expect(refresher.calls.withLockedValue { $0 } == 0)
                    #expect(other.statistics.requests.count == 6)
                    #expect(other.statistics.requests.allSatisfy { $0.header("Authorization") == nil })
                    #expect(try await manager.validAccessToken() == "access-0")

                    // The same 401 from the origin the token was sent to: one refresh, one retry.
                    #expect(try await call("/own") == .unauthorized)
                    #expect(refresher.calls.withLockedValue { $0 } == 1)
                    #expect(
                        api.statistics.requests.suffix(2).map { $0.header("Authorization") } == [
                            "Bearer access-0", "Bearer access-1",
                        ]
                    )
                }
            }
        }
    }
}
#endif
