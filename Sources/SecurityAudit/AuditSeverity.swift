#if Tools
/// How serious a finding is.
///
/// Severities are ordered `low < medium < high`; ``AuditReport/findings(atOrAbove:)`` uses that order.
public enum AuditSeverity: String, Sendable, Codable, Comparable, CaseIterable {
    /// Worth fixing, but not directly exploitable on its own (for example a debuggable entitlement).
    case low
    /// Weakens a protection; exploitable under some conditions (for example a cleartext URL).
    case medium
    /// Directly exposes secrets or disables a protection (for example disabled trust evaluation).
    case high

    private var rank: Int {
        switch self {
        case .low: 0
        case .medium: 1
        case .high: 2
        }
    }

    /// Orders severities from `low` to `high`.
    public static func < (lhs: AuditSeverity, rhs: AuditSeverity) -> Bool {
        lhs.rank < rhs.rank
    }
}
#endif
