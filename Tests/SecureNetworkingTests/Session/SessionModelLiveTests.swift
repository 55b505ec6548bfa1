#if TestServers
import Foundation
import SecureNetworking
import SecureNetworkingTesting
import SecureSession
import SecureStorage
import Testing
import TokenAuth

/// The session model driven as a UI drives it, against the reference server over real TLS on
/// loopback: the password sign-in, profile and token endpoint are the server's, the presence gate
/// is the test's.
@Suite("The session model, live", .timeLimit(.minutes(3)))
@MainActor
struct SessionModelLiveTests {
    struct Profile: Decodable, Equatable, Sendable {
        var email: String
        var displayName: String
    }

    /// A client, its presence unlock, and the model over them.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    struct App {
        let client: SecureAPIClient
        let presence: PresenceUnlock
        let model: SessionModel<Profile>
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static func app(
        _ fixture: APIFixture,
        gate: TestPresenceGate,
        base: any SecureStore,
        baseURL: URL? = nil
    ) throws -> App {
        let presence = PresenceUnlock(wrapping: base, gate: gate)
        let client = try SecureAPIClient(
            configuration: try fixture.configuration(store: presence.store, baseURL: baseURL)
        )
        let tokens = try #require(client.tokens)
        let model = SessionModel<Profile>(
            tokens: tokens,
            presence: presence,
            signIn: { email, password in
                try await client.signIn(
                    .post(
                        "auth/login",
                        body: .json(LoginBody(email: email, password: password)),
                        requiresAuthentication: false
                    )
                )
            },
            user: { _ in try await client.send(Request<Profile>.get("user/profile")) }
        )
        return App(client: client, presence: presence, model: model)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func signInLockInTheBackgroundUnlockAndUseTheSession() async throws {
        try await withAPIFixture { fixture in
            let gate = TestPresenceGate()
            let app = try Self.app(fixture, gate: gate, base: InMemoryStore())
            await app.model.start()
            #expect(app.model.state == .signedOut(reason: .neverSignedIn, message: nil))

            await app.model.signIn(username: APIFixture.email, password: "wrong")
            #expect(
                app.model.state
                    == .signedOut(reason: .neverSignedIn, message: "The e-mail or password is wrong.")
            )
            await app.model.signIn(username: APIFixture.email, password: APIFixture.password)
            #expect(app.model.state == .signedIn(Profile(email: APIFixture.email, displayName: "Ada")))
            #expect(app.model.presenceUnlock == .offered)
            await gate.answer(.passed)
            #expect(await app.model.enablePresenceUnlock())

            app.model.appDidEnterBackground()
            #expect(app.model.state == .locked(message: nil))
            await app.model.idle()
            // Locked: the client sends no token and says why.
            let refused = await expectAPIError(app.client, Request<Profile>.get("user/profile"))
            #expect(refused?.authenticationError?.code == .sessionLocked)

            app.model.appWillEnterForeground()
            await gate.answer(.cancelled)
            await app.model.unlock()
            #expect(app.model.state == .locked(message: nil))
            await gate.answer(.passed)
            await app.model.unlock()
            #expect(app.model.state == .signedIn(Profile(email: APIFixture.email, displayName: "Ada")))
            let profile = try await app.client.send(Request<Profile>.get("user/profile"))
            #expect(profile.displayName == "Ada")

            await app.model.signOut()
            #expect(app.model.state == .signedOut(reason: .userSignedOut, message: nil))
            // The sign-out revoked the refresh token at the server.
            #expect(fixture.server.statistics.revocations >= 1)
            // Closed before the server stops, so that it has no open connection to wait for.
            await app.client.shutdown()
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aSessionTheServerRevokesEndsWithTheRevokedReason() async throws {
        try await withAPIFixture { fixture in
            let app = try Self.app(fixture, gate: TestPresenceGate(), base: InMemoryStore())
            await app.model.start()
            await app.model.signIn(username: APIFixture.email, password: APIFixture.password)
            #expect(app.model.state.isSignedIn)
            fixture.server.revokeAllTokens()
            // The access token has not expired, the server refuses it, then refuses the refresh.
            let error = await expectAPIError(app.client, Request<Profile>.get("user/profile"))
            #expect(error?.code == .signedOut)
            await waitForState(app.model) { !$0.isSignedIn }
            #expect(
                app.model.state
                    == .signedOut(
                        reason: .revoked,
                        message: UserMessageCatalog().message(for: .sessionRevoked)
                    )
            )
            await app.client.shutdown()
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aDeadRefreshTokenEndsTheSessionWithTheExpiredReason() async throws {
        try await withAPIFixture(accessTokenLifetime: .seconds(300)) { fixture in
            let app = try Self.app(fixture, gate: TestPresenceGate(), base: InMemoryStore())
            await app.model.start()
            await app.model.signIn(username: APIFixture.email, password: APIFixture.password)
            fixture.server.revokeAllTokens()
            // The access token is due: the client refreshes first, and the server refuses.
            fixture.clientClock.advance(400)
            let error = await expectAPIError(app.client, Request<Profile>.get("user/profile"))
            #expect(error?.code == .signedOut)
            await waitForState(app.model) { !$0.isSignedIn }
            #expect(
                app.model.state
                    == .signedOut(
                        reason: .sessionExpired,
                        message: UserMessageCatalog().message(for: .sessionExpired)
                    )
            )
            await app.client.shutdown()
        }
    }

    // MARK: - Launching without the server

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static let ada = Profile(email: APIFixture.email, displayName: "Ada")

    /// Signs in on a first launch, straight to the server, and closes that app: the tokens stay
    /// in `store` for the next launch.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static func signInAndQuit(_ fixture: APIFixture, store: any SecureStore) async throws {
        let first = try Self.app(fixture, gate: TestPresenceGate(), base: store)
        await first.model.start()
        await first.model.signIn(username: APIFixture.email, password: APIFixture.password)
        #expect(first.model.state == .signedIn(Self.ada))
        await first.client.shutdown()
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aLaunchWithoutTheNetworkKeepsTheSessionAndUsesItOnceTheNetworkIsBack() async throws {
        try await withAPIFixture(accessTokenLifetime: .seconds(300)) { fixture in
            try await withLoopbackOutage(upstreamPort: fixture.server.port) { outage in
                let store = InMemoryStore()
                try await Self.signInAndQuit(fixture, store: store)
                // The next launch reaches the server only through the outage's port, which
                // refuses every connection; the access token is due, so the launch must refresh.
                fixture.clientClock.advance(400)
                let app = try Self.app(fixture, gate: TestPresenceGate(), base: store, baseURL: outage.baseURL)
                await app.model.start()
                #expect(app.model.state == .offline(message: UserMessageCatalog().message(for: .unreachable)))
                #expect(try await store.contains("SecureNetworking.tokens"))
                #expect(fixture.server.statistics.tokenEndpointCalls == 0)

                // The network is back: the next request refreshes with the kept refresh token,
                // and the model, told of the refresh, shows the signed-in user.
                try await outage.end()
                let profile = try await app.client.send(Request<Profile>.get("user/profile"))
                #expect(profile == Self.ada)
                #expect(fixture.server.statistics.tokenEndpointCalls == 1)
                await waitForState(app.model) { $0.isSignedIn }
                #expect(app.model.state == .signedIn(Self.ada))
                await app.client.shutdown()
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aRefreshTokenRefusedAtLaunchEndsTheSessionWithTheExpiredReason() async throws {
        try await withAPIFixture(accessTokenLifetime: .seconds(300)) { fixture in
            let store = InMemoryStore()
            try await Self.signInAndQuit(fixture, store: store)
            // Refused, not unreachable: the server answers `invalid_grant` to the kept refresh token.
            fixture.server.revokeAllTokens()
            fixture.clientClock.advance(400)
            let app = try Self.app(fixture, gate: TestPresenceGate(), base: store)
            await app.model.start()
            #expect(
                app.model.state
                    == .signedOut(reason: .sessionExpired, message: UserMessageCatalog().message(for: .sessionExpired))
            )
            #expect(try await store.contains("SecureNetworking.tokens") == false)
            await app.client.shutdown()
        }
    }
}
#endif
