#if TestServers
import Foundation
import HTTPTypes
import SecureNetworking
import SecureNetworkingTesting
import Testing

/// `SecureAPIClient` with DPoP-bound tokens (RFC 9449) against the reference server: sign-in,
/// requests and refreshes with proofs, nonce challenges answered once, and a stolen session that
/// gets nowhere without the key.
@Suite("API client with DPoP")
struct APIClientDPoPTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static let login = Request<TokenResponse>.post(
        "auth/login",
        body: .json(LoginBody(email: ReferenceFixture.alice.email, password: ReferenceFixture.alice.password)),
        requiresAuthentication: false
    )

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static func client(
        _ server: ReferenceAuthServer,
        dpop: DPoPSigner?,
        store: any SecureStore = InMemoryStore(),
        now: @escaping @Sendable () -> Date
    ) -> SecureAPIClient.Configuration {
        var configuration = SecureAPIClient.Configuration(
            baseURL: server.baseURL,
            transport: ReferenceFixture.transportConfiguration(),
            authentication: .oauth(client: .publicClient(id: "ios-app"), store: store, dpop: dpop, now: now)
        )
        configuration.retry = RetryPolicy(maximumAttempts: 1)
        return configuration
    }

    @Test func aDPoPSessionAnswersEachNonceChallengeOnce() async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
        let clock = TestClock(Date())
        let configuration = try ReferenceFixture.configuration {
            $0.now = clock.function
            $0.accessTokenLifetime = .seconds(600)
            $0.requiresDPoPNonce = true
            $0.dpopNonceLifetime = .seconds(60)
        }
        try await withReferenceAuthServer(configuration) { server in
            let signer = DPoPSigner(key: DPoPKey(), now: clock.function)
            try await withSecureAPIClient(Self.client(server, dpop: signer, now: clock.function)) { client in
                let bundle = try await client.signIn(Self.login)
                #expect(bundle.tokenType == "DPoP")
                #expect(bundle.authorizationValue.hasPrefix("DPoP "))
                #expect(server.statistics.dpopNonceChallenges == 1)
                #expect(server.statistics.loginCalls == 2)

                // The nonce of the sign-in serves the API on the same origin: no challenge.
                let profile = try await client.send(Request<UserProfile>.get("user/profile"))
                #expect(profile.email == ReferenceFixture.alice.email)
                #expect(server.statistics.dpopNonceChallenges == 1)
                #expect(server.statistics.profileCalls == 1)

                // The nonce expires: one 401 use_dpop_nonce, one retry, no refresh.
                clock.advance(61)
                let retried = try await client.response(for: Request<UserProfile>.get("user/profile"))
                #expect(retried.attempts == 2)
                #expect(server.statistics.dpopNonceChallenges == 2)
                #expect(server.statistics.profileCalls == 3)
                #expect(server.statistics.tokenEndpointCalls == 0)

                // The token expires: the refresh carries a proof, is challenged once, and the
                // new token is DPoP-bound too.
                clock.advance(600)
                _ = try await client.send(Request<UserProfile>.get("user/profile"))
                #expect(server.statistics.tokenEndpointCalls == 2)
                #expect(server.statistics.dpopNonceChallenges == 3)
                #expect(try await client.tokens?.currentBundle()?.tokenType == "DPoP")
                #expect(server.statistics.boundTokenMisuses == 0)
                #expect(server.statistics.dpopProofsRefused == 0)
            }
        }
    }

    /// The whole stored session (access and refresh token) copied to another device: without
    /// the key its requests and its refresh are refused, with a key of its own too, and the
    /// owner's session goes on.
    @Test func aStolenSessionIsUselessWithoutTheKey() async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
        try await withReferenceAuthServer(try ReferenceFixture.configuration()) { server in
            let store = InMemoryStore()
            let key = try await DPoPKey.stored(in: store)
            let owner = Self.client(server, dpop: DPoPSigner(key: key), store: store, now: { Date() })
            try await withSecureAPIClient(owner) { client in
                try await client.signIn(Self.login)
                let stolen = try #require(try await client.tokens?.currentBundle())

                for thiefKey in [nil, DPoPKey()] {
                    let thiefStore = InMemoryStore()
                    let thief = Self.client(
                        server,
                        dpop: thiefKey.map { DPoPSigner(key: $0) },
                        store: thiefStore,
                        now: { Date() }
                    )
                    try await withSecureAPIClient(thief) { thief in
                        try await thief.tokens?.signIn(stolen)
                        let error = await #expect(throws: APIError.self) {
                            _ = try await thief.send(Request<UserProfile>.get("user/profile"))
                        }
                        if thiefKey == nil {
                            // No proof: the 401 leads to a refresh the token endpoint refuses
                            // for want of a proof (invalid_dpop_proof); the tokens stay put.
                            #expect(error?.code == .authenticationFailed)
                            #expect(error?.authenticationError?.code == .proofOfPossessionFailed)
                        } else {
                            // Another key's proof: the refresh token is bound to the owner's
                            // key (invalid_grant), which ends the thief's copy of the session.
                            #expect(error?.code == .signedOut)
                            #expect(error?.authenticationError?.code == .invalidGrant)
                        }
                    }
                }
                #expect(server.statistics.boundTokenMisuses == 2)
                #expect(server.statistics.revokedFamilies == 0)
                // The owner never noticed; a relaunch with the stored key still works.
                #expect(
                    try await client.send(Request<UserProfile>.get("user/profile")).email
                        == ReferenceFixture.alice.email
                )
                #expect(try await DPoPKey.stored(in: store).thumbprint == key.thumbprint)
            }
        }
    }
}
#endif
