#if TestServers
import Foundation
import HTTPTypes
import SecureHTTP
import SecureNetworkingTesting
import SecureStorage
import Testing

@testable import TokenAuth

/// `OAuthTokenEndpoint.Revocation.advertised`: the revocation endpoint a server names in its
/// RFC 8414 metadata, used only on the token endpoint's own origin.
@Suite("Revocation at the advertised endpoint")
struct RevocationDiscoveryTests {
    static let tokenEndpoint = URL(string: "https://api.example.com:8443/oauth/token")!

    static func metadata(_ object: [String: String], status: HTTPResponse.Status = .ok) -> HTTPTransportResponse {
        HTTPTransportResponse(
            response: HTTPResponse(status: status),
            body: (try? JSONSerialization.data(withJSONObject: object)) ?? Data(),
            url: URL(string: "https://api.example.com:8443/.well-known/oauth-authorization-server")!
        )
    }

    @Test func theMetadataIsReadOnTheTokenEndpointsOrigin() throws {
        let discovery = try #require(RevocationDiscovery(tokenEndpoint: Self.tokenEndpoint))
        #expect(
            discovery.metadataURL.absoluteString
                == "https://api.example.com:8443/.well-known/oauth-authorization-server"
        )
        // RFC 8414 needs https; a plain http token endpoint gets no discovery.
        #expect(RevocationDiscovery(tokenEndpoint: URL(string: "http://api.example.com/oauth/token")!) == nil)
    }

    /// (issuer, revocation_endpoint, used?)
    static let cases: [(String?, String?, String?)] = [
        (
            "https://api.example.com:8443", "https://api.example.com:8443/oauth/revoke",
            "https://api.example.com:8443/oauth/revoke"
        ),
        (nil, "https://API.example.com:8443/revoke", "https://API.example.com:8443/revoke"),
        ("https://api.example.com:8443/", "https://api.example.com:8443/revoke", "https://api.example.com:8443/revoke"),
        // Another host, port or scheme would receive the refresh token: ignored.
        ("https://api.example.com:8443", "https://evil.example.net/revoke", nil),
        ("https://api.example.com:8443", "https://api.example.com/revoke", nil),
        ("https://api.example.com:8443", "http://api.example.com:8443/revoke", nil),
        ("https://api.example.com:8443", "https://user@api.example.com:8443/revoke", nil),
        ("https://api.example.com:8443", "https://api.example.com:8443/revoke?x=1", nil),
        // The metadata of another issuer is not this server's (RFC 8414 §3.3).
        ("https://other.example.com", "https://api.example.com:8443/revoke", nil),
        ("https://api.example.com:8443/tenant", "https://api.example.com:8443/revoke", nil),
        ("https://api.example.com:8443", nil, nil),
        ("https://api.example.com:8443", "not a url", nil),
    ]

    @Test(arguments: Self.cases.indices)
    func anAdvertisedEndpointIsUsedOnlyOnTheSameOrigin(index: Int) throws {
        let (issuer, endpoint, expected) = Self.cases[index]
        let discovery = try #require(RevocationDiscovery(tokenEndpoint: Self.tokenEndpoint))
        var object: [String: String] = [:]
        object["issuer"] = issuer
        object["revocation_endpoint"] = endpoint
        #expect(discovery.revocationEndpoint(in: Self.metadata(object))?.absoluteString == expected)
    }

    @Test func anAnswerThatIsNotMetadataAdvertisesNothing() throws {
        let discovery = try #require(RevocationDiscovery(tokenEndpoint: Self.tokenEndpoint))
        let good = ["revocation_endpoint": "https://api.example.com:8443/revoke"]
        #expect(discovery.revocationEndpoint(in: Self.metadata(good, status: .notFound)) == nil)
        let oversized = HTTPTransportResponse(
            response: HTTPResponse(status: .ok),
            body: Data(repeating: 0x20, count: RevocationDiscovery.maximumMetadataSize + 1),
            url: discovery.metadataURL
        )
        #expect(discovery.revocationEndpoint(in: oversized) == nil)
        let array = HTTPTransportResponse(
            response: HTTPResponse(status: .ok),
            body: Data("[1]".utf8),
            url: discovery.metadataURL
        )
        #expect(discovery.revocationEndpoint(in: array) == nil)
    }

    @Test func theConfiguredKindsSayWhatTheyDo() {
        let transport = UnusedTransport()
        let none = OAuthTokenEndpoint(url: Self.tokenEndpoint, transport: transport, client: .publicClient(id: "a"))
        #expect(none.revocation.description == "none")
        #expect(none.revocationURL == nil)
        let at = OAuthTokenEndpoint(
            url: Self.tokenEndpoint,
            transport: transport,
            client: .publicClient(id: "a"),
            revocation: .at(URL(string: "https://api.example.com:8443/revoke")!)
        )
        #expect(at.revocationURL?.absoluteString == "https://api.example.com:8443/revoke")
        let advertised = OAuthTokenEndpoint(
            url: Self.tokenEndpoint,
            transport: transport,
            client: .publicClient(id: "a"),
            revocation: .advertised
        )
        #expect(advertised.revocation.description == "advertised")
        #expect(advertised.revocationURL == nil)
    }

    @Test func signOutRevokesAtTheEndpointTheReferenceServerAdvertises() async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
        let user = ReferenceAuthServer.User(email: "ada@example.com", password: "analytical engine", displayName: "Ada")
        let configuration = ReferenceAuthServer.Configuration(chain: try Live.pki.validChain(), users: [user])
        try await withReferenceAuthServer(configuration) { server in
            try await withNIOHTTPTransport(configuration: Live.configuration) { transport in
                let endpoint = OAuthTokenEndpoint(
                    url: server.baseURL.appendingPathComponent("oauth/token"),
                    transport: transport,
                    client: .publicClient(id: "ios-app"),
                    revocation: .advertised
                )
                var managerConfiguration = TokenManager.Configuration()
                managerConfiguration.revocationTimeout = .seconds(30)
                let manager = TokenManager(
                    store: InMemoryStore(),
                    refresher: endpoint,
                    configuration: managerConfiguration
                )
                for round in 1...2 {
                    let tokens = try await referenceSignIn(server, user, through: transport)
                    try await manager.signIn(TokenBundle(tokens, receivedAt: Date()))
                    await manager.signOut()
                    #expect(server.statistics.revocations == round)
                    await #expect(throws: TokenAuthError(.invalidGrant, "")) {
                        try await endpoint.refresh(using: try #require(tokens.refreshToken))
                    }
                }
                // The metadata was read once and remembered.
                #expect(server.calls(to: "/.well-known/oauth-authorization-server") == 1)
                #expect(await manager.revocationOutcomes == [.completed, .completed])
            }
        }
    }

    @Test func aServerWithoutMetadataIsNotRevokedAtAndTheSessionStillEnds() async throws {
        try await withLoopbackHTTPServer(
            LoopbackHTTPServer.TLS(chain: try Live.pki.validChain()),
            handler: { _ in .status(404) }
        ) { server in
            try await withNIOHTTPTransport(configuration: Live.configuration) { transport in
                let endpoint = OAuthTokenEndpoint(
                    url: server.baseURL.appendingPathComponent("oauth/token"),
                    transport: transport,
                    client: .publicClient(id: "ios-app"),
                    revocation: .advertised
                )
                try await endpoint.revoke(refreshToken: "rt-1")
                try await endpoint.revoke(refreshToken: "rt-2")
                // One metadata request, remembered; no token was sent anywhere.
                #expect(server.statistics.requests.map(\.uri) == ["/.well-known/oauth-authorization-server"])
            }
        }
    }
}

/// A transport a test never sends through.
private struct UnusedTransport: HTTPTransport {
    func send(
        _ request: HTTPRequest,
        body: Data?,
        options: HTTPRequestOptions
    ) async throws(SecureHTTPError) -> HTTPTransportResponse {
        throw SecureHTTPError(.connectFailed, "not used")
    }
}
#endif
