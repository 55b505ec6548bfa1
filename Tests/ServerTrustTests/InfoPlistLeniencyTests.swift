import Foundation
import SecureNetworkingInternal
import SecureNetworkingTesting
import ServerTrust
import Testing

/// Every Info.plist ATS accepts loads (issue 39): what ATS ignores is a warning with its key
/// path and the rest applies; a single pin loads, warned, and is enforced; a file written for
/// Xcode's Info.plist preprocessor is refused with its first directive's line, or read with
/// the `-D` names through ``InfoPlistPreprocessor``.
@Suite("Info.plist leniency")
struct InfoPlistLeniencyTests {
    static let pki = Fixtures.pki

    static func read(_ ats: String) throws -> InfoPlistPolicy {
        try InfoPlistPolicyTests.read(ats)
    }

    static func keyPaths(_ read: InfoPlistPolicy) -> [String] { read.warnings.map(\.keyPath) }

    // MARK: - A single pin

    @Test func aSingleCAPinLoadsWithAWarningAndIsEnforced() async throws {
        let chain = try Self.pki.validChain()
        let read = try Self.read(
            InfoPlistFixtures.pinned(
                InfoPlistFixtures.identities("NSPinnedCAIdentities", [Self.pki.intermediate.pin]),
                domain: "localhost"
            )
        )
        let warning = try #require(read.warnings.first)
        #expect(read.warnings.count == 1)
        #expect(warning.keyPath == "NSAppTransportSecurity.NSPinnedDomains[\"localhost\"].NSPinnedCAIdentities")
        #expect(warning.message.hasPrefix("one identity, no backup pin. ATS: loads it and refuses every chain"))
        #expect(warning.message.contains("SecureNetworking: the same (the pin is enforced"))
        #expect(warning.message.contains("every installed copy of the app fails to connect to localhost"))

        // The policy gives the host the pin, enforced, for CA certificates only.
        let requirements = try read.policy.requirements(for: URL(string: "https://localhost/")!)
        let pins = try #require(requirements.pins)
        #expect(pins.mode == .enforce)
        #expect(pins.pins == [Self.pki.intermediate.pin])
        #expect(pins.groups.map(\.scope) == [.certificateAuthority])
        #expect(try await evaluate(chain, pins: pins).failure == nil)

        // A chain whose CA keys do not match is refused, as ATS refuses it.
        let otherCA = try Self.read(
            InfoPlistFixtures.pinned(
                InfoPlistFixtures.identities("NSPinnedCAIdentities", [Self.pki.untrustedIntermediate.pin]),
                domain: "localhost"
            )
        )
        let refusing = try #require(otherCA.policy.pinning.rule(for: "localhost")?.pins)
        #expect(try await evaluate(chain, pins: refusing).failure?.code == .pinMismatch)
        // The leaf's own key is not a CA pin.
        let leafAsCA = try Self.read(
            InfoPlistFixtures.pinned(
                InfoPlistFixtures.identities("NSPinnedCAIdentities", [chain.pins[0]]),
                domain: "localhost"
            )
        )
        let leafPins = try #require(leafAsCA.policy.pinning.rule(for: "localhost")?.pins)
        #expect(try await evaluate(chain, pins: leafPins).failure?.code == .pinMismatch)
    }

    @Test func aSingleLeafPinIsEnforcedBesideTwoCAPins() async throws {
        let chain = try Self.pki.validChain()
        let read = try Self.read(
            InfoPlistFixtures.pinned(
                InfoPlistFixtures.identities("NSPinnedCAIdentities", [Self.pki.intermediate.pin, Self.pki.root.pin])
                    + "\n" + InfoPlistFixtures.identities("NSPinnedLeafIdentities", [chain.pins[0]]),
                domain: "localhost"
            )
        )
        #expect(Self.keyPaths(read) == ["NSAppTransportSecurity.NSPinnedDomains[\"localhost\"].NSPinnedLeafIdentities"])
        #expect(read.warnings.first?.message.contains("without a leaf certificate with this key") == true)
        let pins = try #require(read.policy.pinning.rule(for: "localhost")?.pins)
        #expect(try await evaluate(chain, pins: pins).failure == nil)
        // Another leaf under the same CAs fails the leaf pin.
        #expect(try await evaluate(try Self.pki.validChain(), pins: pins).failure?.code == .pinMismatch)
    }

    /// A pin and its backup: no warning. The JSON policy keeps refusing a single pin.
    @Test func twoPinsAreNotWarnedAndJSONStillRefusesOne() throws {
        let read = try Self.read(
            InfoPlistFixtures.pinned(
                InfoPlistFixtures.identities("NSPinnedCAIdentities", [Self.pki.intermediate.pin, Self.pki.root.pin])
            )
        )
        #expect(read.warnings.isEmpty)
        let json = #"{"pinnedDomains": {"api.example.com": {"caPins": ["\#(Self.pki.intermediate.pin)"]}}}"#
        let error = #expect(throws: ServerTrustError.self) { try TransportSecurityPolicy(json: Data(json.utf8)) }
        #expect(error?.message.contains("backup") == true, "\(String(describing: error))")
        // The public initialiser is unchanged too.
        #expect(throws: ServerTrustError(.missingBackupPin, "")) {
            try PinSet(certificateAuthorityPins: [Self.pki.intermediate.pin], leafPins: [])
        }
    }

    // MARK: - Keys ATS ignores

    static func exceptions(_ entries: String) -> String {
        "\t\t<key>NSExceptionDomains</key>\n\t\t<dict>\n\(entries)\n\t\t</dict>"
    }

    static let insecure = "<dict><key>NSExceptionAllowsInsecureHTTPLoads</key><true/></dict>"

    @Test func aCIDRExceptionDomainIsWarnedAndNotApplied() throws {
        let read = try Self.read(
            Self.exceptions(
                "\t\t\t<key>10.0.0.0/8</key>\(Self.insecure)\n\t\t\t<key>2001:db8::/32</key>\(Self.insecure)\n"
                    + "\t\t\t<key>cdn.example.com</key>\(Self.insecure)"
            )
        )
        #expect(
            Self.keyPaths(read) == [
                "NSAppTransportSecurity.NSExceptionDomains[\"10.0.0.0/8\"]",
                "NSAppTransportSecurity.NSExceptionDomains[\"2001:db8::/32\"]",
            ]
        )
        #expect(
            read.warnings[0].message.hasPrefix("a CIDR range: ATS applies it to the addresses of the range in iOS 17")
        )
        #expect(read.warnings[0].message.contains("SecureNetworking matches no address ranges and does not apply it"))
        // The rest of the file applies; the range does not.
        #expect(read.policy.exceptionDomains.keys.sorted() == ["cdn.example.com"])
        #expect(throws: ServerTrustError(.insecureScheme, "")) {
            try read.policy.requirements(for: URL(string: "http://10.1.2.3/")!)
        }
        #expect(throws: Never.self) { try read.policy.requirements(for: URL(string: "http://cdn.example.com/")!) }
    }

    @Test func anIPAddressExceptionDomainIsWarnedAndApplied() throws {
        let read = try Self.read(
            Self.exceptions(
                "\t\t\t<key>192.168.1.10</key>\(Self.insecure)\n\t\t\t<key>example.com</key>\(Self.insecure)"
            )
        )
        #expect(Self.keyPaths(read) == ["NSAppTransportSecurity.NSExceptionDomains[\"192.168.1.10\"]"])
        #expect(read.warnings[0].message.contains("ATS applies it in iOS 17, iPadOS 17 and macOS 14 and later"))
        #expect(throws: Never.self) { try read.policy.requirements(for: URL(string: "http://192.168.1.10/")!) }
        #expect(throws: ServerTrustError(.insecureScheme, "")) {
            try read.policy.requirements(for: URL(string: "http://192.168.1.11/")!)
        }
    }

    @Test func domainKeysThatNameNoHostAreWarnedAndIgnored() throws {
        let read = try Self.read(
            Self.exceptions(
                "\t\t\t<key>*.a.example</key>\(Self.insecure)\n\t\t\t<key>b.example:443</key>\(Self.insecure)"
            )
        )
        #expect(
            Self.keyPaths(read) == [
                "NSAppTransportSecurity.NSExceptionDomains[\"*.a.example\"]",
                "NSAppTransportSecurity.NSExceptionDomains[\"b.example:443\"]",
            ]
        )
        #expect(read.policy.exceptionDomains.isEmpty)
    }

    @Test func aMisspeltKeyIsWarnedWithTheKeyMeant() throws {
        let read = try Self.read(
            "\t\t<key>NSAllowsArbitaryLoads</key>\n\t\t<true/>\n"
                + Self.exceptions(
                    "\t\t\t<key>a.example</key><dict><key>NSIncludesSubdomain</key><true/>"
                        + "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/></dict>"
                )
        )
        #expect(
            read.warnings.map(\.description) == [
                "NSAppTransportSecurity.NSAllowsArbitaryLoads: unknown key, ignored (ATS ignores it too); "
                    + "did you mean NSAllowsArbitraryLoads?",
                "NSAppTransportSecurity.NSExceptionDomains[\"a.example\"].NSIncludesSubdomain: unknown key, ignored "
                    + "(ATS ignores it too); did you mean NSIncludesSubdomains?",
            ]
        )
        #expect(!read.policy.allowsArbitraryLoads)
        #expect(read.policy.exception(for: "a.example")?.allowsInsecureHTTPLoads == true)
        #expect(read.policy.exception(for: "www.a.example") == nil)
        // A key far from every known one gets no guess.
        let far = try Self.read("\t\t<key>SomethingElse</key>\n\t\t<true/>")
        #expect(far.warnings.map(\.message) == ["unknown key, ignored (ATS ignores it too)"])
    }

    @Test func aValueOfTheWrongTypeIsWarnedAndReadAsAbsent() throws {
        let read = try Self.read(
            """
            \t\t<key>NSAllowsArbitraryLoads</key>
            \t\t<integer>1</integer>
            \t\t<key>NSAllowsLocalNetworking</key>
            \t\t<true/>
            \t\t<key>NSPinnedDomains</key>
            \t\t<array/>
            \(Self.exceptions("\t\t\t<key>a.example</key><string>yes</string>\n\t\t\t<key>b.example</key><dict><key>NSExceptionRequiresForwardSecrecy</key><string>NO</string><key>NSExceptionAllowsInsecureHTTPLoads</key><true/></dict>"))
            """
        )
        #expect(
            Self.keyPaths(read) == [
                "NSAppTransportSecurity.NSAllowsArbitraryLoads",
                "NSAppTransportSecurity.NSExceptionDomains[\"a.example\"]",
                "NSAppTransportSecurity.NSExceptionDomains[\"b.example\"].NSExceptionRequiresForwardSecrecy",
                "NSAppTransportSecurity.NSPinnedDomains",
            ]
        )
        #expect(
            read.warnings[0].message
                == "expected a boolean (<true/> or <false/>), found a number: ignored, as ATS ignores it"
        )
        #expect(!read.policy.allowsArbitraryLoads)
        #expect(read.policy.allowsLocalNetworking)
        #expect(read.policy.exception(for: "a.example") == nil)
        #expect(read.policy.exception(for: "b.example") == DomainException(allowsInsecureHTTPLoads: true))
    }

    /// What is of the right type but not a value ATS has stays an error.
    @Test func aBadValueOfTheRightTypeIsStillAnError() {
        let error = InfoPlistPolicyTests.refusal(
            Self.exceptions(
                "\t\t\t<key>a.example</key><dict><key>NSExceptionMinimumTLSVersion</key><string>1.2</string></dict>"
            )
        )
        #expect(
            error?.keyPath == "NSAppTransportSecurity.NSExceptionDomains[\"a.example\"].NSExceptionMinimumTLSVersion"
        )
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
        #elif defined(STAGING) && !defined(NO_LOCAL)
        \t\t<key>NSAllowsLocalNetworking</key>
        \t\t<true/>
        #else
        \t\t<key>NSExceptionDomains</key>
        \t\t<dict><key>cdn.example.com</key><dict><key>NSExceptionAllowsInsecureHTTPLoads</key><true/></dict></dict>
        #endif
        \t</dict>
        </dict>
        </plist>
        """

    @Test func aPreprocessedInfoPlistIsRefusedWithItsFirstDirectiveLine() {
        let error = #expect(throws: ServerTrustError.self) {
            try TransportSecurityPolicy.readInfoPlist(Data(Self.preprocessed.utf8))
        }
        #expect(error?.code == .invalidPolicyFile)
        #expect(error?.keyPath == "$")
        #expect(error?.message.hasPrefix("$: line 6: '#ifdef DEBUG' is a preprocessor directive") == true)
        #expect(error?.message.contains("cpp -P -traditional") == true)
        #expect(error?.message.contains("INFOPLIST_PREPROCESS") == true)
        // A `#` inside a value is not a directive.
        #expect(throws: Never.self) {
            try TransportSecurityPolicy.readInfoPlist(
                Data(
                    InfoPlistFixtures.xml(nil).replacingOccurrences(
                        of: "<string>1.0</string>",
                        with: "<string>\n#1 app</string>"
                    ).utf8
                )
            )
        }
    }

    @Test(arguments: [
        ([String: Int](), [false, false, true], "cdn.example.com"),
        (["DEBUG": 1], [true, false, false], "arbitrary"),
        (["DEBUG": 0], [true, false, false], "arbitrary"),
        (["STAGING": 1], [false, true, false], "local"),
        (["STAGING": 1, "NO_LOCAL": 1], [false, false, true], "cdn.example.com"),
    ])
    func aPreprocessedInfoPlistIsReadWithTheNamesGiven(
        definitions: [String: Int],
        taken: [Bool],
        expected: String
    )
        throws
    {
        let (read, branches) = try TransportSecurityPolicy.readInfoPlist(
            Data(Self.preprocessed.utf8),
            preprocessorDefinitions: definitions
        )
        #expect(branches.map(\.line) == [6, 9, 12])
        #expect(branches.map(\.taken) == taken, "\(definitions)")
        #expect(
            branches[1].description
                == "line 9 #elif defined(STAGING) && !defined(NO_LOCAL): \(taken[1] ? "read" : "skipped")"
        )
        switch expected {
        case "arbitrary": #expect(read.policy.allowsArbitraryLoads && !read.policy.allowsLocalNetworking)
        case "local": #expect(read.policy.allowsLocalNetworking && !read.policy.allowsArbitraryLoads)
        default: #expect(read.policy.exceptionDomains.keys.sorted() == [expected])
        }
    }

    @Test(arguments: [
        ("#if A || (B && !C)", ["B": 1], true),
        ("#if A || (B && !C)", ["B": 1, "C": 1], false),
        ("#if VERSION == 2", ["VERSION": 2], true),
        ("#if VERSION != 2", ["VERSION": 2], false),
        ("#if 0", [:], false),
        ("#if 1 /* always */", [:], true),
        ("#if A >= 2", ["A": 2], true),
        ("#ifndef RELEASE", [:], true),
        ("#if defined RELEASE", ["RELEASE": 1], true),
        ("#if UNDEFINED", [:], false),
    ])
    func expressions(directive: String, definitions: [String: Int], taken: Bool) throws {
        let result = try InfoPlistPreprocessor.evaluate("\(directive)\nyes\n#endif\nafter", definitions: definitions)
        #expect(result.text == (taken ? "\nyes\n\nafter" : "\n\n\nafter"), "\(directive)")
        #expect(result.branches.map(\.taken) == [taken])
    }

    @Test(arguments: [
        ("#if A\nx", 1, "#if without #endif"),
        ("x\n#endif", 2, "#endif without #if"),
        ("#if A\n#else\n#else\n#endif", 3, "#else after #else (the #if is on line 1)"),
        (
            "#include \"Config.h\"", 1,
            "#include \"Config.h\" is not followed here; preprocess the file with cpp -P -traditional"
        ),
        (
            "#if A = 2\n#endif", 1,
            "'=' is not read in an #if expression (integers, names, defined, and C's operators but assignment and comma)"
        ),
        ("#if (A\n#endif", 1, "expected ')' in the #if expression"),
    ])
    func directivesTheEvaluatorDoesNotReadAreErrorsWithTheirLine(text: String, line: Int, reason: String) {
        #expect(throws: InfoPlistPreprocessor.Failure(line: line, reason: reason)) {
            try InfoPlistPreprocessor.evaluate(text, definitions: [:])
        }
    }

    @Test func defineAndUndefChangeWhatFollows() throws {
        let text = "#define LOCAL\n#ifdef LOCAL\na\n#endif\n#undef LOCAL\n#ifdef LOCAL\nb\n#endif"
        let result = try InfoPlistPreprocessor.evaluate(text, definitions: [:])
        #expect(result.text.split(separator: "\n") == ["a"])
        // An #include in a branch not taken is not followed, and not an error.
        #expect(throws: Never.self) {
            try InfoPlistPreprocessor.evaluate("#ifdef X\n#include \"a.h\"\n#endif", definitions: [:])
        }
    }

    @Test func conditionsNameTheBranchOfEachLine() {
        let conditions = InfoPlistPreprocessor.conditions(in: "a\n#ifdef DEBUG\nb\n#else\nc\n#endif\nd")
        #expect(conditions == [3: "#ifdef DEBUG", 5: "#else of #ifdef DEBUG"])
    }

    @Test func crlfLineEndingsAreLinesToo() throws {
        // "\r\n" is one Character: lines are split on the line feed byte, the "\r" kept.
        let text = "a\r\n#ifdef DEBUG\r\nb\r\n#else\r\nc\r\n#endif\r\nd"
        #expect(InfoPlistPreprocessor.lines(of: text).count == 7)
        #expect(InfoPlistPreprocessor.firstDirective(in: Array(text.utf8))?.line == 2)
        #expect(InfoPlistPreprocessor.conditions(in: text) == [3: "#ifdef DEBUG", 5: "#else of #ifdef DEBUG"])
        let result = try InfoPlistPreprocessor.evaluate(text, definitions: ["DEBUG": 1])
        #expect(result.text == "a\r\n\nb\r\n\n\n\nd")
        #expect(result.branches.map(\.taken) == [true, false])
        #expect(InfoPlistPreprocessor.withoutDirectives(text) == "a\r\n\nb\r\n\nc\r\n\nd")
        // Without a directive the text comes back as it was.
        #expect(try InfoPlistPreprocessor.evaluate("x\r\ny", definitions: [:]).text == "x\r\ny")
    }
}
