// swift-format-ignore-file
#if TestServers
// The README quotes this file's example verbatim (a test compares the two), so the file keeps the
// layout the README shows.
import Foundation
import SecureNetworking
import SecureNetworkingTesting
import Testing

/// The README's view-model example: `withSecureAPIClient` called from a `@MainActor` class,
/// writing the actor's state inside the closure (Swift 6 refused this before the helper took the
/// caller's isolation).
enum ReadmeViewModel {
    nonisolated struct Profile: Decodable, Equatable, Sendable {
        var email: String
        var displayName: String
    }

    nonisolated struct Login: Encodable, Sendable {
        var email: String
        var password: String
    }

@MainActor
final class ProfileViewModel {
    private(set) var profile: Profile?
    private(set) var errorMessage: String?
    private(set) var isLoading = false
    private let configuration: SecureAPIClient.Configuration

    init(configuration: SecureAPIClient.Configuration) {
        self.configuration = configuration
    }

    func signInAndLoad(email: String, password: String) async {
        isLoading = true
        defer { isLoading = false }
        do {
            // The closure runs on the main actor: it may read and write the view model directly.
            try await withSecureAPIClient(configuration) { client in
                try await client.signIn(.post("auth/login", body: .json(Login(email: email, password: password)), requiresAuthentication: false))
                profile = try await client.send(Request<Profile>.get("user/profile", timeout: .seconds(10)))
                errorMessage = nil
            }
        } catch let error as APIError {
            errorMessage = error.userMessage  // a sentence for people, never the server's text
        } catch {
            errorMessage = UserMessageCatalog().fallback
        }
    }
}
}

/// Runs `body`, a closure that is not `Sendable`, on the caller's actor: the second place Swift 6
/// refused `withSecureAPIClient` (called inside such a closure) before it took the caller's
/// isolation.
private func insideAnotherClosure<R>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> R
) async rethrows -> R {
    try await body()
}

@Suite("README: a @MainActor view model")
struct ReadmeViewModelTests {
    @Test func theREADMEShowsThisFilesViewModel() throws {
        try ReadmeQuickStartTests.expectREADMEExample(under: "### From a `@MainActor` view model", in: #filePath, minimumLines: 20)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func theViewModelSignsInAndShowsTheProfileOrASentence() async throws {
        try await withAPIFixture { fixture in
            let model = ReadmeViewModel.ProfileViewModel(configuration: try fixture.configuration())
            await model.signInAndLoad(email: APIFixture.email, password: APIFixture.password)
            #expect(model.profile?.displayName == "Ada")
            #expect(model.errorMessage == nil)
            #expect(model.isLoading == false)

            let refused = ReadmeViewModel.ProfileViewModel(configuration: try fixture.configuration())
            await refused.signInAndLoad(email: APIFixture.email, password: "wrong")
            #expect(refused.profile == nil)
            #expect(refused.errorMessage == "The e-mail or password is wrong.")
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func everyScopedHelperRunsOnTheCallersActorInsideAnotherClosure() async throws {
        var log: [String] = []  // main-actor state, neither Sendable nor sent
        try await withAPIFixture { fixture in
            try await insideAnotherClosure {
                try await withSecureAPIClient(try fixture.configuration()) { client in
                    MainActor.assertIsolated()
                    let echo = try await client.send(Request<Echo>.get("echo/a", requiresAuthentication: false))
                    log.append(echo.rawPath)
                }
                try await withNIOHTTPTransport(configuration: HTTPTransportConfiguration(policy: fixture.policy)) { transport in
                    MainActor.assertIsolated()
                    log.append("transport \(transport.statistics.connectionsOpened)")
                }
                try await withRefusingLoopbackPort { port in
                    MainActor.assertIsolated()
                    log.append("refusing \(port > 0)")
                }
                try await withLoopbackHTTPServer(nil) { server in
                    MainActor.assertIsolated()
                    log.append("loopback \(server.port > 0)")
                }
            }
        }
        #expect(log == ["/echo/a", "transport 0", "refusing true", "loopback true"])
    }
}
#endif
