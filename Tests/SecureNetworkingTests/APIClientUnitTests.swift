import Foundation
import HTTPTypes
import Testing

@testable import SecureNetworking

@Suite("SecureAPIClient building blocks")
struct APIClientUnitTests {
    @Test("Path segments and query items are percent-encoded per RFC 3986 under the base path")
    func targetEncoding() throws {
        let base = try #require(URL(string: "https://api.example.com/v1/"))
        let target = try URLBuilder.target(
            base: base,
            segments: ["users", "a b", "x/y", "é", "..", "50%"],
            query: [
                URLQueryItem(name: "q", value: "a+b&c=d"),
                URLQueryItem(name: "name", value: "Zoë"),
                URLQueryItem(name: "flag", value: nil),
                URLQueryItem(name: "q", value: "second"),
            ]
        )
        #expect(target.path == "/v1/users/a%20b/x%2Fy/%C3%A9/%2E%2E/50%25")
        #expect(target.pathAndQuery == target.path + "?q=a%2Bb%26c%3Dd&name=Zo%C3%AB&flag&q=second")

        let bare = try URLBuilder.target(
            base: try #require(URL(string: "https://api.example.com")),
            segments: [],
            query: []
        )
        #expect(bare.path == "/")
        let noSlash = try URLBuilder.target(
            base: try #require(URL(string: "https://api.example.com/v2")),
            segments: ["me"],
            query: []
        )
        #expect(noSlash.path == "/v2/me")
    }

    @Test("A path string is split at / and empty segments are dropped")
    func pathSplitting() {
        let request = Request<EmptyResponse>.get("/user//profile/")
        #expect(request.pathSegments == ["user", "profile"])
        #expect(request.isIdempotent)
        #expect(request.requiresAuthentication)
        #expect(!Request<EmptyResponse>.post("login", body: nil).isIdempotent)
        #expect(Request<EmptyResponse>.put("x", body: nil).isIdempotent)
    }

    @Test("Backoff doubles from the base, is capped, and jitter scales it")
    func backoff() {
        let policy = RetryPolicy(maximumAttempts: 10, baseDelay: .milliseconds(100), maximumDelay: .seconds(1))
        #expect(policy.delay(beforeRetry: 1, retryAfter: nil, random: 0.999_999)! > .milliseconds(99))
        #expect(policy.delay(beforeRetry: 1, retryAfter: nil, random: 0.5) == .milliseconds(50))
        #expect(policy.delay(beforeRetry: 2, retryAfter: nil, random: 0.5) == .milliseconds(100))
        #expect(policy.delay(beforeRetry: 3, retryAfter: nil, random: 0.5) == .milliseconds(200))
        #expect(policy.delay(beforeRetry: 9, retryAfter: nil, random: 0.5) == .milliseconds(500))
        #expect(policy.delay(beforeRetry: 60, retryAfter: nil, random: 1) == .seconds(1))
        #expect(policy.delay(beforeRetry: 4, retryAfter: nil, random: 0) == .zero)
    }

    @Test("Retry-After is honoured as given, and one longer than the maximum is not waited for")
    func retryAfterWins() {
        let policy = RetryPolicy(maximumRetryAfter: .seconds(30))
        #expect(policy.delay(beforeRetry: 1, retryAfter: .seconds(2), random: 0.1) == .seconds(2))
        #expect(policy.delay(beforeRetry: 1, retryAfter: .seconds(31), random: 0.1) == nil)
    }

    @Test("Retry-After parses delay-seconds and HTTP-dates; garbage is ignored")
    func retryAfterParsing() {
        let now = Date(timeIntervalSince1970: 1_767_225_600)  // Thu, 01 Jan 2026 00:00:00 GMT
        #expect(RetryAfter.parse("1", now: now) == .seconds(1))
        #expect(RetryAfter.parse(" 120 ", now: now) == .seconds(120))
        #expect(RetryAfter.parse("Thu, 01 Jan 2026 00:00:05 GMT", now: now) == .seconds(5))
        #expect(RetryAfter.parse("Wed, 31 Dec 2025 23:59:00 GMT", now: now) == .zero)
        #expect(RetryAfter.parse("soon", now: now) == nil)
        #expect(RetryAfter.parse("-1", now: now) == nil)
        #expect(RetryAfter.parse(nil, now: now) == nil)
        #expect(RetryAfter.parse("99999999999999", now: now)! > .seconds(1_000_000))
    }

    @Test("Statuses map to their codes")
    func statusCodes() {
        let expected: [Int: APIError.Code] = [
            400: .badRequest, 401: .unauthorized, 403: .forbidden, 404: .notFound, 409: .conflict,
            422: .unprocessable, 429: .rateLimited, 418: .clientError, 500: .serverError, 503: .serverError,
            599: .serverError, 304: .unexpectedStatus,
        ]
        for (status, code) in expected {
            #expect(APIError.code(forStatus: status) == code, "status \(status)")
        }
    }

    @Test("Only a short identifier is taken from an error body, never prose")
    func serverErrorCodes() {
        #expect(
            UserMessageCatalog.serverCode(in: Data(#"{"error":"validation_failed","message":"SQL said no"}"#.utf8))
                == "validation_failed"
        )
        #expect(UserMessageCatalog.serverCode(in: Data(#"{"error":"Stack trace: at line 4"}"#.utf8)) == nil)
        #expect(UserMessageCatalog.serverCode(in: Data(#"{"code":"E.42-x"}"#.utf8)) == "E.42-x")
        #expect(UserMessageCatalog.serverCode(in: Data("<html>oops</html>".utf8)) == nil)
        #expect(UserMessageCatalog.serverCode(in: Data()) == nil)
    }

    @Test("The user message comes from the catalog, not the server")
    func userMessages() {
        let catalog = UserMessageCatalog(messages: ["validation_failed": "Please check the name."])
        let known = APIError(
            .unprocessable,
            "the server answered 422",
            status: 422,
            serverErrorCode: "validation_failed"
        )
        #expect(known.userMessage(catalog) == "Please check the name.")
        let unknown = APIError(.serverError, "the server answered 502", status: 502, serverErrorCode: "upstream_died")
        #expect(unknown.userMessage(catalog) == UserMessageCatalog.standardStatusMessages[502])
        let odd = APIError(.serverError, "the server answered 599", status: 599)
        #expect(odd.userMessage(catalog) == UserMessageCatalog.standardStatusMessages[500])
        #expect(known.description == "APIError.unprocessable (422) [validation_failed]: the server answered 422")
    }

    @Test("Only connection-level transport failures and listed statuses are retryable")
    func retryableErrors() {
        let policy = RetryPolicy.standard
        for status in [408, 429, 502, 503, 504] {
            #expect(SecureAPIClient.isRetryable(APIError(.serverError, "", status: status), policy: policy))
        }
        for status in [400, 401, 403, 404, 409, 422, 500, 501] {
            #expect(!SecureAPIClient.isRetryable(APIError(.serverError, "", status: status), policy: policy))
        }
        let retryable: [SecureHTTPError.Code] = [
            .connectFailed, .connectTimeout, .connectionClosed, .tlsHandshakeTimeout, .streamReset,
            .requestNotProcessed,
        ]
        let final: [SecureHTTPError.Code] = [
            .serverTrustFailure, .policyViolation, .tlsHandshakeFailure, .responseTooLarge, .deadlineExceeded,
        ]
        for code in retryable {
            #expect(SecureAPIClient.isRetryable(.transport(SecureHTTPError(code, "x")), policy: policy))
        }
        for code in final {
            #expect(!SecureAPIClient.isRetryable(.transport(SecureHTTPError(code, "x")), policy: policy))
        }
        // A POST is sent again only when the server said it did not process it.
        let notProcessed = APIError.transport(SecureHTTPError(.requestNotProcessed, "x"))
        #expect(SecureAPIClient.mayRetry(idempotent: false, notProcessed, policy: policy))
        #expect(
            !SecureAPIClient.mayRetry(idempotent: false, .transport(SecureHTTPError(.streamReset, "x")), policy: policy)
        )
        #expect(
            !SecureAPIClient.mayRetry(
                idempotent: false,
                .transport(SecureHTTPError(.connectionClosed, "x")),
                policy: policy
            )
        )
        #expect(
            SecureAPIClient.mayRetry(idempotent: true, .transport(SecureHTTPError(.streamReset, "x")), policy: policy)
        )
        #expect(
            !SecureAPIClient.mayRetry(
                idempotent: true,
                .transport(SecureHTTPError(.serverTrustFailure, "x")),
                policy: policy
            )
        )
    }

    @Test("A base URL that is not absolute http(s) is refused")
    func baseURLChecked() throws {
        let relative = try #require(URL(string: "api/v1"))
        do {
            _ = try SecureAPIClient(configuration: .init(baseURL: relative))
            Issue.record("a relative base URL was accepted")
        } catch {
            #expect(error.code == .invalidRequest)
        }
    }

    @Test("A request that needs a token on a client without authentication is refused before sending")
    func authenticationRequired() async throws {
        let client = try SecureAPIClient(
            configuration: .init(baseURL: try #require(URL(string: "https://127.0.0.1:1/")))
        )
        do {
            _ = try await client.send(Request<EmptyResponse>.get("user/profile"))
            Issue.record("sent without a token")
        } catch {
            #expect(error.code == .invalidRequest)
        }
        await client.shutdown()
    }

    @Test("The engine is NIO unless the configuration names another, and the client builds that transport")
    func engineChoosesTheTransport() async throws {
        let configuration = SecureAPIClient.Configuration(baseURL: try #require(URL(string: "https://127.0.0.1:1/")))
        #expect(configuration.engine == .nio)
        let client = try SecureAPIClient(configuration: configuration)
        #expect(client.transport is NIOHTTPTransport)
        await client.shutdown()
        // A client-built NIO transport is shut down by shutdown().
        do {
            _ = try await client.transport.send(
                HTTPRequest(method: .get, scheme: "https", authority: "127.0.0.1:1", path: "/"),
                body: nil
            )
            Issue.record("a shut-down transport sent a request")
        } catch {
            #expect(error.code == .shutDown)
        }
    }
}
