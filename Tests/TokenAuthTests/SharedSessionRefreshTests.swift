#if TestServers
import Foundation
import HTTPTypes
import SecureHTTP
import SecureNetworkingTesting
import SecureStorage
import Testing

@testable import TokenAuth

/// Two token managers on two handles of one encrypted file store (as an app and its extension
/// have): the store's cross-process lock makes one refresh serve both, where two stores without
/// it spend the same refresh token twice and the server revokes the session.
@Suite("One refresh across handles of a shared store")
struct SharedSessionRefreshTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static let user = ReferenceAuthServer.User(
        email: "ada@example.com",
        password: "analytical engine",
        displayName: "Ada"
    )

    /// A folder with a key file, removed afterwards.
    struct Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("shared-session-\(UUID().uuidString)")

        func store() -> EncryptedFileStore {
            EncryptedFileStore(
                directory: self.url.appendingPathComponent("store"),
                keySource: .keyFile(at: self.url.appendingPathComponent("store.key"))
            )
        }

        func remove() { try? FileManager.default.removeItem(at: self.url) }
    }

    /// Signs in at a reference server without a reuse grace window, stores the session expired in
    /// both stores, and runs 25 concurrent `validAccessToken()` calls on a manager per store.
    func race(
        _ stores: (any SecureStore, any SecureStore)
    ) async throws -> (tokens: Set<String>, refreshes: Int, revoked: Int) {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return ([], 0, 0) }
        var configuration = ReferenceAuthServer.Configuration(chain: try Live.pki.validChain(), users: [Self.user])
        configuration.refreshTokenReuseGraceWindow = .zero
        return try await withReferenceAuthServer(configuration) { server in
            try await withNIOHTTPTransport(configuration: Live.configuration) { transport in
                let endpoint = OAuthTokenEndpoint(
                    url: server.baseURL.appendingPathComponent("oauth/token"),
                    transport: transport,
                    client: .publicClient(id: "ios-app")
                )
                let tokens = try await referenceSignIn(server, Self.user, through: transport)
                let expired = TokenBundle(
                    accessToken: tokens.accessToken,
                    refreshToken: tokens.refreshToken,
                    expiresAt: Date().addingTimeInterval(-1)
                )
                try await stores.0.set(expired, forKey: "SecureNetworking.tokens")
                try await stores.1.set(expired, forKey: "SecureNetworking.tokens")
                let managers = [
                    TokenManager(store: stores.0, refresher: endpoint),
                    TokenManager(store: stores.1, refresher: endpoint),
                ]
                let answers = await withTaskGroup(of: String?.self) { group in
                    for index in 0..<50 {
                        group.addTask { try? await managers[index % 2].validAccessToken() }
                    }
                    return await group.reduce(into: [String?]()) { $0.append($1) }
                }
                let statistics = server.statistics
                return (Set(answers.map { $0 ?? "failed" }), statistics.tokenEndpointCalls, statistics.revokedFamilies)
            }
        }
    }

    @Test func aSharedEncryptedStoreRefreshesOnce() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let (tokens, refreshes, revoked) = try await self.race((folder.store(), folder.store()))
        #expect(refreshes == 1)
        #expect(revoked == 0)
        #expect(tokens.count == 1 && !tokens.contains("failed"), "\(tokens)")
    }

    /// The control: two stores with no common lock refresh twice with one refresh token.
    @Test func withoutTheLockBothRefreshAndTheServerRevokes() async throws {
        let (tokens, refreshes, revoked) = try await self.race((InMemoryStore(), InMemoryStore()))
        #expect(refreshes == 2)
        #expect(revoked == 1)
        #expect(tokens.contains("failed"))
    }

    @Test func aLockHeldTooLongIsAClearErrorThatKeepsTheTokens() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let holder = folder.store()
        let store = folder.store()
        let bundle = TokenBundle(accessToken: "a", refreshToken: "r", expiresAt: Date().addingTimeInterval(-1))
        try await store.set(bundle, forKey: "SecureNetworking.tokens")
        let lock = try #require(try await holder.lockAcrossProcesses(timeout: .seconds(5)))
        let refresher = ScriptedRefresher([
            .succeed(TokenResponse(accessToken: "b", expiresIn: 300, refreshToken: "r2"))
        ])
        let manager = TokenManager(
            store: store,
            refresher: refresher,
            configuration: TokenManager.Configuration(crossProcessLockTimeout: .milliseconds(100))
        )
        do throws(TokenAuthError) {
            _ = try await manager.validAccessToken()
            Issue.record("refreshed while another handle held the lock")
        } catch {
            #expect(error.code == .storageFailure)
            #expect(error.storageError?.code == .lockTimeout)
            #expect(!error.isTerminal)
        }
        #expect(refresher.calls.isEmpty)
        #expect(try await store.value(TokenBundle.self, forKey: "SecureNetworking.tokens")?.refreshToken == "r")
        lock.release()
        #expect(try await manager.validAccessToken() == "b")
    }
}
#endif
