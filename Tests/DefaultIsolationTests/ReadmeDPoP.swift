// swift-format-ignore-file
// The README's example under "Bearer or DPoP", verbatim: DefaultIsolationTests compares the two.
import Foundation
import SecureNetworking

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
