#if Tools
import Foundation
import SecurityAudit
import Testing

@Suite("Property list, entitlement and xcconfig rules")
struct PropertyListRuleTests {
    private func findings(_ body: String, path: String = "Info.plist") -> [String] {
        SecurityAuditor().audit(propertyList: plist(body), path: path).findings
            .map { "\($0.ruleID)@\($0.line):\($0.severity)" }
    }

    @Test("SN001 arbitrary loads: high alone, medium when ignored by newer systems or scoped to web/media")
    func arbitraryLoads() {
        #expect(
            findings(
                """
                <key>NSAppTransportSecurity</key>
                <dict>
                    <key>NSAllowsArbitraryLoads</key>
                    <true/>
                </dict>
                """
            ) == ["SN001@7:high"]
        )
        #expect(
            findings(
                """
                <key>NSAppTransportSecurity</key>
                <dict>
                    <key>NSAllowsArbitraryLoadsInWebContent</key>
                    <true/>
                    <key>NSAllowsArbitraryLoadsForMedia</key>
                    <false/>
                    <key>NSAllowsLocalNetworking</key>
                    <true/>
                </dict>
                """
            ) == ["SN001@7:medium"]
        )
        #expect(
            findings(
                """
                <key>NSAppTransportSecurity</key>
                <dict>
                    <key>NSAllowsArbitraryLoads</key>
                    <true/>
                    <key>NSAllowsLocalNetworking</key>
                    <true/>
                </dict>
                """
            ) == ["SN001@7:medium"]
        )
        #expect(
            findings(
                """
                <key>NSAppTransportSecurity</key>
                <dict>
                    <key>NSAllowsArbitraryLoads</key>
                    <false/>
                </dict>
                <key>NSAllowsArbitraryLoads</key>
                <true/>
                """
            ) == []
        )
    }

    @Test("SN002–SN004 exception domains, scoped by NSIncludesSubdomains, local hosts exempt")
    func exceptionDomains() {
        let body = """
            <key>NSAppTransportSecurity</key>
            <dict>
                <key>NSExceptionDomains</key>
                <dict>
                    <key>wide.backend.com</key>
                    <dict>
                        <key>NSIncludesSubdomains</key>
                        <true/>
                        <key>NSTemporaryExceptionAllowsInsecureHTTPLoads</key>
                        <true/>
                        <key>NSTemporaryExceptionMinimumTLSVersion</key>
                        <string>TLSv1.1</string>
                        <key>NSTemporaryExceptionRequiresForwardSecrecy</key>
                        <false/>
                    </dict>
                    <key>narrow.backend.com</key>
                    <dict>
                        <key>NSExceptionMinimumTLSVersion</key>
                        <string>TLSv1.0</string>
                        <key>NSExceptionRequiresForwardSecrecy</key>
                        <true/>
                        <key>NSExceptionAllowsInsecureHTTPLoads</key>
                        <false/>
                    </dict>
                    <key>printer.local</key>
                    <dict>
                        <key>NSExceptionAllowsInsecureHTTPLoads</key>
                        <true/>
                    </dict>
                    <key>127.0.0.1</key>
                    <dict>
                        <key>NSExceptionAllowsInsecureHTTPLoads</key>
                        <true/>
                    </dict>
                </dict>
            </dict>
            """
        #expect(
            findings(body) == [
                "SN002@13:high", "SN003@15:high", "SN004@17:medium", "SN003@22:medium",
            ]
        )
    }

    @Test("SN005 http values in plists; the DOCTYPE and local hosts are not values")
    func cleartextValues() {
        #expect(
            findings(
                """
                <key>Endpoints</key>
                <array>
                    <string>http://api.backend.com</string>
                    <string>https://api.backend.com</string>
                    <string>http://localhost:3000</string>
                </array>
                """
            ) == ["SN005@7:medium"]
        )
    }

    @Test("SN014 NSPinnedDomains needs two identities in total")
    func pinnedDomains() {
        #expect(
            findings(
                """
                <key>NSAppTransportSecurity</key>
                <dict>
                    <key>NSPinnedDomains</key>
                    <dict>
                        <key>one.backend.com</key>
                        <dict>
                            <key>NSPinnedCAIdentities</key>
                            <array><dict><key>SPKI-SHA256-BASE64</key><string>a</string></dict></array>
                        </dict>
                        <key>two.backend.com</key>
                        <dict>
                            <key>NSPinnedCAIdentities</key>
                            <array><dict><key>SPKI-SHA256-BASE64</key><string>a</string></dict></array>
                            <key>NSPinnedLeafIdentities</key>
                            <array><dict><key>SPKI-SHA256-BASE64</key><string>b</string></dict></array>
                        </dict>
                        <key>none.backend.com</key>
                        <dict/>
                    </dict>
                </dict>
                """
            ) == ["SN014@9:medium", "SN014@21:medium"]
        )
    }

    @Test("SN015 get-task-allow true in entitlements; false is fine")
    func getTaskAllow() {
        #expect(findings("<key>get-task-allow</key>\n<true/>", path: "App.entitlements") == ["SN015@5:low"])
        #expect(
            findings("<key>com.apple.security.get-task-allow</key>\n<true/>", path: "App.entitlements")
                == ["SN015@5:low"]
        )
        #expect(findings("<key>get-task-allow</key>\n<false/>", path: "App.entitlements") == [])
    }

    @Test("binary property lists are audited and reported at line 1")
    func binaryPlist() throws {
        let object: [String: Any] = [
            "NSAppTransportSecurity": ["NSAllowsArbitraryLoads": true],
            "ServerURL": "http://www.backend.com",
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        let report = SecurityAuditor().audit(propertyList: data, path: "Info.plist")
        #expect(report.findings.map { "\($0.ruleID)@\($0.line):\($0.column)" } == ["SN001@1:1", "SN005@1:1"])
    }

    @Test("malformed property lists become unreadable entries")
    func malformedPlist() {
        let report = SecurityAuditor().audit(propertyList: Data("<plist><dict><key>A</key>".utf8), path: "Bad.plist")
        #expect(report.findings.isEmpty)
        #expect(report.unreadableFiles.map(\.path) == ["Bad.plist"])
        #expect(report.unreadableFiles.first?.reason.hasPrefix("malformed XML property list") == true)
        #expect(report.filesScanned == 1)
    }

    @Test("xcconfig: cleartext URLs and credential settings")
    func xcconfig() {
        let text = """
            API_URL = http:/$()/api.backend.com
            SECURE_URL = https:/$()/api.backend.com
            LOCAL_URL = http:/$()/localhost:8080
            STRIPE_SECRET_KEY = sk_live_4eC39HqLyjWDarjtT1zdp7dc
            SENTRY_AUTH_TOKEN[config=Release] = "a8F3kL9qZ2xV7mN4bR6tY1wE5uI0oP3s"
            API_KEY = $(API_KEY_FROM_ENVIRONMENT)
            PASSWORD_MIN_LENGTH = 12
            TOKEN_HEADER_NAME = Authorization
            OTHER_SWIFT_FLAGS = -DDEBUG
            """
        let report = SecurityAuditor().audit(xcconfig: text, path: "App.xcconfig")
        #expect(report.findings.map { "\($0.ruleID)@\($0.line)" } == ["SN005@1", "SN012@4", "SN012@5"])
    }

    /// Files saved with Windows line endings: CR LF is one `Character`, so lines are split at the
    /// LF byte, and the CR never reaches a rule.
    @Test("CR LF line endings: the same findings on the same lines, suppressions still apply")
    func crlfLineEndings() {
        let xcconfig =
            "A = 1\r\nAPI_URL = http:/$()/api.backend.com\r\nLOCAL_URL = http:/$()/localhost\r\n"
            + "PASSWORD_MIN_LENGTH = 12\r\nLEGACY = http:/$()/old.backend.com // securenet:ignore SN005 retired in 2.0\r\n"
        let config = SecurityAuditor().audit(xcconfig: xcconfig, path: "App.xcconfig")
        #expect(config.findings.map { "\($0.ruleID)@\($0.line)" } == ["SN005@2"])
        #expect(
            config.suppressed.map { "\($0.ruleID)@\($0.line):\($0.suppression?.reason ?? "")" } == [
                "SN005@5:retired in 2.0"
            ]
        )

        let swift =
            "import Foundation\r\nlet a = 1\r\nlet u = \"http://api.backend.com\" // securenet:ignore SN005 sandbox only\r\nlet v = \"http://b.backend.com\"\r\n"
        let source = SecurityAuditor().audit(swiftSource: swift, path: "T.swift")
        #expect(source.findings.map { "\($0.ruleID)@\($0.line)" } == ["SN005@4"])
        #expect(source.suppressed.map { "\($0.ruleID)@\($0.line)" } == ["SN005@3"])

        let plistText = String(
            decoding: plist(
                "<key>ServerURL</key>\n<string>http://www.backend.com</string> <!-- securenet:ignore SN005 staging server -->"
            ),
            as: UTF8.self
        )
        .replacingOccurrences(of: "\n", with: "\r\n")
        let list = SecurityAuditor().audit(propertyList: Data(plistText.utf8), path: "Info.plist")
        #expect(list.findings.isEmpty)
        #expect(list.suppressed.map { "\($0.ruleID)@\($0.line)" } == ["SN005@6"])
    }

    @Test("the same value at the same place is one finding; different values on one line are each one")
    func repeatedValuesOnOneLine() {
        let line =
            "<array><string>http://api.shop.com/</string><string>http://api.shop.com/</string>"
            + "<string>http://cdn.shop.com/</string><string>http://api.shop.com/</string></array>"
        let report = SecurityAuditor().audit(
            propertyList: Data(("<?xml version=\"1.0\"?><plist version=\"1.0\">" + line + "</plist>\n").utf8)
        )
        #expect(
            report.findings.map { "\($0.ruleID)@\($0.line): \($0.message)" } == [
                "SN005@1: cleartext URL to api.shop.com can be read and altered on the network",
                "SN005@1: cleartext URL to cdn.shop.com can be read and altered on the network",
            ]
        )
        // The same value on two lines is two findings.
        let twoLines = SecurityAuditor().audit(
            propertyList: plist(
                "<key>A</key><string>http://api.shop.com/</string>\n<key>B</key><string>http://api.shop.com/</string>"
            )
        )
        #expect(twoLines.findings.map(\.line) == [5, 6])
        // Binary: every value is on line 1, and a string CoreFoundation stores once but references
        // 1,000 times is one finding.
        let binary = try? PropertyListSerialization.data(
            fromPropertyList: ["Mirrors": Array(repeating: "http://api.shop.com/", count: 1000)],
            format: .binary,
            options: 0
        )
        let fromBinary = SecurityAuditor().audit(propertyList: binary ?? Data())
        #expect(fromBinary.findings.map(\.ruleID) == ["SN005"])
    }
}
#endif
