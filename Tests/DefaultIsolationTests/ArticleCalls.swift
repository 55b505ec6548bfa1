import Foundation
import HTTPTypes
import SecureNetworking
import SecureSession

#if OpenAPI
import OpenAPIRuntime
import SecureNetworkingOpenAPI
#endif

// The call shapes the articles show, written as an app target made by Xcode 26 writes them: every
// declaration here is main-actor isolated unless it says otherwise.

/// A gate that answers as scripted: this machine has no Face ID.
nonisolated struct ScriptedGate: UserPresenceGate {
    let approves: Bool

    func authenticate(reason: String) async throws(SecureStoreError) {
        if !approves { throw SecureStoreError(.authenticationCancelled, "the user cancelled") }
    }
}

struct NoTokenManager: Error {}

/// "The app's session in SwiftUI"'s set-up, with an encrypted file store instead of the Keychain.
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
func makeSession(
    baseURL: URL,
    policy: TransportSecurityPolicy,
    folder: URL,
    gate: some UserPresenceGate
) throws
    -> (SecureAPIClient, SessionModel<Profile>)
{
    let presence = PresenceUnlock(
        wrapping: EncryptedFileStore(directory: folder, keySource: .keyFile(at: folder.appendingPathExtension("key"))),
        gate: gate
    )
    let client = try SecureAPIClient(
        configuration: .init(
            baseURL: baseURL,
            policy: policy,
            authentication: .oauth(client: .publicClient(id: "ios-app"), store: presence.store)
        )
    )
    guard let tokens = client.tokens else { throw NoTokenManager() }
    let session = SessionModel<Profile>(
        tokens: tokens,
        presence: presence,
        configuration: .init(lockAfter: .seconds(60)),
        signIn: { email, password in
            try await client.signIn(
                .post("auth/login", body: .json(Login(email: email, password: password)), requiresAuthentication: false)
            )
        },
        user: { _ in try await client.send(Request<Profile>.get("user/profile")) }
    )
    return (client, session)
}

/// "Rotating pins without a release": the updater fetches over a transport without the pins it
/// may replace, and applies what it verifies to the client's transport.
func startPinUpdates(
    policy: TransportSecurityPolicy,
    updateURL: URL,
    updateKeys: [PinUpdateKey],
    store: any SecureStore
) async throws -> (PinUpdater, NIOHTTPTransport) {
    var unpinnedPolicy = policy
    unpinnedPolicy.pinning = .none
    let fetch = try NIOHTTPTransport(configuration: HTTPTransportConfiguration(policy: unpinnedPolicy))
    let updater = PinUpdater(
        configuration: .init(
            url: updateURL,
            verifier: try PinUpdateVerifier(trustedKeys: updateKeys, audience: "com.example.app/production"),
            compiledPins: policy.pinning,
            store: store,
            fetchTransport: fetch
        )
    )
    var configuration = HTTPTransportConfiguration(policy: policy)
    configuration.pinValidationReporter = updater.reportPinValidation
    let transport = try NIOHTTPTransport(configuration: configuration)
    await updater.start(applyingTo: [transport])
    return (updater, transport)
}

/// The token manager on its own: what a request of the app's own asks for.
func bearerHeader(from tokens: TokenManager) async throws -> String {
    "Bearer \(try await tokens.validAccessToken())"
}

#if OpenAPI
/// "Generated OpenAPI clients": the transport and the middleware a generated `Client` is given.
func openAPIStack(transport: any HTTPTransport, tokens: TokenManager) -> (any ClientTransport, [any ClientMiddleware]) {
    (SecureClientTransport(transport), [TokenMiddleware(tokens: tokens, unauthenticated: ["signIn"])])
}
#endif
