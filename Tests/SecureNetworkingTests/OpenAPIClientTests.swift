#if Tools
import Foundation
import HTTPTypes
import OpenAPIRuntime
import SecureNetworking
import SecureNetworkingOpenAPI
import SecureNetworkingTesting
import Testing

/// The client swift-openapi-generator wrote from `OpenAPI/openapi.yaml` (committed under
/// `OpenAPI/Generated`), sending through `SecureClientTransport` and `TokenMiddleware` to the
/// reference server over loopback TLS.
@Suite("OpenAPI: a generated client over the secure transport")
struct OpenAPIClientTests {
    /// A generated client for `fixture`'s server (or `serverURL`), its token manager (on the
    /// fixture's client clock) and its transport.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    func withGeneratedClient<R: Sendable>(
        _ fixture: APIFixture,
        policy: TransportSecurityPolicy,
        serverURL: URL? = nil,
        maximumRequestBodySize: Int = 10 * 1024 * 1024,
        unauthenticated: Set<String> = ["signIn"],
        _ body: (Client, TokenManager) async throws -> R
    ) async throws -> R {
        var configuration = HTTPTransportConfiguration(policy: policy)
        configuration.timeouts.request = .seconds(60)
        return try await withNIOHTTPTransport(configuration: configuration) { transport in
            let clock = fixture.clientClock
            let tokens = TokenManager(
                store: InMemoryStore(),
                refresher: OAuthTokenEndpoint(
                    url: fixture.server.baseURL.appendingPathComponent("oauth/token"),
                    transport: transport,
                    client: .publicClient(id: "test-app")
                ),
                now: { clock.now }
            )
            let client = Client(
                serverURL: serverURL ?? fixture.server.baseURL,
                transport: SecureClientTransport(transport, maximumRequestBodySize: maximumRequestBodySize),
                middlewares: [TokenMiddleware(tokens: tokens, unauthenticated: unauthenticated)]
            )
            return try await body(client, tokens)
        }
    }

    /// The README's setup, compiled here and checked against the README.
    static func readmeSetup(baseURL: URL, transport: NIOHTTPTransport, tokenManager: TokenManager) -> Client {
        let client = Client(
            serverURL: baseURL,
            transport: SecureClientTransport(transport),
            middlewares: [TokenMiddleware(tokens: tokenManager, unauthenticated: ["signIn"])]
        )
        return client
    }

    @Test func theREADMEShowsTheSetup() throws {
        try ReadmeQuickStartTests.expectREADMEExample(
            under: "### Generated OpenAPI clients",
            in: #filePath,
            minimumLines: 4
        )
    }

    /// Signs in through the generated `signIn` and keeps the tokens in `tokens`.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    func signIn(_ client: Client, _ tokens: TokenManager, _ fixture: APIFixture) async throws {
        let answer = try await client.signIn(body: .json(.init(email: APIFixture.email, password: APIFixture.password)))
        let token = try answer.ok.body.json
        #expect(token.tokenType == "Bearer")
        try await tokens.signIn(
            TokenBundle(
                accessToken: token.accessToken,
                refreshToken: token.refreshToken,
                expiresAt: fixture.clientClock.now.addingTimeInterval(TimeInterval(token.expiresIn)),
                issuedAt: fixture.clientClock.now
            )
        )
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static func pinned(_ fixture: APIFixture, anchors: TrustAnchors? = nil) throws -> TransportSecurityPolicy {
        var policy = TransportSecurityPolicy(trustAnchors: anchors ?? fixture.pki.trustAnchors)
        policy.pinning.pin(
            try HostPattern("localhost"),
            to: try PinSet(pins: [fixture.pki.intermediate.pin, fixture.pki.root.pin])
        )
        return policy
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func typedCallsSucceedOverAPinnedConnection() async throws {
        try await withAPIFixture { fixture in
            try await self.withGeneratedClient(fixture, policy: try Self.pinned(fixture)) { client, tokens in
                try await self.signIn(client, tokens, fixture)
                let profile = try await client.getProfile().ok.body.json
                #expect(profile.email == APIFixture.email)
                #expect(profile.displayName == "Ada")
                let renamed = try await client.updateProfile(body: .json(.init(displayName: "Ada L."))).ok.body.json
                #expect(renamed.displayName == "Ada L.")
                // A body that can be read once is kept for a retry, and sent whole.
                let parts = AsyncStream<ArraySlice<UInt8>> { continuation in
                    continuation.yield(ArraySlice("hel".utf8))
                    continuation.yield(ArraySlice("lo".utf8))
                    continuation.finish()
                }
                let upload = HTTPBody(parts, length: .unknown, iterationBehavior: .single)
                let echo = try await client.echoUpload(body: .binary(upload)).ok.body.json
                #expect(echo.body == "hello")
                #expect(echo.authorizationPresent)
                #expect(echo.method == "POST")
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aManInTheMiddleIsRefusedByThePins() async throws {
        try await withAPIFixture { fixture in
            let proxy = try await InterceptingProxy.start(
                upstreamPort: fixture.server.port,
                interceptionChain: try fixture.pki.interceptionChain(),
                upstreamRoots: [fixture.pki.root]
            )
            // The device trusts the interception CA; only the pins stand in the way.
            let anchors = TrustAnchors.only([fixture.pki.root.certificate, fixture.pki.interceptionCA.certificate])
            let viaProxy = try #require(URL(string: "https://localhost:\(proxy.port)"))
            do {
                try await self.withGeneratedClient(
                    fixture,
                    policy: try Self.pinned(fixture, anchors: anchors),
                    serverURL: viaProxy
                ) {
                    client,
                    _ in
                    let error = await #expect(throws: ClientError.self) {
                        try await client.signIn(
                            body: .json(.init(email: APIFixture.email, password: APIFixture.password))
                        )
                    }
                    let transportError = error?.underlyingError as? SecureHTTPError
                    #expect(transportError?.code == .serverTrustFailure)
                    #expect(transportError?.serverTrustError?.code == .pinMismatch)
                    #expect(error?.operationID == "signIn")
                }
                #expect(fixture.server.statistics.loginCalls == 0)
                await proxy.shutdown()
            } catch {
                await proxy.shutdown()
                throw error
            }
        }
    }

    /// 50 generated calls at once, twice: once refused with 401 (the server saw the token
    /// expire; the client did not), once with a token the client knows has expired. Each time
    /// the token endpoint is called once.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func fiftyConcurrentCallsWithAnExpiredTokenRefreshOnce() async throws {
        try await withAPIFixture { fixture in
            try await self.withGeneratedClient(fixture, policy: try Self.pinned(fixture)) { client, tokens in
                try await self.signIn(client, tokens, fixture)
                #expect(fixture.server.statistics.tokenEndpointCalls == 0)

                // 401 → one refresh → one retry for each call.
                fixture.serverClock.advance(400)
                let first = try await Self.fiftyProfiles(client)
                #expect(first == Array(repeating: APIFixture.email, count: 50))
                #expect(fixture.server.statistics.tokenEndpointCalls == 1)
                #expect(fixture.server.statistics.profileCalls == 100)

                // Expired on the client's clock too: refreshed before sending, once.
                fixture.serverClock.advance(400)
                fixture.clientClock.advance(800)
                let second = try await Self.fiftyProfiles(client)
                #expect(second == Array(repeating: APIFixture.email, count: 50))
                #expect(fixture.server.statistics.tokenEndpointCalls == 2)
                #expect(fixture.server.statistics.profileCalls == 150)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static func fiftyProfiles(_ client: Client) async throws -> [String] {
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { try await client.getProfile().ok.body.json.email } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aBodyOverTheLimitIsNotSent() async throws {
        try await withAPIFixture { fixture in
            try await self.withGeneratedClient(
                fixture,
                policy: fixture.policy,
                maximumRequestBodySize: 4,
                unauthenticated: ["echoUpload"]
            ) { client, _ in
                let error = await #expect(throws: ClientError.self) {
                    try await client.echoUpload(body: .binary(HTTPBody("hello")))
                }
                #expect((error?.underlyingError as? SecureHTTPError)?.code == .invalidRequest)
                #expect(fixture.server.calls(to: "/echo/upload") == 0)
            }
        }
    }
}
#endif
