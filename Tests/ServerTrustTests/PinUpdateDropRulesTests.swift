import Foundation
import ServerTrust
import Testing

/// Issue 51 item 18: a signed update that re-pins an enforced pattern as `reportOnly`, or with
/// an `expiration` already past, stops enforcing its pins as surely as one that leaves it out,
/// so it needs what an unpin needs: an explicit, signed `{"unpin": true}`.
@Suite("Pin-set updates: report-only and expired re-pins are drops")
struct PinUpdateDropRulesTests {
    typealias World = PinSetUpdateTests.World

    static func pins(expiration: Date? = nil, mode: PinSet.Mode = .enforce) throws -> PinSetUpdate.Entry {
        .pinned(
            try PinSet(
                pins: [try PinSetUpdateTests.pin("new-1"), try PinSetUpdateTests.pin("new-2")],
                expiration: expiration,
                mode: mode
            )
        )
    }

    @Test func aReportOnlyRePinOfAnEnforcedPatternIsRefusedAsADrop() throws {
        let world = try World()
        let reportOnly = try world.signed(
            try world.update(entries: ["api.example.com": try Self.pins(mode: .reportOnly)])
        )
        let error = PinSetUpdateTests.refusal { () throws(ServerTrustError) in try world.verify(reportOnly) }
        #expect(error?.code == .pinUpdateDropsHost)
        #expect(error?.message.contains("api.example.com") == true)
        #expect(error?.message.contains("report-only") == true)
    }

    @Test func aRePinWhoseExpirationHasPassedIsRefusedAsADrop() throws {
        let world = try World()
        let expired = try world.signed(
            try world.update(
                entries: ["api.example.com": try Self.pins(expiration: PinSetUpdateTests.now.addingTimeInterval(-1))]
            )
        )
        let error = PinSetUpdateTests.refusal { () throws(ServerTrustError) in try world.verify(expired) }
        #expect(error?.code == .pinUpdateDropsHost)
        #expect(error?.message.contains("api.example.com") == true)
        // The same pins expiring later are enforced now: accepted.
        let later = try world.signed(
            try world.update(
                entries: [
                    "api.example.com": try Self.pins(expiration: PinSetUpdateTests.now.addingTimeInterval(86_400))
                ]
            )
        )
        #expect(try world.verify(later).version == 2)
    }

    @Test func enforcementEndsOnlyWithAnExplicitUnpinOrWhereNothingWasEnforced() throws {
        let world = try World()
        // An explicit unpin: accepted.
        let unpin = try world.signed(try world.update(entries: ["api.example.com": .unpinned]))
        #expect(world.compiled.applying(try world.verify(unpin)).rules.isEmpty)
        // A report-only set for a pattern nothing enforces now: nothing is dropped.
        let newPattern = try world.signed(
            try world.update(entries: ["other.example.com": try Self.pins(mode: .reportOnly)])
        )
        #expect(try world.verify(newPattern).version == 2)
        // A pattern already report-only may stay report-only.
        let current = world.compiled.applying(try world.verify(newPattern))
        let again = try world.signed(
            try world.update(version: 3, entries: ["other.example.com": try Self.pins(mode: .reportOnly)])
        )
        #expect(try world.verify(again, current: current, appliedVersion: 2).version == 3)
    }
}
