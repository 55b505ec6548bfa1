// swift-format-ignore-file
// The README's example under "Signing in in the browser", verbatim: DefaultIsolationTests compares the two.
import Foundation
import SecureNetworking

/// A command-line or desktop app signs the user in in their browser (RFC 8252): PKCE, a loopback
/// redirect, one code exchange; the tokens start the app's session.
func signInWithBrowser(
    server: URL,
    transport: some HTTPTransport,
    tokens: TokenManager,
    openBrowser: (URL) async throws -> Void
) async throws {
    let receiver = try await LoopbackRedirectReceiver.start()  // http://127.0.0.1:<free port>/callback
    let request = AuthorizationRequest(
        authorizationEndpoint: server.appendingPathComponent("oauth/authorize"),
        clientID: "my-cli",
        redirectURI: receiver.redirectURI,
        scopes: ["profile"]
    )
    try await openBrowser(request.url)
    // The redirect must carry this request's state; its code is exchanged once, with the verifier.
    let response = try request.response(from: try await receiver.redirect(for: request, within: .seconds(300)))
    let endpoint = OAuthTokenEndpoint(
        url: server.appendingPathComponent("oauth/token"),
        transport: transport,
        client: .publicClient(id: "my-cli"),
        revocationURL: server.appendingPathComponent("oauth/revoke")  // signOut() revokes there
    )
    let tokenResponse = try await endpoint.exchange(response, for: request)
    try await tokens.signIn(TokenBundle(tokenResponse, receivedAt: Date()))
}
