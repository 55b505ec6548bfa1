#if TestServers
import Foundation
import SecureNetworkingTesting
import Testing

@testable import SecureNetworking

/// Issue 38, items 3 and 4: every `APIError` message says why in one line, and `userMessage`
/// tells the user the truth about the situation.
@Suite("APIError messages and user messages")
struct UserMessageTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let error: APIError
        let userMessage: String
        var testDescription: String { self.name }
    }

    static let wrongPassword = "The e-mail or password is wrong."
    static let sessionEnded = "Your session has ended. Please sign in again."
    static let tooSlow = "The server took too long to answer. Please try again."
    static let unreachable = "The server could not be reached. Please check your connection and try again."
    static let insecure = "A secure connection to the server could not be established."

    /// A status error as the client makes it.
    static func status(_ status: Int, code: String? = nil) -> APIError {
        APIError(
            APIError.code(forStatus: status),
            "the server answered \(status)",
            status: status,
            serverErrorCode: code
        )
    }

    static let trustFailure = SecureHTTPError(
        .serverTrustFailure,
        "localhost is not trusted",
        serverTrustError: ServerTrustError(.untrustedRoot, "its root CN=Test Root is not a trust anchor of this policy")
    )

    /// One row per situation, each error built the way the client builds it.
    static let rows: [Row] = [
        Row(
            name: "wrong password at sign-in (401 invalid_credentials)",
            error: .signInFailed(status(401, code: "invalid_credentials")),
            userMessage: wrongPassword
        ),
        Row(name: "sign-in 401 without a code", error: .signInFailed(status(401)), userMessage: wrongPassword),
        Row(name: "sign-in 400 without a code", error: .signInFailed(status(400)), userMessage: wrongPassword),
        Row(
            name: "sign-in 400 invalid_grant",
            error: .signInFailed(status(400, code: "invalid_grant")),
            userMessage: wrongPassword
        ),
        Row(
            name: "sign-in 400 with another code stays a bad request",
            error: .signInFailed(status(400, code: "email_malformed")),
            userMessage: UserMessageCatalog.standardStatusMessages[400]!
        ),
        Row(
            name: "sign-in 503 stays a server error",
            error: .signInFailed(status(503)),
            userMessage: UserMessageCatalog.standardStatusMessages[503]!
        ),
        Row(
            name: "API 401 with the session kept",
            error: status(401),
            userMessage: "You are not allowed to do this."
        ),
        Row(name: "403", error: status(403), userMessage: "You don't have permission to do that."),
        Row(
            name: "refresh token refused",
            error: .authentication(
                TokenAuthError(
                    .invalidGrant,
                    "the token endpoint refused the grant (invalid_grant)",
                    oauthError: "invalid_grant"
                )
            ),
            userMessage: sessionEnded
        ),
        Row(
            name: "ended by inactivity",
            error: .authentication(TokenAuthError(.signedOut, "the session ended after a period of inactivity")),
            userMessage: sessionEnded
        ),
        Row(
            name: "token endpoint unreachable",
            error: .authentication(
                TokenAuthError(
                    .transportFailure,
                    "the token endpoint could not be reached",
                    transportError: SecureHTTPError(
                        .connectFailed,
                        "could not connect to https://127.0.0.1:1: connection refused by 127.0.0.1:1"
                    )
                )
            ),
            userMessage: unreachable
        ),
        Row(
            name: "request deadline",
            error: .transport(SecureHTTPError(.deadlineExceeded, "the request did not complete within 2 s")),
            userMessage: tooSlow
        ),
        Row(
            name: "TLS handshake timeout",
            error: .transport(
                SecureHTTPError(.tlsHandshakeTimeout, "the TLS handshake with https://localhost:1 timed out after 10 s")
            ),
            userMessage: tooSlow
        ),
        Row(
            name: "connection refused",
            error: .transport(
                SecureHTTPError(
                    .connectFailed,
                    "could not connect to https://127.0.0.1:1: connection refused by 127.0.0.1:1"
                )
            ),
            userMessage: unreachable
        ),
        Row(
            name: "host not found",
            error: .transport(
                SecureHTTPError(.connectFailed, "could not connect to https://x.invalid:443: host not found: x.invalid")
            ),
            userMessage: unreachable
        ),
        Row(
            name: "connect timeout",
            error: .transport(
                SecureHTTPError(.connectTimeout, "connecting to https://10.0.0.9:443 timed out after 5 s")
            ),
            userMessage: unreachable
        ),
        Row(
            name: "connection lost",
            error: .transport(
                SecureHTTPError(.connectionClosed, "the server closed the connection before the response was complete")
            ),
            userMessage: "The connection to the server was lost. Please try again."
        ),
        Row(name: "untrusted root", error: .transport(trustFailure), userMessage: insecure),
        Row(
            name: "pin mismatch",
            error: .transport(
                SecureHTTPError(
                    .serverTrustFailure,
                    "localhost is not trusted",
                    serverTrustError: ServerTrustError(.pinMismatch, "no pin matched")
                )
            ),
            userMessage: insecure
        ),
        Row(
            name: "policy violation",
            error: .transport(
                SecureHTTPError(
                    .policyViolation,
                    "the transport policy refused the request",
                    serverTrustError: ServerTrustError(.insecureScheme, "plain http is not allowed for example.com")
                )
            ),
            userMessage: insecure
        ),
        Row(
            name: "TLS version",
            error: .transport(SecureHTTPError(.tlsVersionRefused, "no TLS version in common")),
            userMessage: insecure
        ),
        Row(
            name: "server error",
            error: status(500),
            userMessage: UserMessageCatalog.standardStatusMessages[500]!
        ),
        Row(
            name: "oversized response",
            error: .transport(
                SecureHTTPError(.responseTooLarge, "the response body is larger than the limit of 10 bytes")
            ),
            userMessage: "Something went wrong. Please try again."
        ),
    ]

    @Test(arguments: rows)
    func userMessageForEachSituation(_ row: Row) {
        #expect(row.error.userMessage == row.userMessage)
        #expect(row.error.userMessage() == row.userMessage)
        #expect(row.error.userMessage(UserMessageCatalog()) == row.userMessage)
        if row.error.code != .signedOut {
            #expect(!row.error.userMessage.contains("session has ended"))
        }
        // The message for developers says why in one line, never a bare nested code.
        #expect(!row.error.message.contains("\n"))
        #expect(!row.error.message.contains("in the transport: "))
    }

    /// `print(error.userMessage)` without parentheses is the sentence, not `(Function)`.
    @Test func userMessageWithoutParenthesesIsTheSentence() {
        let error = APIError.transport(SecureHTTPError(.deadlineExceeded, "the request did not complete within 2 s"))
        #expect("\(error.userMessage)" == Self.tooSlow)
        #expect(String(describing: error.userMessage) == Self.tooSlow)
        let text: String = error.userMessage
        #expect(text == Self.tooSlow)
    }

    /// The catalog's own code wins, then the situation; an app can replace either.
    @Test func aCustomCatalogDecides() {
        var catalog = UserMessageCatalog(messages: ["invalid_credentials": "Check your e-mail and password."])
        #expect(
            APIError.signInFailed(Self.status(401, code: "invalid_credentials")).userMessage(catalog)
                == "Check your e-mail and password."
        )
        catalog.situationMessages[.timedOut] = "Slow network."
        let timeout = APIError.transport(SecureHTTPError(.deadlineExceeded, "the request did not complete within 2 s"))
        #expect(timeout.userMessage(catalog) == "Slow network.")
        catalog.situationMessages = [:]
        #expect(timeout.userMessage(catalog) == catalog.fallback)
    }

    @Test func transportMessagesCarryTheReason() {
        let trust = APIError.transport(Self.trustFailure)
        #expect(
            trust.message
                == "the request failed: localhost is not trusted: its root CN=Test Root is not a trust anchor of this policy"
        )
        #expect(trust.description == "APIError.transportFailure: \(trust.message)")
        let refused = APIError.transport(
            SecureHTTPError(
                .connectFailed,
                "could not connect to https://127.0.0.1:1: connection refused by 127.0.0.1:1"
            )
        )
        #expect(
            refused.message
                == "the request failed: could not connect to https://127.0.0.1:1: connection refused by 127.0.0.1:1"
        )
        #expect(APIError.transport(SecureHTTPError(.cancelled, "the request was cancelled")).code == .cancelled)
    }

    /// The token endpoint's `error_description` and an unvetted OAuth code never reach the message.
    @Test func authenticationMessagesSayWhyWithoutTheServersProse() {
        let prose = "user ada@example.com has refresh token rt-SECRET revoked by admin"
        let refused = APIError.authentication(
            TokenAuthError(
                .invalidGrant,
                "the token endpoint refused the grant (invalid_grant): \(prose)",
                oauthError: "invalid_grant"
            )
        )
        #expect(refused.code == .signedOut)
        #expect(
            refused.message
                == "the session has ended: the token endpoint refused the grant (invalid_grant); sign in again"
        )
        let rejected = APIError.authentication(
            TokenAuthError(
                .authorizationRejected,
                "the token endpoint answered 400 odd code: \(prose)",
                oauthError: "odd code: \(prose)"
            )
        )
        #expect(
            rejected.message == "the session has ended: the authorization server refused the request; sign in again"
        )
        let unreachable = APIError.authentication(
            TokenAuthError(
                .transportFailure,
                "the token endpoint could not be reached",
                transportError: SecureHTTPError(
                    .connectFailed,
                    "could not connect to https://127.0.0.1:1: connection refused by 127.0.0.1:1"
                )
            )
        )
        #expect(unreachable.code == .authenticationFailed)
        #expect(
            unreachable.message
                == "a valid access token could not be obtained: the token endpoint could not be reached: could not connect to https://127.0.0.1:1: connection refused by 127.0.0.1:1"
        )
        let invalid = APIError.authentication(TokenAuthError(.invalidResponse, "unsupported token type 'SECRET-ish'"))
        #expect(
            invalid.message
                == "a valid access token could not be obtained: the token endpoint's answer is not a token response"
        )
        for error in [refused, rejected, unreachable, invalid] {
            #expect(!error.message.contains("SECRET"))
            #expect(!error.description.contains("SECRET"))
            #expect(!error.message.contains("ada@"))
        }
    }

    /// The sign-in mapping keeps what it knew.
    @Test func signInFailedKeepsTheStatusAndCode() {
        var answer = Self.status(401, code: "invalid_credentials")
        answer.attempts = 2
        let mapped = APIError.signInFailed(answer)
        #expect(mapped.code == .invalidCredentials)
        #expect(mapped.status == 401)
        #expect(mapped.serverErrorCode == "invalid_credentials")
        #expect(mapped.attempts == 2)
        #expect(mapped.message == "the sign-in was refused: the server answered 401 (invalid_credentials)")
        let transport = APIError.transport(SecureHTTPError(.connectFailed, "could not connect"))
        #expect(APIError.signInFailed(transport).code == .transportFailure)
    }

    /// `Code` is a struct: a `switch` with `case .x:` patterns compiles (through `~=`) and needs
    /// a `default`.
    @Test(arguments: [
        (APIError.Code.signedOut, "sign in"), (.invalidCredentials, "check"), (.transportFailure, "offline"),
        (.notFound, "other"),
    ])
    func codesCanBeSwitchedOver(_ code: APIError.Code, _ expected: String) {
        let answer: String
        switch code {
        case .signedOut: answer = "sign in"
        case .invalidCredentials: answer = "check"
        case .transportFailure: answer = "offline"
        default: answer = "other"
        }
        #expect(answer == expected)
        #expect(code == code)
    }

    // MARK: - Live

    /// A closed port: the message says "refused", names the address, and holds no NIO text.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aClosedPortIsReportedAsRefused() async throws {
        try await withAPIFixture { fixture in
            try await withRefusingLoopbackPort { port in
                let base = try #require(URL(string: "https://127.0.0.1:\(port)/"))
                var configuration = try fixture.configuration(baseURL: base)
                configuration.retry = RetryPolicy(maximumAttempts: 1)
                try await withSecureAPIClient(configuration) { client in
                    let error = try #require(
                        await expectAPIError(client, Request<Data>.get("echo/x", requiresAuthentication: false))
                    )
                    #expect(error.code == .transportFailure)
                    #expect(error.transportError?.code == .connectFailed)
                    #expect(error.message.contains("refused"), "\(error.message)")
                    #expect(error.message.contains("127.0.0.1:\(port)"), "\(error.message)")
                    #expect(!error.message.contains("error set"), "\(error.message)")
                    #expect(error.userMessage == Self.unreachable)
                }
            }
        }
    }

    /// A slow answer and a short deadline: the timeout sentence.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aSlowServerGivesTheTimeoutSentence() async throws {
        try await withAPIFixture { fixture in
            var configuration = try fixture.configuration()
            configuration.retry = RetryPolicy(maximumAttempts: 1)
            try await withSecureAPIClient(configuration) { client in
                let error = try #require(
                    await expectAPIError(
                        client,
                        Request<Data>.get(
                            "slow",
                            query: [URLQueryItem(name: "ms", value: "2000")],
                            timeout: .milliseconds(500),
                            requiresAuthentication: false
                        )
                    )
                )
                #expect(error.transportError?.code == .deadlineExceeded, "\(error)")
                #expect(error.userMessage == Self.tooSlow)
                #expect(error.message.hasPrefix("the request failed: "), "\(error.message)")
            }
        }
    }

    /// A wrong password at the reference server's sign-in, mapped as the client maps it.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aWrongPasswordSaysSo() async throws {
        try await withAPIFixture { fixture in
            try await withSecureAPIClient(try fixture.configuration()) { client in
                let wrong = Request<TokenResponse>.post(
                    "auth/login",
                    body: .json(LoginBody(email: APIFixture.email, password: "wrong")),
                    requiresAuthentication: false
                )
                do {
                    try await client.signIn(wrong)
                    Issue.record("the sign-in succeeded")
                } catch let error as APIError {
                    // Whether or not signIn maps it yet, the mapping gives the sentence.
                    let mapped = APIError.signInFailed(error)
                    #expect(mapped.code == .invalidCredentials, "\(error)")
                    #expect(mapped.serverErrorCode == "invalid_credentials")
                    #expect(mapped.userMessage == Self.wrongPassword)
                } catch {
                    Issue.record("not an APIError: \(error)")
                }
            }
        }
    }
}
#endif
