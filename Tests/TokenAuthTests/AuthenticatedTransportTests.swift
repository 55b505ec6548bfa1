#if TestServers
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import SecureHTTP
import SecureNetworkingTesting
import SecureStorage
import Testing

@testable import TokenAuth

/// A transport that answers from a script and binds the late-bound credential the way the real
/// transports do (once per hop, and not after a redirect left the origin); it records what each
/// attempt carried.
final class ScriptedTransport: HTTPTransport {
    struct Answer: Sendable {
        var status: HTTPResponse.Status
        var headers: [(HTTPField.Name, String)] = []
        var crossedOrigin = false
    }

    struct Sent: Sendable {
        var authorization: String?
        var proof: String?
        var request: HTTPRequest
    }

    private let state: NIOLockedValueBox<(answers: [Answer], sent: [Sent])>

    init(_ answers: [Answer]) {
        self.state = NIOLockedValueBox((answers, []))
    }

    var sent: [Sent] { self.state.withLockedValue { $0.sent } }

    func send(
        _ request: HTTPRequest,
        body: Data?,
        options: HTTPRequestOptions
    ) async throws(SecureHTTPError) -> HTTPTransportResponse {
        guard let answer = self.state.withLockedValue({ $0.answers.isEmpty ? nil : $0.answers.removeFirst() }) else {
            throw SecureHTTPError(.connectionClosed, "script exhausted")
        }
        var hop = request
        // A hop that left the origin: the transport strips `Authorization` and binds nothing.
        if answer.crossedOrigin {
            hop.headerFields[.authorization] = nil
        } else if let credential = options.credential, let value = credential.value() {
            hop.headerFields[credential.name] = value
            if let proof = credential.proof {
                do {
                    if let field = try proof(hop, value) { hop.headerFields[field.name] = field.value }
                } catch {
                    throw SecureHTTPError(.credentialUnavailable, "no proof")
                }
            }
        }
        let sent = Sent(
            authorization: hop.headerFields[.authorization],
            proof: hop.headerFields[DPoPSigner.headerName],
            request: hop
        )
        self.state.withLockedValue { $0.sent.append(sent) }
        var response = HTTPResponse(status: answer.status)
        for (name, value) in answer.headers { response.headerFields.append(HTTPField(name: name, value: value)) }
        return HTTPTransportResponse(
            response: response,
            body: Data(),
            url: request.url ?? URL(string: "https://api.example.com/")!,
            redirectCount: answer.crossedOrigin ? 1 : 0,
            redirectedAcrossOrigins: answer.crossedOrigin
        )
    }
}

/// A transport whose first request waits for `meanwhile` before it goes on to `base` (as a
/// request that waited for a connection), and whose first answer waits for `afterFirst`.
struct WaitingTransport: HTTPTransport {
    let base: ScriptedTransport
    let meanwhile: @Sendable () async -> Void
    let afterFirst: @Sendable () async -> Void
    private let calls = NIOLockedValueBox(0)

    init(
        base: ScriptedTransport,
        afterFirst: @escaping @Sendable () async -> Void = {},
        meanwhile: @escaping @Sendable () async -> Void = {}
    ) {
        self.base = base
        self.meanwhile = meanwhile
        self.afterFirst = afterFirst
    }

    func send(
        _ request: HTTPRequest,
        body: Data?,
        options: HTTPRequestOptions
    ) async throws(SecureHTTPError) -> HTTPTransportResponse {
        let first = self.calls.withLockedValue { calls in
            defer { calls += 1 }
            return calls == 0
        }
        if first { await self.meanwhile() }
        let response = try await self.base.send(request, body: body, options: options)
        if first { await self.afterFirst() }
        return response
    }
}

@Suite("AuthenticatedTransport: the token, its proof, the nonce challenge and the 401, in one place")
struct AuthenticatedTransportTests {
    static let profile = HTTPRequest(method: .get, url: URL(string: "https://api.example.com/user/profile")!)
    static let invalidToken: ScriptedTransport.Answer = .init(
        status: .unauthorized,
        headers: [(.wwwAuthenticate, #"Bearer error="invalid_token""#)]
    )

    /// A signed-in session whose refreshes answer `access-2`, `access-3`, … (of `type`).
    static func session(type: String = "Bearer") async throws -> (TokenManager, ScriptedRefresher) {
        let refresher = ScriptedRefresher(
            (2...4).map {
                .succeed(
                    TokenResponse(
                        accessToken: "access-\($0)",
                        tokenType: type,
                        expiresIn: 3600,
                        refreshToken: "refresh-\($0)"
                    )
                )
            }
        )
        let manager = TokenManager(store: InMemoryStore(), refresher: refresher)
        try await manager.signIn(
            TokenBundle(accessToken: "access-1", refreshToken: "refresh-1", expiresAt: Date() + 3600, tokenType: type)
        )
        return (manager, refresher)
    }

    /// `request` through the package entry point (as `SecureAPIClient` sends it), counting attempts.
    static func send(
        _ transport: AuthenticatedTransport,
        attempts: inout Int,
        prepare: (HTTPRequest, Int) async throws -> HTTPRequest = { head, _ in head }
    ) async throws(AuthenticatedTransport.Failure) -> HTTPTransportResponse {
        var state = AuthenticatedTransport.State()
        return try await transport.send(
            Self.profile,
            body: nil,
            options: HTTPRequestOptions(),
            use: .token,
            state: &state,
            attempts: &attempts,
            prepare: prepare
        )
    }

    @Test func aFourOhOneGetsOneRefreshAndOneRetryWithTheNewToken() async throws {
        let (manager, refresher) = try await Self.session()
        let base = ScriptedTransport([Self.invalidToken, .init(status: .ok)])
        let response = try await AuthenticatedTransport(base, tokens: manager).send(Self.profile)
        #expect(response.response.status == .ok)
        #expect(base.sent.map(\.authorization) == ["Bearer access-1", "Bearer access-2"])
        #expect(base.sent.allSatisfy { $0.proof == nil })
        #expect(refresher.calls == ["refresh-1"])
    }

    @Test func aSecondFourOhOneIsReturnedWithoutAnotherRefresh() async throws {
        let (manager, refresher) = try await Self.session()
        let base = ScriptedTransport([Self.invalidToken, Self.invalidToken, Self.invalidToken])
        let response = try await AuthenticatedTransport(base, tokens: manager).send(Self.profile)
        #expect(response.response.status == .unauthorized)
        #expect(base.sent.map(\.authorization) == ["Bearer access-1", "Bearer access-2"])
        #expect(refresher.calls == ["refresh-1"])

        // Through the package entry point the attempts are counted: two, no loop.
        var attempts = 1
        let again = ScriptedTransport([Self.invalidToken, Self.invalidToken, Self.invalidToken])
        let answer = try await Self.send(AuthenticatedTransport(again, tokens: manager), attempts: &attempts)
        #expect(answer.response.status == .unauthorized)
        #expect(attempts == 2)
        #expect(again.sent.count == 2)
    }

    @Test func aRefusedRefreshTokenEndsTheSessionWithATypedError() async throws {
        let refresher = ScriptedRefresher([.fail(TokenAuthError(.invalidGrant, "refused"))])
        let manager = TokenManager(store: InMemoryStore(), refresher: refresher)
        try await manager.signIn(
            TokenBundle(accessToken: "access-1", refreshToken: "refresh-1", expiresAt: Date() + 3600)
        )
        let base = ScriptedTransport([Self.invalidToken, .init(status: .ok)])
        let error = await #expect(throws: SecureHTTPError.self) {
            try await AuthenticatedTransport(base, tokens: manager).send(Self.profile)
        }
        #expect(error?.code == .credentialUnavailable)
        #expect(error.map { "\($0)".contains("access-1") } == false)
        #expect(base.sent.count == 1)
        #expect(try await manager.currentBundle() == nil)
    }

    @Test func aNonceChallengeIsAnsweredOnceWithItsNonceAndNoRefresh() async throws {
        let (manager, refresher) = try await Self.session(type: "DPoP")
        let key = DPoPKey()
        let signer = DPoPSigner(key: key)
        let challenge = ScriptedTransport.Answer(
            status: .unauthorized,
            headers: [(.wwwAuthenticate, #"DPoP error="use_dpop_nonce""#), (DPoPSigner.nonceHeaderName, "nonce-1")]
        )
        let base = ScriptedTransport([challenge, .init(status: .ok)])
        let response = try await AuthenticatedTransport(base, tokens: manager, dpop: signer).send(Self.profile)
        #expect(response.response.status == .ok)
        #expect(base.sent.map(\.authorization) == ["DPoP access-1", "DPoP access-1"])
        #expect(refresher.calls.isEmpty)
        let proofs = try base.sent.map { try DPoPTests.decode(try #require($0.proof), key: key).claims }
        #expect(proofs[0]["nonce"] == nil)
        #expect(proofs[1]["nonce"] as? String == "nonce-1")
        #expect(
            proofs.allSatisfy { $0["ath"] is String && $0["htu"] as? String == "https://api.example.com/user/profile" }
        )
    }

    @Test func aServerThatKeepsChallengingTheNonceGetsATypedErrorAfterTheRetries() async throws {
        let (manager, refresher) = try await Self.session(type: "DPoP")
        let challenges = (0...DPoPNonceRetry.maximumRetries).map {
            ScriptedTransport.Answer(
                status: .unauthorized,
                headers: [(.wwwAuthenticate, #"DPoP error="use_dpop_nonce""#), (DPoPSigner.nonceHeaderName, "n-\($0)")]
            )
        }
        let base = ScriptedTransport(challenges + [.init(status: .ok)])
        let transport = AuthenticatedTransport(base, tokens: manager, dpop: DPoPSigner(key: DPoPKey()))
        var attempts = 1
        do {
            _ = try await Self.send(transport, attempts: &attempts)
            Issue.record("the challenges were not refused")
        } catch {
            guard case .nonceRejected(let failure, let status) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(failure.code == .dpopNonceRejected)
            #expect(status == 401)
        }
        #expect(base.sent.count == 1 + DPoPNonceRetry.maximumRetries)
        #expect(attempts == 1 + DPoPNonceRetry.maximumRetries)
        #expect(refresher.calls.isEmpty)
    }

    @Test func aFourOhOneFromAnotherOriginGetsNoTokenAndRefreshesNothing() async throws {
        let (manager, refresher) = try await Self.session(type: "DPoP")
        var crossed = Self.invalidToken
        crossed.crossedOrigin = true
        let base = ScriptedTransport([crossed, .init(status: .ok)])
        let response = try await AuthenticatedTransport(base, tokens: manager, dpop: DPoPSigner(key: DPoPKey()))
            .send(Self.profile)
        #expect(response.response.status == .unauthorized)
        #expect(base.sent.count == 1)
        #expect(base.sent[0].authorization == nil)
        #expect(base.sent[0].proof == nil)
        #expect(refresher.calls.isEmpty)
    }

    @Test func aRequestThatWaitedCarriesTheTokenCurrentWhenItIsBound() async throws {
        let (manager, _) = try await Self.session()
        let base = ScriptedTransport([.init(status: .ok)])
        var attempts = 1
        _ = try await Self.send(AuthenticatedTransport(base, tokens: manager), attempts: &attempts) { head, _ in
            // Another request refreshed the token between the start and the connection.
            _ = try await manager.handleUnauthorized(sentToken: "access-1")
            return head
        }
        #expect(base.sent.map(\.authorization) == ["Bearer access-2"])
    }

    /// What happens to the session while a request of it waits for its connection.
    enum Change: String, CaseIterable, Sendable {
        case locked, signedOut, signedInAgain

        var code: TokenAuthError.Code {
            switch self {
            case .locked: .sessionLocked
            case .signedOut: .signedOut
            case .signedInAgain: .sessionChanged
            }
        }

        func apply(to manager: TokenManager) async {
            switch self {
            case .locked: await manager.lock()
            case .signedOut: await manager.signOut()
            case .signedInAgain:
                try? await manager.signIn(
                    TokenBundle(accessToken: "access-B", refreshToken: "refresh-B", expiresAt: Date() + 3600)
                )
            }
        }
    }

    /// The guarantee "a request is bound to the session generation it started in": a request
    /// that waited for its connection while its session was locked, ended or replaced binds
    /// nothing, is not written, and fails with a typed error, neither with the token it started
    /// with nor with the next session's.
    @Test(arguments: Change.allCases)
    func aRequestIsBoundToTheSessionGenerationItStartedIn(change: Change) async throws {
        let (manager, _) = try await Self.session()
        let base = ScriptedTransport([.init(status: .ok)])
        let waiting = WaitingTransport(base: base, meanwhile: { await change.apply(to: manager) })
        var attempts = 1
        do {
            _ = try await Self.send(AuthenticatedTransport(waiting, tokens: manager), attempts: &attempts)
            Issue.record("sent after the session was \(change)")
        } catch {
            guard case .authentication(let failure) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(failure.code == change.code)
        }
        #expect(base.sent.isEmpty, "\(base.sent.map(\.authorization))")

        // Through the public entry point: a transport error that names the code, not a token.
        let (other, _) = try await Self.session()
        let again = ScriptedTransport([.init(status: .ok)])
        let transport = AuthenticatedTransport(
            WaitingTransport(base: again, meanwhile: { await change.apply(to: other) }),
            tokens: other
        )
        let error = await #expect(throws: SecureHTTPError.self) { try await transport.send(Self.profile) }
        #expect(error?.code == .credentialUnavailable)
        #expect(error.map { "\($0)".contains("\(change.code)") } == true, "\(String(describing: error))")
        #expect(error.map { "\($0)".contains("access-") } == false)
        #expect(again.sent.isEmpty)
    }

    /// A 401 answered after another sign-in replaced the session: the retry is not sent with the
    /// new session's token (which the refresh-and-retry would otherwise pick up as "newer").
    @Test func aRetryAfterA401IsNotSentWithTheNextSessionsToken() async throws {
        let (manager, refresher) = try await Self.session()
        let base = ScriptedTransport([Self.invalidToken, .init(status: .ok)])
        let waiting = WaitingTransport(base: base, afterFirst: { await Change.signedInAgain.apply(to: manager) })
        var attempts = 1
        do {
            _ = try await Self.send(AuthenticatedTransport(waiting, tokens: manager), attempts: &attempts)
            Issue.record("the retry was sent")
        } catch {
            guard case .authentication(let failure) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(failure.code == .sessionChanged)
        }
        #expect(base.sent.map(\.authorization) == ["Bearer access-1"])
        #expect(refresher.calls.isEmpty)
        #expect(try await manager.validAccessToken() == "access-B")
    }

    // MARK: - Against the reference server

    /// A DPoP-bound session at the reference server, through the wrapper over `NIOHTTPTransport`:
    /// a signer without a nonce is challenged, answers once, and is served; nothing is refreshed.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aDPoPBoundSessionIsServedByTheReferenceServer() async throws {
        try await DPoPTests().withWorld({ $0.requiresDPoPNonce = true }) { world in
            let signer = DPoPSigner(key: DPoPKey())
            let tokens = try await world.signIn(signer)
            #expect(tokens.tokenType == "DPoP")
            let manager = TokenManager(store: InMemoryStore(), refresher: world.endpoint(signer))
            try await manager.signIn(TokenBundle(tokens, receivedAt: Date()))
            let challengesBefore = world.server.statistics.dpopNonceChallenges
            let fresh = DPoPSigner(key: signer.key)  // no nonce yet
            let transport = AuthenticatedTransport(world.transport, tokens: manager, dpop: fresh)
            let response = try await transport.send(HTTPRequest(method: .get, url: world.profileURL))
            #expect(response.response.status == .ok, "\(String(decoding: response.body, as: UTF8.self))")
            #expect(world.server.statistics.dpopNonceChallenges - challengesBefore <= 1)
            #expect(world.server.statistics.tokenEndpointCalls == 0)  // nothing refreshed
        }
    }
}
#endif
