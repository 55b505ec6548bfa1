public import Foundation

/// The pins accepted for a host pattern, with an optional expiry and a report-only mode.
///
/// A pin set matches a validated chain when any certificate of it, the trust anchor included,
/// has one of the pins. An enforced set must hold at least two pins, so that a server can move to
/// its backup key without locking users out; the initializer refuses a set without a backup.
public struct PinSet: Hashable, Sendable {
    /// How a mismatch is handled.
    public struct Mode: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: Hashable, Sendable { case enforce, reportOnly }
        fileprivate let base: Base

        /// A mismatch rejects the connection and produces a report.
        public static let enforce = Mode(base: .enforce)
        /// A mismatch only produces a report; the connection goes on. For rolling pins out.
        public static let reportOnly = Mode(base: .reportOnly)

        public var description: String { self.base == .enforce ? "enforce" : "report-only" }
    }

    /// The accepted pins, in configuration order, without duplicates.
    public let pins: [Pin]
    /// After this date the set is no longer enforced (a mismatch is still reported), so an app
    /// that is never updated cannot be bricked by a pin rotation. Nil: never expires.
    public let expiration: Date?
    /// Enforce or report only.
    public let mode: Mode

    /// Creates a pin set.
    /// - Throws: ``ServerTrustError/Code/invalidPin`` when there are no pins, and
    ///   ``ServerTrustError/Code/missingBackupPin`` when an enforced set has fewer than two
    ///   distinct pins.
    public init(pins: [Pin], expiration: Date? = nil, mode: Mode = .enforce) throws(ServerTrustError) {
        var seen = Set<Pin>()
        let unique = pins.filter { seen.insert($0).inserted }
        guard !unique.isEmpty else { throw ServerTrustError(.invalidPin, "a pin set needs at least one pin") }
        if mode == .enforce, unique.count < 2 {
            throw ServerTrustError(
                .missingBackupPin,
                "an enforced pin set needs a backup pin (at least two distinct pins), it has \(unique.count)"
            )
        }
        self.pins = unique
        self.expiration = expiration
        self.mode = mode
    }

    /// Parses the pins from text (`sha256/…` or bare base64) and creates the set.
    /// - Throws: as ``init(pins:expiration:mode:)``, and ``ServerTrustError/Code/invalidPin`` for bad text.
    public init(_ pins: [String], expiration: Date? = nil, mode: Mode = .enforce) throws(ServerTrustError) {
        let parsed = try pins.map { text throws(ServerTrustError) in try Pin(text) }
        try self.init(pins: parsed, expiration: expiration, mode: mode)
    }

    /// Whether the set is enforced at `date`: enforce mode and not expired.
    public func isEnforced(at date: Date) -> Bool {
        guard self.mode == .enforce else { return false }
        if let expiration { return date < expiration }
        return true
    }
}

/// Pin sets by host pattern; for a host the most specific matching pattern wins.
public struct PinningPolicy: Hashable, Sendable {
    /// The rules, one pin set per pattern.
    public private(set) var rules: [HostPattern: PinSet]

    /// No pins: chain validation alone decides.
    public static let none = PinningPolicy()

    /// Creates a policy from pin sets keyed by pattern.
    public init(_ rules: [HostPattern: PinSet] = [:]) {
        self.rules = rules
    }

    /// Sets (or replaces) the pin set for a pattern.
    public mutating func pin(_ pattern: HostPattern, to pins: PinSet) {
        self.rules[pattern] = pins
    }

    /// The most specific rule matching the host, if any.
    public func rule(for host: String) -> (pattern: HostPattern, pins: PinSet)? {
        var best: (pattern: HostPattern, pins: PinSet)?
        for (pattern, pins) in self.rules where pattern.matches(host) {
            if let current = best, !pattern.isMoreSpecific(than: current.pattern) { continue }
            best = (pattern, pins)
        }
        return best
    }
}
