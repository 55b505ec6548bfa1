public import SwiftASN1
public import X509

/// Bounds the work of validating one chain, so a hostile chain cannot stall a handshake.
///
/// Two limits, both failing closed with ``ServerTrustError/Code/validationBudgetExceeded``:
/// - a wall-clock budget measured from the first candidate path and checked before each one
///   (loading the system roots, once per process and not under the server's control, is not
///   counted; finding candidates is bounded by the chain-length and issuer limits);
/// - the name-constraint work of a candidate path — for each CA with name constraints
///   (RFC 5280 §4.2.1.10), its number of subtrees times the names (subject and SANs) of the
///   certificates below it — is counted before the constraints are checked, and refused above a
///   bound, as BoringSSL does (`NAME_CHECK_MAX`, 2²⁰ comparisons).
public struct ValidationBudgetPolicy: ChainRule, Sendable {
    /// The critical extensions this policy processes (the verifier refuses unprocessed ones).
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    /// BoringSSL's bound on name-constraint comparisons.
    public static let defaultMaximumNameConstraintChecks = 1 << 20

    let timeBudget: Duration
    /// Set when the first candidate path is checked.
    private var deadline: ContinuousClock.Instant?
    let maximumNameConstraintChecks: Int
    /// Candidate paths evaluated so far.
    public private(set) var pathsEvaluated = 0

    /// Creates a budget; its clock starts at the first candidate path.
    public init(timeBudget: Duration, maximumNameConstraintChecks: Int = Self.defaultMaximumNameConstraintChecks) {
        self.timeBudget = timeBudget
        self.maximumNameConstraintChecks = maximumNameConstraintChecks
    }

    /// The failure of this rule for a path (leaf first, anchor last), or nil when it holds.
    public mutating func check(certificates: [Certificate]) -> ServerTrustError? {
        self.pathsEvaluated += 1
        let now = ContinuousClock.now
        let deadline = self.deadline ?? now.advanced(by: self.timeBudget)
        self.deadline = deadline
        if self.timeBudget <= .zero || now > deadline {
            return ServerTrustError(
                .validationBudgetExceeded,
                "chain validation ran out of time after \(self.pathsEvaluated) candidate paths"
            )
        }
        let work = Self.nameConstraintWork(certificates)
        if work > self.maximumNameConstraintChecks {
            return ServerTrustError(
                .validationBudgetExceeded,
                "checking name constraints would take \(work) comparisons; the limit is \(self.maximumNameConstraintChecks)"
            )
        }
        return nil
    }

    static func nameConstraintWork(_ certificates: [Certificate]) -> Int {
        var work = 0
        var namesBelow = 0
        for certificate in certificates {
            if let constraints = try? certificate.extensions.nameConstraints {
                let subtrees = constraints.permittedSubtrees.count + constraints.excludedSubtrees.count
                let (product, overflow) = subtrees.multipliedReportingOverflow(by: namesBelow)
                work = overflow ? Int.max : work &+ product
                if work < 0 { work = Int.max }
            }
            let sans = (try? certificate.extensions.subjectAlternativeNames)?.count ?? 0
            namesBelow += sans + 1
        }
        return work
    }
}
