#if Tools
import Foundation
import SecureNetworking
import SecureNetworkingDemo
import SecureNetworkingTesting
import Testing
import X509

@Suite("securenet demo and serve")
struct DemoTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Every demo step runs in order and behaves as it should")
    func demoSteps() async {
        let steps = await SecureNetworkingDemo().run()
        #expect(steps.map(\.0) == DemoStepID.allCases)
        for (id, step) in steps {
            #expect(step.passed, "\(id): \(step)")
            #expect(step.description.hasPrefix(step.passed ? "✓ " : "✗ "))
        }
        let details = Dictionary(uniqueKeysWithValues: steps.map { ($0.0, $0.1.detail) })
        #expect(details[.concurrentRefresh]?.contains("with 1 refresh of the token") == true)
        #expect(details[.mitmRejected]?.contains("pinMismatch") == true)
        #expect(details[.mutualTLS]?.contains("CN=demo-device") == true)
        #expect(details[.mutualTLSWithoutCertificate]?.contains("403 client_certificate_required") == true)
        #expect(details[.pinRotation]?.contains("→ pinMismatch") == true)
        #expect(details[.pinRotation]?.contains("signed update v2") == true)
        #expect(details[.forgedPinUpdateRefused]?.contains("unknownPinUpdateKey") == true)
        #expect(details[.forgedPinUpdateRefused]?.contains("pinUpdateRollback") == true)
        #expect(details[.sessionSignIn]?.contains("signedIn(Ada Lovelace)") == true)
        #expect(details[.sessionLocked]?.contains("sessionLocked, nothing sent") == true)
        #expect(details[.sessionUnlocked]?.contains("still locked, tokens kept") == true)
        #expect(
            details[.sessionEndedByServer]?.contains(
                "signedOut(sessionExpired), telling the user \"Your session has expired."
            )
                == true
        )
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("serve writes a CA, pins and a policy file that a pinned client can use, keys 0600")
    func developmentServer() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "securenet-serve-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let development = try await DevelopmentServer.start(directory: directory)
        do {
            let summary = development.summary
            var policy = try TransportSecurityPolicy(contentsOfFile: summary.policyFile.path)
            let ca = try CertificateFile(path: summary.caFile.path)
            policy.trustAnchors = .only(ca.entries.compactMap(\.certificate))
            #expect(policy.pinning.rules.count == 1)
            #expect(summary.pins.map(\.name) == ["leaf", "intermediate", "root"])

            let clientPEM = try String(contentsOf: summary.clientCertificateFile, encoding: .utf8)
            let keyPEM = try String(contentsOf: summary.clientKeyFile, encoding: .utf8)
            let keyMode =
                try FileManager.default.attributesOfItem(atPath: summary.clientKeyFile.path)[.posixPermissions] as? Int
            #expect(keyMode == 0o600)
            let directoryMode =
                try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int
            #expect(directoryMode == 0o700)

            let configuration = SecureAPIClient.Configuration(
                baseURL: summary.url,
                policy: policy,
                clientIdentity: .pem(certificateChain: clientPEM, privateKey: keyPEM),
                authentication: .oauth(client: .publicClient(id: "dev"), store: InMemoryStore())
            )
            try await withSecureAPIClient(configuration) { client in
                struct Login: Encodable, Sendable {
                    var email: String
                    var password: String
                }
                try await client.signIn(
                    .post(
                        "auth/login",
                        body: .json(Login(email: summary.email, password: summary.password)),
                        requiresAuthentication: false
                    )
                )
                let profile = try await client.send(Request<UserProfile>.get("user/profile"))
                #expect(profile.email == summary.email)
                struct WhoAmI: Decodable, Sendable { var subject: String }
                let whoami = try await client.send(Request<WhoAmI>.get("mtls/whoami", requiresAuthentication: false))
                #expect(whoami.subject.contains("CN=securenet-dev-client"))
            }
        } catch {
            await development.server.shutdown()
            throw error
        }
        await development.server.shutdown()
    }
}
#endif
