// swift-format-ignore-file
// The README quotes this file's example verbatim (a test compares the two), so the file keeps the
// layout the README shows.
import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing
import X509

// The README's example, verbatim (the test below checks the README still says exactly this).
/// Decides whether the chain a server presented (DER, leaf first) may be trusted for `url`.
func trustedChain(presented: [[UInt8]], url: URL, policyFile: String, companyRoot: Certificate) async throws -> [Certificate] {
    var policy = try TransportSecurityPolicy(contentsOfFile: policyFile)  // a bad file names the key and why
    policy.trustAnchors = .system(adding: [companyRoot])
    let requirements = try policy.requirements(for: url)  // plain http is refused here
    let decision = await ServerTrust().evaluate(presentedChain: presented, requirements: requirements)
    if let report = decision.pinReport { print("pin report for \(report.host): \(report.result)") }
    return try decision.validatedChain()  // or a ServerTrustError whose code says which step failed
}

@Suite("README")
struct ReadmeExampleTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md")

    @Test func theREADMEShowsThisFilesExample() throws {
        let readme = try String(contentsOf: Self.readme, encoding: .utf8)
        let marker = try #require(readme.range(of: "ServerTrust can also be used on its own"))
        let start = try #require(readme.range(of: "```swift\n", range: marker.upperBound..<readme.endIndex))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let snippet = readme[start.upperBound..<end.lowerBound]
        let body = snippet.split(separator: "\n", omittingEmptySubsequences: false).drop(while: { $0.hasPrefix("import") || $0.isEmpty })
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        #expect(source.contains(body.joined(separator: "\n")))
    }

    @Test func theREADMEPolicyFileLoads() throws {
        let readme = try String(contentsOf: Self.readme, encoding: .utf8)
        let start = try #require(readme.range(of: "```json\n"))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        // Its trustAnchors name a CA file beside the policy file.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readme-policy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pki = try TestPKI(referenceTime: Date())
        try Data(pki.root.pem.utf8).write(to: folder.appendingPathComponent("company-ca.pem"))
        let policy = try TransportSecurityPolicy(json: Data(readme[start.upperBound..<end.lowerBound].utf8), relativeTo: folder)
        #expect(policy.pinning.rule(for: "api.example.com")?.pins.pins.count == 2)
        #expect(policy.trustAnchors.includesSystemRoots)
        #expect(policy.trustAnchors.certificates == [pki.root.certificate])
    }

    @Test func theExampleTrustsTheRealServerAndRefusesTheProxy() async throws {
        // trustedChain validates at the real current time, so this PKI is minted around it.
        let live = try TestPKI(referenceTime: Date())
        let policyFile = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: policyFile) }
        let url = URL(string: "https://localhost:8443/v1/me")!
        try Data(#"{"pinnedDomains": {"localhost": {"pins": ["\#(live.root.pin)", "\#(live.intermediate.pin)"]}}}"#.utf8).write(to: policyFile)
        let chain = try await trustedChain(presented: live.validChain().derChain, url: url, policyFile: policyFile.path, companyRoot: live.root.certificate)
        #expect(chain.count == 3)

        await #expect {
            _ = try await trustedChain(presented: live.interceptionChain().derChain, url: url, policyFile: policyFile.path, companyRoot: live.interceptionCA.certificate)
        } throws: { ($0 as? ServerTrustError)?.code == .pinMismatch }
        await #expect {
            _ = try await trustedChain(presented: live.validChain().derChain, url: URL(string: "http://localhost/")!, policyFile: policyFile.path, companyRoot: live.root.certificate)
        } throws: { ($0 as? ServerTrustError)?.code == .insecureScheme }
    }
}
