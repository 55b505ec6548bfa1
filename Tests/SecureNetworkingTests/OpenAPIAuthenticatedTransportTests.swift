#if OpenAPI
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import OpenAPIRuntime
import SecureNetworking
import SecureNetworkingOpenAPI
import SecureNetworkingTesting
import Testing

/// The claims of a DPoP proof (its signature is the signer's business, tested in TokenAuthTests).
private func claims(_ proof: String?) -> [String: Any]? {
    guard let proof else { return nil }
    let parts = proof.split(separator: ".").map(String.init)
    guard parts.count == 3 else { return nil }
    var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    guard let data = Data(base64Encoded: base64) else { return nil }
    return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
}

@Suite("OpenAPI TokenMiddleware through AuthenticatedTransport: DPoP and the nonce challenge")
struct OpenAPIAuthenticatedTransportTests {
    /// A DPoP-bound session over the OpenAPI path: every request carries `Authorization: DPoP`
    /// and a proof for the URL it is sent to, with `ath`; the server's `use_dpop_nonce`
    /// challenge is answered once with its nonce, and nothing is refreshed for it.
    @Test func theOpenAPIPathSendsADPoPProofAndAnswersTheNonceChallenge() async throws {
        let pki = try TestPKI(referenceTime: Date())
        let handler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { request in
            guard claims(request.header("DPoP"))?["nonce"] as? String == "nonce-1" else {
                return .status(
                    401,
                    headers: [("WWW-Authenticate", #"DPoP error="use_dpop_nonce""#), ("DPoP-Nonce", "nonce-1")]
                )
            }
            return .text("ok")
        }
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: try pki.validChain()), handler: handler) {
            api in
            let refresher = CountingRefresher(tokenType: "DPoP")
            let manager = TokenManager(store: InMemoryStore(), refresher: refresher)
            try await manager.signIn(
                TokenBundle(
                    accessToken: "access-0",
                    refreshToken: "refresh-0",
                    expiresAt: Date() + 3600,
                    tokenType: "DPoP"
                )
            )
            try await withNIOHTTPTransport(
                configuration: HTTPTransportConfiguration(
                    policy: TransportSecurityPolicy(trustAnchors: pki.trustAnchors)
                )
            ) { (nio: NIOHTTPTransport) async throws in
                let transport = SecureClientTransport(nio)
                let signer = DPoPSigner(key: DPoPKey())
                func call(_ middleware: TokenMiddleware) async throws -> HTTPResponse.Status {
                    let (response, _) = try await middleware.intercept(
                        HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/user/profile?full=1"),
                        body: nil,
                        baseURL: api.baseURL,
                        operationID: "getProfile"
                    ) { request, body, baseURL in
                        try await transport.send(request, body: body, baseURL: baseURL, operationID: "getProfile")
                    }
                    return response.status
                }

                #expect(try await call(TokenMiddleware(tokens: manager, dpop: signer)) == .ok)
                let requests = api.statistics.requests
                #expect(requests.count == 2)
                #expect(requests.map { $0.header("Authorization") } == ["DPoP access-0", "DPoP access-0"])
                let proofs = requests.map { claims($0.header("DPoP")) }
                #expect(proofs.allSatisfy { $0?["ath"] is String && $0?["htm"] as? String == "GET" })
                #expect(
                    proofs.allSatisfy {
                        $0?["htu"] as? String == api.baseURL.appendingPathComponent("user/profile").absoluteString
                    }
                )
                #expect(proofs.map { $0?["nonce"] as? String } == [nil, "nonce-1"])
                #expect(refresher.calls.withLockedValue { $0 } == 0)

                // The signer keeps the nonce: the next call is served at once.
                #expect(try await call(TokenMiddleware(tokens: manager, dpop: signer)) == .ok)
                #expect(api.statistics.requests.count == 3)

                // Without a signer a DPoP-bound session is refused before a byte is sent.
                let error = await #expect(throws: TokenAuthError.self) {
                    try await call(TokenMiddleware(tokens: manager))
                }
                #expect(error?.code == .proofOfPossessionFailed)
                #expect(api.statistics.requests.count == 3)
            }
        }
    }
}
#endif
