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
