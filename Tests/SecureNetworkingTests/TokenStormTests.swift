#if TestServers
import Foundation
import NIOConcurrencyHelpers
import SecureNetworking
import SecureNetworkingTesting
import Testing

/// Many requests whose token the server stopped accepting, against a server that closes every
/// connection (each request pays a new TLS handshake): the refresh must not queue behind them,
/// and no request may carry a token replaced while it waited.
@Suite("Token storm against a server that closes every connection")
struct TokenStormTests {
    /// The server's clock runs ahead of real time by an offset the test sets, so a token the
    /// client still believes valid can be made one the server refuses.
    final class ServerClock: Sendable {
        private let offset = NIOLockedValueBox<TimeInterval>(0)
        var now: Date { Date().addingTimeInterval(self.offset.withLockedValue { $0 }) }
        func jump(_ seconds: TimeInterval) { self.offset.withLockedValue { $0 += seconds } }
    }

    struct Figures: CustomStringConvertible {
        var requests: Int
        var failed: Int
        var refreshes: Int
        var revokedFamilies: Int
        var seconds: Double
        var connections: Int
        var serverConnections = 0
        var http2Connections = 0
        var http2Streams = 0
        var description: String {
            "\(self.requests) requests: \(self.failed) failed, \(self.refreshes) refreshes, \(self.revokedFamilies) refresh-token reuses, "
                + "\(self.connections) connections (\(self.http2Connections) HTTP/2, \(self.http2Streams) streams), "
                + "\(String(format: "%.2f", self.seconds)) s"
        }
    }

    static let lifetime: TimeInterval = 2

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    func storm(
        _ count: Int,
        tokens: TokenManager.Configuration,
        overHTTP2: Bool = false,
        lifetime: TimeInterval = Self.lifetime
    ) async throws -> Figures {
        let pki = try TestPKI(referenceTime: Date())
        let clock = ServerClock()
        var server = ReferenceAuthServer.Configuration(
            chain: try pki.validChain(),
            accessTokenLifetime: .seconds(lifetime),
            tokenFormat: .opaque,
            users: [.init(email: APIFixture.email, password: APIFixture.password, displayName: "Ada")]
        )
        server.now = { clock.now }
        // Over HTTP/1.1 every request pays a handshake; over HTTP/2 one connection carries them.
        server.closesEveryConnection = !overHTTP2
        server.servesHTTP2 = overHTTP2
        return try await withReferenceAuthServer(server) { server in
            var transport = HTTPTransportConfiguration(policy: TransportSecurityPolicy(trustAnchors: pki.trustAnchors))
            transport.maximumConnectionsPerHost = 6
            transport.timeouts.request = .seconds(120)
            var configuration = SecureAPIClient.Configuration(
                baseURL: server.baseURL,
                transport: transport,
                authentication: .oauth(
                    client: .publicClient(id: "storm"),
                    store: InMemoryStore(),
                    configuration: tokens
                )
            )
            configuration.retry = RetryPolicy(maximumAttempts: 1)
            return try await withSecureAPIClient(configuration) { client in
                try await client.signIn(
                    .post(
                        "auth/login",
                        body: .json(LoginBody(email: APIFixture.email, password: APIFixture.password)),
                        requiresAuthentication: false
                    )
                )
                // The server stops accepting the token the client holds (and still believes valid).
                clock.jump(lifetime + 1)
                let start = ContinuousClock.now
                let failures = await withTaskGroup(of: String?.self) { group in
                    for _ in 0..<count {
                        group.addTask {
                            do {
                                _ = try await client.send(Request<UserProfile>.get("user/profile"))
                                return nil
                            } catch let error as APIError {
                                return
                                    "\(error.code) \(error.transportError.map { "\($0.code)" } ?? "") \(error.authenticationError.map { "\($0.code)" } ?? "")"
                            } catch {
                                return "\(error)"
                            }
                        }
                    }
                    return await group.reduce(into: [String]()) { if let failure = $1 { $0.append(failure) } }
                }
                if !failures.isEmpty {
                    print("token storm failures: \(Dictionary(failures.map { ($0, 1) }, uniquingKeysWith: +))")
                }
                let failed = failures.count
                let elapsed = ContinuousClock.now - start
                let (seconds, attoseconds) = elapsed.components
                let statistics = server.statistics
                let connections = (client.transport as? NIOHTTPTransport)?.statistics.connectionsOpened ?? -1
                return Figures(
                    requests: count,
                    failed: failed,
                    refreshes: statistics.tokenEndpointCalls,
                    revokedFamilies: statistics.revokedFamilies,
                    seconds: Double(seconds) + Double(attoseconds) / 1e18,
                    connections: connections,
                    serverConnections: statistics.connections,
                    http2Connections: statistics.http2Connections,
                    http2Streams: statistics.http2Streams
                )
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test(arguments: [50, 200, 1_000])
    func everyRequestSucceedsWithFewRefreshes(count: Int) async throws {
        // The manager's defaults: refresh leeway and refresh-loop guard included.
        let figures = try await self.storm(count, tokens: TokenManager.Configuration())
        print("token storm: \(figures)")
        #expect(figures.failed == 0)
        #expect(figures.revokedFamilies == 0)
        #expect(figures.refreshes >= 1)
        #expect(figures.refreshes <= 1 + Int(figures.seconds / Self.lifetime))
        // Every request was a new connection (plus the sign-in and the refreshes).
        #expect(figures.connections >= count + 1 + figures.refreshes)
    }

    /// The same storm over HTTP/2 (issue 16): the API's requests share one multiplexed
    /// connection (the token endpoint's lane has its own), one refresh serves them all.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test(arguments: [200, 1_000])
    func overHTTP2OneConnectionCarriesTheStormAndOneRefreshServesIt(count: Int) async throws {
        // A lifetime longer than the storm, so that exactly one refresh is due.
        let figures = try await self.storm(count, tokens: TokenManager.Configuration(), overHTTP2: true, lifetime: 60)
        print("token storm over HTTP/2: \(figures)")
        #expect(figures.failed == 0)
        #expect(figures.revokedFamilies == 0)
        #expect(figures.refreshes == 1)
        // One connection for the API lane, one for the credentials lane (sign-in, refresh).
        #expect(figures.connections == 2)
        #expect(figures.serverConnections == 2)
        #expect(figures.http2Connections == 2)
        // Every request, its retry after the refresh, the sign-in and the refresh: all streams.
        #expect(figures.http2Streams >= count + 2)
    }
}
#endif
