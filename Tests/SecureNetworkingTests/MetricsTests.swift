#if TestServers
import Crypto
import Foundation
import MetricsTestKit
import SecureNetworking
import SecureNetworkingTesting
import Testing

/// swift-metrics from the transport, the token manager and a metered store, recorded by the
/// swift-metrics test backend injected per test (nothing is bootstrapped process-wide).
@Suite("Metrics")
struct MetricsTests {
    /// A client whose transport, token manager and store all report to `metrics`.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static func configuration(
        _ fixture: APIFixture,
        metrics: TestMetrics,
        policy: TransportSecurityPolicy? = nil
    ) throws -> SecureAPIClient.Configuration {
        var tokens = TokenManager.Configuration()
        tokens.metricsFactory = metrics
        var configuration = try fixture.configuration(
            policy: policy,
            store: MeteredStore(InMemoryStore(), factory: metrics),
            tokens: tokens
        )
        configuration.transport.metricsFactory = metrics
        return configuration
    }

    static func total(_ metrics: TestMetrics, _ label: String, _ dimensions: [(String, String)]) -> Int64 {
        metrics.counters(label: label, dimensions: dimensions).reduce(0) { $0 + $1.totalValue }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aSessionIsCountedWithoutAHostPathOrTokenInAnyDimension() async throws {
        let metrics = TestMetrics()
        try await withAPIFixture { fixture in
            let bundle = try await withSecureAPIClient(try Self.configuration(fixture, metrics: metrics)) { client in
                let bundle = try await client.signIn(fixture.loginRequest)
                _ = try await client.send(Request<UserProfile>.get("user/profile"))
                fixture.serverClock.advance(400)
                fixture.clientClock.advance(400)
                _ = try await client.send(Request<UserProfile>.get("user/profile"))
                _ = await expectAPIError(client, Request<Echo>.get("status/404", requiresAuthentication: false))
                await client.signOut()
                return bundle
            }
            // Transport: every connection is counted, and all but the first handshake's trust
            // decision came from the cache (one chain, one host).
            let connections =
                Self.total(metrics, "securenet_http_connections_opened_total", [("protocol", "http/1.1")])
                + Self.total(metrics, "securenet_http_connections_opened_total", [("protocol", "h2")])
            #expect(connections >= 1)
            #expect(Self.total(metrics, "securenet_tls_handshakes_total", [("result", "success")]) == connections)
            #expect(Self.total(metrics, "securenet_trust_evaluations_total", [("cache", "miss")]) == 1)
            #expect(Self.total(metrics, "securenet_trust_evaluations_total", [("cache", "hit")]) == connections - 1)
            // Sign-in, two profile reads, the refresh and the revocation; one 404.
            #expect(Self.total(metrics, "securenet_http_requests_total", [("status_class", "2xx")]) == 5)
            #expect(Self.total(metrics, "securenet_http_requests_total", [("status_class", "4xx")]) == 1)
            #expect(
                try metrics.expectTimer("securenet_http_request_duration", [("status_class", "2xx")]).values.count == 5
            )
            // Tokens: one refresh, one requested sign-out.
            #expect(Self.total(metrics, "securenet_token_refreshes_total", [("outcome", "success")]) == 1)
            #expect(try metrics.expectTimer("securenet_token_refresh_duration").values.count == 1)
            #expect(Self.total(metrics, "securenet_sign_outs_total", [("reason", "requested")]) == 1)
            // Store: the bundle written at sign-in and after the refresh, removed at sign-out.
            #expect(Self.total(metrics, MeteredStore.label, [("operation", "write"), ("outcome", "success")]) >= 2)
            #expect(Self.total(metrics, MeteredStore.label, [("operation", "remove"), ("outcome", "success")]) >= 1)

            let secrets =
                [
                    fixture.server.baseURL.host ?? "localhost", "/user", "/auth", "profile", "404", bundle.accessToken,
                    APIFixture.email,
                ]
                + [bundle.refreshToken].compactMap { $0 }
            for counter in metrics.counters {
                for (_, value) in counter.dimensions {
                    #expect(!secrets.contains { value.contains($0) }, "\(counter.label) \(counter.dimensions)")
                }
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aPinMismatchIsCountedByCodeAndMode() async throws {
        let metrics = TestMetrics()
        try await withAPIFixture { fixture in
            var pinned = fixture.policy
            pinned.pinning.pin(
                try HostPattern("localhost"),
                to: try PinSet(pins: [fixture.pki.untrustedRoot.pin, fixture.pki.interceptionCA.pin])
            )
            try await withSecureAPIClient(try Self.configuration(fixture, metrics: metrics, policy: pinned)) { client in
                let error = await expectAPIError(client, Request<Echo>.get("echo/x", requiresAuthentication: false))
                #expect(error?.transportError?.serverTrustError?.code == .pinMismatch)
            }
            #expect(Self.total(metrics, "securenet_trust_failures_total", [("code", "pinMismatch")]) == 1)
            #expect(Self.total(metrics, "securenet_pin_failures_total", [("mode", "enforced")]) == 1)
            #expect(Self.total(metrics, "securenet_tls_handshakes_total", [("result", "failure")]) == 1)
            #expect(Self.total(metrics, "securenet_tls_handshakes_total", [("result", "success")]) == 0)
            #expect(Self.total(metrics, "securenet_http_requests_total", [("status_class", "failed")]) == 1)
            #expect(
                metrics.counters(label: "securenet_http_connections_opened_total").allSatisfy { $0.totalValue == 0 }
            )
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aRefusedRefreshAndTheSignOutItCausesAreCounted() async throws {
        let metrics = TestMetrics()
        try await withAPIFixture(tokenFormat: .opaque) { fixture in
            try await withSecureAPIClient(try Self.configuration(fixture, metrics: metrics)) { client in
                let bundle = try await client.signIn(fixture.loginRequest)
                // The refresh token is spent by someone else first: the app's refresh is refused.
                let attacker = OAuthTokenEndpoint(
                    url: fixture.server.baseURL.appendingPathComponent("oauth/token"),
                    transport: client.transport,
                    client: .publicClient(id: "test-app")
                )
                _ = try await attacker.refresh(using: try #require(bundle.refreshToken))
                fixture.serverClock.advance(400)
                fixture.clientClock.advance(400)
                let error = await expectAPIError(client, Request<UserProfile>.get("user/profile"))
                #expect(error?.code == .signedOut)
            }
            #expect(Self.total(metrics, "securenet_token_refreshes_total", [("outcome", "refused")]) == 1)
            #expect(Self.total(metrics, "securenet_token_refreshes_total", [("outcome", "success")]) == 0)
            #expect(Self.total(metrics, "securenet_sign_outs_total", [("reason", "refreshRejected")]) == 1)
        }
    }

    @Test func aMeteredStoreCountsByOperationAndOutcome() async throws {
        let metrics = TestMetrics()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metered-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let inner = EncryptedFileStore(directory: directory, keySource: .key(SymmetricKey(size: .bits256)))
        let store = MeteredStore(inner, factory: metrics)
        #expect(try await store.data(forKey: "tokens") == nil)
        try await store.set(Data("secret".utf8), forKey: "tokens")
        #expect(try await store.data(forKey: "tokens") == Data("secret".utf8))
        #expect(try await store.contains("tokens"))
        // Another key cannot open the item: a failure, counted by its code.
        let wrongKey = MeteredStore(
            EncryptedFileStore(directory: directory, keySource: .key(SymmetricKey(size: .bits256))),
            factory: metrics
        )
        await #expect(throws: SecureStoreError.self) { try await wrongKey.data(forKey: "tokens") }
        try await store.removeValue(forKey: "tokens")
        let counted = Dictionary(
            uniqueKeysWithValues: metrics.counters(label: MeteredStore.label).map { counter in
                (counter.dimensions.map { "\($0.0)=\($0.1)" }.joined(separator: ","), counter.totalValue)
            }
        )
        let failure = try #require(
            counted.keys.first {
                $0.hasPrefix("operation=read,outcome=") && !$0.hasSuffix("success") && !$0.hasSuffix("missing")
            }
        )
        #expect(
            counted == [
                "operation=read,outcome=missing": 1, "operation=write,outcome=success": 1,
                "operation=read,outcome=success": 1, "operation=contains,outcome=success": 1,
                failure: 1, "operation=remove,outcome=success": 1,
            ]
        )
        #expect(["operation=read,outcome=wrongKey", "operation=read,outcome=tampered"].contains(failure), "\(failure)")
    }
}
#endif
