// swift-format-ignore-file
// The README's example under "Quick start", verbatim: DefaultIsolationTests compares the two.
import Foundation
import SecureNetworking

nonisolated struct Profile: Decodable, Equatable, Sendable {
    var email: String
    var displayName: String  // "display_name" in the JSON
}

nonisolated struct Login: Encodable, Sendable {
    var email: String
    var password: String
}

/// Signs in, then loads the profile over a pinned connection; the tokens live in an encrypted file
/// whose key is kept apart from them.
func loadProfile(api: URL, policyFile: String, email: String, password: String, tokenFolder: URL, storeKey: URL) async throws -> Profile {
    // ATS-style keys, pinnedDomains, and trustAnchors: the CA files the app trusts besides the system's.
    let policy = try TransportSecurityPolicy(contentsOfFile: policyFile)
    // The key never sits beside the data it protects: another volume or a secrets mount (or a
    // .passphrase the user types); on Apple platforms, a KeychainStore instead of a file store.
    let store = EncryptedFileStore(directory: tokenFolder, keySource: .keyFile(at: storeKey))
    let configuration = SecureAPIClient.Configuration(
        baseURL: api,
        policy: policy,
        authentication: .oauth(
            revocation: .path("oauth/revoke"),  // signOut() revokes the refresh token there
            client: .publicClient(id: "my-app"),
            store: store  // refreshes at POST /oauth/token
        )
    )
    return try await withSecureAPIClient(configuration) { client in
        try await client.signIn(.post("auth/login", body: .json(Login(email: email, password: password)), requiresAuthentication: false))
        // The token is attached, refreshed once when it expires, and a 401 is retried once.
        // signIn and send fail with APIError: .invalidCredentials, .signedOut, .unauthorized, .transportFailure (pins, trust, TLS), …;
        // the policy file's errors (above) are ServerTrustError: .unreadableFile, .invalidPolicyFile with its key path.
        // Its message says why, for you; error.userMessage is a sentence for users, never the server's text.
        return try await client.send(Request<Profile>.get("user/profile"))
    }
}
