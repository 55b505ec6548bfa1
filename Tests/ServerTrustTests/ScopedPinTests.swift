import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing

/// CA pins and leaf pins, with the meaning of ATS's `NSPinnedCAIdentities` and
/// `NSPinnedLeafIdentities`: CA pins match an intermediate or the anchor, never the leaf; leaf
/// pins match the leaf only; given both, both must match.
@Suite("Scoped pins")
struct ScopedPinTests {
    let pki = Fixtures.pki

    @Test func caPinsMatchACertificateAuthorityOfTheChain() async throws {
        let chain = try pki.validChain()
        let pins = try PinSet(certificateAuthorityPins: [pki.intermediate.pin, pki.untrustedRoot.pin], leafPins: [])
        #expect(try await evaluate(chain, pins: pins).failure == nil)
        let rootPins = try PinSet(certificateAuthorityPins: [pki.root.pin, pki.untrustedRoot.pin], leafPins: [])
        #expect(try await evaluate(chain, pins: rootPins).failure == nil)
    }

    @Test func aCAPinNeverMatchesTheLeaf() async throws {
        let chain = try pki.validChain()
        // The leaf's own key pinned as a CA identity: no CA of the chain has it.
        let pins = try PinSet(certificateAuthorityPins: [chain.pins[0], pki.untrustedRoot.pin], leafPins: [])
        #expect(try await evaluate(chain, pins: pins).failure?.code == .pinMismatch)
        // The same pins unscoped match the leaf.
        #expect(
            try await evaluate(chain, pins: try PinSet(pins: [chain.pins[0], pki.untrustedRoot.pin])).failure == nil
        )
    }

    @Test func leafPinsMatchTheLeafOnly() async throws {
        let chain = try pki.validChain()
        let leaf = try PinSet(certificateAuthorityPins: [], leafPins: [chain.pins[0], pki.untrustedRoot.pin])
        #expect(try await evaluate(chain, pins: leaf).failure == nil)
        let intermediateAsLeaf = try PinSet(
            certificateAuthorityPins: [],
            leafPins: [pki.intermediate.pin, pki.root.pin]
        )
        #expect(try await evaluate(chain, pins: intermediateAsLeaf).failure?.code == .pinMismatch)
    }

    @Test func bothGroupsMustMatch() async throws {
        let chain = try pki.validChain()
        let other = try pki.validChain()  // another leaf key under the same CA
        let both = try PinSet(
            certificateAuthorityPins: [pki.intermediate.pin, pki.root.pin],
            leafPins: [chain.pins[0], pki.untrustedRoot.pin]
        )
        #expect(try await evaluate(chain, pins: both).failure == nil)
        let decision = try await evaluate(other, pins: both)
        #expect(decision.failure?.code == .pinMismatch)  // the CA matches, the leaf does not
        let wrongCA = try PinSet(
            certificateAuthorityPins: [pki.untrustedRoot.pin, pki.untrustedIntermediate.pin],
            leafPins: [chain.pins[0], other.pins[0]]
        )
        // The leaf matches, the CA does not.
        #expect(try await evaluate(chain, pins: wrongCA).failure?.code == .pinMismatch)
    }

    @Test func everyEnforcedGroupNeedsABackup() throws {
        let pki = self.pki
        #expect(throws: ServerTrustError(.missingBackupPin, "")) {
            try PinSet(
                certificateAuthorityPins: [pki.intermediate.pin, pki.root.pin],
                leafPins: [pki.untrustedRoot.pin]
            )
        }
        #expect(throws: ServerTrustError(.invalidPin, "")) { try PinSet(certificateAuthorityPins: [], leafPins: []) }
        // Report-only: one pin is enough.
        let reportOnly = try PinSet(certificateAuthorityPins: [pki.root.pin], leafPins: [], mode: .reportOnly)
        #expect(reportOnly.groups.map(\.scope) == [.certificateAuthority])
    }

    @Test func thePolicyFileSaysCAPinsAndLeafPins() throws {
        let pki = self.pki
        let json = """
            {"pinnedDomains": {"api.example.com": {"caPins": ["\(pki.intermediate.pin)", "\(pki.root.pin)"], "leafPins": ["\(pki.untrustedRoot.pin)", "\(pki.untrustedIntermediate.pin)"]}}}
            """
        let policy = try TransportSecurityPolicy(json: Data(json.utf8))
        let pins = try #require(policy.pinning.rule(for: "api.example.com")?.pins)
        #expect(pins.groups.map(\.scope) == [.certificateAuthority, .leaf])
        #expect(
            pins
                == (try PinSet(
                    certificateAuthorityPins: [pki.intermediate.pin, pki.root.pin],
                    leafPins: [pki.untrustedRoot.pin, pki.untrustedIntermediate.pin]
                ))
        )

        let both =
            #"{"pinnedDomains": {"a.example": {"pins": ["\#(pki.root.pin)", "\#(pki.intermediate.pin)"], "caPins": ["\#(pki.root.pin)", "\#(pki.intermediate.pin)"]}}}"#
        do {
            _ = try TransportSecurityPolicy(json: Data(both.utf8))
            Issue.record("pins and caPins together were accepted")
        } catch {
            #expect(error.code == .invalidPolicyFile)
            #expect(error.keyPath == "$.pinnedDomains[\"a.example\"].pins")
        }
        let noBackup = #"{"pinnedDomains": {"a.example": {"leafPins": ["\#(pki.root.pin)"]}}}"#
        do {
            _ = try TransportSecurityPolicy(json: Data(noBackup.utf8))
            Issue.record("a leaf pin without a backup was accepted")
        } catch {
            #expect(error.message.contains("backup pin for the leaf"))
        }
    }
}
