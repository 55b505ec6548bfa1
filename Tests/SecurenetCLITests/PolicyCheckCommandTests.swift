#if Tools
import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing

/// `securenet policy check`: a JSON policy file or an Info.plist, as the built binary prints it.
@Suite("securenet policy check")
struct PolicyCheckCommandTests {
    typealias TemporaryDirectory = CLI.TemporaryDirectory

    func run(
        _ arguments: [String],
        now: String = "2026-11-24T00:00:00Z"
    ) async throws -> (status: Int32, output: String, error: String) {
        try await CLI.run(
            try CLI.securenet(),
            arguments,
            subcommand: "policy check",
            environment: ["SECURENET_NOW": now]
        )
    }

    static let pki = Fixtures.pki

    static var json: String {
        """
        {
          "allowsArbitraryLoads": true,
          "exceptionDomains": { "legacy.example.com": { "includesSubdomains": true, "minimumTLSVersion": "TLSv1.1", "requiresForwardSecrecy": false } },
          "pinnedDomains": { "**.api.example.com": { "caPins": ["\(pki.intermediate.pin)", "\(pki.root.pin)"], "expiration": "2026-12-01T00:00:00Z" } }
        }
        """
    }

    @Test func aPolicyFileIsPrintedWithItsWarnings() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("policy.json", Array(Self.json.utf8))
        let result = try await run([file, "--host", "www.legacy.example.com"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("format: JSON policy file"))
        #expect(
            result.output.contains("legacy.example.com and its subdomains: TLS ≥ TLSv1.1, forward secrecy NOT required")
        )
        #expect(result.output.contains("**.api.example.com (enforce, until 2026-12-01T00:00:00Z):"))
        #expect(result.output.contains("a CA certificate: \(Self.pki.intermediate.pin) \(Self.pki.root.pin)"))
        #expect(result.output.contains("exception: legacy.example.com (includes subdomains)"))
        // Arbitrary loads do not reach an exception domain.
        #expect(result.output.contains("plain http: refused (insecureScheme)"))
        #expect(
            result.output.contains("- allowsArbitraryLoads: plain HTTP is allowed to every host without an exception")
        )
        #expect(result.output.contains("- legacy.example.com: forward secrecy is not required"))
        #expect(result.output.contains("- **.api.example.com: pins expire in 7 days"))
        // A month earlier the pins are not about to expire.
        let earlier = try await run([file], now: "2026-10-01T00:00:00Z")
        #expect(!earlier.output.contains("pins expire"))
    }

    @Test func anInfoPlistIsReadWithItsWarningsAsJSON() async throws {
        let directory = try TemporaryDirectory()
        let ats = """
            \t\t<key>NSAllowsArbitraryLoads</key>
            \t\t<true/>
            \t\t<key>NSAllowsArbitraryLoadsInWebContent</key>
            \t\t<true/>
            \t\t<key>NSExceptionDomains</key>
            \t\t<dict>
            \t\t\t<key>bank.example</key>
            \t\t\t<dict>
            \t\t\t\t<key>NSRequiresCertificateTransparency</key>
            \t\t\t\t<true/>
            \t\t\t</dict>
            \t\t</dict>
            """
        let file = try directory.write(
            "Info.plist",
            Array(try InfoPlistFixtures.binary(InfoPlistFixtures.xml(ats)))
        )
        let result = try await run([file, "--json", "--host", "bank.example"])
        #expect(result.status == 0, "\(result.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["format"] as? String == "Info.plist")
        #expect(object["allowsArbitraryLoads"] as? Bool == false)  // ignored beside the web-content key
        let warnings = try #require(object["warnings"] as? [String])
        #expect(warnings.contains { $0.hasPrefix("NSAppTransportSecurity.NSAllowsArbitraryLoads: ignored") })
        #expect(
            warnings.contains {
                $0.hasPrefix("NSAppTransportSecurity.NSAllowsArbitraryLoadsInWebContent: not applicable")
            }
        )
        #expect(
            warnings.contains {
                $0.contains("bank.example: Certificate Transparency is required; the app must supply a CT log list")
            }
        )
        let host = try #require(object["host"] as? [String: Any])
        #expect(host["requiresCertificateTransparency"] as? Bool == true)
        #expect(host["exception"] as? String == "bank.example")
    }

    @Test func badInputIsAOneLineErrorWithExitStatus1() async throws {
        let directory = try TemporaryDirectory()
        let missing = try await run([directory.url.appendingPathComponent("nope.json").path])
        #expect(missing.status == 1)
        #expect(missing.error.split(separator: "\n").count == 1)
        #expect(missing.error.contains("cannot read"))

        // (A value of the wrong type is a warning, as ATS ignores it; a TLS version ATS has not is an error.)
        let badPlist = try directory.write(
            "Info.plist",
            Array(
                InfoPlistFixtures.xml(
                    "\t\t<key>NSExceptionDomains</key>\n\t\t<dict><key>a.example</key><dict>"
                        + "<key>NSExceptionMinimumTLSVersion</key><string>1.2</string></dict></dict>"
                ).utf8
            )
        )
        let refused = try await run([badPlist])
        #expect(refused.status == 1)
        #expect(
            refused.error.contains(
                "NSAppTransportSecurity.NSExceptionDomains[\"a.example\"].NSExceptionMinimumTLSVersion: '1.2' is not an ATS TLS version"
            )
        )
        #expect(refused.output.isEmpty)

        let badPin = try directory.write(
            "policy.json",
            Array(#"{"pinnedDomains": {"a.example": {"pins": ["sha256/short", "sha256/x"]}}}"#.utf8)
        )
        let pin = try await run([badPin])
        #expect(pin.status == 1)
        #expect(pin.error.contains("$.pinnedDomains[\"a.example\"].pins[0]"))

        let usage = try await run([])
        #expect(usage.status == 64)
    }

    /// `<array><!--</array>-->` repeated made `securenet policy check` die with SIGSEGV: the
    /// depth check counted the close tag inside the comment. It is a one-line error now, and a
    /// UTF-16 property list (which did not look like XML here) is read as a property list and
    /// refused as one.
    @Test func aDeeplyNestedOrUTF16PropertyListIsAOneLineError() async throws {
        let directory = try TemporaryDirectory()
        let deep = try directory.write(
            "Info.plist",
            Array(
                ("<?xml version=\"1.0\"?>\n<plist version=\"1.0\">"
                    + String(repeating: "<array><!--</array>-->", count: 100_000) + "</plist>").utf8
            )
        )
        let nested = try await run([deep])
        #expect(nested.status == 1)
        #expect(nested.error == "securenet: \(deep): $: arrays and dictionaries nested deeper than 64 levels\n")

        let utf16 = try directory.write(
            "Wide.plist",
            [0xFF, 0xFE] + Array(InfoPlistFixtures.xml(nil).data(using: .utf16LittleEndian)!)
        )
        let wide = try await run([utf16])
        #expect(wide.status == 1)
        #expect(wide.error.contains("$: not UTF-8"), "\(wide.error)")
    }
}
#endif
