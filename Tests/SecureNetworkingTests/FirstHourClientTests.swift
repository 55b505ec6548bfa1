#if TestServers
import Foundation
import HTTPTypes
import Logging
import NIOConcurrencyHelpers
import SecureNetworkingTesting
import Testing

@testable import SecureNetworking

/// What a newcomer reached for in the first hour (issue 38): a per-request timeout and headers,
/// the attempts on a failed request's error, sign-out that revokes by default, and a warning
/// for a client dropped without `shutdown()`.
@Suite("The first hour: requests, sign-out and lifetime")
struct FirstHourClientTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aRequestsOwnTimeoutEndsASlowCallAndTheClientGoesOn() async throws {
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration()) { client in
                let slow = Request<Data>.get(
                    "slow",
                    query: [URLQueryItem(name: "ms", value: "5000")],
                    timeout: .milliseconds(300),
                    requiresAuthentication: false
                )
                let error = try #require(await expectAPIError(client, slow))
                #expect(error.code == .transportFailure)
                #expect(error.transportError?.code == .deadlineExceeded)
                #expect(error.attempts == 1)  // a timeout is not retried
                // The same client, without the per-request timeout (the transport's is 60 s).
                let quick = Request<Data>.get(
                    "slow",
                    query: [URLQueryItem(name: "ms", value: "50")],
                    requiresAuthentication: false
                )
                #expect(try await client.response(for: quick).status == .ok)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aRequestsTimeoutMayBeLongerThanTheTransports() async throws {
        try await withAPIFixture { fixture in
            var configuration = try fixture.configuration()
            configuration.transport.timeouts.request = .milliseconds(400)
            try await withSecureAPIClient(configuration) { client in
                let slow = Request<Data>.get(
                    "slow",
                    query: [URLQueryItem(name: "ms", value: "1200")],
                    requiresAuthentication: false
                )
                let error = try #require(await expectAPIError(client, slow))
                #expect(error.transportError?.code == .deadlineExceeded)
                var patient = slow
                patient.timeout = .seconds(30)
                #expect(try await client.response(for: patient).status == .ok)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theFinalErrorSaysHowManyAttemptsWereMade() async throws {
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration()) { client in
                // 503 five times; the retry policy allows 3 attempts.
                let flaky = Request<Data>.get(
                    "flaky/attempts-\(UUID().uuidString)",
                    query: [URLQueryItem(name: "failures", value: "5")],
                    requiresAuthentication: false
                )
                let error = try #require(await expectAPIError(client, flaky))
                #expect(error.code == .serverError)
                #expect(error.attempts == 3)
                // A POST is not retried: one attempt.
                let post = Request<Data>.post(
                    "flaky/post-\(UUID().uuidString)",
                    body: nil,
                    requiresAuthentication: false
                )
                #expect(await expectAPIError(client, post)?.attempts == 1)
            }
        }
    }

    @Test func theFactoriesTakeHeadersAndATimeout() throws {
        let name = try #require(HTTPField.Name("X-Request-Tag"))
        let get = Request<Data>.get("a", headers: [name: "one"], timeout: .seconds(3))
        #expect(get.headerFields[name] == "one")
        #expect(get.timeout == .seconds(3))
        #expect(get.method == .get)
        let post = Request<Data>.post("a", body: .json(["k": "v"]), headers: [name: "two"], timeout: .seconds(4))
        #expect(post.headerFields[name] == "two")
        #expect(post.timeout == .seconds(4))
        #expect(Request<Data>.put("a", body: nil, headers: [name: "3"]).headerFields[name] == "3")
        #expect(Request<Data>.patch("a", body: nil, headers: [name: "4"]).headerFields[name] == "4")
        #expect(Request<Data>.delete("a", headers: [name: "5"]).headerFields[name] == "5")
        #expect(Request<Data>.get("a").timeout == nil)
    }

    /// The quick start's `.oauth(client:store:)`, with no revocation named: sign-out revokes the
    /// refresh token at the endpoint the server advertises (RFC 8414).
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test(arguments: [true, false])
    func signOutRevokesByDefaultAndNotWhenTurnedOff(byDefault: Bool) async throws {
        try await withAPIFixture { fixture in
            var managerConfiguration = TokenManager.Configuration()
            managerConfiguration.revocationTimeout = .seconds(30)
            let configuration = SecureAPIClient.Configuration(
                baseURL: fixture.server.baseURL,
                policy: fixture.policy,
                authentication: byDefault
                    ? .oauth(
                        client: .publicClient(id: "my-app"),
                        store: InMemoryStore(),
                        configuration: managerConfiguration
                    )
                    : .oauth(
                        revocation: .none,
                        client: .publicClient(id: "my-app"),
                        store: InMemoryStore(),
                        configuration: managerConfiguration
                    )
            )
            let bundle = try await withSecureAPIClient(configuration) { client in
                let bundle = try await client.signIn(fixture.loginRequest)
                await client.signOut()
                return bundle
            }
            #expect(fixture.server.statistics.revocations == (byDefault ? 1 : 0))
            #expect(fixture.server.calls(to: "/.well-known/oauth-authorization-server") == (byDefault ? 1 : 0))
            // What revocation changes: whether the refresh token still works at the server.
            let refresh = try await withSecureAPIClient(
                SecureAPIClient.Configuration(baseURL: fixture.server.baseURL, policy: fixture.policy)
            ) { client in
                var request = Request<Data>.post(
                    "oauth/token",
                    body: .form([
                        URLQueryItem(name: "grant_type", value: "refresh_token"),
                        URLQueryItem(name: "refresh_token", value: bundle.refreshToken),
                    ]),
                    requiresAuthentication: false
                )
                request.acceptedContentTypes = ["application/json"]
                do {
                    _ = try await client.send(request)
                    return 200
                } catch let error as APIError {
                    return error.status ?? 0
                }
            }
            #expect(refresh == (byDefault ? 400 : 200))
        }
    }

    @Test func theReleaseWarningIsForAnOwnedTransportNotShutDown() {
        #expect(SecureAPIClient.releaseWarning(ownsTransport: true, wasShutDown: false)?.contains("shutdown()") == true)
        #expect(SecureAPIClient.releaseWarning(ownsTransport: true, wasShutDown: true) == nil)
        #expect(SecureAPIClient.releaseWarning(ownsTransport: false, wasShutDown: false) == nil)
    }

    @Test func aClientDroppedWithoutShutdownIsReportedInDebugBuilds() async throws {
        let lines = NIOLockedValueBox<[String]>([])
        let logger = Logger(label: "first-hour") { _ in CapturingLogHandler(lines: lines) }
        var configuration = SecureAPIClient.Configuration(baseURL: URL(string: "https://127.0.0.1:9/")!)
        configuration.logger = logger
        do {
            let dropped = try SecureAPIClient(configuration: configuration)
            _ = dropped.configuration
        }
        let closed = try SecureAPIClient(configuration: configuration)
        await closed.shutdown()
        _ = consume closed
        #if DEBUG
        #expect(lines.withLockedValue { $0.filter { $0.contains("released without shutdown()") }.count } == 1)
        #else
        #expect(lines.withLockedValue { $0.filter { $0.contains("released without shutdown()") }.isEmpty })
        #endif
    }
}
#endif
