#if TestServers
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import SecureNetworking
import SecureNetworkingTesting
import Testing

@Suite("ReferenceAuthServer: sign-in and tokens")
struct ReferenceAuthServerTokenTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func loginIssuesABearerTokenThatOpensTheProfile() async throws {
        try await withReferenceClient(try ReferenceFixture.configuration()) { client in
            let login = try await client.login()
            #expect(login.status == 200)
            #expect(login.header("Content-Type") == "application/json")
            #expect(login.header("Cache-Control") == "no-store")
            #expect(login.string("token_type") == "Bearer")
            #expect(login.json["expires_in"] as? Int == 300)
            let access = try #require(login.string("access_token"))
            #expect(access.split(separator: ".").count == 3)  // a JWT
            #expect((login.string("refresh_token") ?? "").count == 43)

            let profile = try await client.profile(bearer: access)
            #expect(profile.status == 200)
            #expect(profile.string("email") == "alice@example.com")
            #expect(profile.string("display_name") == "Alice")
            #expect(profile.string("updated_at")?.hasSuffix("Z") == true)
            #expect(client.server.statistics.loginCalls == 1)
            #expect(client.server.statistics.profileCalls == 1)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func wrongPasswordAndUnknownUserGetTheSame401() async throws {
        try await withReferenceClient(try ReferenceFixture.configuration()) { client in
            let wrong = try await client.login("alice@example.com", "wrong horse")
            let unknown = try await client.login("mallory@example.com", "correct horse")
            #expect(wrong.status == 401)
            #expect(wrong.string("error") == "invalid_credentials")
            #expect(unknown.status == 401)
            #expect(unknown.body == wrong.body)
            #expect(!String(decoding: wrong.body, as: UTF8.self).contains("wrong horse"))
            #expect(!String(describing: try ReferenceFixture.configuration()).contains("correct horse"))
            #expect(String(describing: ReferenceFixture.alice) == "User(alice@example.com, Alice, password redacted)")
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func malformedLoginIs400() async throws {
        try await withReferenceClient(try ReferenceFixture.configuration()) { client in
            let garbage = try await client.send(
                .post,
                "/auth/login",
                headers: [.contentType: "application/json"],
                body: Data("{email".utf8)
            )
            #expect(garbage.status == 400)
            #expect(garbage.string("error") == "invalid_request")
            let missing = try await client.sendJSON(.post, "/auth/login", ["email": "alice@example.com"])
            #expect(missing.status == 400)
            #expect(missing.string("error") == "invalid_request")
            let wrongMethod = try await client.send(.get, "/auth/login")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("Allow") == "POST")
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func refreshRotatesAndReuseRevokesTheFamily() async throws {
        let clock = TestClock()
        try await withReferenceClient(try ReferenceFixture.configuration { $0.now = clock.function }) { client in
            let login = try await client.login()
            let firstAccess = try #require(login.string("access_token"))
            let firstRefresh = try #require(login.string("refresh_token"))
            let endpoint = client.tokenEndpoint()

            let rotated = try await endpoint.refresh(using: firstRefresh)
            let secondRefresh = try #require(rotated.refreshToken)
            #expect(secondRefresh != firstRefresh)
            #expect(rotated.accessToken != firstAccess)
            #expect(rotated.tokenType == "Bearer")
            #expect(try await client.profile(bearer: rotated.accessToken).status == 200)

            // The spent token again, past the 10 s grace window: refused, and the whole family
            // goes with it.
            clock.advance(10)
            await #expect(throws: TokenAuthError(.invalidGrant, "")) { try await endpoint.refresh(using: firstRefresh) }
            #expect(client.server.statistics.revokedFamilies == 1)
            await #expect(throws: TokenAuthError(.invalidGrant, "")) {
                try await endpoint.refresh(using: secondRefresh)
            }
            for access in [firstAccess, rotated.accessToken] {
                let refused = try await client.profile(bearer: access)
                #expect(refused.status == 401)
                #expect(refused.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)
                #expect(refused.header("WWW-Authenticate")?.contains("revoked") == true)
            }
            // A new sign-in starts a new family that works.
            let again = try #require(try await client.login().string("access_token"))
            #expect(try await client.profile(bearer: again).status == 200)
            #expect(client.server.statistics.tokenEndpointCalls == 3)
            #expect(client.server.calls(to: "/oauth/token") == 3)
        }
    }

    /// RFC 9700 §4.14.2: a client whose refresh response was lost retries with the same refresh
    /// token; within the grace window, while the successor is unused, it gets that successor.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aRetriedRefreshWithinTheGraceWindowGetsTheSameSuccessor() async throws {
        let clock = TestClock()
        try await withReferenceClient(try ReferenceFixture.configuration { $0.now = clock.function }) { client in
            let first = try #require(try await client.login().string("refresh_token"))
            let endpoint = client.tokenEndpoint()
            let lost = try await endpoint.refresh(using: first)
            clock.advance(9.9)
            let retried = try await endpoint.refresh(using: first)
            #expect(retried == lost)
            #expect(client.server.statistics.refreshReplays == 1)
            #expect(client.server.statistics.revokedFamilies == 0)
            #expect(try await client.profile(bearer: retried.accessToken).status == 200)
            // The successor works, and once it has been used the grace of its predecessor ends.
            let next = try await endpoint.refresh(using: try #require(retried.refreshToken))
            await #expect(throws: TokenAuthError(.invalidGrant, "")) { try await endpoint.refresh(using: first) }
            #expect(client.server.statistics.revokedFamilies == 1)
            await #expect(throws: TokenAuthError(.invalidGrant, "")) {
                try await endpoint.refresh(using: try #require(next.refreshToken))
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test(arguments: [10.0, 60.0])
    func reuseAtOrPastTheGraceWindowRevokes(after seconds: Double) async throws {
        let clock = TestClock()
        try await withReferenceClient(try ReferenceFixture.configuration { $0.now = clock.function }) { client in
            let first = try #require(try await client.login().string("refresh_token"))
            let endpoint = client.tokenEndpoint()
            let rotated = try await endpoint.refresh(using: first)
            clock.advance(seconds)
            await #expect(throws: TokenAuthError(.invalidGrant, "")) { try await endpoint.refresh(using: first) }
            #expect(client.server.statistics.refreshReplays == 0)
            #expect(client.server.statistics.revokedFamilies == 1)
            #expect(try await client.profile(bearer: rotated.accessToken).status == 401)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aZeroGraceWindowRevokesAtOnce() async throws {
        let configuration = try ReferenceFixture.configuration { $0.refreshTokenReuseGraceWindow = .zero }
        try await withReferenceClient(configuration) { client in
            let first = try #require(try await client.login().string("refresh_token"))
            let endpoint = client.tokenEndpoint()
            _ = try await endpoint.refresh(using: first)
            await #expect(throws: TokenAuthError(.invalidGrant, "")) { try await endpoint.refresh(using: first) }
            #expect(client.server.statistics.revokedFamilies == 1)
        }
    }

    /// RFC 7009: revoking a refresh token ends its family (its access tokens too); an unknown
    /// token is answered 200 as well; a request without a token is invalid_request.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test(arguments: ["refresh_token", "access_token", nil] as [String?])
    func revocationEndsTheFamily(revoking hint: String?) async throws {
        try await withReferenceClient(try ReferenceFixture.configuration()) { client in
            let login = try await client.login()
            let access = try #require(login.string("access_token"))
            let refresh = try #require(login.string("refresh_token"))
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            // Revoke the access token when the hint says so, else the refresh token; without a
            // hint, the access token (found after the refresh tokens were searched).
            let token = hint == "refresh_token" ? refresh : access
            let body = "token=\(token)" + (hint.map { "&token_type_hint=\($0)" } ?? "")
            let revoked = try await client.send(.post, "/oauth/revoke", headers: form, body: Data(body.utf8))
            #expect(revoked.status == 200)
            #expect(revoked.body.isEmpty)
            #expect(client.server.statistics.revocations == 1)
            #expect(try await client.profile(bearer: access).status == 401)
            await #expect(throws: TokenAuthError(.invalidGrant, "")) {
                try await client.tokenEndpoint().refresh(using: refresh)
            }

            let unknown = try await client.send(.post, "/oauth/revoke", headers: form, body: Data("token=nope".utf8))
            #expect(unknown.status == 200)
            let missing = try await client.send(
                .post,
                "/oauth/revoke",
                headers: form,
                body: Data("token_type_hint=access_token".utf8)
            )
            #expect(missing.status == 400)
            #expect(missing.string("error") == "invalid_request")
            #expect(client.server.statistics.revocations == 1)
        }
    }

    /// Failed sign-ins are limited per account (5 by default) and per address; while limited,
    /// even the right password is answered 429 with Retry-After; the window passing lifts it.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func failedSignInsAreRateLimitedPerAccount() async throws {
        let clock = TestClock()
        try await withReferenceClient(try ReferenceFixture.configuration { $0.now = clock.function }) { client in
            for _ in 0..<5 {
                #expect(try await client.login(ReferenceFixture.alice.email, "wrong").status == 401)
                clock.advance(10)
            }
            let limited = try await client.login()
            #expect(limited.status == 429)
            #expect(limited.string("error") == "too_many_requests")
            // The first failure leaves the 300 s window 300 - 50 = 250 s from now.
            #expect(limited.header("Retry-After") == "250")
            #expect(client.server.statistics.rateLimitedLogins == 1)
            clock.advance(250)
            #expect(try await client.login().status == 200)
            // A success clears the account's count.
            #expect(try await client.login(ReferenceFixture.alice.email, "wrong").status == 401)
            #expect(try await client.login().status == 200)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func failedSignInsAreRateLimitedPerAddressAcrossAccounts() async throws {
        let configuration = try ReferenceFixture.configuration { $0.maximumFailedLoginsPerAddress = 3 }
        try await withReferenceClient(configuration) { client in
            for index in 0..<3 {
                #expect(try await client.login("nobody\(index)@example.com", "x").status == 401)
            }
            let limited = try await client.login()
            #expect(limited.status == 429)
            #expect(Int(limited.header("Retry-After") ?? "") ?? 0 > 0)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func tokenEndpointAcceptsJSONAndNamesEachError() async throws {
        try await withReferenceClient(try ReferenceFixture.configuration()) { client in
            let refresh = try #require(try await client.login().string("refresh_token"))
            let rotated = try await client.tokenEndpoint(encoding: .json).refresh(using: refresh)
            #expect(rotated.refreshToken?.isEmpty == false)

            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let unsupported = try await client.send(
                .post,
                "/oauth/token",
                headers: form,
                body: Data("grant_type=password&username=a&password=b".utf8)
            )
            #expect(unsupported.status == 400)
            #expect(unsupported.string("error") == "unsupported_grant_type")
            let unknown = try await client.send(
                .post,
                "/oauth/token",
                headers: form,
                body: Data("grant_type=refresh_token&refresh_token=nope".utf8)
            )
            #expect(unknown.status == 400)
            #expect(unknown.string("error") == "invalid_grant")
            let missing = try await client.send(
                .post,
                "/oauth/token",
                headers: form,
                body: Data("refresh_token=nope".utf8)
            )
            #expect(missing.status == 400)
            #expect(missing.string("error") == "invalid_request")
            #expect(client.server.statistics.revokedFamilies == 0)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func expiryFollowsTheInjectedClock() async throws {
        let clock = TestClock()
        let configuration = try ReferenceFixture.configuration {
            $0.now = clock.function
            $0.accessTokenLifetime = .seconds(60)
            $0.refreshTokenLifetime = .seconds(3_600)
        }
        try await withReferenceClient(configuration) { client in
            let login = try await client.login()
            #expect(login.json["expires_in"] as? Int == 60)
            let access = try #require(login.string("access_token"))
            let refresh = try #require(login.string("refresh_token"))
            clock.advance(59)
            #expect(try await client.profile(bearer: access).status == 200)

            clock.advance(2)
            let expired = try await client.profile(bearer: access)
            #expect(expired.status == 401)
            #expect(expired.string("error") == "invalid_token")
            #expect(
                expired.header("WWW-Authenticate")
                    == #"Bearer realm="reference", error="invalid_token", error_description="the access token expired""#
            )

            let missing = try await client.send(.get, "/user/profile")
            #expect(missing.status == 401)
            #expect(missing.header("WWW-Authenticate") == #"Bearer realm="reference""#)
            let garbage = try await client.profile(bearer: "not-a-token")
            #expect(garbage.header("WWW-Authenticate")?.contains("the access token is not valid") == true)

            clock.advance(3_600)
            await #expect(throws: TokenAuthError(.invalidGrant, "")) {
                try await client.tokenEndpoint().refresh(using: refresh)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func opaqueTokensWorkAndRevokeAllKillsThem() async throws {
        try await withReferenceClient(try ReferenceFixture.configuration { $0.tokenFormat = .opaque }) { client in
            let login = try await client.login()
            let access = try #require(login.string("access_token"))
            #expect(access.count == 43)
            #expect(!access.contains("."))
            #expect(try await client.profile(bearer: access).status == 200)
            let rotated = try await client.tokenEndpoint().refresh(using: try #require(login.string("refresh_token")))
            #expect(try await client.profile(bearer: rotated.accessToken).status == 200)

            client.server.revokeAllTokens()
            let refused = try await client.profile(bearer: rotated.accessToken)
            #expect(refused.status == 401)
            #expect(refused.header("WWW-Authenticate")?.contains("revoked") == true)
            await #expect(throws: TokenAuthError(.invalidGrant, "")) {
                try await client.tokenEndpoint().refresh(using: try #require(rotated.refreshToken))
            }
            #expect(client.server.statistics.revokedFamilies == 1)
        }
    }
}

@Suite("ReferenceAuthServer: profile and mutual TLS")
struct ReferenceAuthServerProfileTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func patchValidatesAndUpdatesTheDisplayName() async throws {
        let clock = TestClock()
        try await withReferenceClient(try ReferenceFixture.configuration { $0.now = clock.function }) { client in
            let access = try #require(try await client.login().string("access_token"))
            clock.advance(10)
            let updated = try await client.sendJSON(
                .patch,
                "/user/profile",
                ["display_name": "Alice Liddell"],
                bearer: access
            )
            #expect(updated.status == 200)
            #expect(updated.string("display_name") == "Alice Liddell")
            #expect(updated.string("updated_at") == clock.now.formatted(.iso8601))
            #expect(try await client.profile(bearer: access).string("display_name") == "Alice Liddell")

            for invalid in ["", "   ", String(repeating: "x", count: 65)] {
                let refused = try await client.sendJSON(
                    .patch,
                    "/user/profile",
                    ["display_name": invalid],
                    bearer: access
                )
                #expect(refused.status == 422)
                #expect(refused.string("error") == "validation_failed")
            }
            let longest = try await client.sendJSON(
                .patch,
                "/user/profile",
                ["display_name": String(repeating: "é", count: 64)],
                bearer: access
            )
            #expect(longest.status == 200)
            let unauthenticated = try await client.sendJSON(.patch, "/user/profile", ["display_name": "Eve"])
            #expect(unauthenticated.status == 401)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func whoamiNamesTheClientCertificate() async throws {
        let pki = ReferenceFixture.pki
        let identity = try pki.clientIdentity(commonName: "test-client")
        let clientIdentity = ClientIdentity.pem(
            certificateChain: identity.pem,
            privateKey: identity.leafIdentity.privateKeyPEM
        )
        let configuration = try ReferenceFixture.configuration { $0.clientCertificateIssuers = [pki.clientCA] }
        try await withReferenceClient(configuration, clientIdentity: clientIdentity) { client in
            let whoami = try await client.send(.get, "/mtls/whoami")
            #expect(whoami.status == 200)
            let subject = try #require(whoami.string("subject"))
            #expect(subject.hasPrefix("CN=test-client"))
            #expect(subject.contains("O=SecureNetworking Tests"))
        }
        try await withReferenceClient(configuration) { client in
            let anonymous = try await client.send(.get, "/mtls/whoami")
            #expect(anonymous.status == 403)
            #expect(anonymous.string("error") == "client_certificate_required")
        }
        // A certificate from another CA fails the handshake: nothing reaches the handler.
        let stranger = try pki.leaf {
            $0.issuer = .interceptionCA
            $0.commonName = "stranger"
            $0.extendedKeyUsage = [.clientAuth]
        }
        let strangerIdentity = ClientIdentity.pem(
            certificateChain: stranger.pem,
            privateKey: stranger.leafIdentity.privateKeyPEM
        )
        try await withReferenceClient(configuration, clientIdentity: strangerIdentity) { client in
            await #expect(throws: SecureHTTPError.self) { try await client.send(.get, "/mtls/whoami") }
            #expect(client.server.statistics.requests == 0)
        }
        // A server with no client CAs never asks, so even a client with an identity gets 403.
        try await withReferenceClient(try ReferenceFixture.configuration(), clientIdentity: clientIdentity) { client in
            let unrequested = try await client.send(.get, "/mtls/whoami")
            #expect(unrequested.status == 403)
        }
    }
}

@Suite("ReferenceAuthServer: diagnostic routes")
struct ReferenceAuthServerDiagnosticTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func echoKeepsTheTargetAsSent() async throws {
        try await withReferenceClient(try ReferenceFixture.configuration()) { client in
            let target = "/echo/a%2Fb/caf%C3%A9/x+y?q=1+2&amp=a%26b&eq=c%3Dd&q=%C3%A9&flag"
            let echo = try await client.send(
                .post,
                target,
                headers: [.contentType: "text/plain", .authorization: "Bearer secret-value"],
                body: Data("héllo".utf8)
            )
            #expect(echo.status == 200)
            #expect(echo.string("method") == "POST")
            #expect(echo.string("raw_path") == "/echo/a%2Fb/caf%C3%A9/x+y")
            #expect(echo.json["path_segments"] as? [String] == ["a/b", "café", "x+y"])
            #expect(echo.string("raw_query") == "q=1+2&amp=a%26b&eq=c%3Dd&q=%C3%A9&flag")
            let query = try #require(echo.json["query"] as? [[String]])
            #expect(query == [["q", "1+2"], ["amp", "a&b"], ["eq", "c=d"], ["q", "é"], ["flag", ""]])
            #expect(echo.string("body") == "héllo")
            #expect(echo.string("content_type") == "text/plain")
            #expect(echo.json["authorization_present"] as? Bool == true)
            #expect(!String(decoding: echo.body, as: UTF8.self).contains("secret-value"))

            let bare = try await client.send(.delete, "/echo")
            #expect(bare.json["path_segments"] as? [String] == [])
            #expect(bare.json["raw_query"] is NSNull)
            #expect(bare.json["body"] is NSNull)
            #expect(bare.json["authorization_present"] as? Bool == false)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func statusAnswersWithItsHeaders() async throws {
        try await withReferenceClient(try ReferenceFixture.configuration()) { client in
            let unavailable = try await client.send(.get, "/status/503")
            #expect(unavailable.status == 503)
            #expect(unavailable.header("Retry-After") == "1")
            #expect(unavailable.string("error") == "service_unavailable")
            #expect(unavailable.string("message") == "internal detail: do-not-show-users")
            let tooMany = try await client.send(.post, "/status/429")
            #expect(tooMany.status == 429)
            #expect(tooMany.header("Retry-After") == "1")
            let unauthorized = try await client.send(.get, "/status/401")
            #expect(unauthorized.header("WWW-Authenticate") == #"Bearer realm="reference""#)
            let teapot = try await client.send(.get, "/status/418")
            #expect(teapot.status == 418)
            #expect(teapot.header("Retry-After") == nil)
            #expect(try await client.send(.get, "/status/700").status == 400)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func flakyFailsThenSucceedsPerKey() async throws {
        try await withReferenceClient(try ReferenceFixture.configuration()) { client in
            var statuses: [Int] = []
            for _ in 0..<3 { statuses.append(try await client.send(.get, "/flaky/a?failures=2").status) }
            #expect(statuses == [503, 503, 200])
            let third = try await client.send(.post, "/flaky/a?failures=2")
            #expect(third.json["attempts"] as? Int == 4)

            let limited = try await client.send(.get, "/flaky/b?failures=1&status=429&retry_after=7")
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") == "7")
            #expect(limited.json["attempts"] as? Int == 1)
            let recovered = try await client.send(.get, "/flaky/b?failures=1&status=429&retry_after=7")
            #expect(recovered.status == 200)
            #expect(recovered.json["attempts"] as? Int == 2)
            #expect(client.server.calls(to: "/flaky/a") == 4)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func slowWaitsAtLeastTheDelay() async throws {
        try await withReferenceClient(try ReferenceFixture.configuration()) { client in
            let start = ContinuousClock.now
            let slow = try await client.send(.get, "/slow?ms=150")
            #expect(slow.status == 200)
            #expect(ContinuousClock.now - start >= .milliseconds(150))
            #expect(try await client.send(.get, "/slow?ms=soon").status == 400)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func unknownRoutesAre404AndEverythingIsCounted() async throws {
        try await withReferenceClient(try ReferenceFixture.configuration()) { client in
            let missing = try await client.send(.get, "/nowhere?x=1")
            #expect(missing.status == 404)
            #expect(missing.string("error") == "not_found")
            _ = try await client.send(.get, "/nowhere")
            _ = try await client.login()
            let oversized = try await client.send(.post, "/echo/big", body: Data(count: (1 << 20) + 1))
            #expect(oversized.status == 413)
            #expect(oversized.string("error") == "request_too_large")
            #expect(client.server.calls(to: "/nowhere") == 2)
            #expect(client.server.calls(to: "/auth/login") == 1)
            #expect(client.server.statistics.requests == 4)
            #expect(client.server.statistics.loginCalls == 1)
            #expect(client.server.statistics.tokenEndpointCalls == 0)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func shutdownIsIdempotentAndClosesThePort() async throws {
        let server = try await ReferenceAuthServer.start(try ReferenceFixture.configuration())
        try await withNIOHTTPTransport(configuration: ReferenceFixture.transportConfiguration()) { transport in
            let client = ReferenceClient(server: server, transport: transport)
            let first = try await client.send(.get, "/status/200")
            #expect(first.status == 200)
            // The transport still holds a keep-alive connection: shutdown must not wait for it.
            await server.shutdown()
            await server.shutdown()
            await #expect(throws: SecureHTTPError.self) { try await client.send(.get, "/status/200") }
        }
    }
}

@Suite("ReferenceAuthServer: the published pin-set update")
struct ReferenceAuthServerPinUpdateTests {
    /// `GET /.well-known/securenet-pins.json` serves the envelope byte for byte (what is signed
    /// must arrive unchanged), the current one on every request, 404 when none is published.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theSignedUpdateIsServedAsPublished() async throws {
        let key = PinUpdateSigningKey.generate(.ed25519)
        let published = NIOLockedValueBox<Data?>(nil)
        let configuration = try ReferenceFixture.configuration {
            $0.pinSetUpdate = { published.withLockedValue { $0 } }
        }
        try await withReferenceClient(configuration) { client in
            let none = try await client.send(.get, "/.well-known/securenet-pins.json")
            #expect(none.status == 404)
            #expect(none.string("error") == "not_found")

            let update = try PinSetUpdate(
                audience: "com.example.app",
                version: 3,
                issuedAt: Date(),
                notAfter: Date(timeIntervalSinceNow: 86_400),
                entries: [try HostPattern("localhost"): .unpinned]
            )
            let envelope = try SignedPinSetUpdate(signing: update.jsonData(), with: key).envelope()
            published.withLockedValue { $0 = envelope }
            let served = try await client.send(.get, "/.well-known/securenet-pins.json")
            #expect(served.status == 200)
            #expect(served.header("Content-Type") == "application/json")
            #expect(served.header("Cache-Control") == "no-store")
            #expect(served.body == envelope)
            let verified = try PinUpdateVerifier(trustedKeys: [key.publicKey], audience: "com.example.app").verify(
                served.body,
                current: .none,
                compiled: .none,
                appliedVersion: 2,
                now: Date()
            )
            #expect(verified.version == 3)
            let post = try await client.send(.post, "/.well-known/securenet-pins.json", body: Data())
            #expect(post.status == 405)
        }
    }
}
#endif
