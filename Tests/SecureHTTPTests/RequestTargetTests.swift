import Foundation
import HTTPTypes
import ServerTrust
import Testing

@testable import SecureHTTP

/// The request target is checked without building a URL; nothing that could break the request
/// line gets through.
@Suite("Request target checks")
struct RequestTargetTests {
    func request(_ path: String, authority: String = "example.com:8443") -> HTTPRequest {
        HTTPRequest(method: .get, scheme: "https", authority: authority, path: path)
    }

    @Test(arguments: [
        "/", "/a/b/c", "/search?q=a%20b&lang=en", "/users/%E2%9C%93", "/x;y=z", "/~user/file.json",
        "/a:b@c", "/it's(fine)!*+,$",
    ])
    func ordinaryTargetsAreAccepted(path: String) {
        #expect(RequestTarget.isValid(self.request(path)))
        // The same target parses as a URL, so the lazily built URL is the real one.
        #expect(self.request(path).url != nil)
    }

    @Test(arguments: [
        "", "relative", "/a b", "/a\r\nX-Injected: 1", "/\"quoted\"", "/<tag>", "/a\\b", "/%", "/%4", "/%zz", "/{x}",
        "/a|b", "/caf\u{E9}", "/tab\there", "/frag#ment",
    ])
    func targetsThatCouldBreakTheRequestLineAreRefused(path: String) {
        #expect(!RequestTarget.isValid(self.request(path)))
    }

    @Test(arguments: ["", "exa mple.com", "example.com/evil", "user\"@example.com", "example.com#x"])
    func badAuthoritiesAreRefused(authority: String) {
        #expect(!RequestTarget.isValid(self.request("/", authority: authority)))
    }

    @Test func theTransportRefusesABadTargetBeforeConnecting() async throws {
        let transport = try NIOHTTPTransport()
        // Port 9 on loopback: nothing listens, so reaching the network would fail differently.
        let error = await #expect(throws: SecureHTTPError.self) {
            _ = try await transport.send(self.request("/a b", authority: "127.0.0.1:9"))
        }
        #expect(error?.code == .invalidRequest)
        #expect(transport.statistics.connectionsOpened == 0)
        await transport.shutdown()
    }

    @Test func theResponseURLIsTheFinalRequestsURL() {
        let response = HTTPTransportResponse(
            response: HTTPResponse(status: .ok),
            body: Data(),
            request: self.request("/a/b?c=d"),
            redirectCount: 0,
            redirectedAcrossOrigins: false
        )
        #expect(response.url.absoluteString == "https://example.com:8443/a/b?c=d")
        var copy = response
        copy.url = URL(string: "https://other.example/")!
        #expect(copy.url.absoluteString == "https://other.example/")
    }
}

/// The driver's table of targets per origin hands out one instance per origin, so the pool
/// compares its keys by identity.
@Suite("Requirements memo")
struct RequirementsMemoTests {
    @Test func requestsThatMissedTogetherAllGetTheFirstTargetAdded() throws {
        let memo = RequirementsMemo(policy: .strict)
        let key = RequirementsMemo.Key(scheme: "https", authority: "api.example.com")
        let origin = try #require(Origin(URL(string: "https://api.example.com")!))
        let requirements = ConnectionRequirements(host: "api.example.com", trustAnchors: .system)
        let first = ConnectionTarget(origin: origin, requirements: requirements)
        let second = ConnectionTarget(origin: origin, requirements: requirements)
        #expect(memo.lookup(key) == nil)
        #expect(memo.insert(first, for: key, generation: 0) === first)
        // A second request that missed the table before the first added its target.
        #expect(memo.insert(second, for: key, generation: 0) === first)
        #expect(memo.lookup(key) === first)
    }

    /// A pin update empties the table; a target computed from the policy before it, by a
    /// request that raced with the update, is used by that request but not kept.
    @Test func aPinUpdateEmptiesTheTableAndRefusesTargetsOfTheOldPolicy() throws {
        let memo = RequirementsMemo(policy: .strict)
        let key = RequirementsMemo.Key(scheme: "https", authority: "api.example.com")
        let origin = try #require(Origin(URL(string: "https://api.example.com")!))
        let old = ConnectionTarget(
            origin: origin,
            requirements: ConnectionRequirements(host: "api.example.com", trustAnchors: .system)
        )
        #expect(memo.insert(old, for: key, generation: memo.policy.generation) === old)
        let (_, before) = memo.policy
        let pins = try PinSet([String(repeating: "A", count: 43) + "=", String(repeating: "B", count: 43) + "="])
        let policy = memo.replacePinning(PinningPolicy([try HostPattern("api.example.com"): pins]))
        #expect(policy.pinning.rule(for: "api.example.com")?.pins == pins)
        #expect(memo.policy.generation == before + 1)
        #expect(memo.lookup(key) == nil)
        // The racing request's target, computed under the old generation: returned, not kept.
        #expect(memo.insert(old, for: key, generation: before) === old)
        #expect(memo.lookup(key) == nil)
        let fresh = ConnectionTarget(
            origin: origin,
            requirements: try policy.requirements(for: URL(string: "https://api.example.com/")!)
        )
        #expect(memo.insert(fresh, for: key, generation: before + 1) === fresh)
        #expect(memo.lookup(key) === fresh)
        // And the change names the old target's connections stale, not the new one's.
        let change = PinningChange(policy: policy)
        #expect(change.isStale(old.requirements))
        #expect(!change.isStale(fresh.requirements))
    }
}
