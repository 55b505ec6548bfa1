import Foundation
import ServerTrust
import Testing

@Suite("Transport security policy")
struct TransportSecurityPolicyTests {
    static let pinA = "sha256/" + Data(repeating: 0xA1, count: 32).base64EncodedString()
    static let pinB = "sha256/" + Data(repeating: 0xB2, count: 32).base64EncodedString()

    func requirements(
        _ policy: TransportSecurityPolicy,
        _ url: String
    ) throws(ServerTrustError) -> ConnectionRequirements {
        try policy.requirements(for: URL(string: url)!)
    }

    @Test func defaultsFailClosed() throws {
        let requirements = try self.requirements(.strict, "https://API.example.com/v1")
        #expect(requirements.host == "api.example.com")
        #expect(requirements.port == 443)
        #expect(requirements.usesTLS)
        #expect(requirements.minimumTLSVersion == .v1_2)
        #expect(requirements.requiresForwardSecrecy)
        #expect(requirements.certificateRules == .default)
        #expect(requirements.trustAnchors == .system)
        #expect(requirements.pins == nil)
        #expect(TransportSecurityPolicy.strict.securityWarnings.isEmpty)
    }

    @Test(arguments: ["http://api.example.com/", "http://localhost:8080/", "http://127.0.0.1/"])
    func plainHTTPIsRefusedByDefault(url: String) {
        #expect {
            try self.requirements(.strict, url)
        } throws: { ($0 as? ServerTrustError)?.code == .insecureScheme }
    }

    @Test(arguments: ["ftp://example.com/", "ws://example.com/", "file:///etc/passwd"])
    func unknownSchemesAreRefused(url: String) {
        #expect {
            try self.requirements(.strict, url)
        } throws: { error in
            let code = (error as? ServerTrustError)?.code
            return code == .unsupportedScheme || code == .invalidURL
        }
    }

    @Test func urlWithoutAHostIsRefused() {
        #expect {
            try self.requirements(.strict, "https:///path")
        } throws: { ($0 as? ServerTrustError)?.code == .invalidURL }
    }

    @Test func exceptionAllowsPlainHTTPOnlyForItsDomain() throws {
        var policy = TransportSecurityPolicy()
        policy.setException(DomainException(allowsInsecureHTTPLoads: true), for: "Legacy.Example.com.")
        let legacy = try self.requirements(policy, "http://legacy.example.com/x")
        #expect(!legacy.usesTLS)
        #expect(legacy.port == 80)
        #expect { try self.requirements(policy, "http://sub.legacy.example.com/") } throws: {
            ($0 as? ServerTrustError)?.code == .insecureScheme
        }
        #expect { try self.requirements(policy, "http://example.com/") } throws: {
            ($0 as? ServerTrustError)?.code == .insecureScheme
        }
        #expect(policy.securityWarnings == ["legacy.example.com: plain HTTP is allowed"])
    }

    @Test func includesSubdomainsAndMostSpecificExceptionWins() throws {
        let policy = TransportSecurityPolicy(exceptionDomains: [
            "example.com": DomainException(includesSubdomains: true, requiresForwardSecrecy: false),
            "old.example.com": DomainException(minimumTLSVersion: .v1_0),
        ])
        let sub = try self.requirements(policy, "https://a.b.example.com/")
        #expect(!sub.requiresForwardSecrecy)
        #expect(sub.minimumTLSVersion == .v1_2)
        let old = try self.requirements(policy, "https://old.example.com/")
        #expect(old.minimumTLSVersion == .v1_0)
        #expect(old.requiresForwardSecrecy)
        // Not a subdomain: evilexample.com
        #expect(try self.requirements(policy, "https://evilexample.com/").requiresForwardSecrecy)
    }

    @Test func localNetworkingAllowsOnlyLocalHostsOverHTTP() throws {
        let policy = TransportSecurityPolicy(allowsLocalNetworking: true)
        for url in [
            "http://localhost:8080/", "http://printer.local/", "http://router/", "http://127.0.0.1/",
            "http://192.168.1.10/", "http://[::1]:80/",
        ] {
            #expect(throws: Never.self) { try self.requirements(policy, url) }
        }
        for url in ["http://example.com/", "http://8.8.8.8/", "http://[2001:db8::1]/"] {
            #expect { try self.requirements(policy, url) } throws: {
                ($0 as? ServerTrustError)?.code == .insecureScheme
            }
        }
    }

    @Test func numericHostsAreJudgedByTheAddressTheyDenote() throws {
        let policy = TransportSecurityPolicy(allowsLocalNetworking: true)
        // 8.8.8.8 written as one decimal, hexadecimal, octal and mixed-width numbers: public.
        for url in [
            "http://134744072/", "http://0x08080808/", "http://0x8.0x8.0x8.0x8/", "http://010.010.010.010/",
            "http://8.526344/", "http://8.8.2056/",
        ] {
            #expect { try self.requirements(policy, url) } throws: {
                ($0 as? ServerTrustError)?.code == .insecureScheme
            }
        }
        // 127.0.0.1 and 192.168.0.1 in the same forms: local.
        for url in [
            "http://2130706433/", "http://0x7f000001/", "http://0177.0.0.1/", "http://127.1/", "http://3232235521/",
        ] {
            #expect(throws: Never.self, "\(url)") { try self.requirements(policy, url) }
        }
        // Near miss: a dotless name that is not a number is still an unqualified name.
        #expect(throws: Never.self) { try self.requirements(policy, "http://nas/") }
        // Out of range is no address, and not a name either: refused.
        #expect { try self.requirements(policy, "http://4294967296/") } throws: {
            ($0 as? ServerTrustError)?.code == .insecureScheme
        }
    }

    @Test func aNameWithATrailingDotIsFullyQualifiedNotLocal() throws {
        let policy = TransportSecurityPolicy(allowsLocalNetworking: true)
        // `ai.` is the top-level domain ai, fully qualified: not an unqualified local name.
        for url in ["http://ai./", "http://com.:8080/"] {
            #expect(throws: ServerTrustError(.insecureScheme, ""), "\(url)") { try self.requirements(policy, url) }
        }
        // Without the dot the same name is unqualified, and `.local` and localhost stay local.
        for url in ["http://ai/", "http://printer.local./", "http://localhost./"] {
            #expect(throws: Never.self, "\(url)") { try self.requirements(policy, url) }
        }
    }

    @Test func everySpellingOfAnAddressMeetsTheRulesWrittenForIt() throws {
        var policy = TransportSecurityPolicy(
            pinning: PinningPolicy([try HostPattern("127.0.0.1"): try PinSet([Self.pinA, Self.pinB])])
        )
        policy.setException(DomainException(allowsInsecureHTTPLoads: true), for: "::FFFF:7f00:1")
        for url in ["https://127.1/", "https://0x7f.0.0.1/", "https://017700000001/", "https://[::ffff:127.0.0.1]/"] {
            let requirements = try self.requirements(policy, url)
            #expect(requirements.host == "127.0.0.1", "\(url)")
            #expect(requirements.pinScope == "127.0.0.1", "\(url)")
        }
        #expect(try self.requirements(policy, "http://[::ffff:7f00:1]/").host == "127.0.0.1")
        #expect(try self.requirements(policy, "http://127.1/").host == "127.0.0.1")
        #expect(try self.requirements(policy, "https://[2001:DB8:0::1]/").host == "2001:db8::1")
        // The exception is for that address only: not 127.0.0.2, and an address has no parent domain.
        #expect(throws: ServerTrustError(.insecureScheme, "")) { try self.requirements(policy, "http://127.0.0.2/") }
        var parent = TransportSecurityPolicy()
        parent.setException(DomainException(includesSubdomains: true, allowsInsecureHTTPLoads: true), for: "0.0.1")
        #expect(throws: ServerTrustError(.insecureScheme, "")) { try self.requirements(parent, "http://10.0.0.1/") }
    }

    @Test func arbitraryLoadsMustBeAskedForAndAreListedAsAWarning() throws {
        let policy = TransportSecurityPolicy(allowsArbitraryLoads: true)
        #expect(try !self.requirements(policy, "http://example.com/").usesTLS)
        // TLS connections keep their requirements.
        #expect(try self.requirements(policy, "https://example.com/").minimumTLSVersion == .v1_2)
        #expect(
            policy.securityWarnings == [
                "allowsArbitraryLoads: plain HTTP is allowed to every host without an exception"
            ]
        )
    }

    @Test func pinsComeFromTheMostSpecificPatternOrTheDomainException() throws {
        let broad = try PinSet([Self.pinA, Self.pinB])
        let exact = try PinSet([Self.pinB, Self.pinA], mode: .enforce)
        let fromException = try PinSet([Self.pinA], mode: .reportOnly)
        let policy = TransportSecurityPolicy(
            exceptionDomains: ["other.com": DomainException(includesSubdomains: true, pins: fromException)],
            pinning: PinningPolicy([
                try HostPattern("**.example.com"): broad, try HostPattern("api.example.com"): exact,
            ])
        )
        let api = try self.requirements(policy, "https://api.example.com/")
        #expect(api.pins == exact)
        #expect(api.pinScope == "api.example.com")
        #expect(try self.requirements(policy, "https://example.com/").pins == broad)
        let other = try self.requirements(policy, "https://x.other.com/")
        #expect(other.pins == fromException)
        #expect(other.pinScope == "**.other.com")
        #expect(try self.requirements(policy, "https://example.org/").pins == nil)
    }

    /// Pins on a single-label exception domain with includesSubdomains were once dropped
    /// silently (no `**.localhost` pattern can exist); they must apply to the domain and below.
    @Test func exceptionPinsOnASingleLabelDomainAreNotDropped() throws {
        let pins = try PinSet([Self.pinA, Self.pinB])
        let policy = TransportSecurityPolicy(exceptionDomains: [
            "localhost": DomainException(includesSubdomains: true, pins: pins)
        ])
        #expect(try self.requirements(policy, "https://localhost:8443/").pins == pins)
        #expect(try self.requirements(policy, "https://api.localhost/").pins == pins)
        #expect(try self.requirements(policy, "https://localhost.example/").pins == nil)
    }

    @Test(arguments: [("TLSv1.2", TLSVersion.v1_2), ("1.3", .v1_3), ("tls1.0", .v1_0), ("TLSv1.1", .v1_1)])
    func tlsVersionsParse(text: String, version: TLSVersion) {
        #expect(TLSVersion(text) == version)
    }

    @Test func tlsVersionsOrder() {
        #expect(TLSVersion.v1_0 < .v1_1 && TLSVersion.v1_1 < .v1_2 && TLSVersion.v1_2 < .v1_3)
        #expect(TLSVersion("SSLv3") == nil)
        #expect(TLSVersion.v1_3.description == "TLSv1.3")
    }
}
