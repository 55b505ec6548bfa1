import Foundation
import SecureNetworkingInternal
import ServerTrust
import Testing

/// OpenStep ("old-style ASCII") property lists: the reader ServerTrust's Info.plist policy and
/// the audit share, value by value, and an Info.plist written in it.
@Suite("OpenStep property lists")
struct OpenStepPropertyListTests {
    static func parse(_ text: String) throws(OpenStepPropertyList.Failure) -> OpenStepPropertyList.Node {
        try OpenStepPropertyList.parse(Array(text.utf8), maximumDepth: 64)
    }

    static func failure(_ text: String) -> OpenStepPropertyList.Failure? {
        do {
            _ = try Self.parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func dictionariesArraysStringsDataAndComments() throws {
        let text = """
            // A comment
            {
                CFBundleName = "My App"; /* a block
                comment over two lines */
                Unquoted = com.example.app-1_2/x:y+z$;
                Escapes = "a\\n\\t\\"q\\" \\\\ \\U00e9 \\101 'single'";
                Single = 'it\\'s';
                Empty = "";
                List = ( one, "two", ( nested ), {} , );
                Bytes = <0fbd 7777 AB>;
                Last = YES
            }
            """
        let value = try #require(try Self.parse(text).foundationValue as? [String: Any])
        #expect(value["CFBundleName"] as? String == "My App")
        #expect(value["Unquoted"] as? String == "com.example.app-1_2/x:y+z$")
        #expect(value["Escapes"] as? String == "a\n\t\"q\" \\ \u{e9} A 'single'")
        #expect(value["Empty"] as? String == "")
        let list = try #require(value["List"] as? [Any])
        #expect(list.count == 4)
        #expect(list[0] as? String == "one")
        #expect((list[2] as? [Any])?.first as? String == "nested")
        #expect((list[3] as? [String: Any])?.isEmpty == true)
        #expect(value["Bytes"] as? Data == Data([0x0F, 0xBD, 0x77, 0x77, 0xAB]))
        #expect(value["Last"] as? String == "YES")
        #expect(value["Single"] as? String == "it's")
    }

    @Test func linesAreKeptForKeysAndValues() throws {
        let root = try Self.parse("{\n  a = 1;\n  b = {\n    c = (\n      x\n    );\n  };\n}")
        guard case .dictionary(let entries) = root.value else {
            Issue.record("not a dictionary")
            return
        }
        #expect(entries.map(\.key) == ["a", "b"])
        #expect(entries.map(\.keyLine) == [2, 3])
        guard case .dictionary(let inner) = entries[1].node.value, case .array(let items) = inner[0].node.value else {
            Issue.record("not nested")
            return
        }
        #expect(inner[0].keyLine == 4)
        #expect(items.first?.line == 5)
    }

    @Test(arguments: [
        ("{ a = 1 b = 2; }", 1, "expected ';' after the value of \"a\", found 'b'"),
        ("{\n  a = 1;\n  b : 2;\n}", 3, "expected '=' after the key \"b\", found ':'"),
        ("{\n  a = \"open;\n}", 2, "unterminated quoted string"),
        ("( a, b", 1, "unexpected end of file inside the array opened on line 1"),
        ("{ a = <0f0>; }", 1, "odd number of hex digits in <data>"),
        ("{ a = <zz>; }", 1, "unexpected 'z' in <data> (hex digits only)"),
        ("{\n/* never closed\n a = 1; }", 2, "unterminated /* comment"),
        ("{ a = 1; } trailing", 1, "unexpected 't' after the property list"),
        ("{ = 1; }", 1, "unexpected '=', expected a key or '}'"),
        ("( a b )", 1, "expected ',' or ')' in the array opened on line 1, found 'b'"),
    ])
    func malformedTextIsRefusedWithItsLine(text: String, line: Int, reason: String) {
        let failure = Self.failure(text)
        #expect(failure == OpenStepPropertyList.Failure(line: line, reason: reason), "\(text)")
    }

    @Test func nestingIsBounded() throws {
        #expect(throws: Never.self) {
            try Self.parse(String(repeating: "(", count: 64) + String(repeating: ")", count: 64))
        }
        let failure = Self.failure(String(repeating: "(", count: 100_000))
        #expect(failure?.reason == "arrays and dictionaries nested deeper than 64 levels")
        #expect(failure?.line == 1)
    }

    @Test func onlyTextThatStartsWithABraceOrParenthesisIsOpenStep() {
        #expect(OpenStepPropertyList.looksLikeOpenStep(Array("  \n{ a = b; }".utf8)))
        #expect(OpenStepPropertyList.looksLikeOpenStep([0xEF, 0xBB, 0xBF] + Array("(a)".utf8)))
        #expect(!OpenStepPropertyList.looksLikeOpenStep(Array("<?xml version=\"1.0\"?>".utf8)))
        #expect(!OpenStepPropertyList.looksLikeOpenStep(Array("bplist00".utf8)))
        #expect(!OpenStepPropertyList.looksLikeOpenStep(Array("#ifdef DEBUG\n{".utf8)))
        #expect(OpenStepPropertyList.looksLikeOpenStep(Array("// Info.plist\n/* a\n b */ {}".utf8)))
        #expect(!OpenStepPropertyList.looksLikeOpenStep(Array("/* never closed {".utf8)))
        #expect(!OpenStepPropertyList.looksLikeOpenStep(Array("// only a comment {".utf8)))
    }

    // MARK: - An Info.plist in OpenStep

    @Test func anOpenStepInfoPlistLoadsWithATSsMeaning() throws {
        let text = """
            {
                CFBundleName = "App";
                NSAppTransportSecurity = {
                    NSAllowsArbitraryLoads = YES;
                    NSExceptionDomains = {
                        "legacy.example.com" = {
                            NSIncludesSubdomains = true;
                            NSExceptionMinimumTLSVersion = "TLSv1.1";
                            NSExceptionRequiresForwardSecrecy = NO;
                            NSExceptionAllowsInsecureHTTPLoads = 0;
                        };
                    };
                };
            }
            """
        let read = try TransportSecurityPolicy.readInfoPlist(Data(text.utf8))
        #expect(read.warnings.isEmpty, "\(read.warnings)")
        #expect(read.policy.allowsArbitraryLoads)
        #expect(
            read.policy.exception(for: "www.legacy.example.com")
                == DomainException(includesSubdomains: true, minimumTLSVersion: .v1_1, requiresForwardSecrecy: false)
        )
        // The same policy as the XML a build writes.
        let xml = InfoPlistFixtures.xml(
            """
            \t\t<key>NSAllowsArbitraryLoads</key><true/>
            \t\t<key>NSExceptionDomains</key><dict><key>legacy.example.com</key><dict>
            \t\t<key>NSIncludesSubdomains</key><true/>
            \t\t<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.1</string>
            \t\t<key>NSExceptionRequiresForwardSecrecy</key><false/>
            \t\t</dict></dict>
            """
        )
        #expect(try TransportSecurityPolicy.readInfoPlist(Data(xml.utf8)).policy == read.policy)
    }

    /// Only OpenStep's strings stand for booleans: `YES` in an XML `<string>` is the wrong type
    /// (ATS ignores it), and a word that is no boolean is the wrong type in OpenStep too.
    @Test func yesAndNoAreBooleansInOpenStepOnly() throws {
        let openStep = try TransportSecurityPolicy.readInfoPlist(
            Data(
                "{ NSAppTransportSecurity = { NSAllowsLocalNetworking = YES; NSAllowsArbitraryLoads = maybe; }; }".utf8
            )
        )
        #expect(openStep.policy.allowsLocalNetworking)
        #expect(!openStep.policy.allowsArbitraryLoads)
        #expect(openStep.warnings.map(\.keyPath).contains("NSAppTransportSecurity.NSAllowsArbitraryLoads"))

        let xml = try TransportSecurityPolicy.readInfoPlist(
            Data(InfoPlistFixtures.xml("\t\t<key>NSAllowsLocalNetworking</key>\n\t\t<string>YES</string>").utf8)
        )
        #expect(!xml.policy.allowsLocalNetworking)
        #expect(
            xml.warnings.map(\.description) == [
                "NSAppTransportSecurity.NSAllowsLocalNetworking: expected a boolean (<true/> or <false/>), found a "
                    + "string ('YES'): ignored, as ATS ignores it"
            ]
        )
    }

    @Test func aMalformedOpenStepInfoPlistIsRefusedWithItsLine() {
        let error = #expect(throws: ServerTrustError.self) {
            try TransportSecurityPolicy.readInfoPlist(
                Data(
                    "{\n  NSAppTransportSecurity = {\n    NSAllowsArbitraryLoads = YES\n  }\n  CFBundleName = App;\n}"
                        .utf8
                )
            )
        }
        #expect(error?.code == .invalidPolicyFile)
        #expect(error?.keyPath == "$")
        #expect(
            error?.message
                == "$: malformed OpenStep property list: line 5: expected ';' after the value of \"NSAppTransportSecurity\", found 'C'"
        )
    }
}
