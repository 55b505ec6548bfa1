#if Tools
import Foundation
import SecureNetworking
import SecureNetworkingDemo
import SecureNetworkingTesting
import Testing

@Suite("securenet serve: its policy file trusts its CA")
struct ServeTrustsItsCATests {
    struct Login: Encodable, Sendable {
        var email: String
        var password: String
    }

    struct Echo: Decodable, Sendable {
        var method: String
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static func withDevelopmentServer(_ body: (DevelopmentServer.Summary) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "securenet-serve-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let development = try await DevelopmentServer.start(directory: directory)
        do {
            try await body(development.summary)
        } catch {
            await development.server.shutdown()
            throw error
        }
        await development.server.shutdown()
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("The written policy file alone (contentsOfFile:) signs in over TLS on 127.0.0.1")
    func thePolicyFileAloneReachesTheServer() async throws {
        try await Self.withDevelopmentServer { summary in
            let text = try String(contentsOf: summary.policyFile, encoding: .utf8)
            #expect(text.contains(#""trustAnchors": { "system": true, "certificates": ["ca.pem"] }"#), "\(text)")

            // Nothing but the policy file: its relative "ca.pem" resolves against its folder.
            let policy = try TransportSecurityPolicy(contentsOfFile: summary.policyFile.path)
            let ca = try TrustAnchors.loadCertificates(pemFile: summary.caFile.path)
            #expect(policy.trustAnchors == .system(adding: ca))

            let configuration = SecureAPIClient.Configuration(
                baseURL: summary.url,
                policy: policy,
                authentication: .oauth(client: .publicClient(id: "dev"), store: InMemoryStore())
            )
            try await withSecureAPIClient(configuration) { client in
                try await client.signIn(
                    .post(
                        "auth/login",
                        body: .json(Login(email: summary.email, password: summary.password)),
                        requiresAuthentication: false
                    )
                )
                let profile = try await client.send(Request<UserProfile>.get("user/profile"))
                #expect(profile.email == summary.email)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Without its trustAnchors key the same server is an untrusted root, named in the error")
    func withoutTheKeyTheRootIsNamedAsUntrusted() async throws {
        try await Self.withDevelopmentServer { summary in
            var policy = try TransportSecurityPolicy(contentsOfFile: summary.policyFile.path)
            policy.trustAnchors = .system
            let configuration = SecureAPIClient.Configuration(baseURL: summary.url, policy: policy)
            try await withSecureAPIClient(configuration) { client in
                do {
                    let echo = try await client.send(Request<Echo>.get("echo/probe", requiresAuthentication: false))
                    Issue.record("expected a refusal, got \(echo)")
                } catch let error as APIError {
                    let trust = try #require(error.transportError?.serverTrustError, "\(error)")
                    #expect(error.transportError?.code == .serverTrustFailure)
                    #expect(trust.code == .untrustedRoot)
                    // The reason reaches the transport's and the client's messages.
                    for text in [trust.message, error.transportError?.explanation ?? "", error.message] {
                        #expect(text.contains("CN=SecureNetworking Test Root CA"), "\(text)")
                        #expect(text.contains("\"trustAnchors\" in the policy file"), "\(text)")
                    }
                } catch {
                    Issue.record("expected an APIError, got \(error)")
                }
            }
        }
    }
}
#endif
