#if Tools
import Foundation
import SecurityAudit
import Testing

/// Property lists the audit once misread or under-read (issue 39): OpenStep files, source
/// Info.plists written for Xcode's preprocessor (findings say which branch they are in), and
/// credentials of a known format in string values.
@Suite("Property lists: OpenStep, preprocessor branches, credentials")
struct PropertyListCredentialTests {
    static func report(_ text: String, path: String = "Info.plist") -> AuditReport {
        SecurityAuditor().audit(propertyList: Data(text.utf8), path: path)
    }

    static func findings(_ text: String, path: String = "Info.plist") -> [String] {
        Self.report(text, path: path).findings.map { "\($0.ruleID)@\($0.line):\($0.severity)" }
    }

    // MARK: - OpenStep

    @Test func anOpenStepInfoPlistIsAudited() {
        let text = """
            {
                CFBundleName = "App";
                NSAppTransportSecurity = {
                    NSAllowsArbitraryLoads = YES;
                    NSExceptionDomains = {
                        "legacy.example.com" = {
                            NSIncludesSubdomains = YES;
                            NSExceptionAllowsInsecureHTTPLoads = true;
                        };
                    };
                };
            }
            """
        let report = Self.report(text)
        #expect(report.unreadableFiles.isEmpty, "\(report.unreadableFiles)")
        #expect(Self.findings(text) == ["SN001@4:high", "SN002@8:high"])
        #expect(
            report.findings.first?.message
                == "NSAllowsArbitraryLoads disables App Transport Security for every connection"
        )
        #expect(report.findings.first?.column == 9)
    }

    @Test func openStepNoAndOtherWordsAreNotTrue() {
        #expect(Self.findings("{ NSAppTransportSecurity = { NSAllowsArbitraryLoads = NO; }; }").isEmpty)
        #expect(Self.findings("{ NSAppTransportSecurity = { NSAllowsArbitraryLoads = maybe; }; }").isEmpty)
        // In XML a <string>YES</string> is no boolean: ATS ignores it, so does the audit.
        #expect(
            Self.findings(
                "<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict>\n<key>NSAppTransportSecurity</key>\n"
                    + "<dict><key>NSAllowsArbitraryLoads</key><string>YES</string></dict>\n</dict>\n</plist>"
            ).isEmpty
        )
    }

    /// A valid OpenStep file was reported as malformed XML; a malformed one names its line.
    @Test func aMalformedOpenStepFileIsUnreadableWithItsLine() {
        let report = Self.report("{\n  NSAppTransportSecurity = {\n    NSAllowsArbitraryLoads = YES\n  }\n  X = 1;\n}")
        #expect(report.findings.isEmpty)
        #expect(
            report.unreadableFiles.map(\.reason) == [
                "malformed OpenStep property list: line 5: expected ';' after the value of \"NSAppTransportSecurity\", found 'X'"
            ]
        )
    }

    @Test func anOpenStepSuppressionCommentSuppresses() {
        let text =
            "{\n  NSAppTransportSecurity = {\n    NSAllowsArbitraryLoads = YES; // securenet:ignore SN001 a test server only\n  };\n}"
        let report = Self.report(text)
        #expect(report.findings.isEmpty, "\(report.findings)")
        #expect(report.suppressed.map(\.ruleID) == ["SN001"])
    }

    // MARK: - Xcode's Info.plist preprocessor

    static let preprocessed = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
        \t<key>NSAppTransportSecurity</key>
        \t<dict>
        #ifdef DEBUG
        \t\t<key>NSAllowsArbitraryLoads</key>
        \t\t<true/>
        #else
        \t\t<key>NSExceptionDomains</key>
        \t\t<dict><key>cdn.example.com</key><dict><key>NSExceptionAllowsInsecureHTTPLoads</key><true/></dict></dict>
        #endif
        \t</dict>
        \t<key>Feed</key>
        \t<string>http://feeds.newsroom-cdn.com/rss</string>
        </dict>
        </plist>
        """

    @Test func findingsInsideAConditionalSaySo() {
        // The DEBUG branch is debug-only (compiled out of release builds): set aside unless asked for.
        #expect(Self.report(Self.preprocessed).testCodeFindings.map(\.line) == [7])
        let report = SecurityAuditor(includesTestCode: true).audit(
            propertyList: Data(Self.preprocessed.utf8),
            path: "Info.plist"
        )
        #expect(report.unreadableFiles.isEmpty, "\(report.unreadableFiles)")
        let byLine = Dictionary(uniqueKeysWithValues: report.findings.map { ($0.line, $0) })
        #expect(byLine.keys.sorted() == [7, 11, 15])
        #expect(byLine[7]?.condition == "#ifdef DEBUG")
        #expect(byLine[11]?.condition == "#else of #ifdef DEBUG")
        #expect(byLine[11]?.message.hasSuffix("allows cleartext HTTP to cdn.example.com") == true)
        // Outside every conditional: no branch.
        #expect(byLine[15]?.condition == nil)
        // The text report says where each finding is.
        let text = report.text().split(separator: "\n").map(String.init)
        #expect(
            text.contains {
                $0.hasPrefix("Info.plist:7:")
                    && $0.contains(
                        "disables App Transport Security for every connection (debug-only; inside #ifdef DEBUG)"
                    )
            },
            "\(text)"
        )
        #expect(
            text.contains {
                $0.hasPrefix("Info.plist:11:") && $0.contains("cdn.example.com (inside #else of #ifdef DEBUG) [SN002")
            }
        )
        #expect(text.contains { $0.hasPrefix("Info.plist:15:") && !$0.contains("inside") })
    }

    @Test func aPreprocessedInfoPlistWithCRLFLineEndingsIsReadTheSame() {
        // A file saved with Windows line endings: "\r\n" is one Character, so a split on "\n"
        // by Characters never split it and the directives went unseen (the file was unreadable).
        let crlf = Self.preprocessed.replacingOccurrences(of: "\n", with: "\r\n")
        let report = SecurityAuditor(includesTestCode: true).audit(propertyList: Data(crlf.utf8), path: "Info.plist")
        #expect(report.unreadableFiles.isEmpty, "\(report.unreadableFiles)")
        let byLine = Dictionary(uniqueKeysWithValues: report.findings.map { ($0.line, $0) })
        #expect(byLine.keys.sorted() == [7, 11, 15])
        #expect(byLine[7]?.condition == "#ifdef DEBUG")
        #expect(byLine[11]?.condition == "#else of #ifdef DEBUG")
        #expect(byLine[7]?.column == 3)
    }

    /// Branches that hold alternative halves of an element cannot be read at once: each
    /// configuration is read, and a finding both share is reported once.
    @Test func alternativeBranchesAreReadOneConfigurationAtATime() {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
            \t<key>NSAppTransportSecurity</key>
            #if defined(DEBUG) || defined(STAGING)
            \t<dict>
            \t\t<key>NSAllowsArbitraryLoads</key>
            \t\t<true/>
            #else
            \t<dict>
            \t\t<key>NSAllowsLocalNetworking</key>
            \t\t<true/>
            #endif
            \t</dict>
            \t<key>Feed</key>
            \t<string>http://feeds.newsroom-cdn.com/rss</string>
            </dict>
            </plist>
            """
        let report = Self.report(text)
        #expect(report.unreadableFiles.isEmpty, "\(report.unreadableFiles)")
        #expect(report.findings.map(\.line) == [7, 16])
        #expect(report.findings.map(\.condition) == ["#if defined(DEBUG) || defined(STAGING)", nil])
    }

    // MARK: - Credentials in values

    static func plist(_ entries: [(String, String)]) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n"
            + entries.map { "\t<key>\($0.0)</key>\n\t<string>\($0.1)</string>" }.joined(separator: "\n")
            + "\n</dict>\n</plist>"
    }

    // Written for these tests; shaped as the formats are, not real keys.
    static let googleKey = "AIza" + "SyD3x4mpl3K3yF0rT3st1ngOnly_abc-123"
    static let awsKey = "AKIA" + "IOSFODNN7EXAMPLE"
    static let pem = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB\n-----END EC PRIVATE KEY-----"

    @Test func credentialFormatsInValuesAreFindings() {
        #expect(Self.googleKey.count == 39)
        let text = Self.plist([("MapsKey", Self.googleKey), ("Uploads", Self.awsKey), ("SigningKey", Self.pem)])
        let report = Self.report(text)
        #expect(
            report.findings.map { "\($0.ruleID)@\($0.line):\($0.severity)" } == [
                "SN012@5:high", "SN012@7:high", "SN012@9:high",
            ]
        )
        #expect(
            report.findings.map(\.message) == [
                "Google API key in a property-list value under the key MapsKey: it ships in the app bundle, readable by anyone",
                "AWS access key ID in a property-list value under the key Uploads: it ships in the app bundle, readable by anyone",
                "PEM private key in a property-list value under the key SigningKey: it ships in the app bundle, readable by anyone",
            ]
        )
        // The value itself is never in the report.
        let encoded = String(decoding: (try? JSONEncoder().encode(report)) ?? Data(), as: UTF8.self)
        #expect(!encoded.contains(Self.googleKey) && !encoded.contains(Self.awsKey) && !encoded.contains("MHcCAQEEIB"))
        // OpenStep values too.
        #expect(Self.findings("{ Keys = ( \"\(Self.awsKey)\" ); }") == ["SN012@1:high"])
    }

    @Test func identifiersAndBuildSettingReferencesAreNotCredentials() {
        let text = Self.plist([
            ("GOOGLE_APP_ID", "1:123456789012:ios:0a1b2c3d4e5f6a7b"),
            ("CFBundleIdentifier", "com.example.MyApp.NotificationService"),
            ("API_KEY", "$(API_KEY)"),
            ("GCM_SENDER_ID", "123456789012"),
            ("AWSRegion", "AKIA-not-a-key"),
            ("Short", "AIzaTooShort"),
            ("PublicKey", "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----"),
        ])
        #expect(Self.findings(text).isEmpty)
    }

    /// Firebase's API key identifies the project (Google documents it as not secret) and must ship in
    /// the app: not a finding in GoogleService-Info.plist or its -Debug/-Release variants; the same
    /// key in any other property list is.
    @Test func aFirebaseAPIKeyIsNoFindingInGoogleServiceInfoOnly() {
        let text = Self.plist([("API_KEY", Self.googleKey), ("GOOGLE_APP_ID", "1:123456789012:ios:0a1b2c3d4e5f6a7b")])
        #expect(Self.report(text, path: "App/GoogleService-Info.plist").findings.isEmpty)
        #expect(Self.report(text, path: "App/Resources/GoogleService-Info-Release.plist").findings.isEmpty)
        #expect(Self.findings(text, path: "App/Config.plist") == ["SN012@5:high"])
    }

    /// Metadata keys (a theme's CreatorHomePage, an author's website) describe the file; an
    /// endpoint the app fetches does not become metadata by being in a plist.
    @Test func metadataURLsAreNotCleartextFindings() {
        let text = Self.plist([
            ("CreatorHomePage", "http://netnewswire.com/"), ("AuthorWebsite", "http://author.io"),
            ("ServerURL", "http://api.shop-backend.io/v1"),
        ])
        #expect(Self.findings(text, path: "Themes/Sepia.nnwtheme/Info.plist") == ["SN005@9:medium"])
    }
}
#endif
