#if TestServers
import Foundation
import HTTPTypes
import SecureHTTP
import SecureNetworkingTesting
import SecureStorage
import Testing

@testable import TokenAuth

/// The TokenManager core, with a scripted refresher and an in-memory store.
@Suite("TokenManager")
struct TokenManagerTests {
    let clock = TestClock()
    let store = InMemoryStore()

    func manager(
        _ refresher: ScriptedRefresher,
        _ configure: (inout TokenManager.Configuration) -> Void = { _ in }
    ) -> TokenManager {
        var configuration = TokenManager.Configuration()
        configure(&configuration)
        return TokenManager(
            store: self.store,
            refresher: refresher,
            configuration: configuration,
            now: self.clock.function
        )
    }

    @Test func aFreshTokenIsReturnedWithoutRefreshing() async throws {
        let refresher = ScriptedRefresher([])
        let manager = self.manager(refresher)
        try await manager.signIn(bundle(clock: self.clock))
        #expect(try await manager.validAccessToken() == "access-1")
        #expect(refresher.calls.isEmpty)
    }

    @Test func refreshHappensAheadOfExpiryOnTheTestClock() async throws {
        let refresher = ScriptedRefresher([.succeed(TokenResponse(accessToken: "access-2", expiresIn: 3600))])
        let manager = self.manager(refresher)
        try await manager.signIn(bundle(expiresIn: 3600, clock: self.clock))
        self.clock.advance(3600 - 301)  // more than 5 minutes left
        #expect(try await manager.validAccessToken() == "access-1")
        self.clock.advance(2)  // 4:59 left: inside the 5-minute leeway, still before expiry
        #expect(try await manager.validAccessToken() == "access-2")
        #expect(refresher.calls == ["refresh-1"])
        // Not rotated: the old refresh token is kept.
        #expect(try await manager.currentBundle()?.refreshToken == "refresh-1")
    }

    /// RFC 6749 §6: a refresh that asks for no scope is granted the session's scope, and §5.1
    /// lets the server leave an unchanged scope out of its answer; a scope it does send wins.
    @Test func aRefreshWithoutAScopeKeepsTheSessionsScope() async throws {
        let refresher = ScriptedRefresher([
            .succeed(TokenResponse(accessToken: "access-2", expiresIn: 3600)),
            .succeed(TokenResponse(accessToken: "access-3", expiresIn: 3600, scope: "read")),
        ])
        let manager = self.manager(refresher)
        var signedIn = bundle(clock: self.clock)
        signedIn.scope = "read write"
        try await manager.signIn(signedIn)
        self.clock.advance(3600)
        #expect(try await manager.validAccessToken() == "access-2")
        #expect(try await manager.currentBundle()?.scope == "read write")
        self.clock.advance(3600)
        #expect(try await manager.validAccessToken() == "access-3")
        #expect(try await manager.currentBundle()?.scope == "read")
    }

    @Test func shortLivedTokensRefreshAtAFractionOfTheirLifetime() async throws {
        let refresher = ScriptedRefresher([.succeed(TokenResponse(accessToken: "access-2", expiresIn: 60))])
        let manager = self.manager(refresher)
        try await manager.signIn(bundle(expiresIn: 60, clock: self.clock))
        self.clock.advance(44)  // 16 s left of 60: more than a quarter
        #expect(try await manager.validAccessToken() == "access-1")
        self.clock.advance(2)  // 14 s left: under a quarter of the lifetime
        #expect(try await manager.validAccessToken() == "access-2")
    }

    @Test func aRotatedRefreshTokenIsPersistedBeforeTheAccessTokenIsHandedOut() async throws {
        let refresher = ScriptedRefresher([
            .succeed(TokenResponse(accessToken: "access-2", expiresIn: 3600, refreshToken: "refresh-2"))
        ])
        let manager = self.manager(refresher)
        try await manager.signIn(bundle(expiresIn: 0, clock: self.clock))
        #expect(try await manager.validAccessToken() == "access-2")
        // A new process reading the same store finds the rotated token.
        let stored = try await self.store.value(TokenBundle.self, forKey: "SecureNetworking.tokens")
        #expect(stored?.refreshToken == "refresh-2")
        #expect(stored?.accessToken == "access-2")
    }

    @Test func aFailedSaveHandsNothingOutAndIsRetriedFirst() async throws {
        let failing = FlakyStore(failingWrites: 1)
        let refresher = ScriptedRefresher([
            .succeed(TokenResponse(accessToken: "access-2", expiresIn: 3600, refreshToken: "refresh-2"))
        ])
        let manager = TokenManager(store: failing, refresher: refresher, now: self.clock.function)
        try await failing.inner.set(bundle(expiresIn: 0, clock: self.clock), forKey: "SecureNetworking.tokens")
        await #expect(throws: TokenAuthError(.storageFailure, "")) { try await manager.validAccessToken() }
        // The store still holds a complete (old) bundle: a crash here leaves a usable state.
        #expect(
            try await failing.inner.value(TokenBundle.self, forKey: "SecureNetworking.tokens")?.refreshToken
                == "refresh-1"
        )
        // The next call saves the rotated bundle first, then hands it out; no second refresh.
        #expect(try await manager.validAccessToken() == "access-2")
        #expect(
            try await failing.inner.value(TokenBundle.self, forKey: "SecureNetworking.tokens")?.refreshToken
                == "refresh-2"
        )
        #expect(refresher.calls.count == 1)
    }

    @Test func concurrentCallersShareOneRefresh() async throws {
        let refresher = ScriptedRefresher(
            [.succeed(TokenResponse(accessToken: "access-2", expiresIn: 3600))],
            gated: true
        )
        let manager = self.manager(refresher)
        try await manager.signIn(bundle(expiresIn: 0, clock: self.clock))
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<200 { group.addTask { try await manager.validAccessToken() } }
            // Released only once all 200 callers wait on the one refresh.
            try await waitUntilJoined(manager, 200)
            await refresher.release?.open()
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens.count == 200 && Set(tokens) == ["access-2"])
        #expect(refresher.calls.count == 1)
    }

    @Test func unauthorizedWithAStaleTokenDoesNotRefreshAgain() async throws {
        let refresher = ScriptedRefresher([
            .succeed(TokenResponse(accessToken: "access-2", expiresIn: 3600)),
            .succeed(TokenResponse(accessToken: "access-3", expiresIn: 3600)),
        ])
        let manager = self.manager(refresher)
        try await manager.signIn(bundle(clock: self.clock))
        // The current token got 401: refresh.
        #expect(try await manager.handleUnauthorized(sentToken: "access-1") == "access-2")
        // A request that was sent with the old token gets 401 late: retry with the new one.
        #expect(try await manager.handleUnauthorized(sentToken: "access-1") == "access-2")
        #expect(refresher.calls.count == 1)
    }

    @Test func theRefreshLoopGuardTrips() async throws {
        let responses = (2...10).map {
            ScriptedRefresher.Step.succeed(TokenResponse(accessToken: "access-\($0)", expiresIn: 3600))
        }
        let refresher = ScriptedRefresher(responses)
        let manager = self.manager(refresher) {
            $0.maximumRefreshes = 3
            $0.refreshWindow = .seconds(60)
        }
        try await manager.signIn(bundle(clock: self.clock))
        var token = "access-1"
        for _ in 0..<3 { token = try await manager.handleUnauthorized(sentToken: token) }
        #expect(token == "access-4")
        await #expect(throws: TokenAuthError(.refreshLoop, "")) {
            try await manager.handleUnauthorized(sentToken: "access-4")
        }
        #expect(refresher.calls.count == 3)
        #expect(await manager.isSignedIn)  // a loop keeps the tokens
        self.clock.advance(61)
        #expect(try await manager.handleUnauthorized(sentToken: "access-4") == "access-5")
    }

    @Test func refreshesOfExpiredTokensDoNotTripTheLoopGuardButInstantlyExpiringOnesDo() async throws {
        // 2 s tokens refreshed as they expire: ten in a minute is their lifetime, not a loop.
        let shortLived = (2...12).map {
            ScriptedRefresher.Step.succeed(TokenResponse(accessToken: "access-\($0)", expiresIn: 2))
        }
        let manager = self.manager(ScriptedRefresher(shortLived)) { $0.maximumRefreshes = 3 }
        try await manager.signIn(bundle(expiresIn: 2, clock: self.clock))
        for number in 2...11 {
            self.clock.advance(2)
            #expect(try await manager.validAccessToken() == "access-\(number)")
        }
        // A server that issues tokens already expired would make every request refresh: that
        // is a loop, and the guard stops it.
        let instant = (2...10).map {
            ScriptedRefresher.Step.succeed(TokenResponse(accessToken: "access-\($0)", expiresIn: 0))
        }
        let looping = self.manager(ScriptedRefresher(instant)) { $0.maximumRefreshes = 3 }
        try await looping.signIn(bundle(expiresIn: 0, clock: self.clock))
        for _ in 0..<3 { _ = try await looping.validAccessToken() }
        await #expect(throws: TokenAuthError(.refreshLoop, "")) { try await looping.validAccessToken() }
    }

    @Test func aFurther401IsRetriedOnlyForATokenReplacedOrExpiredOnTheWay() async throws {
        let refresher = ScriptedRefresher([.succeed(TokenResponse(accessToken: "access-2", expiresIn: 100))])
        let manager = self.manager(refresher)
        try await manager.signIn(bundle(expiresIn: 100, clock: self.clock))
        // The current token, valid: the server refused it; no retry.
        #expect(try await manager.replacement(forRefused: "access-1") == nil)
        #expect(refresher.calls.count == 0)
        // The current token, expired on the way: refreshed, and retried with the new one.
        self.clock.advance(100)
        #expect(try await manager.replacement(forRefused: "access-1") == "access-2")
        #expect(refresher.calls.count == 1)
        // A token that has been replaced since: retried with the current one, no refresh.
        #expect(try await manager.replacement(forRefused: "access-1") == "access-2")
        #expect(refresher.calls.count == 1)
    }

    @Test func aTerminalFailureSignsOutOnceAndClearsTheStore() async throws {
        let refresher = ScriptedRefresher(
            [.fail(TokenAuthError(.invalidGrant, "refused", oauthError: "invalid_grant"))],
            gated: true
        )
        let manager = self.manager(refresher)
        let log = EventLog(manager)
        try await manager.signIn(bundle(expiresIn: 0, clock: self.clock))
        let results = try await withThrowingTaskGroup(of: TokenAuthError.Code?.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    do {
                        _ = try await manager.validAccessToken()
                        return nil
                    } catch { return (error as? TokenAuthError)?.code }
                }
            }
            // Every caller waits on the refresh before it fails, so every one sees its error.
            try await waitUntilJoined(manager, 50)
            await refresher.release?.open()
            return try await group.reduce(into: [TokenAuthError.Code?]()) { $0.append($1) }
        }
        #expect(results.count == 50 && results.allSatisfy { $0 == TokenAuthError.Code.invalidGrant })
        #expect(try await self.store.data(forKey: "SecureNetworking.tokens") == nil)
        await #expect(throws: TokenAuthError(.signedOut, "")) { try await manager.validAccessToken() }
        #expect(refresher.calls.count == 1)
        #expect(
            try await log.drain(manager, marker: bundle(access: "marker", clock: self.clock)) == [
                .signedIn, .signedOut(.refreshRejected),
            ]
        )
    }

    @Test func aTransientFailureKeepsTheTokens() async throws {
        let refresher = ScriptedRefresher([
            .fail(TokenAuthError(.serverError, "503")),
            .succeed(TokenResponse(accessToken: "access-2", expiresIn: 3600)),
        ])
        let manager = self.manager(refresher)
        try await manager.signIn(bundle(expiresIn: 0, clock: self.clock))
        await #expect(throws: TokenAuthError(.serverError, "")) { try await manager.validAccessToken() }
        #expect(
            try await self.store.value(TokenBundle.self, forKey: "SecureNetworking.tokens")?.accessToken == "access-1"
        )
        #expect(try await manager.validAccessToken() == "access-2")
    }

    @Test func noRefreshTokenEndsTheSessionAtExpiry() async throws {
        let manager = self.manager(ScriptedRefresher([]))
        let log = EventLog(manager)
        try await manager.signIn(bundle(refresh: nil, expiresIn: 10, clock: self.clock))
        self.clock.advance(11)
        await #expect(throws: TokenAuthError(.signedOut, "")) { try await manager.validAccessToken() }
        #expect(
            try await log.drain(manager, marker: bundle(access: "marker", clock: self.clock)) == [
                .signedIn, .signedOut(.noRefreshToken),
            ]
        )
    }

    @Test func inactivitySurvivesARelaunch() async throws {
        func launch() -> TokenManager { self.manager(ScriptedRefresher([])) { $0.inactivityTimeout = .seconds(900) } }
        let first = launch()
        try await first.signIn(bundle(expiresIn: 7200, clock: self.clock))
        self.clock.advance(120)
        #expect(try await first.validAccessToken() == "access-1")
        // The app quits; it is launched again 899 s after its last activity: still signed in.
        self.clock.advance(899)
        #expect(try await launch().validAccessToken() == "access-1")
        // It quits again, and comes back 901 s later: the session ended, before any token is handed out.
        self.clock.advance(901)
        let third = launch()
        await #expect(throws: TokenAuthError(.signedOut, "")) { try await third.validAccessToken() }
        #expect(try await self.store.data(forKey: "SecureNetworking.tokens") == nil)
        #expect(try await self.store.data(forKey: "SecureNetworking.tokens.lastActivity") == nil)
        // Near miss: without a timeout, nothing is kept and nothing ends.
        let plain = self.manager(ScriptedRefresher([]))
        try await plain.signIn(bundle(expiresIn: 7200, clock: self.clock))
        self.clock.advance(5000)
        #expect(try await self.manager(ScriptedRefresher([])).validAccessToken() == "access-1")
        #expect(try await self.store.data(forKey: "SecureNetworking.tokens.lastActivity") == nil)
    }

    @Test func inactivitySignsOutOnTheTestClock() async throws {
        let manager = self.manager(ScriptedRefresher([])) { $0.inactivityTimeout = .seconds(900) }
        let log = EventLog(manager)
        try await manager.signIn(bundle(expiresIn: 7200, clock: self.clock))
        self.clock.advance(899)
        #expect(try await manager.validAccessToken() == "access-1")  // activity resets the timer
        self.clock.advance(899)
        #expect(await manager.checkInactivity() == false)
        self.clock.advance(2)
        await #expect(throws: TokenAuthError(.signedOut, "")) { try await manager.validAccessToken() }
        #expect(try await self.store.data(forKey: "SecureNetworking.tokens") == nil)
        #expect(
            try await log.drain(manager, marker: bundle(access: "marker", clock: self.clock)) == [
                .signedIn, .signedOut(.inactivity),
            ]
        )
    }

    @Test func signingOutDuringARefreshDoesNotReviveTheSession() async throws {
        let refresher = ScriptedRefresher(
            [.succeed(TokenResponse(accessToken: "access-2", expiresIn: 3600))],
            gated: true
        )
        let manager = self.manager(refresher)
        try await manager.signIn(bundle(expiresIn: 0, clock: self.clock))
        let pending = Task { try await manager.validAccessToken() }
        // The refresh is under way (and held) when the user signs out; then it completes.
        await refresher.started.wait()
        await manager.signOut()
        await refresher.release?.open()
        let result = await pending.result
        #expect((try? result.get()) == nil)
        #expect(await manager.isSignedIn == false)
        #expect(try await self.store.data(forKey: "SecureNetworking.tokens") == nil)
    }

    @Test func descriptionsNeverShowTokens() {
        let value = bundle(access: "SECRET-A", refresh: "SECRET-R", clock: self.clock)
        #expect(!value.description.contains("SECRET"))
        #expect(!String(reflecting: value).contains("SECRET"))
        let response = TokenResponse(accessToken: "SECRET-A", expiresIn: 1, refreshToken: "SECRET-R")
        #expect(!response.description.contains("SECRET"))
        // dump(), debuggers and Mirror walk the stored properties unless told otherwise.
        let client = OAuthTokenEndpoint.ClientAuthentication.basic(id: "app", secret: "SECRET-CLIENT")
        let identity = ClientIdentity.pem(certificateChain: "cert", privateKey: "SECRET-KEY")
        let p12 = ClientIdentity.pkcs12([1, 2, 3], passphrase: "SECRET-PASS")
        // A code and its verifier are a grant; state and nonce bind the redirect to the request.
        let verifier = "SECRET-VERIFIER-" + String(repeating: "v", count: 40)
        let pkce = try! PKCE(verifier: verifier)
        let authorization = AuthorizationRequest(
            authorizationEndpoint: URL(string: "https://auth.example.com/authorize")!,
            clientID: "app",
            redirectURI: URL(string: "com.example.app:/callback")!,
            scopes: ["openid"],
            state: "SECRET-STATE",
            nonce: "SECRET-NONCE",
            pkce: pkce
        )
        let code = try! authorization.response(
            from: URL(string: "com.example.app:/callback?code=SECRET-CODE&state=SECRET-STATE")!
        )
        let passphrase = EncryptedFileStore.KeySource.passphrase("SECRET-PASSPHRASE")
        let endpoint = OAuthTokenEndpoint(
            url: URL(string: "https://auth.example.com/token")!,
            transport: NoTransport(),
            client: .post(id: "app", secret: "SECRET-CLIENT")
        )
        let subjects: [Any] = [
            value, response, client, identity, p12, pkce, authorization, code, endpoint,
        ]
        // The key source describes its kind and cost, not the passphrase, and says nothing of it.
        var source = ""
        dump(passphrase, to: &source)
        #expect(!source.contains("SECRET") && !String(reflecting: passphrase).contains("SECRET"), "\(source)")
        for subject in subjects {
            #expect(!String(describing: subject).contains("SECRET"), "\(subject)")
            #expect(!String(reflecting: subject).contains("SECRET"), "\(String(reflecting: subject))")
            var dumped = ""
            dump(subject, to: &dumped)
            #expect(!dumped.contains("SECRET"), "\(dumped)")
            #expect(dumped.contains("<redacted>") || dumped.contains("redacted"), "\(dumped)")
            let mirrored = Mirror(reflecting: subject).children.map { "\($0.label ?? ""): \($0.value)" }.joined()
            #expect(!mirrored.contains("SECRET"))
        }
        var dumped = ""
        dump(value, to: &dumped)
        #expect(dumped.contains("Bearer"))  // The token type is still shown.
    }

    @Test func aSessionInUseDumpsNoSecret() async throws {
        let lost = TokenAuthError(
            .transportFailure,
            "lost",
            transportError: SecureHTTPError(.connectionClosed, "closed before the answer")
        )
        let manager = self.manager(ScriptedRefresher([.fail(lost)]))
        try await manager.signIn(bundle(access: "SECRET-A", refresh: "SECRET-R", clock: self.clock))
        #expect(try await manager.validAccessToken() == "SECRET-A")
        // A refresh that got no answer: the manager remembers the refresh token it presented.
        self.clock.advance(3600)
        await #expect(throws: TokenAuthError(.transportFailure, "")) { try await manager.validAccessToken() }
        #expect(await manager.unansweredRefreshToken == "SECRET-R")
        let signer = DPoPSigner(key: DPoPKey())
        var head = HTTPResponse(status: .unauthorized)
        head.headerFields[DPoPSigner.nonceHeaderName] = "SECRET-NONCE"
        signer.noteNonce(in: head, from: URL(string: "https://api.example.com/")!)
        for subject in [manager, signer, self.store] as [Any] {
            var dumped = ""
            dump(subject, to: &dumped)
            #expect(!dumped.contains("SECRET"), "\(dumped)")
            #expect(!String(describing: subject).contains("SECRET"))
            #expect(!String(reflecting: subject).contains("SECRET"))
        }
        // An actor's stored properties are reflected unless it says otherwise (a crash reporter
        // walking `Mirror` included): the manager shows a fixed, redacted shape.
        var dumped = ""
        dump(manager, to: &dumped)
        #expect(dumped.contains("<redacted>") && dumped.contains("SecureNetworking.tokens"), "\(dumped)")
        let mirrored = Mirror(reflecting: manager).children.map { "\($0.label ?? ""): \($0.value)" }.joined()
        #expect(!mirrored.contains("SECRET"), "\(mirrored)")
    }
}

/// A transport that is never called (for values that only hold one).
struct NoTransport: HTTPTransport {
    func send(
        _ request: HTTPRequest,
        body: Data?,
        options: HTTPRequestOptions
    ) async throws(SecureHTTPError) -> HTTPTransportResponse {
        throw SecureHTTPError(.invalidRequest, "no transport in this test")
    }
}

/// A store whose first writes fail, over an in-memory store.
final class FlakyStore: SecureStore {
    let inner = InMemoryStore()
    private let failures: NIOLockedValueBoxInt

    init(failingWrites: Int) {
        self.failures = NIOLockedValueBoxInt(failingWrites)
    }

    func data(forKey key: String) async throws(SecureStoreError) -> Data? { try await self.inner.data(forKey: key) }

    func set(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        if self.failures.takeOne() { throw SecureStoreError(.ioFailure, "disk full") }
        try await self.inner.set(data, forKey: key)
    }

    func removeValue(forKey key: String) async throws(SecureStoreError) {
        try await self.inner.removeValue(forKey: key)
    }

    func contains(_ key: String) async throws(SecureStoreError) -> Bool { try await self.inner.contains(key) }
}

@Suite("TokenManager over an encrypted file store")
struct TokenManagerFileStoreTests {
    @Test func aRotatedBundleSurvivesARestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let keySource = EncryptedFileStore.KeySource.keyFile(at: directory.appendingPathComponent("key"))
        let clock = TestClock()
        let refresher = ScriptedRefresher([
            .succeed(TokenResponse(accessToken: "access-2", expiresIn: 3600, refreshToken: "refresh-2"))
        ])
        let first = TokenManager(
            store: EncryptedFileStore(directory: directory.appendingPathComponent("store"), keySource: keySource),
            refresher: refresher,
            now: clock.function
        )
        try await first.signIn(bundle(expiresIn: 0, clock: clock))
        #expect(try await first.validAccessToken() == "access-2")

        // A new process: new store instance, new manager, same files.
        let second = TokenManager(
            store: EncryptedFileStore(directory: directory.appendingPathComponent("store"), keySource: keySource),
            refresher: ScriptedRefresher([]),
            now: clock.function
        )
        let restored = try await second.currentBundle()
        #expect(restored?.refreshToken == "refresh-2")
        #expect(try await second.validAccessToken() == "access-2")
        let raw = try Data(contentsOf: directory.appendingPathComponent("store/store.sealed"))
        #expect(raw.range(of: Data("refresh-2".utf8)) == nil)
    }
}
#endif
