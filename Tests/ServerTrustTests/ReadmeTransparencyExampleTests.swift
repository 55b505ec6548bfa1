// swift-format-ignore-file
// The README quotes this file's example verbatim (a test compares the two), so the file keeps the
// layout the README shows.
import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing

// The README's Certificate Transparency example, verbatim (checked below).
/// A policy that requires Certificate Transparency for the bank's hosts, checked against the
/// log list the app ships (refreshed at least every 70 days, or CT stops being enforced).
func transparentPolicy(logListFile: String, anchors: TrustAnchors) throws -> TransportSecurityPolicy {
    var policy = TransportSecurityPolicy(trustAnchors: anchors)
    policy.certificateTransparency = CertificateTransparencySettings(
        logList: try CertificateTransparencyLogList(contentsOfFile: logListFile),
        policy: .apple  // or .chrome
    )
    policy.setException(DomainException(includesSubdomains: true, requiresCertificateTransparency: true), for: "bank.example")
    return policy
}

@Suite("README: Certificate Transparency")
struct ReadmeTransparencyExampleTests {
    @Test func theREADMEShowsThisFilesExample() throws {
        let readme = try String(contentsOf: ReadmeExampleTests.readme, encoding: .utf8)
        let marker = try #require(readme.range(of: "ServerTrust's CT module, portable code"))
        let start = try #require(readme.range(of: "```swift\n", range: marker.upperBound..<readme.endIndex))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let body = readme[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .drop(while: { $0.hasPrefix("import") || $0.isEmpty })
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        #expect(source.contains(body.joined(separator: "\n")))
    }

    @Test func theExampleRequiresCTForTheBankOnly() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ct-list-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try TestPKI.logListJSON(CTFixtures.logs).write(to: file)
        let policy = try transparentPolicy(logListFile: file.path, anchors: Fixtures.pki.trustAnchors)
        #expect(try policy.requirements(for: URL(string: "https://api.bank.example/")!).certificateTransparency?.policy == .apple)
        #expect(try policy.requirements(for: URL(string: "https://example.com/")!).certificateTransparency == nil)

        // A leaf for api.bank.example with two operators' SCTs passes; one without is refused.
        var requirements = try policy.requirements(for: URL(string: "https://api.bank.example/")!)
        requirements.port = 443
        let good = try Fixtures.pki.leafWithSCTs(
            { var options = TestPKI.LeafOptions(); options.dnsNames = ["api.bank.example"]; options.ipAddresses = []; options.commonName = nil; return options }(),
            scts: [.init(CTFixtures.argon), .init(CTFixtures.oak)]
        ).chain
        let trusted = await ServerTrust().evaluate(presentedChain: good.derChain, requirements: requirements, now: Fixtures.now)
        #expect(trusted.failure == nil)
        let bare = try Fixtures.pki.leaf { $0.dnsNames = ["api.bank.example"]; $0.ipAddresses = []; $0.commonName = nil }
        let refused = await ServerTrust().evaluate(presentedChain: bare.derChain, requirements: requirements, now: Fixtures.now)
        #expect(refused.failure?.code == .ctNoSCTs)
    }
}
