#if TestServers
import Foundation
import HTTPTypes
import HTTPTypesFoundation
import NIOConcurrencyHelpers
import SecureNetworking
import SecureNetworkingTesting
import Testing

/// Shared fixtures for the reference server's live tests: one PKI minted at the real clock
/// (BoringSSL checks client certificates against it), a hand-moved clock and a small client.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
enum ReferenceFixture {
    static let pki: TestPKI = {
        do { return try TestPKI(referenceTime: Date()) } catch { preconditionFailure("TestPKI: \(error)") }
    }()

    static let alice = ReferenceAuthServer.User(
        email: "alice@example.com",
        password: "correct horse",
        displayName: "Alice"
    )

    /// A configuration with Alice as the only user.
    static func configuration(
        _ configure: (inout ReferenceAuthServer.Configuration) -> Void = { _ in }
    ) throws -> ReferenceAuthServer.Configuration {
        var configuration = ReferenceAuthServer.Configuration(chain: try pki.validChain(), users: [alice])
        configure(&configuration)
        return configuration
    }

    /// A transport that trusts the test root only.
    static func transportConfiguration(clientIdentity: ClientIdentity? = nil) -> HTTPTransportConfiguration {
        var configuration = HTTPTransportConfiguration(policy: TransportSecurityPolicy(trustAnchors: pki.trustAnchors))
        configuration.timeouts.request = .seconds(60)
        configuration.clientIdentity = clientIdentity
        return configuration
    }
}

/// A decoded answer of the reference server.
struct ReferenceReply {
    let status: Int
    let headers: HTTPFields
    let body: Data

    var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: self.body)) as? [String: Any]) ?? [:] }

    func string(_ key: String) -> String? { self.json[key] as? String }

    func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { self.headers[$0] } }
}

/// Talks to one reference server over a `NIOHTTPTransport`.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
struct ReferenceClient {
    let server: ReferenceAuthServer
    let transport: NIOHTTPTransport

    func send(
        _ method: HTTPRequest.Method,
        _ target: String,
        headers: HTTPFields = [:],
        body: Data? = nil
    ) async throws -> ReferenceReply {
        let url = try #require(URL(string: "https://localhost:\(self.server.port)\(target)"))
        var request = HTTPRequest(method: method, url: url)
        request.headerFields = headers
        let response = try await self.transport.send(request, body: body)
        return ReferenceReply(
            status: response.response.status.code,
            headers: response.response.headerFields,
            body: response.body
        )
    }

    func sendJSON(
        _ method: HTTPRequest.Method,
        _ target: String,
        _ object: [String: Any],
        bearer: String? = nil
    ) async throws
        -> ReferenceReply
    {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        return try await self.send(
            method,
            target,
            headers: headers,
            body: try JSONSerialization.data(withJSONObject: object)
        )
    }

    func login(
        _ email: String = ReferenceFixture.alice.email,
        _ password: String = ReferenceFixture.alice.password
    ) async throws
        -> ReferenceReply
    {
        try await self.sendJSON(.post, "/auth/login", ["email": email, "password": password])
    }

    func profile(bearer: String) async throws -> ReferenceReply {
        try await self.send(.get, "/user/profile", headers: [.authorization: "Bearer \(bearer)"])
    }

    /// The token endpoint client from TokenAuth, pointed at this server.
    func tokenEndpoint(encoding: OAuthTokenEndpoint.BodyEncoding = .form) -> OAuthTokenEndpoint {
        OAuthTokenEndpoint(
            url: self.server.baseURL.appendingPathComponent("oauth/token"),
            transport: self.transport,
            client: .publicClient(id: "reference-tests"),
            encoding: encoding
        )
    }
}

/// Starts a server and a client, runs `body`, and stops both however it ends.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
func withReferenceClient<Result: Sendable>(
    _ configuration: ReferenceAuthServer.Configuration,
    clientIdentity: ClientIdentity? = nil,
    _ body: (ReferenceClient) async throws -> Result
) async throws -> Result {
    try await withReferenceAuthServer(configuration) { server in
        try await withNIOHTTPTransport(
            configuration: ReferenceFixture.transportConfiguration(clientIdentity: clientIdentity)
        ) {
            transport in
            try await body(ReferenceClient(server: server, transport: transport))
        }
    }
}
#endif
