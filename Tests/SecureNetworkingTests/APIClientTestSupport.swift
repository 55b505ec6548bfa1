#if TestServers
import Foundation
import Logging
import NIOConcurrencyHelpers
import SecureNetworking
import SecureNetworkingTesting
import Testing

/// What the echo route answers.
struct Echo: Decodable, Sendable {
    var method: String
    var rawPath: String
    var pathSegments: [String]
    var rawQuery: String?
    var query: [[String]]
    var body: String?
    var contentType: String?
    var authorizationPresent: Bool
}

struct UserProfile: Codable, Sendable, Equatable {
    var email: String
    var displayName: String
}

struct LoginBody: Encodable, Sendable {
    var email: String
    var password: String
}

/// A reference server with one user and a PKI minted now, and a way to build clients for it.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
struct APIFixture {
    static let email = "ada@example.com"
    static let password = "correct horse battery staple"

    let pki: TestPKI
    let server: ReferenceAuthServer
    let serverClock: TestClock
    let clientClock: TestClock

    var loginRequest: Request<TokenResponse> {
        .post(
            "auth/login",
            body: .json(LoginBody(email: Self.email, password: Self.password)),
            requiresAuthentication: false
        )
    }

    var policy: TransportSecurityPolicy {
        TransportSecurityPolicy(trustAnchors: self.pki.trustAnchors)
    }

    /// A client configuration for the server, with an OAuth token manager on an in-memory store.
    func configuration(
        policy: TransportSecurityPolicy? = nil,
        store: any SecureStore = InMemoryStore(),
        retry: RetryPolicy = RetryPolicy(
            maximumAttempts: 3,
            baseDelay: .milliseconds(20),
            maximumDelay: .milliseconds(200)
        ),
        interceptors: [any RequestInterceptor] = [],
        clientIdentity: ClientIdentity? = nil,
        maximumResponseBodySize: Int? = nil,
        tokens: TokenManager.Configuration = TokenManager.Configuration(revocationTimeout: .seconds(30)),
        logger: Logger? = nil,
        baseURL: URL? = nil
    ) throws -> SecureAPIClient.Configuration {
        var transport = HTTPTransportConfiguration(policy: policy ?? self.policy)
        transport.clientIdentity = clientIdentity
        transport.logger = logger
        transport.timeouts.request = .seconds(60)
        if let maximumResponseBodySize { transport.maximumResponseBodySize = maximumResponseBodySize }
        let clock = self.clientClock
        var configuration = SecureAPIClient.Configuration(
            baseURL: baseURL ?? self.server.baseURL,
            transport: transport,
            authentication: .oauth(
                revocation: .path("oauth/revoke"),
                client: .publicClient(id: "test-app"),
                store: store,
                configuration: tokens,
                now: { clock.now }
            ),
            logger: logger
        )
        configuration.retry = retry
        configuration.interceptors = interceptors
        return configuration
    }
}

/// Starts a reference server for one test and stops it afterwards.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
func withAPIFixture<R>(
    accessTokenLifetime: Duration = .seconds(300),
    tokenFormat: ReferenceAuthServer.TokenFormat = .jwt,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (APIFixture) async throws -> R
) async throws -> R {
    let pki = try TestPKI(referenceTime: Date())
    let serverClock = TestClock(Date())
    let clientClock = TestClock(serverClock.now)
    var configuration = ReferenceAuthServer.Configuration(
        chain: try pki.validChain(),
        clientCertificateIssuers: [pki.clientCA],
        accessTokenLifetime: accessTokenLifetime,
        tokenFormat: tokenFormat,
        users: [.init(email: APIFixture.email, password: APIFixture.password, displayName: "Ada")]
    )
    configuration.now = { serverClock.now }
    return try await withReferenceAuthServer(configuration) { server in
        try await body(APIFixture(pki: pki, server: server, serverClock: serverClock, clientClock: clientClock))
    }
}

/// Sends and returns the APIError, recording an issue when the call succeeds.
func expectAPIError<R>(
    _ client: SecureAPIClient,
    _ request: Request<R>,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> APIError? {
    do {
        let value = try await client.send(request)
        Issue.record("expected an APIError, got \(value)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// A swift-log handler that keeps every line, metadata included.
final class CapturingLogHandler: LogHandler, Sendable {
    private let lines: NIOLockedValueBox<[String]>
    private let storedMetadata: NIOLockedValueBox<Logger.Metadata>
    private let level: NIOLockedValueBox<Logger.Level>

    init(lines: NIOLockedValueBox<[String]>) {
        self.lines = lines
        self.storedMetadata = NIOLockedValueBox([:])
        self.level = NIOLockedValueBox(.trace)
    }

    var metadata: Logger.Metadata {
        get { self.storedMetadata.withLockedValue { $0 } }
        set { self.storedMetadata.withLockedValue { $0 = newValue } }
    }

    var logLevel: Logger.Level {
        get { self.level.withLockedValue { $0 } }
        set { self.level.withLockedValue { $0 = newValue } }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = self.metadata.merging(event.metadata ?? [:]) { $1 }
        self.lines.withLockedValue {
            $0.append("\(event.level) \(event.message) \(merged) \(event.source) \(event.file)")
        }
    }
}
#endif
