import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing

/// What a newcomer's mistakes in a policy file are told: the key meant, the TLS spelling ATS
/// takes, and why a file cannot be read, at which absolute path.
@Suite("Policy file errors")
struct PolicyFileErrorTests {
    /// The error `body` throws, or nil.
    static func failure(_ body: () throws -> Void) -> ServerTrustError? {
        do {
            try body()
            return nil
        } catch let error as ServerTrustError {
            return error
        } catch {
            Issue.record("not a ServerTrustError: \(error)")
            return nil
        }
    }

    static func refusal(_ json: String) -> ServerTrustError? {
        Self.failure { _ = try TransportSecurityPolicy(json: Data(json.utf8)) }
    }

    static func infoPlistRefusal(_ ats: String) -> ServerTrustError? {
        Self.failure { _ = try TransportSecurityPolicy(infoPlist: Data(InfoPlistFixtures.xml(ats).utf8)) }
    }

    // MARK: - Misspelt keys

    @Test(arguments: [
        (#"{"allowsArbitraryLoad": true}"#, "$.allowsArbitraryLoad", "allowsArbitraryLoads"),
        (#"{"minimumTlsVersion": "TLSv1.2"}"#, "$.minimumTlsVersion", "minimumTLSVersion"),
        (#"{"AllowsLocalNetworking": true}"#, "$.AllowsLocalNetworking", "allowsLocalNetworking"),
        (
            #"{"exceptionDomains": {"a.com": {"includeSubdomains": true}}}"#,
            #"$.exceptionDomains["a.com"].includeSubdomains"#, "includesSubdomains"
        ),
        (
            #"{"pinnedDomains": {"a.com": {"pin": []}}}"#, #"$.pinnedDomains["a.com"].pin"#, "pins"
        ),
    ])
    func aMisspeltKeyIsRefusedWithTheKeyMeant(json: String, keyPath: String, meant: String) throws {
        let error = try #require(Self.refusal(json))
        #expect(error.code == .invalidPolicyFile)
        #expect(error.keyPath == keyPath)
        #expect(
            error.message.hasPrefix("\(keyPath): unknown key; did you mean \(meant)? (allowed: "),
            "\(error.message)"
        )
    }

    @Test func aKeyFarFromEveryKnownOneGetsNoGuess() throws {
        let error = try #require(Self.refusal(#"{"colour": "blue"}"#))
        #expect(error.code == .invalidPolicyFile)
        #expect(error.keyPath == "$.colour")
        #expect(error.message.hasPrefix("$.colour: unknown key (allowed: allowsArbitraryLoads, "), "\(error.message)")
    }

    /// The nearest key is the one suggested, not the first within two edits in alphabetical
    /// order (`Pins` is two edits from `caPins` and one from `pins`); the Info.plist reader
    /// suggests by the same rule, in the same words.
    @Test func theNearestKeyIsSuggestedByBothReaders() throws {
        let json = try #require(Self.refusal(#"{"pinnedDomains": {"a.com": {"Pins": []}}}"#))
        #expect(json.keyPath == #"$.pinnedDomains["a.com"].Pins"#)
        #expect(json.message.contains("unknown key; did you mean pins? (allowed: "), "\(json.message)")
        let plist = try TransportSecurityPolicy.readInfoPlist(
            Data(InfoPlistFixtures.xml("\t\t<key>NSAllowsLocalNetworkin</key>\n\t\t<true/>").utf8)
        )
        #expect(
            plist.warnings.map(\.message) == [
                "unknown key, ignored (ATS ignores it too); did you mean NSAllowsLocalNetworking?"
            ]
        )
    }

    // MARK: - TLS versions

    @Test(arguments: [
        ("TLS1.2", "TLSv1.2"), ("tlsv1.3", "TLSv1.3"), ("1.2", "TLSv1.2"), ("TLSV1.3", "TLSv1.3"),
        ("tls1.0", "TLSv1.0"),
    ])
    func aTLSVersionInAnotherSpellingIsRefusedWithTheOneMeant(text: String, meant: String) throws {
        let accepted = "(TLSv1.0, TLSv1.1, TLSv1.2 or TLSv1.3, written exactly so)"
        let top = try #require(Self.refusal(#"{"minimumTLSVersion": "\#(text)"}"#))
        #expect(top.code == .invalidPolicyFile)
        #expect(top.keyPath == "$.minimumTLSVersion")
        #expect(
            top.message
                == "$.minimumTLSVersion: '\(text)' is not an ATS TLS version \(accepted); did you mean \(meant)?"
        )
        let exception = try #require(
            Self.refusal(#"{"exceptionDomains": {"a.com": {"minimumTLSVersion": "\#(text)"}}}"#)
        )
        #expect(exception.code == .invalidPolicyFile)
        #expect(exception.keyPath == #"$.exceptionDomains["a.com"].minimumTLSVersion"#)

        // The Info.plist reader has the same rule and says the same after its key path.
        let plist = try #require(
            Self.infoPlistRefusal(
                "\t\t<key>NSExceptionDomains</key>\n\t\t<dict><key>a.com</key><dict>"
                    + "<key>NSExceptionMinimumTLSVersion</key><string>\(text)</string></dict></dict>"
            )
        )
        let plistPath = #"NSAppTransportSecurity.NSExceptionDomains["a.com"].NSExceptionMinimumTLSVersion"#
        #expect(plist.code == .invalidPolicyFile)
        #expect(plist.keyPath == plistPath)
        #expect(plist.message.dropFirst(plistPath.count) == top.message.dropFirst("$.minimumTLSVersion".count))
    }

    @Test func aValueThatNamesNoVersionGetsTheListOnly() throws {
        let error = try #require(Self.refusal(#"{"minimumTLSVersion": "TLSv1.2 "}"#))
        #expect(error.code == .invalidPolicyFile)
        #expect(
            error.message
                == "$.minimumTLSVersion: 'TLSv1.2 ' is not an ATS TLS version (TLSv1.0, TLSv1.1, TLSv1.2 or TLSv1.3, written exactly so)"
        )
    }

    @Test(arguments: [("TLSv1.0", TLSVersion.v1_0), ("TLSv1.1", .v1_1), ("TLSv1.2", .v1_2), ("TLSv1.3", .v1_3)])
    func theATSSpellingsLoad(text: String, version: TLSVersion) throws {
        let policy = try TransportSecurityPolicy(
            json: Data(
                #"{"minimumTLSVersion": "\#(text)", "exceptionDomains": {"a.com": {"minimumTLSVersion": "\#(text)"}}}"#
                    .utf8
            )
        )
        #expect(policy.minimumTLSVersion == version)
        #expect(policy.exception(for: "a.com")?.minimumTLSVersion == version)
        #expect(TLSVersion(atsName: text) == version)
        #expect(TLSVersion.atsNames == ["TLSv1.0", "TLSv1.1", "TLSv1.2", "TLSv1.3"])
    }

    // MARK: - Files that cannot be read

    /// A temporary folder, its path as the error messages resolve it.
    struct Folder {
        let directory: TemporaryDirectory
        var url: URL { self.directory.url.standardizedFileURL }

        init() throws { self.directory = try TemporaryDirectory(prefix: "policy-errors") }
    }

    static func unreadable(_ path: String) throws -> String {
        let error = try #require(Self.failure { _ = try TransportSecurityPolicy(contentsOfFile: path) })
        #expect(error.code == .unreadableFile)
        return error.message
    }

    @Test func aMissingFileIsNamedByItsAbsolutePath() throws {
        let folder = try Folder()
        let path = folder.url.appendingPathComponent("policy.json").path
        #expect(try Self.unreadable(path) == "cannot read the policy file \"\(path)\": no such file")
    }

    @Test func aRelativePathIsShownResolvedAgainstTheCurrentDirectory() throws {
        let relative = "no-such-folder-\(UUID().uuidString)/../policy-\(UUID().uuidString).json"
        let resolved = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            .appendingPathComponent(String(relative.split(separator: "/").last!)).path
        #expect(try Self.unreadable(relative) == "cannot read the policy file \"\(resolved)\": no such file")
    }

    @Test func aDirectoryIsSaidToBeOne() throws {
        let folder = try Folder()
        #expect(
            try Self.unreadable(folder.url.path)
                == "cannot read the policy file \"\(folder.url.path)\": it is a directory, not a file"
        )
    }

    @Test func aFileInThePlaceOfAFolderIsNamed() throws {
        let folder = try Folder()
        let file = folder.url.appendingPathComponent("policy.json")
        try Data("{}".utf8).write(to: file)
        let path = file.appendingPathComponent("policy.json").path
        #expect(
            try Self.unreadable(path)
                == "cannot read the policy file \"\(path)\": no such file (\"\(file.path)\" is a file, not a directory)"
        )
    }

    /// Root reads any file whatever its mode, so there is no refusal to observe as root.
    @Test(.enabled(if: geteuid() != 0, "root reads a file of any mode"))
    func aFileWithoutReadPermissionIsSaidToBeOne() throws {
        let folder = try Folder()
        let file = folder.url.appendingPathComponent("policy.json")
        try Data("{}".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: file.path)
        #expect(try Self.unreadable(file.path) == "cannot read the policy file \"\(file.path)\": permission denied")
    }

    @Test func aPathIsEscapedForPrinting() throws {
        let folder = try Folder()
        let path = folder.url.path + "/line\none\u{1B}[2J\u{202E}\"q\".json"
        let message = try Self.unreadable(path)
        #expect(
            message
                == "cannot read the policy file \"\(folder.url.path)/line\\none\\u{1B}[2J\\u{202E}\\\"q\\\".json\": no such file"
        )
        #expect(!message.contains("\n") && !message.contains("\u{1B}") && !message.contains("\u{202E}"))
    }
}
