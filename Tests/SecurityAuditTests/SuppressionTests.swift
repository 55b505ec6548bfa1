#if Tools
import Foundation
import SecurityAudit
import Testing

@Suite("Suppression comments")
struct SuppressionTests {
    @Test("a valid suppression on the same line moves the finding to `suppressed` with its reason")
    func valid() throws {
        let report = SecurityAuditor().audit(
            swiftSource: "let u = \"http://e.com\" // securenet:ignore SN005 test server without TLS\n"
        )
        #expect(report.findings.isEmpty)
        let finding = try #require(report.suppressed.first)
        #expect(finding.ruleID == "SN005")
        #expect(finding.suppression == Suppression(ruleIDs: ["SN005"], reason: "test server without TLS", line: 1))
    }

    @Test("several comma-separated IDs suppress several rules on the line")
    func severalIDs() {
        let source = """
            let apiKey = "http://e.com/Zx9Qw3Er7Ty1Ui5Op2As8Df4Gh6Jk0Lm" // securenet:ignore SN005, SN012 fixture data
            UserDefaults.standard.set(token, forKey: "token") // securenet:ignore SN005,SN006 demo app only
            """
        let report = SecurityAuditor().audit(swiftSource: source)
        #expect(report.findings.isEmpty)
        #expect(report.suppressed.map { "\($0.ruleID)@\($0.line)" } == ["SN005@1", "SN006@2"])
        #expect(report.suppressed.map { $0.suppression?.reason } == ["fixture data", "demo app only"])
    }

    @Test("a suppression without a reason suppresses nothing and is reported as SN000")
    func missingReason() {
        let report = SecurityAuditor().audit(swiftSource: "let u = \"http://e.com\" // securenet:ignore SN005\n")
        #expect(report.findings.map { "\($0.ruleID)@\($0.line):\($0.column)" } == ["SN005@1:9", "SN000@1:24"])
        #expect(report.findings.last?.severity == .low)
        #expect(report.findings.last?.message == "securenet:ignore comment has no reason, so it suppresses nothing")
        #expect(report.suppressed.isEmpty)
    }

    @Test("an unknown rule ID suppresses nothing and is reported as SN000")
    func unknownRule() {
        let report = SecurityAuditor().audit(
            swiftSource: "let u = \"http://e.com\" // securenet:ignore SN999 wrong id\n"
        )
        #expect(report.findings.map(\.ruleID) == ["SN005", "SN000"])
        #expect(report.findings.last?.message.contains("SN999") == true)
        let noID = SecurityAuditor().audit(swiftSource: "let x = 1 // securenet:ignore because\n")
        #expect(noID.findings.map(\.ruleID) == ["SN000"])
    }

    @Test("a suppression on another line, or for another rule, has no effect")
    func wrongLine() {
        let source = """
            // securenet:ignore SN005 the next line is fine
            let u = "http://e.com"
            let v = "http://f.com" // securenet:ignore SN012 not the rule that fires
            """
        let report = SecurityAuditor().audit(swiftSource: source)
        #expect(report.findings.map { "\($0.ruleID)@\($0.line)" } == ["SN005@2", "SN005@3"])
        #expect(report.suppressed.isEmpty)
    }

    @Test("the marker inside a string literal is not a comment")
    func markerInString() {
        let report = SecurityAuditor().audit(
            swiftSource: "let u = \"http://e.com\"; let s = \"// securenet:ignore SN005 nope\"\n"
        )
        #expect(report.findings.map(\.ruleID) == ["SN005"])
    }

    @Test("XML comments suppress in property lists; xcconfig uses // comments")
    func otherFormats() {
        let data = plist(
            """
            <key>NSAppTransportSecurity</key>
            <dict>
                <key>NSAllowsArbitraryLoads</key> <!-- securenet:ignore SN001 kiosk build, reviewed -->
                <true/>
            </dict>
            """
        )
        let report = SecurityAuditor().audit(propertyList: data)
        #expect(report.findings.isEmpty)
        #expect(report.suppressed.map { "\($0.ruleID)@\($0.line)" } == ["SN001@7"])
        let config = SecurityAuditor().audit(
            xcconfig: "A = http:/$()/a.com // securenet:ignore SN005 legacy\nB = http:/$()/b.com // securenet:ignore\n"
        )
        #expect(config.suppressed.map { "\($0.ruleID)@\($0.line)" } == ["SN005@1"])
        #expect(config.findings.map { "\($0.ruleID)@\($0.line)" } == ["SN005@2", "SN000@2"])
    }
}
#endif
