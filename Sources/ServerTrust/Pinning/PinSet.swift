public import Foundation

/// The pins accepted for a host pattern, with an optional expiry and a report-only mode.
///
/// A pin set made with ``init(pins:expiration:mode:)`` matches a validated chain when any
/// certificate of it, the trust anchor included, has one of the pins. One made with
/// ``init(certificateAuthorityPins:leafPins:expiration:mode:)`` has ATS's `NSPinnedDomains`
/// meaning: CA pins match a certificate of the chain other than the leaf (an intermediate or the
/// anchor), leaf pins match the leaf only, and when both are given both must match. An enforced
/// set must hold at least two pins in each of its groups, so that a server can move to its backup
/// key without locking users out; the initializer refuses a set without a backup.
public struct PinSet: Hashable, Sendable {
    /// Which certificates of the validated chain a group of pins may match.
    public struct Scope: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: Hashable, Sendable { case anyCertificate, leaf, certificateAuthority }
        fileprivate let base: Base

        /// Any certificate, the leaf and the anchor included.
        public static let anyCertificate = Scope(base: .anyCertificate)
        /// The leaf only (ATS's `NSPinnedLeafIdentities`).
        public static let leaf = Scope(base: .leaf)
        /// A CA certificate of the chain: an intermediate or the anchor (ATS's `NSPinnedCAIdentities`).
        public static let certificateAuthority = Scope(base: .certificateAuthority)

        public var description: String {
            switch self.base {
            case .anyCertificate: "any certificate"
            case .leaf: "the leaf"
            case .certificateAuthority: "a CA certificate"
            }
        }
    }

    /// Pins of which one must match within a scope.
    public struct Group: Hashable, Sendable {
        /// Where the pins may match.
        public let scope: Scope
        /// The pins, in configuration order, without duplicates.
        public let pins: [Pin]
    }

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

    /// Every pin of the set, in configuration order, without duplicates.
    public let pins: [Pin]
    /// The groups that must each match (one group, of scope ``Scope/anyCertificate``, for a set
    /// made with ``init(pins:expiration:mode:)``).
    public let groups: [Group]
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
        try self.init(groups: [(.anyCertificate, pins)], expiration: expiration, mode: mode)
    }

    /// Creates a pin set with ATS's `NSPinnedDomains` meaning: one of `certificateAuthorityPins`
    /// must match a CA certificate of the validated chain (not the leaf), one of `leafPins` the
    /// leaf; an empty list asks nothing, but one of them must be given.
    /// - Throws: ``ServerTrustError/Code/invalidPin`` when both are empty, and
    ///   ``ServerTrustError/Code/missingBackupPin`` when an enforced set has fewer than two
    ///   distinct pins in a group it has.
    public init(
        certificateAuthorityPins: [Pin],
        leafPins: [Pin],
        expiration: Date? = nil,
        mode: Mode = .enforce
    ) throws(ServerTrustError) {
        var groups: [(Scope, [Pin])] = []
        if !certificateAuthorityPins.isEmpty { groups.append((.certificateAuthority, certificateAuthorityPins)) }
        if !leafPins.isEmpty { groups.append((.leaf, leafPins)) }
        try self.init(groups: groups, expiration: expiration, mode: mode)
    }

    private init(groups: [(Scope, [Pin])], expiration: Date?, mode: Mode) throws(ServerTrustError) {
        var made: [Group] = []
        var all: [Pin] = []
        for (scope, pins) in groups {
            var seen = Set<Pin>()
            let unique = pins.filter { seen.insert($0).inserted }
            guard !unique.isEmpty else { continue }
            if mode == .enforce, unique.count < 2 {
                let which = scope == .anyCertificate ? "" : " for \(scope)"
                throw ServerTrustError(
                    .missingBackupPin,
                    "an enforced pin set needs a backup pin\(which) (at least two distinct pins), it has \(unique.count)"
                )
            }
            made.append(Group(scope: scope, pins: unique))
            all += unique.filter { !all.contains($0) }
        }
        guard !made.isEmpty else { throw ServerTrustError(.invalidPin, "a pin set needs at least one pin") }
        self.groups = made
        self.pins = all
        self.expiration = expiration
        self.mode = mode
    }

    /// This set with another expiration (the same groups and mode).
    func expiring(_ expiration: Date?) -> PinSet {
        PinSet(groups: self.groups, pins: self.pins, expiration: expiration, mode: self.mode)
    }

    private init(groups: [Group], pins: [Pin], expiration: Date?, mode: Mode) {
        self.groups = groups
        self.pins = pins
        self.expiration = expiration
        self.mode = mode
    }

    /// Whether the pins of a validated chain (leaf first, anchor last) satisfy every group.
    public func matches(servedChainPins served: [Pin]) -> Bool {
        self.groups.allSatisfy { group in
            let candidates: ArraySlice<Pin>
            switch group.scope.base {
            case .anyCertificate: candidates = served[...]
            case .leaf: candidates = served.prefix(1)
            case .certificateAuthority: candidates = served.dropFirst()
            }
            return candidates.contains(where: group.pins.contains)
        }
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

    /// Removes the pins of a pattern, if it has any.
    public mutating func unpin(_ pattern: HostPattern) {
        self.rules[pattern] = nil
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
