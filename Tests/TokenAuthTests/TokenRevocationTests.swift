#if TestServers
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import SecureHTTP
import SecureNetworkingTesting
import SecureStorage
import Testing

@testable import TokenAuth

/// Sign-out revokes the refresh token (RFC 7009) at the reference server's `/oauth/revoke`,
/// best effort and bounded: the session always ends locally first.
@Suite("Revocation on sign-out")
struct TokenRevocationTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static let user = ReferenceAuthServer.User(
        email: "ada@example.com",
        password: "analytical engine",
        displayName: "Ada"
    )

    /// A signed-in manager against the reference server, its endpoint and the server.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    func withSession(
        revocation: Bool = true,
        configure: (inout TokenManager.Configuration) -> Void = { _ in },
        _ body: (TokenManager, OAuthTokenEndpoint, ReferenceAuthServer, InMemoryStore) async throws -> Void
    ) async throws {
        let configuration = ReferenceAuthServer.Configuration(chain: try Live.pki.validChain(), users: [Self.user])
        try await withReferenceAuthServer(configuration) { server in
            try await withNIOHTTPTransport(configuration: Live.configuration) { transport in
                let endpoint = OAuthTokenEndpoint(
                    url: server.baseURL.appendingPathComponent("oauth/token"),
                    transport: transport,
                    client: .publicClient(id: "ios-app"),
                    revocationURL: revocation ? server.baseURL.appendingPathComponent("oauth/revoke") : nil
                )
                let tokens = try await referenceSignIn(server, Self.user, through: transport)
                var managerConfiguration = TokenManager.Configuration()
                // The revocations these tests expect to complete get 30 s, not the default 5 s: on
                // a loaded machine a revocation took longer and was (correctly) abandoned.
                managerConfiguration.revocationTimeout = .seconds(30)
                configure(&managerConfiguration)
                let store = InMemoryStore()
                let manager = TokenManager(store: store, refresher: endpoint, configuration: managerConfiguration)
                try await manager.signIn(TokenBundle(tokens, receivedAt: Date()))
                try await body(manager, endpoint, server, store)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func signOutRevokesTheRefreshTokenAtTheServer() async throws {
        try await withSession { manager, endpoint, server, store in
            let refreshToken = try #require(try await manager.currentBundle()?.refreshToken)
            await manager.signOut()
            #expect(await manager.revocationOutcomes == [.completed])
            #expect(server.statistics.revocations == 1)
            #expect(try await store.data(forKey: "SecureNetworking.tokens") == nil)
            // The server no longer honours the refresh token (its family is revoked).
            await #expect(throws: TokenAuthError(.invalidGrant, "")) { try await endpoint.refresh(using: refreshToken) }
            // Signing out again revokes nothing more.
            await manager.signOut()
            #expect(await manager.revocationOutcomes == [.completed])
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func inactivitySignOutRevokesToo() async throws {
        let clock = TestClock(Date())
        // The inactivity path, on a manager with an injected clock.
        try await withSession { manager, endpoint, server, store in
            let bundle = try #require(try await manager.currentBundle())
            let idle = TokenManager(
                store: store,
                refresher: endpoint,
                configuration: TokenManager.Configuration(
                    inactivityTimeout: .seconds(60),
                    revocationTimeout: .seconds(30)
                ),
                now: clock.function
            )
            try await idle.signIn(bundle)
            clock.advance(61)
            #expect(await idle.checkInactivity())
            #expect(await idle.revocationOutcomes == [.completed])
            #expect(server.statistics.revocations == 1)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func withoutARevocationEndpointNothingIsSent() async throws {
        try await withSession(revocation: false) { manager, _, server, _ in
            let before = server.statistics.requests
            await manager.signOut()
            #expect(server.statistics.requests == before)
            #expect(server.statistics.revocations == 0)
            #expect(await !manager.isSignedIn)
        }
    }

    /// A loopback server answering every request with `response`, and an endpoint whose token
    /// and revocation URLs point at it.
    func withStubEndpoint(
        answering response: LoopbackHTTPServer.Response,
        _ body: (LoopbackHTTPServer, OAuthTokenEndpoint) async throws -> Void
    ) async throws {
        try await withLoopbackHTTPServer(
            LoopbackHTTPServer.TLS(chain: try Live.pki.validChain()),
            handler: { _ in response }
        ) {
            server in
            try await withNIOHTTPTransport(configuration: Live.configuration) { transport in
                let endpoint = OAuthTokenEndpoint(
                    url: server.baseURL.appendingPathComponent("oauth/token"),
                    transport: transport,
                    client: .publicClient(id: "ios-app"),
                    revocationURL: server.baseURL.appendingPathComponent("oauth/revoke")
                )
                try await body(server, endpoint)
            }
        }
    }

    /// A revocation endpoint that never answers: the sign-out ends locally at once, and the
    /// revocation is abandoned after the timeout. The local end is observed while the server
    /// holds the revocation request: the store is cleared and the signed-out event emitted then.
    @Test func aStalledRevocationIsAbandonedAfterTheTimeout() async throws {
        // The test's gate: the handler tells it when the revocation request has arrived; the
        // server then holds it (never answers).
        let (arrivals, arrival) = AsyncStream<String>.makeStream()
        try await withLoopbackHTTPServer(
            LoopbackHTTPServer.TLS(chain: try Live.pki.validChain()),
            handler: { request in
                arrival.yield(request.uri)
                return .stall
            }
        ) { server in
            // The stalled request would end at the transport's timeout: 300 s here, so a sign-out
            // that waited for it is told apart from one that abandoned it even when the timers
            // of a loaded machine fire tens of seconds late.
            var configuration = Live.configuration
            configuration.timeouts.request = .seconds(300)
            try await withNIOHTTPTransport(configuration: configuration) { transport in
                let endpoint = OAuthTokenEndpoint(
                    url: server.baseURL.appendingPathComponent("oauth/token"),
                    transport: transport,
                    client: .publicClient(id: "ios-app"),
                    revocationURL: server.baseURL.appendingPathComponent("oauth/revoke")
                )
                let store = InMemoryStore()
                let manager = TokenManager(
                    store: store,
                    refresher: endpoint,
                    // Long enough for the request to reach the server on a loaded machine, where
                    // a 200 ms timeout, and once even 5 s, abandoned it before it was written.
                    configuration: TokenManager.Configuration(revocationTimeout: .seconds(20))
                )
                let log = EventLog(manager)
                try await manager.signIn(
                    TokenBundle(accessToken: "a", refreshToken: "r", expiresAt: Date().addingTimeInterval(300))
                )
                let started = ContinuousClock.now
                let signingOut = Task { await manager.signOut() }
                // Bounded: if the sign-out ends before the request arrives, the stream ends too
                // instead of waiting for ever.
                Task {
                    await signingOut.value
                    arrival.finish()
                }
                var arrived: String?
                for await uri in arrivals {
                    arrived = uri
                    break
                }
                // The revocation request is at the server, which holds it: the session has
                // already ended here. (Only a machine too loaded to write the request within the
                // 20 s timeout gets here without it; the sign-out has then ended, abandoned.)
                if arrived != nil {
                    #expect(arrived == "/oauth/revoke")
                    #expect(try await store.data(forKey: "SecureNetworking.tokens") == nil)
                    #expect(await !manager.isSignedIn)
                    try await waitFor { log.all.contains(.signedOut(.requested)) }
                }
                await signingOut.value
                #expect(try await store.data(forKey: "SecureNetworking.tokens") == nil)
                // Well below the transport's 300 s request timeout the stall would otherwise cost.
                // The bound is loose: beside a parallel build, CPU-bound suites can hold both of
                // the cooperative pool's threads, and the 20 s timer fired 43 s late once (a 63.5 s
                // sign-out). That the sign-out does not wait for the revocation is shown without a
                // clock by aRevocationThatIgnoresCancellationIsAbandonedAtTheTimeout.
                #expect(started.duration(to: .now) < .seconds(240))
                #expect(await manager.revocationOutcomes == [.abandoned])
            }
        }
    }

    @Test func aFailedRevocationStillSignsOut() async throws {
        let responses: [LoopbackHTTPServer.Response] = [
            .status(503, headers: [("Retry-After", "30")]),
            .status(
                400,
                headers: [("Content-Type", "application/json")],
                body: Array(#"{"error":"unsupported_token_type"}"#.utf8)
            ),
        ]
        for (response, code) in zip(responses, [TokenAuthError.Code.serverError, .authorizationRejected]) {
            try await withStubEndpoint(answering: response) { server, endpoint in
                // 30 s for the answer to arrive (the default 5 s was missed on a loaded machine).
                let manager = TokenManager(
                    store: InMemoryStore(),
                    refresher: endpoint,
                    configuration: TokenManager.Configuration(revocationTimeout: .seconds(30))
                )
                try await manager.signIn(
                    TokenBundle(accessToken: "a", refreshToken: "r", expiresAt: Date().addingTimeInterval(300))
                )
                await manager.signOut()
                #expect(await manager.revocationOutcomes == [.failed(code)])
                #expect(await !manager.isSignedIn)
                // RFC 7009 §2.1: form-encoded token and hint, with the client's authentication.
                #expect(server.statistics.requests.map(\.uri) == ["/oauth/revoke"])
                // A revocation that never arrived fails above; it must not crash the suite here.
                let revocation = try #require(server.statistics.requests.first)
                let form = String(decoding: revocation.body, as: UTF8.self)
                #expect(form == "token=r&token_type_hint=refresh_token&client_id=ios-app")
            }
        }
    }

    /// A refresh token the server refused needs no revocation.
    @Test func aRejectedRefreshRevokesNothing() async throws {
        let refresher = CountingRevoker()
        let manager = TokenManager(store: InMemoryStore(), refresher: refresher)
        try await manager.signIn(
            TokenBundle(accessToken: "a", refreshToken: "r", expiresAt: Date().addingTimeInterval(-1))
        )
        await #expect(throws: TokenAuthError(.invalidGrant, "")) { try await manager.validAccessToken() }
        #expect(await !manager.isSignedIn)
        #expect(refresher.revocations == 0)
        #expect(await manager.revocationOutcomes.isEmpty)
    }

    /// A revocation that ignores cancellation (a transport slow to notice it, mid-handshake on a
    /// busy machine): the sign-out still returns at the timeout, not when the revocation ends.
    final class DeafRevoker: TokenRefresher {
        let release = Gate()
        func refresh(using refreshToken: String) async throws(TokenAuthError) -> TokenResponse {
            throw TokenAuthError(.serverError, "not used")
        }
        func revoke(refreshToken: String) async throws(TokenAuthError) {
            await self.release.wait()
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aRevocationThatIgnoresCancellationIsAbandonedAtTheTimeout() async throws {
        let revoker = DeafRevoker()
        let manager = TokenManager(
            store: InMemoryStore(),
            refresher: revoker,
            configuration: TokenManager.Configuration(revocationTimeout: .milliseconds(100))
        )
        try await manager.signIn(
            TokenBundle(accessToken: "a", refreshToken: "r", expiresAt: Date().addingTimeInterval(300))
        )
        await manager.signOut()
        #expect(await manager.revocationOutcomes == [.abandoned])
        await revoker.release.open()
    }
}

/// Refuses every refresh with invalid_grant; counts revocations.
final class CountingRevoker: TokenRefresher {
    private let count = NIOLockedValueBox(0)

    func refresh(using refreshToken: String) async throws(TokenAuthError) -> TokenResponse {
        throw TokenAuthError(.invalidGrant, "refused")
    }

    func revoke(refreshToken: String) async throws(TokenAuthError) {
        self.count.withLockedValue { $0 += 1 }
    }

    var revocations: Int { self.count.withLockedValue { $0 } }
}
#endif
