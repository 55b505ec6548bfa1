#if TestServers
import Foundation
import HTTPTypes
import Logging
import NIOConcurrencyHelpers
import SecureNetworking
import SecureNetworkingTesting
import Testing

/// SecureAPIClient against the reference auth server, over real TLS on 127.0.0.1.
@Suite("SecureAPIClient end to end")
struct APIClientLiveTests {
    // MARK: Encoding

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Path segments and query items with +, &, =, / and non-ASCII arrive exactly as given")
    func encodingRoundTrip() async throws {
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration()) { client in
                let segments = ["a b", "x/y", "1+1=2", "café", "q&a", "%41"]
                let query = [
                    URLQueryItem(name: "plus", value: "a+b"),
                    URLQueryItem(name: "amp&eq", value: "c&d=e"),
                    URLQueryItem(name: "name", value: "Zoë 東京"),
                    URLQueryItem(name: "plus", value: "second"),
                ]
                let request = Request<Echo>(
                    .get,
                    pathSegments: ["echo"] + segments,
                    query: query,
                    requiresAuthentication: false
                )
                let echo = try await client.send(request)
                #expect(echo.pathSegments == segments)
                #expect(
                    echo.query == [["plus", "a+b"], ["amp&eq", "c&d=e"], ["name", "Zoë 東京"], ["plus", "second"]]
                )
                #expect(echo.rawPath == "/echo/a%20b/x%2Fy/1%2B1%3D2/caf%C3%A9/q%26a/%2541")
                #expect(echo.authorizationPresent == false)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("JSON bodies are written with snake_case keys and answers read back into camelCase")
    func jsonBodies() async throws {
        struct Note: Codable, Sendable {
            var displayName: String
            var createdAt: Date
        }
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration()) { client in
                let note = Note(displayName: "A & B = \"C\"", createdAt: Date(timeIntervalSince1970: 1_767_225_600))
                let echo = try await client.send(
                    Request<Echo>(.post, path: "echo/notes", body: .json(note), requiresAuthentication: false)
                )
                #expect(echo.method == "POST")
                #expect(echo.contentType == "application/json")
                let sent =
                    try JSONSerialization.jsonObject(with: Data(try #require(echo.body).utf8)) as? [String: String]
                #expect(sent == ["display_name": "A & B = \"C\"", "created_at": "2026-01-01T00:00:00Z"])

                let form = try await client.send(
                    Request<Echo>(
                        .post,
                        path: "echo/form",
                        body: .form([URLQueryItem(name: "a+b", value: "c&d=é")]),
                        requiresAuthentication: false
                    )
                )
                #expect(form.contentType == "application/x-www-form-urlencoded")
                #expect(form.body == "a%2Bb=c%26d%3D%C3%A9")
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A header value with CR or LF is refused before anything is sent")
    func headerInjection() async throws {
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration()) { client in
                var request = Request<Echo>.get("echo/header", requiresAuthentication: false)
                let before = request.headerFields
                for value in ["a\r\nX-Evil: 1", "a\nX-Evil: 1", "a\rX-Evil: 1"] {
                    do {
                        try request.setHeader(HTTPField.Name("X-Note")!, value)
                        Issue.record("a CR/LF header value was accepted: \(value.debugDescription)")
                    } catch let error as APIError {
                        #expect(error.code == .invalidRequest)
                        #expect(error.transportError?.code == .invalidHeaderValue)
                        #expect(!error.description.contains("X-Evil"))
                    }
                }
                // Refused while the request was built: it is as it was, and the server saw nothing.
                #expect(request.headerFields == before)
                #expect(fixture.server.calls(to: "/echo/header") == 0)
                // The count does see a request that is sent: the same request, without the value.
                #expect(try await client.send(request).rawPath == "/echo/header")
                #expect(fixture.server.calls(to: "/echo/header") == 1)
            }
        }
    }

    // MARK: Status mapping

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Each error status maps to its code with the status, and the server's text stays out")
    func statusMapping() async throws {
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration(retry: .never)) { client in
                let expected: [(Int, APIError.Code)] = [
                    (400, .badRequest), (401, .unauthorized), (403, .forbidden), (404, .notFound), (409, .conflict),
                    (422, .unprocessable), (429, .rateLimited), (418, .clientError), (500, .serverError),
                    (502, .serverError), (503, .serverError), (504, .serverError),
                ]
                for (status, code) in expected {
                    let error = try #require(
                        await expectAPIError(
                            client,
                            Request<Echo>.get("status/\(status)", requiresAuthentication: false)
                        )
                    )
                    #expect(error.code == code, "status \(status)")
                    #expect(error.status == status)
                    #expect(error.serverErrorCode != nil, "status \(status)")
                    for text in [error.description, error.message, error.userMessage()] {
                        #expect(!text.contains("do-not-show-users"), "status \(status)")
                    }
                }
                let limited = try #require(
                    await expectAPIError(client, Request<Echo>.get("status/429", requiresAuthentication: false))
                )
                #expect(limited.retryAfter == .seconds(1))
                #expect(limited.userMessage() == UserMessageCatalog.standardStatusMessages[429])
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A 2xx with the wrong content type or shape is a typed error, with the field path")
    func decodingErrors() async throws {
        struct Wrong: Decodable, Sendable { var method: Int }
        struct Missing: Decodable, Sendable { var nowhere: String }
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration()) { client in
                var xml = Request<Echo>.get("echo/xml", requiresAuthentication: false)
                xml.acceptedContentTypes = ["application/xml"]
                let contentType = try #require(await expectAPIError(client, xml))
                #expect(contentType.code == .unexpectedContentType)

                let wrong = try #require(
                    await expectAPIError(client, Request<Wrong>.get("echo/x", requiresAuthentication: false))
                )
                #expect(wrong.code == .decodingFailed)
                #expect(wrong.validationError?.fieldPath == "$.method")

                let missing = try #require(
                    await expectAPIError(client, Request<Missing>.get("echo/x", requiresAuthentication: false))
                )
                #expect(missing.validationError?.fieldPath == "$.nowhere")

                let raw = try await client.send(Request<String>.get("echo/raw", requiresAuthentication: false))
                #expect(raw.contains("\"raw_path\""))
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("The response size limit applies to API answers")
    func sizeLimit() async throws {
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration(maximumResponseBodySize: 64)) { client in
                let error = try #require(
                    await expectAPIError(
                        client,
                        Request<Echo>.get("echo/a-path-long-enough", requiresAuthentication: false)
                    )
                )
                #expect(error.code == .transportFailure)
                #expect(error.transportError?.code == .responseTooLarge)
            }
        }
    }

    // MARK: Retries

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("An idempotent GET is retried after 503 with Retry-After: 1, waiting at least that long")
    func retryAfter() async throws {
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration()) { client in
                let clock = ContinuousClock()
                let start = clock.now
                let response = try await client.response(
                    for: Request<[String: Int]>.get(
                        "flaky/get-once",
                        query: [
                            .init(name: "failures", value: "1"), .init(name: "status", value: "503"),
                            .init(name: "retry_after", value: "1"),
                        ],
                        requiresAuthentication: false
                    )
                )
                let elapsed = clock.now - start
                #expect(response.value == ["attempts": 2])
                #expect(response.attempts == 2)
                #expect(elapsed >= .seconds(1))
                #expect(fixture.server.calls(to: "/flaky/get-once") == 2)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A POST is not retried after 503; the same POST marked idempotent is")
    func noRetryOfPost() async throws {
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration()) { client in
                let query = [URLQueryItem(name: "failures", value: "1"), URLQueryItem(name: "status", value: "503")]
                var post = Request<[String: Int]>(
                    .post,
                    path: "flaky/post-once",
                    query: query,
                    body: .json(["n": 1]),
                    requiresAuthentication: false
                )
                let error = try #require(await expectAPIError(client, post))
                #expect(error.code == .serverError)
                #expect(error.status == 503)
                #expect(fixture.server.calls(to: "/flaky/post-once") == 1)

                post.pathSegments = ["flaky", "post-keyed"]
                post.isIdempotent = true
                let value = try await client.send(post)
                #expect(value == ["attempts": 2])
                #expect(fixture.server.calls(to: "/flaky/post-keyed") == 2)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Retries stop at the maximum attempts, and a Retry-After beyond the cap is not waited for")
    func retryCaps() async throws {
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration()) { client in
                let always = Request<[String: Int]>.get(
                    "flaky/always",
                    query: [.init(name: "failures", value: "10"), .init(name: "status", value: "502")],
                    requiresAuthentication: false
                )
                let error = try #require(await expectAPIError(client, always))
                #expect(error.status == 502)
                #expect(fixture.server.calls(to: "/flaky/always") == 3)

                let long = Request<[String: Int]>.get(
                    "flaky/long",
                    query: [
                        .init(name: "failures", value: "1"), .init(name: "status", value: "429"),
                        .init(name: "retry_after", value: "120"),
                    ],
                    requiresAuthentication: false
                )
                let limited = try #require(await expectAPIError(client, long))
                #expect(limited.code == .rateLimited)
                #expect(limited.retryAfter == .seconds(120))
                #expect(fixture.server.calls(to: "/flaky/long") == 1)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A refused connection is retried for a GET, and an interceptor sees every attempt")
    func transientTransportRetry() async throws {
        let attempts = NIOLockedValueBox(0)
        struct Counting: RequestInterceptor {
            let attempts: NIOLockedValueBox<Int>
            func adapt(_ request: inout HTTPRequest, body: Data?) async throws {
                self.attempts.withLockedValue { $0 += 1 }
            }
        }
        try await withAPIFixture { fixture in
            // A port held bound and not listening: refused, and no other test can be given it.
            try await withRefusingLoopbackPort { closedPort in
                let base = try #require(URL(string: "https://127.0.0.1:\(closedPort)/"))
                try await withSecureAPIClient(
                    try fixture.configuration(interceptors: [Counting(attempts: attempts)], baseURL: base)
                ) { client in
                    let error = try #require(
                        await expectAPIError(client, Request<Echo>.get("echo/x", requiresAuthentication: false))
                    )
                    #expect(error.code == .transportFailure)
                    #expect(error.transportError?.code == .connectFailed)
                    #expect(attempts.withLockedValue { $0 } == 3)
                }
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("An interceptor can add a header, refuse a request, and ask for a retry of a POST")
    func interceptors() async throws {
        struct Hooks: RequestInterceptor {
            func adapt(_ request: inout HTTPRequest, body: Data?) async throws {
                if request.path?.contains("refuse") == true { throw CancellationError() }
                request.headerFields[.contentType] = "application/vnd.test+json"
            }
            func retryDecision(for request: HTTPRequest, error: APIError, attempt: Int) async -> RetryDecision {
                error.status == 503 ? .retry(after: .milliseconds(10)) : .useDefault
            }
        }
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration(interceptors: [Hooks()])) { client in
                let echo = try await client.send(
                    Request<Echo>(.post, path: "echo/adapted", body: .json(["a": 1]), requiresAuthentication: false)
                )
                #expect(echo.contentType == "application/vnd.test+json")

                let refused = try #require(
                    await expectAPIError(client, Request<Echo>.get("echo/refuse", requiresAuthentication: false))
                )
                #expect(refused.code == .invalidRequest)
                #expect(fixture.server.calls(to: "/echo/refuse") == 0)

                let post = Request<[String: Int]>(
                    .post,
                    path: "flaky/hooked",
                    query: [.init(name: "failures", value: "1")],
                    body: .json(["n": 1]),
                    requiresAuthentication: false
                )
                #expect(try await client.send(post) == ["attempts": 2])
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Cancelling the task cancels the request in flight with a cancelled error")
    func cancellation() async throws {
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration()) { client in
                let task = Task { () async throws -> [String: Int] in
                    try await client.send(
                        Request<[String: Int]>.get(
                            "slow",
                            query: [.init(name: "ms", value: "5000")],
                            requiresAuthentication: false
                        )
                    )
                }
                while fixture.server.calls(to: "/slow") == 0 { try await Task.sleep(for: .milliseconds(10)) }
                let clock = ContinuousClock()
                let start = clock.now
                task.cancel()
                let result = await task.result
                #expect(clock.now - start < .seconds(4))
                switch result {
                case .success: Issue.record("the cancelled request finished")
                case .failure(let error): #expect((error as? APIError)?.code == .cancelled)
                }
            }
        }
    }

    // MARK: Tokens

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Sign in, fetch and update the profile; the token is sent and never echoed")
    func signInAndProfile() async throws {
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration()) { client in
                let bundle = try await client.signIn(fixture.loginRequest)
                #expect(bundle.refreshToken != nil)
                #expect(await client.tokens?.isSignedIn == true)
                let profile = try await client.send(Request<UserProfile>.get("user/profile"))
                #expect(profile == UserProfile(email: APIFixture.email, displayName: "Ada"))
                let updated = try await client.send(
                    Request<UserProfile>.patch("user/profile", body: .json(["display_name": "Ada L."]))
                )
                #expect(updated.displayName == "Ada L.")

                let invalid = try #require(
                    await expectAPIError(
                        client,
                        Request<UserProfile>.patch("user/profile", body: .json(["display_name": ""]))
                    )
                )
                #expect(invalid.code == .unprocessable)
                #expect(invalid.serverErrorCode == "validation_failed")

                let echo = try await client.send(Request<Echo>.get("echo/with-token"))
                #expect(echo.authorizationPresent)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Wrong password: 401 without a refresh attempt, and no session")
    func wrongPassword() async throws {
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration()) { client in
                let login = Request<TokenResponse>.post(
                    "auth/login",
                    body: .json(LoginBody(email: APIFixture.email, password: "wrong")),
                    requiresAuthentication: false
                )
                do {
                    try await client.signIn(login)
                    Issue.record("signed in with a wrong password")
                } catch let error as APIError {
                    #expect(error.code == .invalidCredentials)
                    #expect(error.status == 401)
                    #expect(error.serverErrorCode == "invalid_credentials")
                    #expect(error.userMessage == "The e-mail or password is wrong.")
                }
                #expect(await client.tokens?.isSignedIn == false)
                #expect(fixture.server.statistics.tokenEndpointCalls == 0)
                let error = try #require(await expectAPIError(client, Request<UserProfile>.get("user/profile")))
                #expect(error.code == .signedOut)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Sign-out revokes the refresh token at the server's revocation endpoint")
    func signOutRevokes() async throws {
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration()) { client in
                let bundle = try await client.signIn(fixture.loginRequest)
                await client.signOut()
                #expect(await client.tokens?.isSignedIn == false)
                #expect(fixture.server.statistics.revocations == 1)
                #expect(fixture.server.calls(to: "/oauth/revoke") == 1)
                // Both tokens are dead at the server: the access token's family is revoked.
                try await client.tokens?.signIn(bundle)
                let error = try #require(await expectAPIError(client, Request<UserProfile>.get("user/profile")))
                #expect(error.code == .signedOut)
                #expect(fixture.server.statistics.tokenEndpointCalls == 1)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Rate-limited sign-in: 429 surfaces Retry-After, and the non-idempotent login is not retried")
    func rateLimitedSignIn() async throws {
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration()) { client in
                let wrong = Request<TokenResponse>.post(
                    "auth/login",
                    body: .json(LoginBody(email: APIFixture.email, password: "wrong")),
                    requiresAuthentication: false
                )
                for _ in 0..<5 {
                    let error = await #expect(throws: APIError.self) { try await client.signIn(wrong) }
                    #expect(error?.code == .invalidCredentials)
                }
                fixture.serverClock.advance(100)
                // The right password now: the server still refuses until the window moves on.
                let error = await #expect(throws: APIError.self) { try await client.signIn(fixture.loginRequest) }
                #expect(error?.code == .rateLimited)
                #expect(error?.status == 429)
                #expect(error?.serverErrorCode == "too_many_requests")
                #expect(error?.retryAfter == .seconds(200))
                #expect(fixture.server.statistics.loginCalls == 6)
                #expect(await client.tokens?.isSignedIn == false)
                fixture.serverClock.advance(200)
                try await client.signIn(fixture.loginRequest)
                #expect(await client.tokens?.isSignedIn == true)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A 401 to the current token → one refresh → one retry that succeeds")
    func unauthorizedThenRefresh() async throws {
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration()) { client in
                try await client.signIn(fixture.loginRequest)
                // The server's clock runs ahead: it sees the token as expired, the client does not.
                fixture.serverClock.advance(301)
                let response = try await client.response(for: Request<UserProfile>.get("user/profile"))
                #expect(response.value.email == APIFixture.email)
                #expect(response.attempts == 2)
                #expect(fixture.server.statistics.tokenEndpointCalls == 1)
                #expect(fixture.server.calls(to: "/user/profile") == 2)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A second 401 after the refresh is the server's final answer")
    func secondUnauthorizedIsFinal() async throws {
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration()) { client in
                try await client.signIn(fixture.loginRequest)
                let error = try #require(await expectAPIError(client, Request<Echo>.get("status/401")))
                #expect(error.code == .unauthorized)
                #expect(fixture.server.calls(to: "/status/401") == 2)
                #expect(fixture.server.statistics.tokenEndpointCalls == 1)
                #expect(await client.tokens?.isSignedIn == true)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("50 concurrent requests with an expired token cause exactly one refresh")
    func concurrentRefresh() async throws {
        try await withAPIFixture(accessTokenLifetime: .seconds(60)) { fixture in
            try await withSecureAPIClient(try fixture.configuration()) { client in
                try await client.signIn(fixture.loginRequest)
                fixture.serverClock.advance(120)
                fixture.clientClock.advance(120)
                let emails = try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<50 {
                        group.addTask { try await client.send(Request<UserProfile>.get("user/profile")).email }
                    }
                    return try await group.reduce(into: [String]()) { $0.append($1) }
                }
                #expect(emails.count == 50)
                #expect(Set(emails) == [APIFixture.email])
                #expect(fixture.server.statistics.tokenEndpointCalls == 1)
                #expect(fixture.server.calls(to: "/user/profile") == 50)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Refresh-token reuse: the server revokes the family and the client is signed out")
    func refreshTokenReuse() async throws {
        try await withAPIFixture(tokenFormat: .opaque) { fixture in
            let store = InMemoryStore()
            try await withSecureAPIClient(try fixture.configuration(store: store)) { client in
                let bundle = try await client.signIn(fixture.loginRequest)
                // An attacker who stole the refresh token uses it first.
                let stolen = try #require(bundle.refreshToken)
                let attacker = OAuthTokenEndpoint(
                    url: fixture.server.baseURL.appendingPathComponent("oauth/token"),
                    transport: client.transport,
                    client: .publicClient(id: "test-app")
                )
                let attackerTokens = try await attacker.refresh(using: stolen)
                // Later the app refreshes with the same (now spent) token.
                fixture.serverClock.advance(400)
                fixture.clientClock.advance(400)
                let error = try #require(await expectAPIError(client, Request<UserProfile>.get("user/profile")))
                #expect(error.code == .signedOut)
                #expect(error.authenticationError?.code == .invalidGrant)
                #expect(await client.tokens?.isSignedIn == false)
                #expect(try await store.data(forKey: "SecureNetworking.tokens") == nil)
                #expect(fixture.server.statistics.revokedFamilies == 1)

                // The attacker's tokens died with the family.
                var stolenRequest = HTTPRequest(
                    method: .get,
                    url: fixture.server.baseURL.appendingPathComponent("user/profile")
                )
                try stolenRequest.headerFields.setChecked(
                    name: .authorization,
                    value: "Bearer \(attackerTokens.accessToken)"
                )
                let answer = try await client.transport.send(stolenRequest)
                #expect(answer.response.status == .unauthorized)
            }
        }
    }

    // MARK: Transport security through the client

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Pins that do not match refuse the server before any request; plain http is refused by policy")
    func pinsAndPolicy() async throws {
        try await withAPIFixture { fixture in
            var pinned = fixture.policy
            pinned.pinning.pin(
                try HostPattern("localhost"),
                to: try PinSet(pins: [fixture.pki.untrustedRoot.pin, fixture.pki.interceptionCA.pin])
            )
            try await withSecureAPIClient(try fixture.configuration(policy: pinned)) { client in
                let error = try #require(
                    await expectAPIError(client, Request<Echo>.get("echo/pinned", requiresAuthentication: false))
                )
                #expect(error.code == .transportFailure)
                #expect(error.transportError?.serverTrustError?.code == .pinMismatch)
                #expect(error.userMessage() == "A secure connection to the server could not be established.")
                #expect(fixture.server.calls(to: "/echo/pinned") == 0)
            }
            let plain = try #require(URL(string: "http://localhost:\(fixture.server.port)/"))
            try await withSecureAPIClient(try fixture.configuration(baseURL: plain)) { client in
                let error = try #require(
                    await expectAPIError(client, Request<Echo>.get("echo/plain", requiresAuthentication: false))
                )
                #expect(error.transportError?.code == .policyViolation)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Mutual TLS: whoami names the client certificate, and answers 403 without one")
    func mutualTLS() async throws {
        struct WhoAmI: Decodable, Sendable { var subject: String }
        try await withAPIFixture { fixture in
            let identity = try fixture.pki.clientIdentity(commonName: "demo-device")
            let pem = ClientIdentity.pem(
                certificateChain: identity.pem,
                privateKey: identity.leafIdentity.privateKeyPEM
            )
            try await withSecureAPIClient(try fixture.configuration(clientIdentity: pem)) { client in
                let whoami = try await client.send(Request<WhoAmI>.get("mtls/whoami", requiresAuthentication: false))
                #expect(whoami.subject.contains("CN=demo-device"))
            }
            try await withSecureAPIClient(try fixture.configuration()) { client in
                let error = try #require(
                    await expectAPIError(client, Request<WhoAmI>.get("mtls/whoami", requiresAuthentication: false))
                )
                #expect(error.code == .forbidden)
                #expect(error.serverErrorCode == "client_certificate_required")
            }
        }
    }

    // MARK: Logging

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A trace-level log of the whole flow holds no token, password or Authorization value")
    func noSecretsInLogs() async throws {
        let lines = NIOLockedValueBox<[String]>([])
        var logger = Logger(label: "test", factory: { _ in CapturingLogHandler(lines: lines) })
        logger.logLevel = .trace
        try await withAPIFixture(tokenFormat: .opaque) { fixture in
            try await withSecureAPIClient(try fixture.configuration(logger: logger)) { client in
                let bundle = try await client.signIn(fixture.loginRequest)
                _ = try await client.send(Request<UserProfile>.get("user/profile"))
                fixture.serverClock.advance(301)
                _ = try await client.send(Request<UserProfile>.get("user/profile"))  // 401 → refresh → retry
                fixture.clientClock.advance(400)
                fixture.serverClock.advance(400)
                _ = try await client.send(
                    Request<UserProfile>.patch("user/profile", body: .json(["display_name": "Ada"]))
                )
                let current = try #require(await client.tokens?.currentBundle())
                let secrets = [
                    bundle.accessToken, try #require(bundle.refreshToken), current.accessToken,
                    try #require(current.refreshToken), APIFixture.password,
                ]
                let captured = lines.withLockedValue { $0 }
                #expect(captured.count > 5)
                #expect(captured.contains { $0.contains("user/profile") })
                for (index, secret) in secrets.enumerated() {
                    let leaks = captured.filter { $0.contains(secret) }.map {
                        $0.replacingOccurrences(of: secret, with: "<SECRET>")
                    }
                    #expect(leaks.isEmpty, "secret \(index) reached the log: \(leaks)")
                }
                // The Authorization header is logged, but only as <redacted>.
                let authorizationLines = captured.filter { $0.lowercased().contains("authorization: ") }
                #expect(!authorizationLines.isEmpty)
                for line in authorizationLines {
                    let lower = line.lowercased()
                    var rest = lower[...]
                    while let range = rest.range(of: "authorization: ") {
                        #expect(
                            rest[range.upperBound...].hasPrefix("<redacted>"),
                            "an Authorization value reached the log"
                        )
                        rest = rest[range.upperBound...]
                    }
                }
                #expect(fixture.server.statistics.tokenEndpointCalls == 2)
            }
        }
    }
}
#endif
