#if TestServers
import Foundation
import HTTPTypes
import SecureNetworking
import SecureNetworkingTesting
import Testing

/// A server that answers `use_dpop_nonce` again to the same request (it rotates its nonce with
/// every answer): the client retries with the newest nonce a bounded number of times
/// (`DPoPNonceRetry`), never refreshes for it, and then fails with a typed error that names the
/// nonce problem.
@Suite("DPoP: repeated nonce challenges")
struct ReviewFindingsDPoPNonceTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static func withSignedInClient(
        _ body: (ReferenceAuthServer, SecureAPIClient, TestClock) async throws -> Void
    ) async throws {
        let clock = TestClock(Date())
        let configuration = try ReferenceFixture.configuration {
            $0.now = clock.function
            $0.accessTokenLifetime = .seconds(600)
            $0.requiresDPoPNonce = true
            $0.dpopNonceLifetime = .seconds(3600)
        }
        try await withReferenceAuthServer(configuration) { server in
            let signer = DPoPSigner(key: DPoPKey(), now: clock.function)
            try await withSecureAPIClient(
                APIClientDPoPTests.client(server, dpop: signer, now: clock.function)
            ) { client in
                _ = try await client.signIn(APIClientDPoPTests.login)
                #expect(server.statistics.dpopNonceChallenges == 1)
                try await body(server, client, clock)
            }
        }
    }

    @Test func theAPIRetriesWithEachNewNonceWithoutRefreshing() async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
        try await Self.withSignedInClient { server, client, _ in
            let before = try await client.tokens?.currentBundle()?.accessToken
            server.rotateDPoPNonce(onTheNext: 2)
            let answer = try await client.response(for: Request<UserProfile>.get("user/profile"))
            #expect(answer.attempts == 3)
            #expect(server.statistics.dpopNonceChallenges == 3)
            #expect(server.statistics.tokenEndpointCalls == 0)
            #expect(try await client.tokens?.currentBundle()?.accessToken == before)
        }
    }

    @Test func theAPIGivesUpAfterThreeRetriesWithATypedErrorAndKeepsTheSession() async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
        try await Self.withSignedInClient { server, client, _ in
            let before = try await client.tokens?.currentBundle()
            server.rotateDPoPNonce(onTheNext: 100)
            let error = await expectAPIError(client, Request<UserProfile>.get("user/profile"))
            #expect(error?.code == .authenticationFailed)
            #expect(error?.status == 401)
            #expect(error?.authenticationError?.code == .dpopNonceRejected)
            #expect(error?.authenticationError?.isTerminal == false)
            #expect(error.map { "\($0)".contains("nonce") } == true)
            // One request and DPoPNonceRetry.maximumRetries retries; no refresh.
            #expect(DPoPNonceRetry.maximumRetries == 3)
            #expect(server.statistics.profileCalls == 4)
            #expect(server.statistics.tokenEndpointCalls == 0)
            #expect(try await client.tokens?.currentBundle()?.accessToken == before?.accessToken)
            #expect(try await client.tokens?.currentBundle()?.refreshToken == before?.refreshToken)
        }
    }

    @Test func theTokenEndpointRetriesWithEachNewNonce() async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
        try await Self.withSignedInClient { server, client, clock in
            clock.advance(601)
            server.rotateDPoPNonce(onTheNext: 2)
            _ = try await client.send(Request<UserProfile>.get("user/profile"))
            #expect(server.statistics.tokenEndpointCalls == 3)
            #expect(server.statistics.dpopNonceChallenges == 3)
            #expect(try await client.tokens?.currentBundle()?.tokenType == "DPoP")
        }
    }

    @Test func theTokenEndpointGivesUpAfterThreeRetriesAndTheSessionIsKept() async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
        try await Self.withSignedInClient { server, client, clock in
            let before = try await client.tokens?.currentBundle()
            clock.advance(601)
            server.rotateDPoPNonce(onTheNext: 100)
            let error = await expectAPIError(client, Request<UserProfile>.get("user/profile"))
            #expect(error?.code == .authenticationFailed)
            #expect(error?.authenticationError?.code == .dpopNonceRejected)
            #expect(server.statistics.tokenEndpointCalls == 4)
            #expect(try await client.tokens?.currentBundle()?.refreshToken == before?.refreshToken)
        }
    }
}
#endif
