import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing

/// The decision cache a repeat handshake consults: what it keeps, for how long, and under which key.
@Suite("TrustDecisionCache")
struct TrustDecisionCacheTests {
    let pki = Fixtures.pki

    func requirements(
        host: String = "localhost",
        pins: PinSet? = nil,
        anchors: TrustAnchors? = nil
    ) -> ConnectionRequirements {
        ConnectionRequirements(
            host: host,
            trustAnchors: anchors ?? Fixtures.pki.trustAnchors,
            pinScope: pins == nil ? nil : host,
            pins: pins
        )
    }

    @Test func aTrustedChainIsAnsweredFromTheCacheWithTheValidatedChain() async throws {
        let chain = try pki.validChain()
        let cache = TrustDecisionCache()
        let requirements = self.requirements()
        #expect(cache.lookup(presentedChain: chain.derChain, requirements: requirements, now: Fixtures.now) == nil)

        let decision = await ServerTrust().evaluate(
            presentedChain: chain.derChain,
            requirements: requirements,
            now: Fixtures.now,
            cache: cache
        )
        #expect(decision.isTrusted)
        #expect(cache.count == 1)

        let hit = try #require(
            cache.lookup(presentedChain: chain.derChain, requirements: requirements, now: Fixtures.now)
        )
        #expect(hit.decision.isTrusted)
        // Leaf, intermediate, root: the anchor comes back too.
        #expect(hit.decision.chain == [chain.certificates[0], chain.certificates[1], pki.root.certificate])
        #expect(hit.attachment == nil)

        // What a caller stores with a decision comes back with every hit.
        cache.record(
            decision,
            presentedChain: chain.derChain,
            requirements: requirements,
            now: Fixtures.now,
            attachment: "ready-made"
        )
        let again = try #require(
            cache.lookup(presentedChain: chain.derChain, requirements: requirements, now: Fixtures.now)
        )
        #expect(again.attachment as? String == "ready-made")
        #expect(cache.count == 1)
    }

    @Test func anotherHostAnotherPinSetOrAnotherAnchorIsAMiss() async throws {
        let chain = try pki.validChain()
        let cache = TrustDecisionCache()
        _ = await ServerTrust().evaluate(
            presentedChain: chain.derChain,
            requirements: self.requirements(),
            now: Fixtures.now,
            cache: cache
        )

        #expect(
            cache.lookup(
                presentedChain: chain.derChain,
                requirements: self.requirements(host: "127.0.0.1"),
                now: Fixtures.now
            ) == nil
        )
        let pins = try PinSet(pins: [pki.intermediate.pin, pki.root.pin])
        #expect(
            cache.lookup(presentedChain: chain.derChain, requirements: self.requirements(pins: pins), now: Fixtures.now)
                == nil
        )
        let other = TrustAnchors.only([pki.root.certificate, pki.interceptionCA.certificate])
        #expect(
            cache.lookup(
                presentedChain: chain.derChain,
                requirements: self.requirements(anchors: other),
                now: Fixtures.now
            ) == nil
        )
        // The same chain in a different order is a different presentation.
        #expect(
            cache.lookup(
                presentedChain: chain.derChain.reversed(),
                requirements: self.requirements(),
                now: Fixtures.now
            ) == nil
        )
    }

    @Test func evaluatorsConfiguredOtherwiseDoNotShareAnAnswer() async throws {
        // `*.foo.example` for a.foo.example: trusted with the built-in suffix list, refused by an
        // evaluator whose list makes `foo.example` a public suffix.
        let chain = try pki.leaf {
            $0.dnsNames = ["*.foo.example"]
            $0.ipAddresses = []
            $0.commonName = "*.foo.example"
        }
        let requirements = self.requirements(host: "a.foo.example")
        let cache = TrustDecisionCache()
        let lax = ServerTrust()
        let strict = ServerTrust(configuration: .init(publicSuffixes: PublicSuffixList(parsing: "foo.example\n")))
        #expect(
            await lax.evaluate(
                presentedChain: chain.derChain,
                requirements: requirements,
                now: Fixtures.now,
                cache: cache
            ).isTrusted
        )
        #expect(cache.count == 1)
        let decision = await strict.evaluate(
            presentedChain: chain.derChain,
            requirements: requirements,
            now: Fixtures.now,
            cache: cache
        )
        #expect(decision.failure?.code == .hostnameMismatch)
        // A shorter chain limit is another configuration too.
        let short = ServerTrust(configuration: .init(maximumChainLength: 1))
        let limited = await short.evaluate(
            presentedChain: chain.derChain,
            requirements: requirements,
            now: Fixtures.now,
            cache: cache
        )
        #expect(limited.failure?.code == .chainTooLong)
        // Near miss: the same configuration, made again, is the same key.
        let again = ServerTrust(configuration: .init())
        #expect(
            cache.lookup(
                presentedChain: chain.derChain,
                requirements: requirements,
                configuration: again.configuration,
                now: Fixtures.now
            ) != nil
        )
    }

    @Test func aCachedDecisionDoesNotOutliveTheChain() async throws {
        let chain = try pki.validChain()
        let cache = TrustDecisionCache()
        let requirements = self.requirements()
        _ = await ServerTrust().evaluate(
            presentedChain: chain.derChain,
            requirements: requirements,
            now: Fixtures.now,
            cache: cache
        )
        let expiry = chain.certificates.map(\.notValidAfter).min()!

        #expect(
            cache.lookup(presentedChain: chain.derChain, requirements: requirements, now: expiry.addingTimeInterval(-1))
                != nil
        )
        #expect(cache.lookup(presentedChain: chain.derChain, requirements: requirements, now: expiry) == nil)
        #expect(cache.count == 0)
        // Evaluated again after expiry, the chain is refused and nothing is cached.
        let late = await ServerTrust().evaluate(
            presentedChain: chain.derChain,
            requirements: requirements,
            now: expiry.addingTimeInterval(1),
            cache: cache
        )
        #expect(late.failure?.code == .expired)
        #expect(cache.count == 0)
    }

    @Test func rejectionsAndReportedDecisionsAreNeverCached() async throws {
        let cache = TrustDecisionCache()
        let wrongHost = await ServerTrust().evaluate(
            presentedChain: try pki.validChain().derChain,
            requirements: self.requirements(host: "example.com"),
            now: Fixtures.now,
            cache: cache
        )
        #expect(wrongHost.failure?.code == .hostnameMismatch)

        let reportOnly = try PinSet(pins: [pki.untrustedRoot.pin], mode: .reportOnly)
        let reported = await ServerTrust().evaluate(
            presentedChain: try pki.validChain().derChain,
            requirements: self.requirements(pins: reportOnly),
            now: Fixtures.now,
            cache: cache
        )
        #expect(reported.isTrusted)
        #expect(reported.pinReport?.result == .reportOnly)
        #expect(cache.count == 0)
    }

    @Test func aFullCacheEvictsTheOldestDecision() async throws {
        let cache = TrustDecisionCache(capacity: 2)
        let chains = try (0..<3).map { _ in try pki.validChain() }
        for chain in chains {
            _ = await ServerTrust().evaluate(
                presentedChain: chain.derChain,
                requirements: self.requirements(),
                now: Fixtures.now,
                cache: cache
            )
        }
        #expect(cache.count == 2)
        #expect(
            cache.lookup(presentedChain: chains[0].derChain, requirements: self.requirements(), now: Fixtures.now)
                == nil
        )
        #expect(
            cache.lookup(presentedChain: chains[1].derChain, requirements: self.requirements(), now: Fixtures.now)
                != nil
        )
        #expect(
            cache.lookup(presentedChain: chains[2].derChain, requirements: self.requirements(), now: Fixtures.now)
                != nil
        )
        cache.removeAll()
        #expect(cache.count == 0)
    }
}
