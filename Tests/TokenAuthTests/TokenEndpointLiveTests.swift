#if TestServers
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import SecureHTTP
import SecureNetworkingTesting
import SecureStorage
import ServerTrust
import Testing

@testable import TokenAuth

/// A token endpoint on loopback TLS, served by the transport issue's test server.
final class TokenEndpointStub: Sendable {
    enum Mode: Sendable {
        case issue(rotate: Bool)
        case error(status: Int, code: String)
        case unavailable
        case garbage
    }

    struct State {
        var mode: Mode = .issue(rotate: true)
        var issued = 0
        var grants: [[String: String]] = []
        var authorizations: [String?] = []
        var contentTypes: [String?] = []
    }

    let state = NIOLockedValueBox(State())

    func set(_ mode: Mode) { self.state.withLockedValue { $0.mode = mode } }
    var grants: [[String: String]] { self.state.withLockedValue { $0.grants } }

    var handler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response {
        { request in
            let body = String(decoding: request.body, as: UTF8.self)
            let contentType = request.header("Content-Type")
            let fields: [String: String]
            if contentType == "application/json" {
                fields = (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String]) ?? [:]
            } else {
                fields = FormEncoding.decode(body)
            }
            let (mode, number) = self.state.withLockedValue { state in
                state.grants.append(fields)
                state.authorizations.append(request.header("Authorization"))
                state.contentTypes.append(contentType)
                state.issued += 1
                return (state.mode, state.issued)
            }
            let json: [(String, String)] = [("Content-Type", "application/json"), ("Cache-Control", "no-store")]
            switch mode {
            case .issue(let rotate):
                var token: [String: Any] = [
                    "access_token": "access-\(number + 1)", "token_type": "Bearer", "expires_in": 3600,
                ]
                if rotate { token["refresh_token"] = "refresh-\(number + 1)" }
                let data = (try? JSONSerialization.data(withJSONObject: token)) ?? Data()
                return .delayed(milliseconds: 50, .status(200, headers: json, body: Array(data)))
            case .error(let status, let code):
                let data = Array(#"{"error":"\#(code)","error_description":"refused by the stub"}"#.utf8)
                return .delayed(milliseconds: 50, .status(status, headers: json, body: data))
            case .unavailable:
                return .status(503, headers: [("Retry-After", "1")])
            case .garbage:
                return .status(200, headers: json, body: Array("<html>".utf8))
            }
        }
    }
}

@Suite("TokenAuth against a token endpoint on loopback TLS")
struct TokenEndpointLiveTests {
    func withEndpoint(
        encoding: OAuthTokenEndpoint.BodyEncoding = .form,
        client: OAuthTokenEndpoint.ClientAuthentication = .publicClient(id: "ios-app"),
        _ body: (TokenEndpointStub, OAuthTokenEndpoint) async throws -> Void
    ) async throws {
        let stub = TokenEndpointStub()
        try await withLoopbackHTTPServer(
            LoopbackHTTPServer.TLS(chain: try Live.pki.validChain()),
            handler: stub.handler
        ) { server in
            try await withNIOHTTPTransport(configuration: Live.configuration) { transport in
                let endpoint = OAuthTokenEndpoint(
                    url: server.baseURL.appendingPathComponent("oauth/token"),
                    transport: transport,
                    client: client,
                    encoding: encoding
                )
                try await body(stub, endpoint)
            }
        }
    }

    static let key = "SecureNetworking.tokens"

    static func expired() -> TokenBundle {
        TokenBundle(accessToken: "access-0", refreshToken: "refresh-0", expiresAt: Date().addingTimeInterval(-1))
    }

    @Test func fiveHundredConcurrentCallersCauseExactlyOneRefresh() async throws {
        try await withEndpoint { stub, endpoint in
            let store = InMemoryStore()
            let manager = TokenManager(store: store, refresher: endpoint)
            try await manager.signIn(Self.expired())
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<500 { group.addTask { try await manager.validAccessToken() } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(tokens.count == 500)
            #expect(Set(tokens) == ["access-2"])
            #expect(stub.grants.count == 1)
            #expect(stub.grants.first?["grant_type"] == "refresh_token")
            #expect(stub.grants.first?["refresh_token"] == "refresh-0")
            #expect(stub.grants.first?["client_id"] == "ios-app")
            // The rotated refresh token was persisted.
            #expect(try await store.value(TokenBundle.self, forKey: Self.key)?.refreshToken == "refresh-2")
        }
    }

    @Test func invalidGrantSignsOutEveryWaiterOnce() async throws {
        try await withEndpoint { stub, endpoint in
            stub.set(.error(status: 400, code: "invalid_grant"))
            let store = InMemoryStore()
            let manager = TokenManager(store: store, refresher: endpoint)
            let log = EventLog(manager)
            try await manager.signIn(Self.expired())
            let errors = await withTaskGroup(of: TokenAuthError?.self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        do {
                            _ = try await manager.validAccessToken()
                            return nil
                        } catch { return error as? TokenAuthError }
                    }
                }
                return await group.reduce(into: [TokenAuthError?]()) { $0.append($1) }
            }
            #expect(errors.count == 100)
            #expect(
                errors.allSatisfy {
                    $0?.code == .invalidGrant && $0?.oauthError == "invalid_grant" && $0?.isTerminal == true
                }
            )
            #expect(stub.grants.count == 1)
            #expect(try await store.data(forKey: Self.key) == nil)
            #expect(
                try await log.drain(manager, marker: Self.expired()).filter(\.isSignedOut) == [
                    .signedOut(.refreshRejected)
                ]
            )
        }
    }

    @Test func transientFailuresKeepTheTokens() async throws {
        try await withEndpoint { stub, endpoint in
            stub.set(.unavailable)
            let store = InMemoryStore()
            let clock = TestClock(Date())
            let manager = TokenManager(store: store, refresher: endpoint, now: clock.function)
            try await manager.signIn(Self.expired())
            await #expect(throws: TokenAuthError(.serverError, "")) { try await manager.validAccessToken() }
            #expect(try await store.value(TokenBundle.self, forKey: Self.key)?.refreshToken == "refresh-0")
            #expect(await manager.isSignedIn)
            // The 503 said Retry-After: 1. Within that second the endpoint is not called again.
            stub.set(.garbage)
            do throws(TokenAuthError) {
                _ = try await manager.validAccessToken()
                Issue.record("refreshed within Retry-After")
            } catch {
                #expect(error.code == .serverError)
                #expect(error.retryAfter == .seconds(1))
            }
            #expect(stub.grants.count == 1)
            clock.advance(1)
            await #expect(throws: TokenAuthError(.invalidResponse, "")) { try await manager.validAccessToken() }
            stub.set(.issue(rotate: false))
            #expect(try await manager.validAccessToken() == "access-4")
            // Not rotated: the refresh token the app had is kept.
            #expect(try await store.value(TokenBundle.self, forKey: Self.key)?.refreshToken == "refresh-0")
        }
    }

    @Test func anUnreachableEndpointIsATransportFailureThatKeepsTheTokens() async throws {
        try await withRefusingLoopbackPort { port in
            try await withNIOHTTPTransport(configuration: Live.configuration) { transport in
                let endpoint = OAuthTokenEndpoint(
                    url: URL(string: "https://127.0.0.1:\(port)/oauth/token")!,
                    transport: transport,
                    client: .publicClient(id: "ios-app")
                )
                let store = InMemoryStore()
                let manager = TokenManager(store: store, refresher: endpoint)
                try await manager.signIn(Self.expired())
                do throws(TokenAuthError) {
                    _ = try await manager.validAccessToken()
                    Issue.record("refreshed against a closed port")
                } catch {
                    #expect(error.code == .transportFailure)
                    #expect(error.transportError?.code == .connectFailed)
                    #expect(!error.isTerminal)
                }
                #expect(try await store.data(forKey: Self.key) != nil)
            }
        }
    }

    @Test func theTokenEndpointNeverFollowsARedirect() async throws {
        let chain = try Live.pki.validChain()
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: chain), handler: { _ in .text("collected") }) {
            collector in
            let target = collector.baseURL.appendingPathComponent("steal").absoluteString
            for status in [301, 302, 307, 308] {
                try await withLoopbackHTTPServer(
                    LoopbackHTTPServer.TLS(chain: chain),
                    handler: { _ in .redirect(status, to: target) }
                ) { server in
                    try await withNIOHTTPTransport(configuration: Live.configuration) { transport in
                        let endpoint = OAuthTokenEndpoint(
                            url: server.baseURL.appendingPathComponent("oauth/token"),
                            transport: transport,
                            client: .post(id: "app", secret: "client-secret")
                        )
                        do throws(TokenAuthError) {
                            _ = try await endpoint.refresh(using: "refresh-0")
                            Issue.record("a \(status) was followed or accepted")
                        } catch {
                            #expect(error.code == .invalidResponse)
                            #expect(error.isTerminal == false)
                        }
                        #expect(server.statistics.requests.count == 1)
                    }
                }
            }
            // Neither the refresh token nor the client secret reached the other origin.
            #expect(collector.statistics.requests.isEmpty)
        }
    }

    @Test func aRequestAboutToBeWrittenGetsTheTokenHandedOutLast() async throws {
        try await withEndpoint { stub, endpoint in
            let clock = TestClock()
            let manager = TokenManager(store: InMemoryStore(), refresher: endpoint, now: { clock.now })
            #expect(manager.accessTokenForSending() == nil)
            let issued = clock.now
            try await manager.signIn(
                TokenBundle(
                    accessToken: "access-0",
                    refreshToken: "refresh-0",
                    expiresAt: issued.addingTimeInterval(100),
                    issuedAt: issued
                )
            )
            #expect(manager.accessTokenForSending() == "access-0")
            #expect(stub.grants.isEmpty)
            // Inside the refresh leeway but valid: sent as it is, no refresh.
            clock.advance(80)
            #expect(manager.accessTokenForSending() == "access-0")
            #expect(stub.grants.isEmpty)
            // Expired: returned at once all the same (the server's 401 is retried), and exactly
            // one refresh starts in the background.
            clock.advance(20)
            #expect(manager.accessTokenForSending() == "access-0")
            #expect(manager.accessTokenForSending() == "access-0")
            try await waitFor { manager.accessTokenForSending() == "access-2" }
            #expect(stub.grants.count == 1)
            await manager.signOut()
            #expect(manager.accessTokenForSending() == nil)
        }
    }

    @Test func staleUnauthorizedDoesNotRefreshTwice() async throws {
        try await withEndpoint { stub, endpoint in
            let manager = TokenManager(store: InMemoryStore(), refresher: endpoint)
            try await manager.signIn(
                TokenBundle(
                    accessToken: "access-0",
                    refreshToken: "refresh-0",
                    expiresAt: Date().addingTimeInterval(3600)
                )
            )
            let first = try await manager.handleUnauthorized(sentToken: "access-0")
            let second = try await manager.handleUnauthorized(sentToken: "access-0")
            #expect(first == "access-2" && second == "access-2")
            #expect(stub.grants.count == 1)
        }
    }

    @Test func errorsFollowRFC6749Section5_2() async throws {
        try await withEndpoint { stub, endpoint in
            for (status, code, expected) in [
                (401, "invalid_client", TokenAuthError.Code.invalidClient),
                (400, "invalid_scope", .authorizationRejected),
                (400, "unsupported_grant_type", .authorizationRejected),
                (400, "invalid_grant", .invalidGrant),
            ] {
                stub.set(.error(status: status, code: code))
                do throws(TokenAuthError) {
                    _ = try await endpoint.refresh(using: "refresh-x")
                    Issue.record("\(code) accepted")
                } catch {
                    #expect(error.code == expected, "\(code)")
                    #expect(error.oauthError == code)
                    #expect(error.isTerminal)
                    #expect(!error.description.contains("refresh-x"))
                }
            }
        }
    }

    @Test func passwordGrantWithBasicClientAuthentication() async throws {
        try await withEndpoint(client: .basic(id: "web app", secret: "s3cr:t")) { stub, endpoint in
            let response = try await endpoint.signIn(
                username: "ada@example.com",
                password: "p@ss word&=",
                scope: "read write"
            )
            #expect(response.accessToken == "access-2")
            let grant = try #require(stub.grants.first)
            #expect(grant["grant_type"] == "password")
            #expect(grant["username"] == "ada@example.com")
            #expect(grant["password"] == "p@ss word&=")
            #expect(grant["scope"] == "read write")
            #expect(grant["client_secret"] == nil)
            let basic = try #require(stub.state.withLockedValue { $0.authorizations.first } ?? nil)
            // RFC 6749 §2.3.1: id and secret are form-encoded before Base64.
            #expect(basic == "Basic " + Data("web+app:s3cr%3At".utf8).base64EncodedString())
            #expect(stub.state.withLockedValue { $0.contentTypes.first } == "application/x-www-form-urlencoded")
        }
    }

    @Test func clientCredentialsGrantAsJSONWithPostedSecret() async throws {
        try await withEndpoint(encoding: .json, client: .post(id: "service", secret: "top")) { stub, endpoint in
            let response = try await endpoint.clientCredentials(scope: "metrics")
            #expect(response.accessToken == "access-2")
            #expect(
                stub.grants.first == [
                    "grant_type": "client_credentials", "scope": "metrics", "client_id": "service",
                    "client_secret": "top",
                ]
            )
            #expect(stub.state.withLockedValue { $0.contentTypes.first } == "application/json")
            #expect(
                !OAuthTokenEndpoint.ClientAuthentication.post(id: "service", secret: "top").description.contains("top")
            )
        }
    }
}

@Suite("RFC 6750 challenges and form encoding")
struct BearerChallengeTests {
    @Test func parsesAnInvalidTokenChallenge() throws {
        let challenge = try #require(
            BearerChallenge(
                parsing: #"Bearer realm="example", error="invalid_token", error_description="The access token expired""#
            )
        )
        #expect(challenge.realm == "example")
        #expect(challenge.isInvalidToken)
        #expect(challenge.errorDescription == "The access token expired")
    }

    @Test func findsBearerAmongOtherSchemesAndUnescapes() throws {
        let challenge = try #require(
            BearerChallenge(parsing: #"Basic realm="legacy", Bearer error="insufficient_scope", scope="read \"all\"""#)
        )
        #expect(challenge.error == "insufficient_scope")
        #expect(!challenge.isInvalidToken)
        #expect(challenge.scope == #"read "all""#)
        #expect(challenge.realm == nil)
    }

    @Test func noBearerChallengeIsNil() {
        #expect(BearerChallenge(parsing: #"Basic realm="x""#) == nil)
        #expect(BearerChallenge(parsing: "") == nil)
        #expect(BearerChallenge(parsing: "Bearer")?.error == nil)
    }

    @Test func formEncodingFollowsAppendixB() {
        #expect(FormEncoding.encode([("a b", "c&d=e/ü~")]) == "a+b=c%26d%3De%2F%C3%BC~")
        #expect(FormEncoding.decode("a+b=c%26d%3De%2F%C3%BC~") == ["a b": "c&d=e/ü~"])
    }
}
#endif
