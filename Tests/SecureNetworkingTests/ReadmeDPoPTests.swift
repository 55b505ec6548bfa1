#if TestServers
import Foundation
import SecureNetworking
import SecureNetworkingTesting
import Testing

// The README's "Bearer or DPoP" example, verbatim.

/// A client whose tokens are bound to a key of its own (RFC 9449): a copy of the stored tokens
/// is refused anywhere the key is not.
func makeDPoPClient(
    baseURL: URL,
    policy: TransportSecurityPolicy,
    store: any SecureStore
) async throws -> SecureAPIClient {
    let key = try await DPoPKey.stored(in: store)  // made on first use, kept beside the tokens
    return try SecureAPIClient(
        configuration: .init(
            baseURL: baseURL,
            policy: policy,
            authentication: .oauth(
                client: .publicClient(id: "ios-app"),
                store: store,
                dpop: DPoPSigner(key: key)  // proofs on the token endpoint and on every request
            )
        )
    )
}

@Suite("README: bearer or DPoP")
struct ReadmeDPoPTests {
    @Test func theREADMEShowsThisFilesExample() throws {
        try ReadmeQuickStartTests.expectREADMEExample(under: "### Bearer or DPoP", in: #filePath, minimumLines: 10)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theExampleGetsBoundTokensFromTheReferenceServer() async throws {
        try await withReferenceAuthServer(try ReferenceFixture.configuration()) { server in
            let store = InMemoryStore()
            let client = try await makeDPoPClient(
                baseURL: server.baseURL,
                policy: TransportSecurityPolicy(trustAnchors: ReferenceFixture.pki.trustAnchors),
                store: store
            )
            do {
                let bundle = try await client.signIn(APIClientDPoPTests.login)
                #expect(bundle.tokenType == "DPoP")
                let profile = try await client.send(Request<UserProfile>.get("user/profile"))
                #expect(profile.email == ReferenceFixture.alice.email)
                #expect(server.statistics.dpopProofsAccepted == 2)
                #expect(try await store.contains("SecureNetworking.dpopKey"))
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
        }
    }
}
#endif
