import ServerTrust
import Testing

@Suite("Host patterns")
struct HostPatternTests {
    @Test(arguments: [
        // exact
        ("api.example.com", "api.example.com", true),
        ("api.example.com", "API.Example.COM.", true),
        ("api.example.com", "example.com", false),
        ("api.example.com", "x.api.example.com", false),
        // *. is exactly one more label
        ("*.example.com", "api.example.com", true),
        ("*.example.com", "a.b.example.com", false),
        ("*.example.com", "example.com", false),
        ("*.example.com", "api.example.org", false),
        ("*.example.com", "evilexample.com", false),
        // **. is any depth and the bare domain
        ("**.example.com", "example.com", true),
        ("**.example.com", "api.example.com", true),
        ("**.example.com", "a.b.c.example.com", true),
        ("**.example.com", "notexample.com", false),
        // addresses
        ("127.0.0.1", "127.0.0.1", true),
        ("127.0.0.1", "127.0.0.2", false),
        ("::1", "[::1]", true),
        ("::1", "0:0:0:0:0:0:0:1", true),
        ("2001:db8::1", "2001:DB8:0::1", true),
    ])
    func matching(pattern: String, host: String, expected: Bool) throws {
        #expect(try HostPattern(pattern).matches(host) == expected)
    }

    @Test(arguments: [
        "", "*.com", "**.com", "a.*.example.com", "ba*.example.com", "api..example.com", "*", "exa mple.com",
    ])
    func refusesBadPatterns(pattern: String) {
        #expect {
            try HostPattern(pattern)
        } throws: { ($0 as? ServerTrustError)?.code == .invalidHostPattern }
    }

    /// A URL parser reads `127.1`, `0x7f.0.0.1` and `017700000001` as 127.0.0.1; as patterns they
    /// would be names that no address host ever matches, so a pin written that way would silently
    /// not apply. Only the dotted-decimal spelling is a pattern.
    @Test(arguments: [
        "127.1", "0x7f.0.0.1", "017700000001", "0177.0.0.1", "127.0.0.01", "2130706433", "1.2.3.256", "*.0.0.1",
        "**.0.0.1", "example.1",
    ])
    func otherSpellingsOfAnIPv4AddressAreRefused(pattern: String) {
        #expect {
            try HostPattern(pattern)
        } throws: {
            ($0 as? ServerTrustError)?.code == .invalidHostPattern
                && ($0 as? ServerTrustError)?.message.contains("ends in a number") == true
        }
    }

    @Test func ipv6PatternsAreKeptInRFC5952FormAndMappedOnesAsTheirIPv4Address() throws {
        #expect(try HostPattern("[2001:DB8:0:0:0:0:0:1]").description == "2001:db8::1")
        #expect(try HostPattern("2001:db8:0:0:1:0:0:1").description == "2001:db8::1:0:0:1")
        #expect(try HostPattern("2001:db8:0:1:1:1:1:1").description == "2001:db8:0:1:1:1:1:1")
        #expect(try HostPattern("0:0:0:0:0:0:0:0").description == "::")
        #expect(try HostPattern("::FFFF:7f00:1").description == "127.0.0.1")
        #expect(try HostPattern("[::ffff:127.0.0.1]") == HostPattern("127.0.0.1"))
        #expect(try HostPattern("2001:DB8::0:1") == HostPattern("2001:db8:0:0::1"))
    }

    @Test func aHostIsMatchedAsTheAddressItDenotesInAnySpelling() throws {
        for pattern in ["127.0.0.1", "::ffff:127.0.0.1"] {
            let loopback = try HostPattern(pattern)
            for host in ["127.0.0.1", "127.1", "0x7f.0.0.1", "017700000001", "[::ffff:127.0.0.1]", "::FFFF:7f00:1"] {
                #expect(loopback.matches(host), "\(pattern) vs \(host)")
            }
            // Near misses: another address, another mapped address, and the IPv4-compatible
            // ::7f00:1, which is a different (IPv6) address.
            for host in ["127.0.0.2", "127.2", "::ffff:127.0.0.2", "::127.0.0.1", "4294967296"] {
                #expect(!loopback.matches(host), "\(pattern) vs \(host)")
            }
        }
        #expect(try HostPattern("::7f00:1").matches("[::127.0.0.1]"))
        #expect(try !HostPattern("::7f00:1").matches("127.0.0.1"))
    }

    @Test func mostSpecificPatternWins() throws {
        let broad = try PinSet([
            "sha256/" + String(repeating: "A", count: 43) + "=", "sha256/" + String(repeating: "B", count: 43) + "=",
        ])
        let oneLabel = try PinSet([
            "sha256/" + String(repeating: "C", count: 43) + "=", "sha256/" + String(repeating: "D", count: 43) + "=",
        ])
        let exact = try PinSet([
            "sha256/" + String(repeating: "E", count: 43) + "=", "sha256/" + String(repeating: "F", count: 43) + "=",
        ])
        let policy = PinningPolicy([
            try HostPattern("**.example.com"): broad,
            try HostPattern("*.example.com"): oneLabel,
            try HostPattern("api.example.com"): exact,
        ])
        #expect(policy.rule(for: "api.example.com")?.pins == exact)
        #expect(policy.rule(for: "www.example.com")?.pins == oneLabel)
        #expect(policy.rule(for: "a.www.example.com")?.pins == broad)
        #expect(policy.rule(for: "example.com")?.pins == broad)
        #expect(policy.rule(for: "example.org") == nil)
        // a deeper wildcard beats a shallower one
        var deeper = policy
        deeper.pin(try HostPattern("**.www.example.com"), to: exact)
        #expect(deeper.rule(for: "a.www.example.com")?.pins == exact)
    }
}
