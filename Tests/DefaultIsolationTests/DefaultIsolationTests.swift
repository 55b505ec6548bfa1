import Foundation
import SecureNetworking
import SecureSession
import Testing

#if TestServers
import SecureNetworkingTesting
#endif

/// The README's examples, compiled here as an Xcode 26 app target compiles them (main-actor
/// isolation by default, isolated conformances inferred, nonisolated async functions on the
/// caller's actor), are the README's text, and run.
@Suite("Xcode 26 defaults: the README's examples")
struct DefaultIsolationTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let readme = folder.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
        "README.md"
    )

    static func normalised(_ text: some StringProtocol) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// The `index`-th Swift block after `heading` in the README.
    static func readmeBlock(under heading: String, index: Int) throws -> [String] {
        let readme = try String(contentsOf: Self.readme, encoding: .utf8)
        var cursor = try #require(readme.range(of: heading)).upperBound
        var block: [String] = []
        for _ in 0...index {
            let start = try #require(readme.range(of: "```swift\n", range: cursor..<readme.endIndex))
            let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
            block = Self.normalised(readme[start.upperBound..<end.lowerBound])
            cursor = end.upperBound
        }
        return block
    }

    @Test(arguments: [
        ("## Quick start", 0, "ReadmeQuickStart.swift"),
        ("### From a `@MainActor` view model", 0, "ReadmeViewModel.swift"),
        ("### Signing in in the browser", 0, "ReadmeBrowserSignIn.swift"),
        ("### Bearer or DPoP", 0, "ReadmeDPoP.swift"),
        ("### The layers underneath", 0, "ReadmeTransport.swift"),
        ("### The layers underneath", 1, "ReadmeEventLoopTasks.swift"),
        ("### The layers underneath", 2, "ReadmeServerTrust.swift"),
        ("### The layers underneath", 3, "ReadmeTransparency.swift"),
    ])
    func eachFileIsTheREADMEsExample(heading: String, index: Int, file: String) throws {
        let snippet = try Self.readmeBlock(under: heading, index: index)
        let source = Self.normalised(try String(contentsOf: Self.folder.appendingPathComponent(file), encoding: .utf8))
        #expect(snippet.count > 10)
        #expect(
            source.joined(separator: "\n").contains(snippet.joined(separator: "\n")),
            "the README's example under \(heading) (\(index)) and \(file) differ"
        )
    }

    #if TestServers
    /// A reference server with Ada, and the quick start's policy file trusting its CA and pinning it.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static func withServer(
        _ body: (ReferenceAuthServer, _ policyFile: URL, _ folder: URL) async throws -> Void
    ) async throws {
        let pki = try TestPKI(referenceTime: Date())
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "default-isolation-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(pki.root.pem.utf8).write(to: folder.appendingPathComponent("company-ca.pem"))
        let policyFile = folder.appendingPathComponent("policy.json")
        let pins = "[\"\(pki.intermediate.pin)\", \"\(pki.root.pin)\"]"
        try Data(
            #"{"trustAnchors": {"certificates": ["company-ca.pem"]}, "pinnedDomains": {"localhost": {"pins": \#(pins)}}}"#
                .utf8
        ).write(to: policyFile)
        let configuration = ReferenceAuthServer.Configuration(
            chain: try pki.validChain(),
            users: [.init(email: "ada@example.com", password: "pa55 w0rd", displayName: "Ada")]
        )
        try await withReferenceAuthServer(configuration) { server in
            try await body(server, policyFile, folder)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theQuickStartRunsOnTheMainActor() async throws {
        try await Self.withServer { server, policyFile, folder in
            let profile = try await loadProfile(
                api: server.baseURL,
                policyFile: policyFile.path,
                email: "ada@example.com",
                password: "pa55 w0rd",
                tokenFolder: folder.appendingPathComponent("tokens"),
                storeKey: folder.appendingPathComponent("store.key")
            )
            #expect(profile == Profile(email: "ada@example.com", displayName: "Ada"))
            #expect(server.calls(to: "/user/profile") == 1)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theViewModelSignsInAndShowsAUserMessage() async throws {
        try await Self.withServer { server, policyFile, _ in
            let configuration = SecureAPIClient.Configuration(
                baseURL: server.baseURL,
                policy: try TransportSecurityPolicy(contentsOfFile: policyFile.path),
                authentication: .oauth(client: .publicClient(id: "my-app"), store: InMemoryStore())
            )
            let model = ProfileViewModel(configuration: configuration)
            await model.signInAndLoad(email: "ada@example.com", password: "wrong")
            #expect(model.profile == nil)
            #expect(model.errorMessage == "The e-mail or password is wrong.")
            await model.signInAndLoad(email: "ada@example.com", password: "pa55 w0rd")
            #expect(model.profile?.displayName == "Ada")
            #expect(model.errorMessage == nil)
            #expect(!model.isLoading)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theSessionModelSignsInAndOut() async throws {
        try await Self.withServer { server, policyFile, folder in
            let (_, session) = try makeSession(
                baseURL: server.baseURL,
                policy: try TransportSecurityPolicy(contentsOfFile: policyFile.path),
                folder: folder.appendingPathComponent("session"),
                gate: ScriptedGate(approves: true)
            )
            await session.start()
            #expect(session.state == .signedOut(reason: .neverSignedIn, message: nil))
            await session.signIn(username: "ada@example.com", password: "pa55 w0rd")
            #expect(session.state == .signedIn(Profile(email: "ada@example.com", displayName: "Ada")))
            await session.signOut()
            #expect(session.state.isSignedIn == false)
        }
    }
    #endif
}
