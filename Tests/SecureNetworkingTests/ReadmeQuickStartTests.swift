// swift-format-ignore-file
#if TestServers
// The README quotes this file's example verbatim (a test compares the two), so the file keeps the
// layout the README shows.
import Foundation
import SecureNetworking
import SecureNetworkingTesting
import Testing

/// The README's quick start, verbatim apart from the indentation (the test below checks that the
/// README still says exactly this).
struct ReadmeQuickStart {
    nonisolated struct Profile: Decodable, Equatable, Sendable {
        var email: String
        var displayName: String  // "display_name" in the JSON
    }

    nonisolated struct Login: Encodable, Sendable {
        var email: String
        var password: String
    }

    /// Signs in, then loads the profile over a pinned connection; the tokens live in an encrypted file
    /// whose key is kept apart from them.
    func loadProfile(api: URL, policyFile: String, email: String, password: String, tokenFolder: URL, storeKey: URL) async throws -> Profile {
        // ATS-style keys, pinnedDomains, and trustAnchors: the CA files the app trusts besides the system's.
        let policy = try TransportSecurityPolicy(contentsOfFile: policyFile)
        // The key never sits beside the data it protects: another volume or a secrets mount (or a
        // .passphrase the user types); on Apple platforms, a KeychainStore instead of a file store.
        let store = EncryptedFileStore(directory: tokenFolder, keySource: .keyFile(at: storeKey))
        let configuration = SecureAPIClient.Configuration(
            baseURL: api,
            policy: policy,
            authentication: .oauth(
                revocation: .path("oauth/revoke"),  // signOut() revokes the refresh token there
                client: .publicClient(id: "my-app"),
                store: store  // refreshes at POST /oauth/token
            )
        )
        return try await withSecureAPIClient(configuration) { client in
            try await client.signIn(.post("auth/login", body: .json(Login(email: email, password: password)), requiresAuthentication: false))
            // The token is attached, refreshed once when it expires, and a 401 is retried once.
            // signIn and send fail with APIError: .invalidCredentials, .signedOut, .unauthorized, .transportFailure (pins, trust, TLS), …;
            // the policy file's errors (above) are ServerTrustError: .unreadableFile, .invalidPolicyFile with its key path.
            // Its message says why, for you; error.userMessage is a sentence for users, never the server's text.
            return try await client.send(Request<Profile>.get("user/profile"))
        }
    }
}

@Suite("README: quick start")
struct ReadmeQuickStartTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md")

    static func normalised(_ text: some StringProtocol) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// Expects the first Swift block after `heading` in the README to appear, line for line
    /// (indentation and blank lines aside), in the test file at `filePath`.
    static func expectREADMEExample(under heading: String, in filePath: String, minimumLines: Int = 10) throws {
        let readme = try String(contentsOf: Self.readme, encoding: .utf8)
        let section = try #require(readme.range(of: heading))
        let start = try #require(readme.range(of: "```swift\n", range: section.upperBound..<readme.endIndex))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let snippet = Self.normalised(readme[start.upperBound..<end.lowerBound])
        let source = Self.normalised(try String(contentsOf: URL(fileURLWithPath: filePath), encoding: .utf8))
        #expect(snippet.count > minimumLines)
        #expect(
            source.joined(separator: "\n").contains(snippet.joined(separator: "\n")),
            "the README's example under \(heading) and \(URL(fileURLWithPath: filePath).lastPathComponent) differ"
        )
    }

    @Test func theREADMEShowsThisFilesQuickStart() throws {
        let readme = try String(contentsOf: Self.readme, encoding: .utf8)
        let section = try #require(readme.range(of: "## Quick start"))
        let start = try #require(readme.range(of: "```swift\n", range: section.upperBound..<readme.endIndex))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let snippet = Self.normalised(readme[start.upperBound..<end.lowerBound]).drop { $0.hasPrefix("import ") }
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let body = Self.normalised(source)
        #expect(snippet.count > 15)
        let joined = snippet.joined(separator: "\n")
        #expect(body.joined(separator: "\n").contains(joined), "README quick start and ReadmeQuickStart differ")
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theQuickStartSignsInAndLoadsTheProfileFromThePinnedServer() async throws {
        let pki = try TestPKI(referenceTime: Date())
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let policyFile = folder.appendingPathComponent("policy.json")
        // The company CA beside the policy file, named relative to it.
        try Data(pki.root.pem.utf8).write(to: folder.appendingPathComponent("company-ca.pem"))
        let pins = "[\"\(pki.intermediate.pin)\", \"\(pki.root.pin)\"]"
        try Data(#"{"trustAnchors": {"certificates": ["company-ca.pem"]}, "pinnedDomains": {"localhost": {"pins": \#(pins)}}}"#.utf8).write(to: policyFile)
        let configuration = ReferenceAuthServer.Configuration(
            chain: try pki.validChain(),
            users: [.init(email: "ada@example.com", password: "pa55 w0rd", displayName: "Ada")]
        )
        try await withReferenceAuthServer(configuration) { server in
            let quickStart = ReadmeQuickStart()
            let profile = try await quickStart.loadProfile(
                api: server.baseURL, policyFile: policyFile.path,
                email: "ada@example.com", password: "pa55 w0rd", tokenFolder: folder.appendingPathComponent("tokens"),
                storeKey: folder.appendingPathComponent("store.key")
            )
            // The key is where it was asked to be, and not in the token folder.
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("store.key").path))
            let tokenFiles = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("tokens").path)
            #expect(!tokenFiles.contains { $0.contains("key") }, "\(tokenFiles)")
            #expect(profile.email == "ada@example.com")
            #expect(profile.displayName == "Ada")
            #expect(server.statistics.loginCalls == 1)
            #expect(server.calls(to: "/user/profile") == 1)

            do {
                _ = try await quickStart.loadProfile(
                    api: server.baseURL, policyFile: policyFile.path,
                    email: "ada@example.com", password: "wrong", tokenFolder: folder.appendingPathComponent("tokens2"),
                    storeKey: folder.appendingPathComponent("store2.key")
                )
                Issue.record("signed in with a wrong password")
            } catch let error as APIError {
                #expect(error.code == .invalidCredentials)
                #expect(error.userMessage == "The e-mail or password is wrong.")
            }
        }
    }
}
#endif
