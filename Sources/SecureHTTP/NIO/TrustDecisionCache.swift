import Foundation
import NIOConcurrencyHelpers
import ServerTrust

/// Trusted decisions per (presented chain, host, policy), kept until the earliest `notAfter`
/// of the validated chain, so a reused or resumed connection does not pay for validation again.
///
/// Only trusted decisions are cached: a rejection is re-evaluated every time, so a server that
/// fixes its chain is accepted at once. The cache is bounded; when full, expired entries go
/// first, then the oldest.
final class TrustDecisionCache: Sendable {
    struct Key: Hashable, Sendable {
        let presentedChain: [[UInt8]]
        let requirements: ConnectionRequirements
    }

    struct Entry: Sendable {
        /// The validated chain in DER, leaf first, anchor last.
        let validatedChain: [[UInt8]]
        let expires: Date
        let inserted: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var counter: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())
    let capacity: Int

    init(capacity: Int = 512) {
        self.capacity = max(1, capacity)
    }

    /// The validated chain of a cached, still valid decision.
    func lookup(_ key: Key, now: Date) -> [[UInt8]]? {
        self.state.withLockedValue { state in
            guard let entry = state.entries[key] else { return nil }
            guard now < entry.expires else {
                state.entries[key] = nil
                return nil
            }
            return entry.validatedChain
        }
    }

    func insert(_ key: Key, validatedChain: [[UInt8]], expires: Date, now: Date) {
        guard now < expires else { return }
        self.state.withLockedValue { state in
            if state.entries.count >= self.capacity, state.entries[key] == nil {
                state.entries = state.entries.filter { now < $0.value.expires }
                if state.entries.count >= self.capacity,
                    let oldest = state.entries.min(by: { $0.value.inserted < $1.value.inserted })?.key
                {
                    state.entries[oldest] = nil
                }
            }
            state.counter += 1
            state.entries[key] = Entry(validatedChain: validatedChain, expires: expires, inserted: state.counter)
        }
    }
}
