import Foundation
import ServerTrust
import Testing

@Suite("Policy files")
struct PolicyFileTests {
    static let pinA = "sha256/" + Data(repeating: 0xA1, count: 32).base64EncodedString()
    static let pinB = Data(repeating: 0xB2, count: 32).base64EncodedString()

    func load(_ json: String) throws(ServerTrustError) -> TransportSecurityPolicy {
        try TransportSecurityPolicy(json: Data(json.utf8))
    }

    @Test func aCompleteFileLoads() throws {
        let policy = try self.load(
            """
            {
              "allowsArbitraryLoads": false,
              "allowsLocalNetworking": true,
              "minimumTLSVersion": "TLSv1.3",
              "requiresForwardSecrecy": true,
              "exceptionDomains": {
                "legacy.example.com": {
                  "includesSubdomains": true,
                  "minimumTLSVersion": "TLSv1.2",
                  "requiresForwardSecrecy": false,
                  "allowsInsecureHTTPLoads": true,
                  "pins": { "pins": ["\(Self.pinA)"], "reportOnly": true }
                }
              },
              "pinnedDomains": {
                "**.example.com": {
                  "pins": ["\(Self.pinA)", "\(Self.pinB)"],
                  "expiration": "2027-06-30T00:00:00Z"
                }
              }
            }
            """
        )
        #expect(policy.allowsLocalNetworking)
        #expect(policy.minimumTLSVersion == .v1_3)
        let exception = try #require(policy.exception(for: "a.legacy.example.com"))
        #expect(exception.includesSubdomains)
        #expect(exception.requiresForwardSecrecy == false)
        #expect(exception.allowsInsecureHTTPLoads)
        #expect(exception.pins?.mode == .reportOnly)
        let rule = try #require(policy.pinning.rule(for: "api.example.com"))
        #expect(rule.pins.pins == [try Pin(Self.pinA), try Pin(Self.pinB)])
        #expect(rule.pins.expiration == Date(timeIntervalSince1970: 1_814_313_600))
        #expect(rule.pins.mode == .enforce)
        let requirements = try policy.requirements(for: URL(string: "https://api.example.com")!)
        #expect(requirements.minimumTLSVersion == .v1_3)
        #expect(requirements.pins == rule.pins)
    }

    @Test func theATSCipherListIsAPerDomainKey() throws {
        let policy = try self.load(
            #"{"exceptionDomains": {"legacy.example.com": {"includesSubdomains": true, "cipherSuites": "ats"}, "api.example.com": {"cipherSuites": "aead"}}}"#
        )
        #expect(policy.exception(for: "legacy.example.com")?.cipherSuites == .ats)
        #expect(try policy.requirements(for: URL(string: "https://a.legacy.example.com/")!).cipherSuites == .ats)
        #expect(try policy.requirements(for: URL(string: "https://api.example.com/")!).cipherSuites == .aeadOnly)
        #expect(try policy.requirements(for: URL(string: "https://other.example.com/")!).cipherSuites == .aeadOnly)
    }

    @Test func anEmptyObjectIsTheStrictPolicy() throws {
        #expect(try self.load("{}") == .strict)
    }

    @Test(arguments: [
        ("not json", "$", "not valid JSON"),
        ("[]", "$", "expected an object, found an array"),
        (#"{"allowsArbitraryLoad": true}"#, "$.allowsArbitraryLoad", "unknown key"),
        (#"{"allowsArbitraryLoads": 1}"#, "$.allowsArbitraryLoads", "expected a boolean, found a number"),
        (#"{"allowsLocalNetworking": "yes"}"#, "$.allowsLocalNetworking", "expected a boolean, found a string"),
        (#"{"minimumTLSVersion": "SSLv3"}"#, "$.minimumTLSVersion", "'SSLv3' is not an ATS TLS version"),
        (#"{"minimumTLSVersion": 1.2}"#, "$.minimumTLSVersion", "expected a string, found a number"),
        (#"{"exceptionDomains": []}"#, "$.exceptionDomains", "expected an object, found an array"),
        (
            #"{"exceptionDomains": {"a.com": {"includeSubdomains": true}}}"#,
            #"$.exceptionDomains["a.com"].includeSubdomains"#, "unknown key"
        ),
        (
            #"{"exceptionDomains": {"a.com": {"cipherSuites": "all"}}}"#, #"$.exceptionDomains["a.com"].cipherSuites"#,
            "use \"aead\" or \"ats\""
        ),
        (
            #"{"exceptionDomains": {"a.com": {"cipherSuites": true}}}"#, #"$.exceptionDomains["a.com"].cipherSuites"#,
            "expected a string"
        ),
        (#"{"exceptionDomains": {"*.a.com": {}}}"#, #"$.exceptionDomains["*.a.com"]"#, "no wildcard"),
        (#"{"exceptionDomains": {"a..com": {}}}"#, #"$.exceptionDomains["a..com"]"#, "empty label"),
        (#"{"exceptionDomains": {"127.1": {}}}"#, #"$.exceptionDomains["127.1"]"#, "ends in a number"),
        (
            #"{"pinnedDomains": {"0x7f.0.0.1": {"pins": ["PINA", "PINB"]}}}"#, #"$.pinnedDomains["0x7f.0.0.1"]"#,
            "write the address as an exact pattern in dotted decimal"
        ),
        (
            #"{"pinnedDomains": {"ba*.a.com": {"pins": []}}}"#, #"$.pinnedDomains["ba*.a.com"]"#,
            "wildcard may only be the whole first label"
        ),
        (
            #"{"pinnedDomains": {"*.com": {"pins": []}}}"#, #"$.pinnedDomains["*.com"]"#,
            "covers a whole top-level domain"
        ),
        (#"{"pinnedDomains": {"a.com": {}}}"#, #"$.pinnedDomains["a.com"].pins"#, "missing"),
        (
            #"{"pinnedDomains": {"a.com": {"pins": "x"}}}"#, #"$.pinnedDomains["a.com"].pins"#,
            "expected an array of pins"
        ),
        (
            #"{"pinnedDomains": {"a.com": {"pins": [7]}}}"#, #"$.pinnedDomains["a.com"].pins[0]"#,
            "expected a string, found a number"
        ),
        (
            #"{"pinnedDomains": {"a.com": {"pins": ["sha256/AAAA"]}}}"#, #"$.pinnedDomains["a.com"].pins[0]"#,
            "decodes to 3 bytes"
        ),
        (
            #"{"pinnedDomains": {"a.com": {"pins": ["sha1/AAAAAAAAAAAAAAAAAAAAAAAAAAA="]}}}"#,
            #"$.pinnedDomains["a.com"].pins[0]"#, "unsupported pin prefix"
        ),
        (#"{"pinnedDomains": {"a.com": {"pins": ["PINA"]}}}"#, #"$.pinnedDomains["a.com"].pins"#, "needs a backup pin"),
        (
            #"{"pinnedDomains": {"a.com": {"pins": ["PINA", "PINB"], "expiration": "next year"}}}"#,
            #"$.pinnedDomains["a.com"].expiration"#, "not an RFC 3339 date"
        ),
        (
            #"{"pinnedDomains": {"a.com": {"pins": ["PINA", "PINB"], "reportOnly": "no"}}}"#,
            #"$.pinnedDomains["a.com"].reportOnly"#, "expected a boolean"
        ),
        (
            #"{"pinnedDomains": {"a.com": {"pins": ["PINA", "PINB"], "enforce": true}}}"#,
            #"$.pinnedDomains["a.com"].enforce"#, "unknown key"
        ),
    ])
    func badFilesAreRefusedWithKeyPathAndReason(json: String, keyPath: String, reason: String) {
        let text = json.replacingOccurrences(of: "PINA", with: Self.pinA).replacingOccurrences(
            of: "PINB",
            with: Self.pinB
        )
        #expect {
            try self.load(text)
        } throws: { error in
            guard let error = error as? ServerTrustError else { return false }
            return error.code == .invalidPolicyFile && error.keyPath == keyPath
                && error.message.hasPrefix(keyPath + ": ") && error.message.contains(reason)
        }
    }

    @Test func aFileOnDiskLoadsAndAMissingOneIsAnUnreadableFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString).json")
        try Data(#"{"allowsLocalNetworking": true}"#.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(try TransportSecurityPolicy(contentsOfFile: url.path).allowsLocalNetworking)
        #expect {
            try TransportSecurityPolicy(contentsOfFile: url.path + ".missing")
        } throws: { ($0 as? ServerTrustError)?.code == .unreadableFile }
    }
}
