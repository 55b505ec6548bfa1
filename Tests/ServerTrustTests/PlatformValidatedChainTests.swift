import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing
import X509

/// `evaluate(platformValidatedChain:)`: the rules and pins the URLSession transport applies to
/// the chain Security.framework validated. The path itself is the platform's job, so these
/// chains are passed already ordered leaf → anchor.
@Suite("ServerTrust: platform-validated chains")
struct PlatformValidatedChainTests {
    static func requirements(pins: PinSet? = nil) -> ConnectionRequirements {
        ConnectionRequirements(
            host: "localhost",
            trustAnchors: Fixtures.pki.trustAnchors,
            pinScope: pins == nil ? nil : "localhost",
            pins: pins
        )
    }

    static func validated(_ chain: TestPKI.Chain) -> [[UInt8]] {
        chain.derChain + [Fixtures.pki.root.derBytes]
    }

    @Test func aStrongChainWithoutPinsIsTrusted() throws {
        let decision = ServerTrust().evaluate(
            platformValidatedChain: Self.validated(try Fixtures.pki.validChain()),
            requirements: Self.requirements(),
            now: Fixtures.now
        )
        #expect(decision.isTrusted)
        #expect(decision.chain.count == 3)
    }

    @Test func weakKeysAndSignaturesAreRefused() throws {
        let sha1 = ServerTrust().evaluate(
            platformValidatedChain: Self.validated(try Fixtures.pki.sha1Chain()),
            requirements: Self.requirements(),
            now: Fixtures.now
        )
        #expect(sha1.failure?.code == .weakSignatureAlgorithm)
        let rsa1024 = ServerTrust().evaluate(
            platformValidatedChain: Self.validated(try Fixtures.pki.rsa1024Chain()),
            requirements: Self.requirements(),
            now: Fixtures.now
        )
        #expect(rsa1024.failure?.code == .weakKey)
    }

    @Test func pinsAreCheckedAgainstTheValidatedChainAnchorIncluded() throws {
        let chain = Self.validated(try Fixtures.pki.validChain())
        let rootPinned = try PinSet(pins: [Fixtures.pki.root.pin, Fixtures.pki.untrustedRoot.pin])
        #expect(
            ServerTrust().evaluate(
                platformValidatedChain: chain,
                requirements: Self.requirements(pins: rootPinned),
                now: Fixtures.now
            )
            .isTrusted
        )
        let elsewhere = try PinSet(pins: [Fixtures.pki.untrustedRoot.pin, Fixtures.pki.untrustedIntermediate.pin])
        let decision = ServerTrust().evaluate(
            platformValidatedChain: chain,
            requirements: Self.requirements(pins: elsewhere),
            now: Fixtures.now
        )
        #expect(decision.failure?.code == .pinMismatch)
        #expect(decision.pinReport?.servedChainPins.count == 3)
    }

    @Test func emptyAndUnreadableChainsAreRefused() {
        #expect(
            ServerTrust().evaluate(platformValidatedChain: [], requirements: Self.requirements()).failure?.code
                == .emptyChain
        )
        #expect(
            ServerTrust().evaluate(
                platformValidatedChain: [[0x30, 0x03, 0x02, 0x01, 0x01]],
                requirements: Self.requirements()
            )
            .failure?.code == .malformedCertificate
        )
    }
}
