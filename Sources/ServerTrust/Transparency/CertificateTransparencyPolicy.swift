public import Foundation

/// Which CT policy decides whether a certificate's SCTs are enough: Apple's or Chrome's.
///
/// Both take the SCTs whose signatures verify with a listed log's key and are not from the
/// future, judge each by its log's state at the time of the check, and accept a certificate
/// through either of two paths: enough *embedded* SCTs for its lifetime, or SCTs *delivered* in
/// the TLS handshake or a stapled OCSP response. Lifetime is `notAfter − notBefore`, exactly:
/// 180 days or less needs 2 SCTs from distinct logs, anything longer 3 (both policies' tables;
/// Apple's and Chromium's code compare `≤ 180 × 86,400 s`). SCTs beyond what a path needs never
/// hurt (Chrome C6).
public struct CertificateTransparencyPolicy: Hashable, Sendable, Codable, CustomStringConvertible {
    enum Kind: String, Hashable, Sendable, Codable {
        case apple, chrome
    }

    let kind: Kind

    /// Apple's Certificate Transparency policy (support.apple.com/en-us/103214), as ATS applies
    /// it with `NSRequiresCertificateTransparency`:
    /// - A3: "at least two SCTs issued from a CT log — once-approved or currently approved at the
    ///   time of check". *Currently approved*: Usable, ReadOnly (an SCT issued before the log
    ///   turned read-only) or Qualified; *once-approved*: Retired, with the SCT and the
    ///   certificate's issuance (its earliest SCT from a current log) before the retirement.
    /// - A3b, embedded: "at least one embedded SCT from a currently approved log and at least the
    ///   number of SCTs from once or currently approved logs" of the table (A5): 180 days or less,
    ///   2 SCTs from distinct logs with at most 1 per log operator counted; 181 to 398 days, 3
    ///   with at most 2 per operator. So two operators at least, either way.
    /// - A3a, delivered: "at least two SCTs from currently approved CT logs with one SCT presented
    ///   via TLS extension or OCSP Stapling".
    /// - A4: "at least one SCT must be issued from a log compliant with RFC 6962" (listed under
    ///   `logs`, not `tiled_logs`).
    /// - Per SCT, as Apple's trustd does: a log with a `temporal_interval` counts only for a
    ///   certificate whose `notAfter` falls inside it.
    public static let apple = CertificateTransparencyPolicy(kind: .apple)

    /// Chrome's Certificate Transparency policy
    /// (googlechrome.github.io/CertificateTransparency/ct_policy.html):
    /// - C3, embedded: (1) "at least one Embedded SCT from a CT Log that was Qualified, Usable, or
    ///   ReadOnly at the time of check"; (2) "Embedded SCTs from at least N distinct CT Logs that
    ///   were Qualified, Usable, ReadOnly, or Retired at the time of check" (N = 2 for ≤ 180 days,
    ///   3 beyond); (3) "among the SCTs satisfying requirement 2, at least two SCTs must be issued
    ///   from distinct CT Log Operators"; (4) before 2026-04-15, one of them from an RFC 6962 log.
    /// - C4, delivered by OCSP or TLS: "at least two SCTs from a CT Log that was Qualified,
    ///   Usable, or ReadOnly at the time of check", from two distinct operators (and the RFC 6962
    ///   rule until 2026-04-15).
    /// - C5: an SCT's operator is the one running the log when it was issued (`previous_operators`).
    /// - C7: a Retired log's SCT counts only if issued before the retirement; the certificate's
    ///   earliest SCT (from a log not retired) must predate it too.
    public static let chrome = CertificateTransparencyPolicy(kind: .chrome)

    /// The policy named `apple` or `chrome`, or nil.
    public init?(_ name: String) {
        guard let kind = Kind(rawValue: name) else { return nil }
        self.kind = kind
    }

    init(kind: Kind) {
        self.kind = kind
    }

    /// `apple` or `chrome`.
    public var description: String { self.kind.rawValue }

    /// Decodes `"apple"` or `"chrome"`.
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let kind = Kind(rawValue: name) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "unknown CT policy")
            )
        }
        self.kind = kind
    }

    /// Encodes the name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.kind.rawValue)
    }

    /// The 180-day boundary of both tables.
    static let shortLifetime: TimeInterval = 180 * 86_400
    /// When Chrome stopped requiring an SCT from an RFC 6962 log (the policy's amended C3.4/C4.3:
    /// "Before April 15, 2026").
    static let chromeRFC6962Sunset = Date(timeIntervalSince1970: 1_776_211_200)

    /// How many SCTs from distinct logs an embedded set needs for a certificate of `lifetime`.
    public func requiredEmbeddedSCTs(lifetime: TimeInterval) -> Int {
        lifetime <= Self.shortLifetime ? 2 : 3
    }

    /// A verified SCT with its log.
    struct Verified {
        let index: Int
        let sct: SignedCertificateTimestamp
        let log: CertificateTransparencyLog
        /// The operator when the SCT was issued.
        let operatorName: String

        init(index: Int, sct: SignedCertificateTimestamp, log: CertificateTransparencyLog) {
            self.index = index
            self.sct = sct
            self.log = log
            self.operatorName = log.operatorName(at: sct.date)
        }
    }

    /// The outcome: which SCTs count, and why the set falls short (nil when it complies).
    struct Outcome {
        var counting: Set<Int> = []
        var shortfall: String?
    }

    /// Decides compliance for the verified SCTs of a certificate valid from `notBefore` to `notAfter`.
    func evaluate(_ verified: [Verified], notBefore: Date, notAfter: Date, now: Date) -> Outcome {
        // What both kinds of log need: a state, a production log, and (Apple) an interval that
        // holds the certificate's expiry.
        func eligibleState(_ entry: Verified) -> CertificateTransparencyLog.State? {
            guard let state = entry.log.state, entry.log.logType == nil || entry.log.logType == "prod" else {
                return nil
            }
            if self.kind == .apple, let interval = entry.log.temporalInterval, !interval.contains(notAfter) {
                return nil
            }
            return state
        }
        func isCurrent(_ entry: Verified) -> Bool {
            guard let state = eligibleState(entry) else { return false }
            switch state.kind {
            case .qualified, .usable: return true
            // Apple: an SCT issued after the log froze cannot be in it.
            case .readonly: return self.kind == .chrome || entry.sct.date <= state.since
            // A retirement still to come leaves the log as it is.
            case .retired: return now < state.since
            case .pending, .rejected: return false
            }
        }
        // The certificate's issuance: its earliest SCT from a log that is current now.
        let issuance = verified.filter(isCurrent).map(\.sct.date).min()
        func isOnceApproved(_ entry: Verified) -> Bool {
            guard let state = eligibleState(entry), state.kind == .retired, let issuance else { return false }
            return entry.sct.date < state.since && issuance < state.since
        }
        let needsRFC6962 = self.kind == .apple || now < Self.chromeRFC6962Sunset
        // Lists of a few SCTs: linear scans beat hashing.
        func distinct(_ list: [Verified]) -> [Verified] {
            var kept: [Verified] = []
            for entry in list where !kept.contains(where: { $0.log.logID == entry.log.logID }) { kept.append(entry) }
            return kept
        }
        func operators(_ list: [Verified]) -> Int {
            var names: [String] = []
            for entry in list where !names.contains(entry.operatorName) { names.append(entry.operatorName) }
            return names.count
        }

        var outcome = Outcome()
        // Embedded path (Apple A3b, Chrome C3).
        let embedded = distinct(verified.filter { $0.sct.origin == .embedded && (isCurrent($0) || isOnceApproved($0)) })
        let delivered = distinct(verified.filter { $0.sct.origin != .embedded && isCurrent($0) })
        outcome.counting = Set(embedded.map(\.index) + delivered.map(\.index))

        let lifetime = notAfter.timeIntervalSince(notBefore)
        let required = self.requiredEmbeddedSCTs(lifetime: lifetime)
        let counted: Int
        switch self.kind {
        case .chrome:
            counted = embedded.count
        case .apple:
            // At most 1 (≤ 180 days) or 2 SCTs per operator count (A5).
            let cap = lifetime <= Self.shortLifetime ? 1 : 2
            var perOperator: [(name: String, count: Int)] = []
            for entry in embedded {
                if let index = perOperator.firstIndex(where: { $0.name == entry.operatorName }) {
                    perOperator[index].count += 1
                } else {
                    perOperator.append((entry.operatorName, 1))
                }
            }
            counted = perOperator.reduce(0) { $0 + min($1.count, cap) }
        }
        let embeddedShortfall: String?
        if embedded.count < required {
            let days = Int((lifetime / 86_400).rounded(.up))
            embeddedShortfall =
                "\(embedded.count) embedded SCTs count, from distinct logs; a certificate valid for \(days) days needs \(required)"
        } else if operators(embedded) < 2 || counted < required {
            embeddedShortfall = "the embedded SCTs that count come from one log operator; two are required"
        } else if !embedded.contains(where: isCurrent) {
            embeddedShortfall = "no embedded SCT that counts comes from a log that is Qualified, Usable or ReadOnly now"
        } else if needsRFC6962, !embedded.contains(where: \.log.isRFC6962) {
            embeddedShortfall = "no embedded SCT that counts comes from an RFC 6962 log"
        } else {
            return outcome
        }

        // Delivered path (Apple A3a, Chrome C4).
        let deliveredShortfall: String?
        switch self.kind {
        case .chrome:
            if delivered.count < 2 || operators(delivered) < 2 {
                deliveredShortfall =
                    "\(delivered.count) SCTs delivered by TLS or OCSP count, from \(operators(delivered)) operators; 2 of each are required"
            } else if needsRFC6962, !delivered.contains(where: \.log.isRFC6962) {
                deliveredShortfall = "no delivered SCT that counts comes from an RFC 6962 log"
            } else {
                deliveredShortfall = nil
            }
        case .apple:
            let current = distinct(verified.filter(isCurrent))
            if delivered.isEmpty || current.count < 2 {
                deliveredShortfall =
                    "\(delivered.count) SCTs delivered by TLS or OCSP count and \(current.count) from currently approved logs in all; 1 and 2 are required"
            } else if !current.contains(where: \.log.isRFC6962) {
                deliveredShortfall = "no SCT that counts comes from an RFC 6962 log"
            } else {
                deliveredShortfall = nil
            }
        }
        if deliveredShortfall == nil {
            if self.kind == .apple { outcome.counting.formUnion(distinct(verified.filter(isCurrent)).map(\.index)) }
            return outcome
        }
        outcome.shortfall =
            verified.contains(where: { $0.sct.origin != .embedded }) && embedded.isEmpty
            ? deliveredShortfall : embeddedShortfall
        return outcome
    }
}
