#if Tools
import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing

/// `securenet policy check` on the Info.plists ATS accepts and this library once refused
/// (issue 39): a single pin, a CIDR exception domain, an OpenStep file, and a source file
/// written for Xcode's Info.plist preprocessor, read with `-D`.
@Suite("securenet policy check: every Info.plist ATS accepts")
struct PolicyCheckInfoPlistCommandTests {
    typealias TemporaryDirectory = CLI.TemporaryDirectory

    func run(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        try await CLI.run(
            try CLI.securenet(),
            arguments,
            subcommand: "policy check",
            environment: ["SECURENET_NOW": "2026-11-24T00:00:00Z"]
        )
    }

    static let pki = Fixtures.pki

    @Test func aSinglePinLoadsAndTheWarningSaysWhatATSAndSecureNetworkingDo() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            "Info.plist",
            Array(
                InfoPlistFixtures.xml(
                    InfoPlistFixtures.pinned(
                        InfoPlistFixtures.identities("NSPinnedCAIdentities", [Self.pki.root.pin])
                    )
                        + "\n\t\t<key>NSExceptionDomains</key>\n\t\t<dict><key>10.0.0.0/8</key><dict>"
                        + "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/></dict></dict>"
                ).utf8
            )
        )
        let result = try await run([file, "--host", "api.example.com"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.isEmpty)
        #expect(result.output.contains("api.example.com (enforce):\n    a CA certificate: \(Self.pki.root.pin)"))
        #expect(result.output.contains("pins: 1 pins from api.example.com (enforce)"))
        let lines = result.output.split(separator: "\n").map(String.init)
        let pinWarning = try #require(
            lines.first {
                $0.hasPrefix(
                    "  - NSAppTransportSecurity.NSPinnedDomains[\"api.example.com\"].NSPinnedCAIdentities: one identity, no backup pin."
                )
            }
        )
        #expect(
            pinWarning.contains("ATS: loads it and refuses every chain to api.example.com without a CA certificate")
        )
        #expect(pinWarning.contains("SecureNetworking: the same (the pin is enforced as ATS enforces it"))
        #expect(pinWarning.contains("add a backup pin"))
        #expect(
            lines.contains {
                $0.hasPrefix("  - NSAppTransportSecurity.NSExceptionDomains[\"10.0.0.0/8\"]: a CIDR range")
            }
        )
        #expect(result.output.contains("exception domains: none"))
    }

    @Test func twoPinsGiveNoBackupWarning() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            "Info.plist",
            Array(
                InfoPlistFixtures.xml(
                    InfoPlistFixtures.pinned(
                        InfoPlistFixtures.identities(
                            "NSPinnedCAIdentities",
                            [Self.pki.root.pin, Self.pki.intermediate.pin]
                        )
                    )
                ).utf8
            )
        )
        let result = try await run([file])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasSuffix("warnings: none\n"), "\(result.output)")
    }

    @Test func anOpenStepInfoPlistLoads() async throws {
        let directory = try TemporaryDirectory()
        let text = """
            {
                CFBundleName = "App";
                NSAppTransportSecurity = {
                    NSAllowsArbitraryLoads = YES;
                    NSExceptionDomains = { "legacy.example.com" = { NSExceptionAllowsInsecureHTTPLoads = YES; }; };
                };
            }
            """
        // Named without .plist: recognised by its text (`{ key =`), not read as JSON.
        let file = try directory.write("Info.txt", Array(text.utf8))
        let result = try await run([file])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasPrefix("format: Info.plist\n"))
        #expect(result.output.contains("EXCEPT: plain HTTP allowed to every host without an exception"))
        #expect(
            result.output.contains("legacy.example.com: TLS ≥ TLSv1.2, forward secrecy required, plain HTTP ALLOWED")
        )

        let broken = try directory.write(
            "Broken.plist",
            Array("{\n  NSAppTransportSecurity = {\n  };\n  X = (\n}".utf8)
        )
        let refused = try await run([broken])
        #expect(refused.status == 1)
        #expect(
            refused.error
                == "securenet: \(broken): $: malformed OpenStep property list: line 5: unexpected '}', expected a value\n"
        )
        // A JSON policy file that starts with `{ "key":` is still JSON.
        let json = try directory.write("policy", Array(#"{ "allowsArbitraryLoads": true }"#.utf8))
        let policy = try await run([json])
        #expect(policy.status == 0, "\(policy.error)")
        #expect(policy.output.hasPrefix("format: JSON policy file\n"))
    }

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
        \t\t<key>NSAllowsLocalNetworking</key>
        \t\t<true/>
        #endif
        \t</dict>
        </dict>
        </plist>
        """

    @Test func aPreprocessedInfoPlistIsRefusedWithItsLineAndReadWithD() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("Info.plist", Array(Self.preprocessed.utf8))
        let refused = try await run([file])
        #expect(refused.status == 1)
        #expect(refused.error.hasPrefix("securenet: \(file): $: line 6: '#ifdef DEBUG' is a preprocessor directive"))
        #expect(refused.error.contains("cpp -P -traditional"))
        #expect(refused.error.contains("securenet policy check -D NAME"))
        #expect(refused.output.isEmpty)

        let debug = try await run([file, "-D", "DEBUG"])
        #expect(debug.status == 0, "\(debug.error)")
        #expect(
            debug.output.contains("preprocessed (DEBUG=1):\n  line 6 #ifdef DEBUG: read\n  line 9 #else: skipped\n")
        )
        #expect(debug.output.contains("EXCEPT: plain HTTP allowed to every host without an exception"))
        #expect(!debug.output.contains("plain HTTP allowed to local hosts"))

        let release = try await run([file, "--preprocess", "--json"])
        #expect(release.status == 0, "\(release.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(release.output.utf8)) as? [String: Any])
        #expect(object["allowsArbitraryLoads"] as? Bool == false)
        #expect(object["allowsLocalNetworking"] as? Bool == true)
        let preprocessor = try #require(object["preprocessor"] as? [String: Any])
        #expect(preprocessor["definitions"] as? [String] == [])
        #expect(preprocessor["branches"] as? [String] == ["line 6 #ifdef DEBUG: skipped", "line 9 #else: read"])

        let badName = try await run([file, "-D", "1DEBUG"])
        #expect(badName.status == 64)
        #expect(badName.error.contains("-D 1DEBUG: not a name"))
        let json = try directory.write("policy.json", Array("{}".utf8))
        let notAPlist = try await run([json, "-D", "DEBUG"])
        #expect(notAPlist.status == 1)
        #expect(notAPlist.error.contains("-D and --preprocess apply to an Info.plist"))
    }

    /// Issue 51 item 11: `-D BETA` reads the branch `cpp -P -traditional -DBETA` keeps, for a
    /// directive past 80 characters and one with a comment before its end; a name defined as
    /// text is refused with its line, not read as 1.
    @Test func dReadsTheBranchCppReads() async throws {
        let directory = try TemporaryDirectory()
        for directive in [
            "#if defined(DEBUG) || defined(STAGING) || defined(QA) || defined(INTERNAL) || defined(BETA)",
            "#if 0 /* strict */ || defined(BETA)",
        ] {
            let text = Self.preprocessed.replacingOccurrences(of: "#ifdef DEBUG", with: directive)
            let file = try directory.write("Info.plist", Array(text.utf8))
            let beta = try await run([file, "-D", "BETA"])
            #expect(beta.status == 0, "\(beta.error)")
            #expect(
                beta.output.contains("EXCEPT: plain HTTP allowed to every host without an exception"),
                "\(directive)"
            )
            #expect(beta.output.contains("  line 6 \(directive): read\n"), "\(beta.output)")
            let release = try await run([file, "--preprocess"])
            #expect(release.status == 0, "\(release.error)")
            #expect(release.output.contains("plain HTTP allowed to local hosts"), "\(directive)")
        }
        let text = Self.preprocessed.replacingOccurrences(of: "#ifdef DEBUG", with: "#define MODE strict\n#if MODE")
        let file = try directory.write("Info.plist", Array(text.utf8))
        let refused = try await run([file, "--preprocess"])
        #expect(refused.status == 1)
        #expect(
            refused.error.contains("line 7: 'MODE' is defined as text ('strict'), not as an integer"),
            "\(refused.error)"
        )
    }
}
#endif
