public import Foundation
import X509

/// Trusted decisions per (presented chain, connection requirements, evaluator configuration),
/// kept until the earliest `notAfter` of the validated chain, so a repeat handshake with a chain
/// seen before pays a hash lookup instead of a path build.
///
/// The key is the exact presented chain (DER, in order) together with the whole
/// ``ConnectionRequirements`` (host, port, certificate rules, trust anchors and their profile,
/// pins) and the evaluator's ``ServerTrust/Configuration`` (public suffix list, limits). A
/// different host, a changed pin set, another anchor or an evaluator configured otherwise is a
/// different key, so a decision is never reused under a policy it was not made for, even when
/// evaluators share one cache.
///
/// Only clean trusted decisions are kept. A rejection is evaluated again every time (a server
/// that fixes its chain is accepted at once), and so is a decision carrying a pin report
/// (report-only mismatch, expired pins) or a CT report other than compliant (a stale log list),
/// so that every such connection is reported. A decision made with Certificate Transparency is
/// kept no longer than its log list stays fresh. The cache is
/// bounded: when full, expired entries go first, then the oldest.
///
/// ```swift
/// let cache = TrustDecisionCache()
/// let decision = await ServerTrust().evaluate(presentedChain: der, requirements: requirements, cache: cache)
/// ```
public final class TrustDecisionCache: Sendable {
    /// A cached decision and what the caller stored with it.
    public struct Hit: Sendable {
        /// The trusted decision, as first evaluated (its `chain` is the validated chain).
        public let decision: TrustDecision
        /// What the caller stored with the decision (a TLS integration keeps its own ready-made
        /// form of the chain here, so a repeat handshake does not parse it again).
        public let attachment: (any Sendable)?
    }

    private struct Key: Hashable, Sendable {
        let presentedChain: [[UInt8]]
        let requirements: ConnectionRequirements
        let configuration: ServerTrust.Configuration

        /// The chain's bytes are hashed in bulk: `[UInt8]`'s own `hash(into:)` feeds the hasher
        /// one byte at a time, which made hashing a 3 KB chain most of a lookup's cost.
        func hash(into hasher: inout Hasher) {
            hasher.combine(self.presentedChain.count)
            for certificate in self.presentedChain {
                hasher.combine(certificate.count)
                certificate.withUnsafeBytes { hasher.combine(bytes: $0) }
            }
            hasher.combine(self.requirements)
            hasher.combine(self.configuration)
        }
    }

    private struct Entry: Sendable {
        let hit: Hit
        let expires: Date
        let inserted: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var counter: UInt64 = 0
    }

    /// The entries behind a lock (`Synchronization.Mutex` needs newer platforms than the package's).
    // SAFETY: `state` is only read or written inside `withState`, which holds `lock`.
    private final class StateBox: @unchecked Sendable {
        private let lock = NSLock()
        private var state = State()

        func withState<Result>(_ body: (inout State) -> Result) -> Result {
            self.lock.lock()
            defer { self.lock.unlock() }
            return body(&self.state)
        }
    }

    private let state = StateBox()

    /// The most decisions kept.
    public let capacity: Int

    /// Creates an empty cache holding at most `capacity` decisions (at least one).
    public init(capacity: Int = 512) {
        self.capacity = max(1, capacity)
    }

    /// The number of decisions held (expired ones included until they are looked up or evicted).
    public var count: Int { self.state.withState { $0.entries.count } }

    /// The cached decision for `presentedChain` under `requirements` and an evaluator with
    /// `configuration`, if one was recorded and the validated chain is still within its validity
    /// at `now`. An expired entry is dropped.
    public func lookup(
        presentedChain: [[UInt8]],
        requirements: ConnectionRequirements,
        configuration: ServerTrust.Configuration = .init(),
        now: Date
    ) -> Hit? {
        let key = Key(presentedChain: presentedChain, requirements: requirements, configuration: configuration)
        return self.state.withState { state in
            guard let entry = state.entries[key] else { return nil }
            guard now < entry.expires else {
                state.entries[key] = nil
                return nil
            }
            return entry.hit
        }
    }

    /// Keeps `decision` for `presentedChain` under `requirements` and `configuration` (the
    /// configuration of the evaluator that made it) if it is trusted, carries no pin report and
    /// its chain is valid at `now`; otherwise does nothing. `attachment` comes back with every hit.
    public func record(
        _ decision: TrustDecision,
        presentedChain: [[UInt8]],
        requirements: ConnectionRequirements,
        configuration: ServerTrust.Configuration = .init(),
        now: Date,
        attachment: (any Sendable)? = nil
    ) {
        guard decision.isTrusted, decision.pinReport == nil, !decision.chain.isEmpty,
            decision.transparencyReport.map({ $0.result == .compliant }) ?? true,
            var expires = decision.chain.map(\.notValidAfter).min()
        else { return }
        // A CT decision lasts as long as the log list it was made with is fresh enough.
        if let listExpiry = requirements.certificateTransparency?.logListExpiry { expires = min(expires, listExpiry) }
        guard now < expires else { return }
        let key = Key(presentedChain: presentedChain, requirements: requirements, configuration: configuration)
        let hit = Hit(decision: decision, attachment: attachment)
        self.state.withState { state in
            if state.entries.count >= self.capacity, state.entries[key] == nil {
                state.entries = state.entries.filter { now < $0.value.expires }
                if state.entries.count >= self.capacity,
                    let oldest = state.entries.min(by: { $0.value.inserted < $1.value.inserted })?.key
                {
                    state.entries[oldest] = nil
                }
            }
            state.counter += 1
            state.entries[key] = Entry(hit: hit, expires: expires, inserted: state.counter)
        }
    }

    /// Forgets every decision (after a policy change that should take effect for chains seen before).
    public func removeAll() {
        self.state.withState { $0.entries.removeAll() }
    }
}

extension ServerTrust {
    /// Evaluates a presented chain, answering from `cache` when the same chain was trusted
    /// before under the same requirements, and recording a new clean trusted decision.
    public func evaluate(
        presentedChain: [[UInt8]],
        requirements: ConnectionRequirements,
        now: Date = Date(),
        cache: TrustDecisionCache
    ) async -> TrustDecision {
        if let hit = cache.lookup(
            presentedChain: presentedChain,
            requirements: requirements,
            configuration: self.configuration,
            now: now
        ) {
            return hit.decision
        }
        let decision = await self.evaluate(presentedChain: presentedChain, requirements: requirements, now: now)
        cache.record(
            decision,
            presentedChain: presentedChain,
            requirements: requirements,
            configuration: self.configuration,
            now: now
        )
        return decision
    }
}
