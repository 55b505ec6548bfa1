import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing

/// An app's Info.plist as the policy, with ATS's meaning, key by key; XML as Xcode writes the
/// source file and binary as the built app carries it.
@Suite("Info.plist policy")
struct InfoPlistPolicyTests {
    static let pki = Fixtures.pki

    /// An Info.plist as Xcode writes it, with `ats` as the body of NSAppTransportSecurity.
    static func xml(_ ats: String?) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>CFBundleDevelopmentRegion</key>
        \t<string>$(DEVELOPMENT_LANGUAGE)</string>
        \t<key>CFBundleExecutable</key>
        \t<string>$(EXECUTABLE_NAME)</string>
        \t<key>CFBundleIdentifier</key>
        \t<string>$(PRODUCT_BUNDLE_IDENTIFIER)</string>
        \t<key>CFBundleShortVersionString</key>
        \t<string>1.0</string>
        \(ats.map { "\t<key>NSAppTransportSecurity</key>\n\t<dict>\n\($0)\n\t</dict>" } ?? "")
        </dict>
        </plist>
        """
    }

    /// The same property list in the binary format of a built app.
    static func binary(_ xml: String) throws -> Data {
        let object = try PropertyListSerialization.propertyList(from: Data(xml.utf8), options: [], format: nil)
        return try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
    }

    /// Reads `ats` in both formats, checks they agree, and returns the XML reading.
    static func read(_ ats: String?) throws -> InfoPlistPolicy {
        let text = Self.xml(ats)
        let fromXML = try TransportSecurityPolicy.readInfoPlist(Data(text.utf8))
        let fromBinary = try TransportSecurityPolicy.readInfoPlist(try Self.binary(text))
        #expect(fromXML.policy == fromBinary.policy)
        #expect(fromXML.warnings == fromBinary.warnings)
        return fromXML
    }

    static func refusal(_ ats: String) -> ServerTrustError? {
        do {
            _ = try TransportSecurityPolicy(infoPlist: Data(Self.xml(ats).utf8))
            return nil
        } catch {
            return error
        }
    }

    func requirements(_ policy: TransportSecurityPolicy, _ url: String) -> ConnectionRequirements? {
        try? policy.requirements(for: URL(string: url)!)
    }

    // MARK: - Keys

    @Test func withoutNSAppTransportSecurityTheDefaultsHold() throws {
        let read = try Self.read(nil)
        #expect(read.policy == TransportSecurityPolicy())
        #expect(read.warnings.isEmpty)
    }

    @Test func arbitraryLoadsAllowPlainHTTPExceptToExceptionDomains() throws {
        let read = try Self.read(
            """
            \t\t<key>NSAllowsArbitraryLoads</key>
            \t\t<true/>
            \t\t<key>NSExceptionDomains</key>
            \t\t<dict>
            \t\t\t<key>bank.example</key>
            \t\t\t<dict>
            \t\t\t\t<key>NSIncludesSubdomains</key>
            \t\t\t\t<true/>
            \t\t\t</dict>
            \t\t</dict>
            """
        )
        #expect(read.policy.allowsArbitraryLoads)
        #expect(requirements(read.policy, "http://news.example/") != nil)
        // "Domains you specify in that dictionary aren't affected by this key's value."
        #expect(requirements(read.policy, "http://api.bank.example/") == nil)
        #expect(requirements(read.policy, "https://api.bank.example/") != nil)
        #expect(read.warnings.isEmpty)
    }

    @Test(arguments: [
        "NSAllowsLocalNetworking", "NSAllowsArbitraryLoadsInWebContent", "NSAllowsArbitraryLoadsForMedia",
    ])
    func arbitraryLoadsAreIgnoredBesideTheNewerKeys(key: String) throws {
        let read = try Self.read(
            """
            \t\t<key>NSAllowsArbitraryLoads</key>
            \t\t<true/>
            \t\t<key>\(key)</key>
            \t\t<true/>
            """
        )
        #expect(!read.policy.allowsArbitraryLoads)
        #expect(read.policy.allowsLocalNetworking == (key == "NSAllowsLocalNetworking"))
        #expect(
            read.warnings.contains {
                $0.keyPath == "NSAppTransportSecurity.NSAllowsArbitraryLoads" && $0.message.contains(key)
            }
        )
        if key != "NSAllowsLocalNetworking" {
            #expect(
                read.warnings.contains {
                    $0.keyPath == "NSAppTransportSecurity.\(key)" && $0.message.contains("not applicable")
                }
            )
        }
    }

    @Test func localNetworkingAllowsPlainHTTPToLocalHostsOnly() throws {
        let read = try Self.read("\t\t<key>NSAllowsLocalNetworking</key>\n\t\t<true/>")
        #expect(requirements(read.policy, "http://printer.local/") != nil)
        #expect(requirements(read.policy, "http://192.168.1.10/") != nil)
        #expect(requirements(read.policy, "http://example.com/") == nil)
    }

    struct ExceptionCase: Sendable, CustomTestStringConvertible {
        let key: String
        let value: String
        let expected: DomainException
        var testDescription: String { "\(self.key) = \(self.value)" }
    }

    static let exceptionCases: [ExceptionCase] = [
        .init(key: "NSIncludesSubdomains", value: "<true/>", expected: DomainException(includesSubdomains: true)),
        .init(
            key: "NSExceptionAllowsInsecureHTTPLoads",
            value: "<true/>",
            expected: DomainException(allowsInsecureHTTPLoads: true)
        ),
        .init(
            key: "NSExceptionMinimumTLSVersion",
            value: "<string>TLSv1.0</string>",
            expected: DomainException(minimumTLSVersion: .v1_0)
        ),
        .init(
            key: "NSExceptionMinimumTLSVersion",
            value: "<string>TLSv1.3</string>",
            expected: DomainException(minimumTLSVersion: .v1_3)
        ),
        .init(
            key: "NSExceptionRequiresForwardSecrecy",
            value: "<false/>",
            expected: DomainException(requiresForwardSecrecy: false)
        ),
        .init(
            key: "NSRequiresCertificateTransparency",
            value: "<true/>",
            expected: DomainException(requiresCertificateTransparency: true)
        ),
        .init(
            key: "NSThirdPartyExceptionAllowsInsecureHTTPLoads",
            value: "<true/>",
            expected: DomainException(allowsInsecureHTTPLoads: true)
        ),
        .init(
            key: "NSThirdPartyExceptionMinimumTLSVersion",
            value: "<string>TLSv1.1</string>",
            expected: DomainException(minimumTLSVersion: .v1_1)
        ),
        .init(
            key: "NSThirdPartyExceptionRequiresForwardSecrecy",
            value: "<false/>",
            expected: DomainException(requiresForwardSecrecy: false)
        ),
    ]

    @Test(arguments: exceptionCases)
    func eachExceptionKey(_ testCase: ExceptionCase) throws {
        let read = try Self.read(
            """
            \t\t<key>NSExceptionDomains</key>
            \t\t<dict>
            \t\t\t<key>legacy.example</key>
            \t\t\t<dict>
            \t\t\t\t<key>\(testCase.key)</key>
            \t\t\t\t\(testCase.value)
            \t\t\t</dict>
            \t\t</dict>
            """
        )
        #expect(read.policy.exception(for: "legacy.example") == testCase.expected)
        #expect(read.warnings.isEmpty)
    }

    @Test func theFirstPartyKeyWinsOverItsThirdPartyVariant() throws {
        let read = try Self.read(
            """
            \t\t<key>NSExceptionDomains</key>
            \t\t<dict>
            \t\t\t<key>legacy.example</key>
            \t\t\t<dict>
            \t\t\t\t<key>NSExceptionMinimumTLSVersion</key>
            \t\t\t\t<string>TLSv1.2</string>
            \t\t\t\t<key>NSThirdPartyExceptionMinimumTLSVersion</key>
            \t\t\t\t<string>TLSv1.0</string>
            \t\t\t</dict>
            \t\t</dict>
            """
        )
        #expect(read.policy.exception(for: "legacy.example")?.minimumTLSVersion == .v1_2)
    }

    static func pinned(_ body: String, domain: String = "api.example.com") -> String {
        """
        \t\t<key>NSPinnedDomains</key>
        \t\t<dict>
        \t\t\t<key>\(domain)</key>
        \t\t\t<dict>
        \(body)
        \t\t\t</dict>
        \t\t</dict>
        """
    }

    static func identities(_ key: String, _ pins: [Pin]) -> String {
        "\t\t\t\t<key>\(key)</key>\n\t\t\t\t<array>\n"
            + pins.map {
                "\t\t\t\t\t<dict>\n\t\t\t\t\t\t<key>SPKI-SHA256-BASE64</key>\n\t\t\t\t\t\t<string>\($0.base64)</string>\n\t\t\t\t\t</dict>"
            }
            .joined(separator: "\n") + "\n\t\t\t\t</array>"
    }

    @Test func pinnedDomainsGiveCAAndLeafPins() throws {
        let ca = [Self.pki.intermediate.pin, Self.pki.root.pin]
        let leaf = [Self.pki.untrustedRoot.pin, Self.pki.untrustedIntermediate.pin]
        let both = try Self.read(
            Self.pinned(
                Self.identities("NSPinnedCAIdentities", ca) + "\n" + Self.identities("NSPinnedLeafIdentities", leaf)
            )
        )
        let rule = try #require(both.policy.pinning.rule(for: "api.example.com"))
        #expect(rule.pattern.description == "api.example.com")
        #expect(rule.pins == (try PinSet(certificateAuthorityPins: ca, leafPins: leaf)))
        #expect(both.policy.pinning.rule(for: "www.api.example.com") == nil)

        let subdomains = try Self.read(
            Self.pinned(
                "\t\t\t\t<key>NSIncludesSubdomains</key>\n\t\t\t\t<true/>\n"
                    + Self.identities("NSPinnedCAIdentities", ca)
            )
        )
        #expect(subdomains.policy.pinning.rule(for: "www.api.example.com")?.pattern.description == "**.api.example.com")
        #expect(
            subdomains.policy.pinning.rule(for: "api.example.com")?.pins.groups.map(\.scope) == [.certificateAuthority]
        )
    }

    @Test func importedPinsHaveATSsMeaningInAnEvaluation() async throws {
        let chain = try Self.pki.validChain()
        let leafOnly = try Self.read(
            Self.pinned(
                Self.identities("NSPinnedLeafIdentities", [chain.pins[0], Self.pki.untrustedRoot.pin]),
                domain: "localhost"
            )
        )
        let rule = try #require(leafOnly.policy.pinning.rule(for: "localhost"))
        #expect(try await evaluate(chain, pins: rule.pins).failure == nil)
        #expect(try await evaluate(try Self.pki.validChain(), pins: rule.pins).failure?.code == .pinMismatch)
    }

    @Test func unknownKeysAreWarnings() throws {
        let read = try Self.read(
            """
            \t\t<key>NSAllowsArbitraryLoadsEverywhere</key>
            \t\t<true/>
            \t\t<key>NSExceptionDomains</key>
            \t\t<dict>
            \t\t\t<key>a.example</key>
            \t\t\t<dict>
            \t\t\t\t<key>NSTemporaryExceptionAllowsInsecureHTTPLoads</key>
            \t\t\t\t<true/>
            \t\t\t</dict>
            \t\t</dict>
            """
        )
        #expect(
            read.warnings.map(\.keyPath) == [
                "NSAppTransportSecurity.NSAllowsArbitraryLoadsEverywhere",
                "NSAppTransportSecurity.NSExceptionDomains[\"a.example\"].NSTemporaryExceptionAllowsInsecureHTTPLoads",
            ]
        )
        #expect(read.policy.exception(for: "a.example") == DomainException())
    }

    // MARK: - Errors

    static let refusals: [(String, String, String)] = [
        (
            "an integer for a boolean", "\t\t<key>NSAllowsArbitraryLoads</key>\n\t\t<integer>1</integer>",
            "NSAppTransportSecurity.NSAllowsArbitraryLoads"
        ),
        (
            "a string for a boolean", "\t\t<key>NSAllowsLocalNetworking</key>\n\t\t<string>YES</string>",
            "NSAppTransportSecurity.NSAllowsLocalNetworking"
        ),
        (
            "exceptions not a dictionary", "\t\t<key>NSExceptionDomains</key>\n\t\t<array/>",
            "NSAppTransportSecurity.NSExceptionDomains"
        ),
        (
            "a TLS version without ATS's spelling",
            "\t\t<key>NSExceptionDomains</key>\n\t\t<dict><key>a.example</key><dict><key>NSExceptionMinimumTLSVersion</key><string>1.2</string></dict></dict>",
            "NSAppTransportSecurity.NSExceptionDomains[\"a.example\"].NSExceptionMinimumTLSVersion"
        ),
        (
            "a wildcard domain",
            "\t\t<key>NSExceptionDomains</key>\n\t\t<dict><key>*.a.example</key><dict/></dict>",
            "NSAppTransportSecurity.NSExceptionDomains[\"*.a.example\"]"
        ),
        (
            "an empty identity list", Self.pinned("\t\t\t\t<key>NSPinnedCAIdentities</key>\n\t\t\t\t<array/>"),
            "NSAppTransportSecurity.NSPinnedDomains[\"api.example.com\"].NSPinnedCAIdentities"
        ),
        (
            "a pinned domain without identities",
            Self.pinned("\t\t\t\t<key>NSIncludesSubdomains</key>\n\t\t\t\t<true/>"),
            "NSAppTransportSecurity.NSPinnedDomains[\"api.example.com\"]"
        ),
        (
            "a bad SPKI digest",
            Self.pinned(
                "\t\t\t\t<key>NSPinnedLeafIdentities</key>\n\t\t\t\t<array><dict><key>SPKI-SHA256-BASE64</key><string>not base64</string></dict></array>"
            ),
            "NSAppTransportSecurity.NSPinnedDomains[\"api.example.com\"].NSPinnedLeafIdentities[0].SPKI-SHA256-BASE64"
        ),
        (
            "one CA identity (no backup)", Self.pinned(Self.identities("NSPinnedCAIdentities", [pki.root.pin])),
            "NSAppTransportSecurity.NSPinnedDomains[\"api.example.com\"]"
        ),
    ]

    @Test(arguments: 0..<Self.refusals.count)
    func wrongValuesAreErrorsWithTheirKeyPath(index: Int) {
        let (name, ats, keyPath) = Self.refusals[index]
        let error = Self.refusal(ats)
        #expect(error?.code == .invalidPolicyFile, "\(name)")
        #expect(error?.keyPath == keyPath, "\(name): \(String(describing: error))")
    }

    @Test func somethingThatIsNotAPropertyListIsRefused() {
        #expect(throws: ServerTrustError(.invalidPolicyFile, "")) {
            try TransportSecurityPolicy(infoPlist: Data("{\"a\": 1}".utf8))
        }
        #expect(throws: ServerTrustError(.unreadableFile, "")) {
            try TransportSecurityPolicy.readInfoPlist(contentsOfFile: "/nonexistent/Info.plist")
        }
    }

    // MARK: - The same policy as the JSON file

    @Test func anInfoPlistAndItsJSONEquivalentGiveEqualPolicies() throws {
        let pki = Self.pki
        let ats = """
            \t\t<key>NSAllowsLocalNetworking</key>
            \t\t<true/>
            \t\t<key>NSExceptionDomains</key>
            \t\t<dict>
            \t\t\t<key>legacy.example.com</key>
            \t\t\t<dict>
            \t\t\t\t<key>NSIncludesSubdomains</key>
            \t\t\t\t<true/>
            \t\t\t\t<key>NSExceptionMinimumTLSVersion</key>
            \t\t\t\t<string>TLSv1.1</string>
            \t\t\t\t<key>NSExceptionRequiresForwardSecrecy</key>
            \t\t\t\t<false/>
            \t\t\t\t<key>NSRequiresCertificateTransparency</key>
            \t\t\t\t<true/>
            \t\t\t</dict>
            \t\t\t<key>cdn.example.com</key>
            \t\t\t<dict>
            \t\t\t\t<key>NSExceptionAllowsInsecureHTTPLoads</key>
            \t\t\t\t<true/>
            \t\t\t</dict>
            \t\t</dict>
            \(Self.pinned("\t\t\t\t<key>NSIncludesSubdomains</key>\n\t\t\t\t<true/>\n" + Self.identities("NSPinnedCAIdentities", [pki.intermediate.pin, pki.root.pin]) + "\n" + Self.identities("NSPinnedLeafIdentities", [pki.untrustedRoot.pin, pki.untrustedIntermediate.pin])))
            """
        let json = """
            {
              "allowsLocalNetworking": true,
              "exceptionDomains": {
                "legacy.example.com": { "includesSubdomains": true, "minimumTLSVersion": "TLSv1.1", "requiresForwardSecrecy": false, "requiresCertificateTransparency": true },
                "cdn.example.com": { "allowsInsecureHTTPLoads": true }
              },
              "pinnedDomains": {
                "**.api.example.com": {
                  "caPins": ["\(pki.intermediate.pin)", "\(pki.root.pin)"],
                  "leafPins": ["\(pki.untrustedRoot.pin)", "\(pki.untrustedIntermediate.pin)"]
                }
              }
            }
            """
        let fromPlist = try Self.read(ats)
        let fromJSON = try TransportSecurityPolicy(json: Data(json.utf8))
        #expect(fromPlist.policy == fromJSON)
        #expect(fromPlist.warnings.isEmpty)
        // And the file on disk, in the binary format.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("Info-\(UUID().uuidString).plist")
        defer { try? FileManager.default.removeItem(at: file) }
        try Self.binary(Self.xml(ats)).write(to: file)
        #expect(try TransportSecurityPolicy.readInfoPlist(contentsOfFile: file.path).policy == fromJSON)
    }
}
