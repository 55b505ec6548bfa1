#if Tools
import Foundation
import SecurityAudit
import Testing

@Suite("Fixture app project")
struct FixtureProjectTests {
    /// Every finding the fixture must produce, in report order. Any extra or missing finding fails.
    static let expected: [Triple] = [
        Triple("SN005", "Config/Release.xcconfig", 5, .medium),
        Triple("SN012", "Config/Release.xcconfig", 8, .high),
        Triple("SN005", "Config/Release.xcconfig", 11, .medium),
        Triple("SN000", "Config/Release.xcconfig", 11, .low),
        Triple("SN004", "Config/transport-policy.json", 6, .low),
        Triple("SN014", "Config/transport-policy.json", 10, .medium),
        Triple("SN005", "SampleApp/Info.plist", 8, .medium),
        Triple("SN001", "SampleApp/Info.plist", 15, .high),
        Triple("SN002", "SampleApp/Info.plist", 23, .high),
        Triple("SN003", "SampleApp/Info.plist", 25, .high),
        Triple("SN002", "SampleApp/Info.plist", 30, .medium),
        Triple("SN004", "SampleApp/Info.plist", 32, .low),
        Triple("SN014", "SampleApp/Info.plist", 50, .medium),
        Triple("SN015", "SampleApp/SampleApp.entitlements", 9, .low),
        Triple("SN010", "Sources/Crypto/PasswordHashing.swift", 7, .high),
        Triple("SN010", "Sources/Crypto/PasswordHashing.swift", 15, .high),
        Triple("SN013", "Sources/Crypto/PasswordHashing.swift", 27, .high),
        Triple("SN005", "Sources/Networking/APIClient.swift", 5, .medium),
        Triple("SN012", "Sources/Networking/APIClient.swift", 10, .high),
        Triple("SN011", "Sources/Networking/APIClient.swift", 17, .medium),
        Triple("SN016", "Sources/Networking/APIClient.swift", 59, .medium),
        Triple("SN008", "Sources/Networking/PinningDelegate.swift", 15, .high),
        Triple("SN008", "Sources/Networking/PinningDelegate.swift", 37, .high),
        Triple("SN008", "Sources/Networking/TrustConfiguration.swift", 8, .high),
        Triple("SN008", "Sources/Networking/TrustConfiguration.swift", 11, .high),
        Triple("SN008", "Sources/Networking/TrustConfiguration.swift", 12, .high),
        Triple("SN014", "Sources/Networking/TrustConfiguration.swift", 20, .medium),
        Triple("SN008", "Sources/Networking/TrustConfiguration.swift", 33, .high),
        Triple("SN007", "Sources/Storage/AuthLogging.swift", 8, .high),
        Triple("SN007", "Sources/Storage/AuthLogging.swift", 10, .high),
        Triple("SN007", "Sources/Storage/AuthLogging.swift", 13, .high),
        Triple("SN006", "Sources/Storage/SessionStore.swift", 10, .high),
        Triple("SN006", "Sources/Storage/SessionStore.swift", 16, .high),
        Triple("SN009", "Sources/Storage/SessionStore.swift", 25, .high),
        Triple("SN006", "Sources/Storage/SessionStore.swift", 40, .high),
        Triple("SN012", "Sources/Storage/SessionStore.swift", 50, .high),
        Triple("SN000", "Sources/Storage/SessionStore.swift", 50, .low),
    ]

    @Test("finds exactly the planted mistakes, with per-scope severities")
    func exactFindings() throws {
        let report = try SecurityAuditor().audit(path: Fixtures.sampleApp.path)
        #expect(report.findings.map(Triple.init) == Self.expected)
        #expect(report.filesScanned == 12)
        #expect(report.unreadableFiles.isEmpty)
    }

    @Test("keeps suppressed findings with their reasons")
    func suppressedFindings() throws {
        let report = try SecurityAuditor().audit(path: Fixtures.sampleApp.path)
        #expect(
            report.suppressed.map(Triple.init) == [
                Triple("SN002", "SampleApp/Info.plist", 39, .medium),
                Triple("SN012", "Sources/Storage/SessionStore.swift", 49, .high),
            ]
        )
        #expect(
            report.suppressed.map { $0.suppression?.reason } == [
                "CDN serves only public, signed assets", "sandbox-only OAuth client",
            ]
        )
        #expect(report.suppressed.map { $0.suppression?.ruleIDs } == [["SN002"], ["SN012"]])
    }

    @Test("covers every rule at least once")
    func everyRuleFires() throws {
        let report = try SecurityAuditor().audit(path: Fixtures.sampleApp.path)
        let fired = Set(report.findings.map(\.ruleID))
        #expect(fired == Set(AuditRule.all.map(\.id)))
    }

    @Test("columns point at the offending expression")
    func columns() throws {
        let report = try SecurityAuditor().audit(path: Fixtures.sampleApp.path)
        let apiKey = try #require(
            report.findings.first {
                $0.ruleID == "SN012" && $0.path.hasSuffix("APIClient.swift")
            }
        )
        #expect(apiKey.column == 26)
        let ats = try #require(report.findings.first { $0.ruleID == "SN001" })
        #expect(ats.column == 3)
    }

    @Test("is deterministic across runs")
    func deterministic() throws {
        let first = try SecurityAuditor().audit(path: Fixtures.sampleApp.path)
        let second = try SecurityAuditor().audit(path: Fixtures.sampleApp.path)
        #expect(first == second)
        #expect(try first.json() == second.json())
    }
}
#endif
