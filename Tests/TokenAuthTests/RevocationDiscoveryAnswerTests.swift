#if TestServers
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import SecureHTTP
import SecureNetworkingTesting
import Testing

@testable import TokenAuth

/// Issue 51 item 13: the advertised revocation endpoint is remembered as missing only after a
/// definite answer (a 404, or a 200 that is metadata); a 503 fails that sign-out's revocation
/// and is asked again at the next.
@Suite("Revocation discovery remembers only a definite answer")
struct RevocationDiscoveryAnswerTests {
    static let metadataPath = "/.well-known/oauth-authorization-server"

    static func response(_ status: HTTPResponse.Status, _ body: String) -> HTTPTransportResponse {
        HTTPTransportResponse(
            response: HTTPResponse(status: status),
            body: Data(body.utf8),
            url: URL(string: "https://api.example.com\(Self.metadataPath)")!
        )
    }

    /// (status, body, definite?)
    static let answers: [(Int, String, Bool)] = [
        (404, "", true),
        (200, "{}", true),
        (200, #"{"issuer":"https://api.example.com"}"#, true),
        (200, #"{"revocation_endpoint":"https://evil.example/revoke"}"#, true),
        (200, "<html>sign in to the Wi-Fi</html>", false),
        (401, "", false),
        (403, "", false),
        (302, "", false),
    ]

    @Test(arguments: Self.answers.indices)
    func onlyA404OrMetadataIsDefinite(index: Int) throws {
        let (status, body, definite) = Self.answers[index]
        let discovery = try #require(RevocationDiscovery(tokenEndpoint: URL(string: "https://api.example.com/token")!))
        let answer = discovery.answer(in: Self.response(HTTPResponse.Status(code: status), body))
        #expect(answer.isDefinite == definite)
        #expect(answer.endpoint == nil)
    }

    @Test func aServerErrorIsAskedAgainAtTheNextSignOut() async throws {
        let metadataCalls = NIOLockedValueBox(0)
        let handler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { request in
            switch request.uri {
            case Self.metadataPath:
                let call = metadataCalls.withLockedValue { calls -> Int in
                    calls += 1
                    return calls
                }
                if call == 1 { return .status(503, headers: [("Retry-After", "7")]) }
                let host = request.header("Host") ?? "missing"
                let metadata = #"{"revocation_endpoint":"https://\#(host)/oauth/revoke"}"#
                return .status(200, headers: [("Content-Type", "application/json")], body: Array(metadata.utf8))
            case "/oauth/revoke":
                return .status(200)
            default:
                return .status(404)
            }
        }
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: try Live.pki.validChain()), handler: handler) {
            server in
            try await withNIOHTTPTransport(configuration: Live.configuration) { transport in
                let endpoint = OAuthTokenEndpoint(
                    url: server.baseURL.appendingPathComponent("oauth/token"),
                    transport: transport,
                    client: .publicClient(id: "ios-app"),
                    revocation: .advertised
                )
                // The server is down: this sign-out reports that it did not revoke.
                do throws(TokenAuthError) {
                    try await endpoint.revoke(refreshToken: "rt-1")
                    Issue.record("a 503 was taken as a server without a revocation endpoint")
                } catch {
                    #expect(error.code == .serverError)
                    #expect(error.retryAfter == .seconds(7))
                }
                // The next one asks again, and revokes where the metadata says; then it is known.
                try await endpoint.revoke(refreshToken: "rt-2")
                try await endpoint.revoke(refreshToken: "rt-3")
                #expect(
                    server.statistics.requests.map(\.uri) == [
                        Self.metadataPath, Self.metadataPath, "/oauth/revoke", "/oauth/revoke",
                    ]
                )
                let revoked = server.statistics.requests.filter { $0.uri == "/oauth/revoke" }
                    .map { String(decoding: $0.body, as: UTF8.self) }
                #expect(revoked.count == 2)
                #expect(revoked.first?.contains("token=rt-2") == true)
                #expect(revoked.last?.contains("token=rt-3") == true)
            }
        }
    }
}
#endif
