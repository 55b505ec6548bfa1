import Foundation
import SecureNetworkingInternal
import SecureNetworkingTesting
import ServerTrust
import Testing

/// An app's Info.plist as the policy, with ATS's meaning, key by key; XML as Xcode writes the
/// source file and binary as the built app carries it.
@Suite("Info.plist policy")
struct InfoPlistPolicyTests {
    static let pki = Fixtures.pki

    /// Reads `ats` in both formats, checks they agree, and returns the XML reading.
    static func read(_ ats: String?) throws -> InfoPlistPolicy {
        let text = InfoPlistFixtures.xml(ats)
        let fromXML = try TransportSecurityPolicy.readInfoPlist(Data(text.utf8))
        let fromBinary = try TransportSecurityPolicy.readInfoPlist(try InfoPlistFixtures.binary(text))
        #expect(fromXML.policy == fromBinary.policy)
        #expect(fromXML.warnings == fromBinary.warnings)
        return fromXML
    }

    static func refusal(_ ats: String) -> ServerTrustError? {
        do {
            _ = try TransportSecurityPolicy(infoPlist: Data(InfoPlistFixtures.xml(ats).utf8))
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

    @Test func pinnedDomainsGiveCAAndLeafPins() throws {
        let ca = [Self.pki.intermediate.pin, Self.pki.root.pin]
        let leaf = [Self.pki.untrustedRoot.pin, Self.pki.untrustedIntermediate.pin]
        let both = try Self.read(
            InfoPlistFixtures.pinned(
                InfoPlistFixtures.identities("NSPinnedCAIdentities", ca) + "\n"
                    + InfoPlistFixtures.identities("NSPinnedLeafIdentities", leaf)
            )
        )
        let rule = try #require(both.policy.pinning.rule(for: "api.example.com"))
        #expect(rule.pattern.description == "api.example.com")
        #expect(rule.pins == (try PinSet(certificateAuthorityPins: ca, leafPins: leaf)))
        #expect(both.policy.pinning.rule(for: "www.api.example.com") == nil)

        let subdomains = try Self.read(
            InfoPlistFixtures.pinned(
                "\t\t\t\t<key>NSIncludesSubdomains</key>\n\t\t\t\t<true/>\n"
                    + InfoPlistFixtures.identities("NSPinnedCAIdentities", ca)
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
            InfoPlistFixtures.pinned(
                InfoPlistFixtures.identities("NSPinnedLeafIdentities", [chain.pins[0], Self.pki.untrustedRoot.pin]),
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

    /// Values of the right type that ATS has no meaning for. (A value of the wrong type, a
    /// domain key that names no host and a single pin load with a warning, as ATS loads them:
    /// InfoPlistLeniencyTests.)
    static let refusals: [(String, String, String)] = [
        (
            "a TLS version without ATS's spelling",
            "\t\t<key>NSExceptionDomains</key>\n\t\t<dict><key>a.example</key><dict><key>NSExceptionMinimumTLSVersion</key><string>1.2</string></dict></dict>",
            "NSAppTransportSecurity.NSExceptionDomains[\"a.example\"].NSExceptionMinimumTLSVersion"
        ),
        (
            "an empty identity list",
            InfoPlistFixtures.pinned("\t\t\t\t<key>NSPinnedCAIdentities</key>\n\t\t\t\t<array/>"),
            "NSAppTransportSecurity.NSPinnedDomains[\"api.example.com\"].NSPinnedCAIdentities"
        ),
        (
            "a pinned domain without identities",
            InfoPlistFixtures.pinned("\t\t\t\t<key>NSIncludesSubdomains</key>\n\t\t\t\t<true/>"),
            "NSAppTransportSecurity.NSPinnedDomains[\"api.example.com\"]"
        ),
        (
            "a bad SPKI digest",
            InfoPlistFixtures.pinned(
                "\t\t\t\t<key>NSPinnedLeafIdentities</key>\n\t\t\t\t<array><dict><key>SPKI-SHA256-BASE64</key><string>not base64</string></dict></array>"
            ),
            "NSAppTransportSecurity.NSPinnedDomains[\"api.example.com\"].NSPinnedLeafIdentities[0].SPKI-SHA256-BASE64"
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

    // MARK: - Nesting, bounded before any decoder runs

    /// The limit of 64 levels is checked in the markup the decoder reads: a close tag hidden in
    /// a comment, a CDATA section, a processing instruction or the DOCTYPE closes nothing, so
    /// 65 levels hidden that way are refused (the comment trick made `securenet policy check`
    /// die with SIGSEGV at 100,000 levels).
    @Test(arguments: [
        ("comment", "", "<array><!--</array>-->", 100_000),
        ("CDATA", "", "<array><string><![CDATA[</array>]]></string>", 65),
        ("processing instruction", "", "<array><?pi </array>?>", 65),
        ("DOCTYPE", "<!DOCTYPE plist </array </array </array >", "<array>", 65),
    ])
    func closeTagsInsideMarkupDoNotHideNesting(name: String, prolog: String, level: String, count: Int) {
        let document =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\(prolog)<plist version=\"1.0\">"
            + String(repeating: level, count: count) + "</plist>"
        let error = #expect(throws: ServerTrustError.self, "\(name)") {
            try TransportSecurityPolicy.readInfoPlist(Data(document.utf8))
        }
        #expect(error?.code == .invalidPolicyFile, "\(name)")
        #expect(error?.keyPath == "$", "\(name)")
        #expect(
            error?.message.contains("nested deeper than 64 levels") == true,
            "\(name): \(String(describing: error))"
        )
    }

    /// Markup that only looks like containers (in comments, CDATA, processing instructions)
    /// adds nothing: such an Info.plist reads.
    @Test func containersInsideCommentsAndCDATAAreNotCounted() throws {
        let noise = String(repeating: "<!-- <array> <dict> --><?pi <array>?>", count: 100)
        let ats = """
            \(noise)
            \t\t<key>NSAllowsLocalNetworking</key>
            \t\t<true/>
            \t\t<key>Note</key>
            \t\t<string><![CDATA[\(String(repeating: "<array>", count: 100))]]></string>
            """
        let read = try TransportSecurityPolicy.readInfoPlist(Data(InfoPlistFixtures.xml(ats).utf8))
        #expect(read.policy.allowsLocalNetworking)
        #expect(read.warnings.map(\.keyPath) == ["NSAppTransportSecurity.Note"])
    }

    /// A binary property list: a root dictionary holding `X`, nested `arrays` deep, each array
    /// holding the next one `width` times (1: a chain; 2: every level doubles the values).
    static func nestedBinary(arrays: Int, width: Int = 1) -> Data {
        // Objects: 0 the root dictionary, 1 the key "X", 2... the arrays; references are 4 bytes.
        var objects: [[UInt8]] = [[0xD1, 0, 0, 0, 1, 0, 0, 0, 2], [0x51, UInt8(ascii: "X")]]
        for index in 0..<arrays {
            let next = UInt32(index + 3)
            let reference = withUnsafeBytes(of: next.bigEndian, Array.init)
            objects.append(
                index == arrays - 1
                    ? [0xA0] : [0xA0 | UInt8(width)] + Array(repeating: reference, count: width).flatMap { $0 }
            )
        }
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt32] = []
        for object in objects {
            offsets.append(UInt32(bytes.count))
            bytes += object
        }
        let table = bytes.count
        for offset in offsets { bytes += withUnsafeBytes(of: offset.bigEndian, Array.init) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 4]
        for field in [UInt64(objects.count), 0, UInt64(table)] {
            bytes += withUnsafeBytes(of: field.bigEndian, Array.init)
        }
        return Data(bytes)
    }

    /// A binary property list is bounded too, from its object table: 64 levels read, 65 do not
    /// (CoreFoundation reads them, and its reader recurses once per level).
    @Test func binaryPropertyListsAreBoundedToo() throws {
        // The root dictionary is one level.
        #expect(throws: Never.self) { try TransportSecurityPolicy.readInfoPlist(Self.nestedBinary(arrays: 63)) }
        for arrays in [64, 100_000] {
            let error = #expect(throws: ServerTrustError.self) {
                try TransportSecurityPolicy.readInfoPlist(Self.nestedBinary(arrays: arrays))
            }
            #expect(error?.message == "$: arrays and dictionaries nested deeper than 64 levels", "\(arrays)")
        }
    }

    /// Shared objects are counted where they are referenced: 22 levels of two references to
    /// the next level expand to four million values (the decoder copies each; 24 levels took
    /// 18 s and 2 GB), and are refused before decoding.
    @Test func aBinaryPropertyListThatExpandsToMillionsOfValuesIsRefused() {
        let file = Self.nestedBinary(arrays: 22, width: 2)
        let error = #expect(throws: ServerTrustError.self) {
            try TransportSecurityPolicy.readInfoPlist(file)
        }
        #expect(error?.message == "$: binary property list expands to more values than its \(file.count) bytes")
    }

    /// A set is in the binary format but is no property-list type; CoreFoundation's reader makes
    /// one, and Swift's dynamic cast of it crashed on Linux. Refused before decoding.
    @Test func aBinaryPropertyListHoldingASetIsRefused() {
        for marker: UInt8 in [0xB1, 0xC1] {
            // Object 0: a set (or ordered set) of object 1, the string "X".
            var bytes = Array("bplist00".utf8) + [marker, 0x01, 0x51, UInt8(ascii: "X"), 8, 10]
            bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 2] + [0, 0, 0, 0, 0, 0, 0, 0]
            bytes += [0, 0, 0, 0, 0, 0, 0, 12]
            let error = #expect(throws: ServerTrustError.self) {
                try TransportSecurityPolicy.readInfoPlist(Data(bytes))
            }
            #expect(error?.message == "$: binary property list holds a set, which is not a property-list type")
        }
    }

    /// The bound is one value per byte of the file: a file whose arrays and dictionaries are
    /// not shared (what CoreFoundation writes) always fits it, whatever its size, and shared
    /// arrays that multiply past it are refused however few values they make.
    @Test func sharedArraysMayNotExpandPastTheFilesSize() throws {
        // Nine levels of two references to the next: 2^9 empty arrays from 84 bytes of objects.
        let shared = Self.nestedBinary(arrays: 10, width: 2)
        #expect(shared.count < 1 << 9)
        let error = #expect(throws: ServerTrustError.self) { try TransportSecurityPolicy.readInfoPlist(shared) }
        #expect(error?.message == "$: binary property list expands to more values than its \(shared.count) bytes")
        // The same values unshared fit: 100,000 references to one string (CoreFoundation shares
        // equal strings) in a dictionary of ATS settings.
        let settings: [String: Any] = [
            "NSAppTransportSecurity": ["NSAllowsArbitraryLoads": false],
            "Padding": Array(repeating: "same", count: 100_000),
        ]
        let flat = try PropertyListSerialization.data(fromPropertyList: settings, format: .binary, options: 0)
        #expect(throws: Never.self) { try TransportSecurityPolicy.readInfoPlist(flat) }
    }

    /// Formats the decoder would convert or parse out of sight of the depth check are refused:
    /// UTF-16 (converted to UTF-8 first), an encoding other than UTF-8. OpenStep's old-style
    /// ASCII is read by a reader of its own that bounds the depth (`(((…` nests as deeply as XML
    /// does); a well-formed OpenStep Info.plist loads (OpenStepPropertyListTests).
    @Test func onlyUTF8XMLAndBinaryPropertyListsAreRead() {
        let deep = "<?xml version=\"1.0\"?><plist version=\"1.0\">" + String(repeating: "<array>", count: 100_000)
        let cases: [(String, Data, String)] = [
            ("UTF-16", Data([0xFF, 0xFE]) + deep.data(using: .utf16LittleEndian)!, "not UTF-8"),
            (
                "declared encoding",
                Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist version=\"1.0\"><dict/></plist>".utf8),
                "encoding \"ISO-8859-1\" is not read"
            ),
            (
                "OpenStep", Data(String(repeating: "(", count: 100_000).utf8),
                "malformed OpenStep property list: line 1: arrays and dictionaries nested deeper than 64 levels"
            ),
        ]
        for (name, data, reason) in cases {
            let error = #expect(throws: ServerTrustError.self, "\(name)") {
                try TransportSecurityPolicy.readInfoPlist(data)
            }
            #expect(error?.keyPath == "$", "\(name)")
            #expect(error?.message.contains(reason) == true, "\(name): \(String(describing: error))")
        }
        let openStep = "{ NSAppTransportSecurity = { NSAllowsArbitraryLoads = YES; }; }"
        #expect((try? TransportSecurityPolicy.readInfoPlist(Data(openStep.utf8)))?.policy.allowsArbitraryLoads == true)
        // A UTF-8 byte-order mark and an explicit UTF-8 encoding are fine.
        let plain = "<?xml version=\"1.0\" encoding=\"utf-8\"?><plist version=\"1.0\"><dict/></plist>"
        #expect(throws: Never.self) {
            try TransportSecurityPolicy.readInfoPlist(Data([0xEF, 0xBB, 0xBF] + Array(plain.utf8)))
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
            \(InfoPlistFixtures.pinned("\t\t\t\t<key>NSIncludesSubdomains</key>\n\t\t\t\t<true/>\n" + InfoPlistFixtures.identities("NSPinnedCAIdentities", [pki.intermediate.pin, pki.root.pin]) + "\n" + InfoPlistFixtures.identities("NSPinnedLeafIdentities", [pki.untrustedRoot.pin, pki.untrustedIntermediate.pin])))
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
        try InfoPlistFixtures.binary(InfoPlistFixtures.xml(ats)).write(to: file)
        #expect(try TransportSecurityPolicy.readInfoPlist(contentsOfFile: file.path).policy == fromJSON)
    }
}
