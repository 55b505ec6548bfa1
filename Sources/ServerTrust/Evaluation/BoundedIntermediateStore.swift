import Foundation
import X509

/// The certificates a server presented, as swift-certificates' `Verifier` looks them up while it
/// builds paths, with a bound on the number of lookups.
///
/// The `Verifier` searches depth first and remembers nothing, so a server that presents layers of
/// certificates with the same subject and key (each verifying every certificate below it) makes
/// the number of partial paths grow as the product of the layers' sizes, before any path reaches
/// an anchor and before any policy (the time budget included) is asked. Each lookup expands one
/// partial path, and costs at most ``ServerTrust/Configuration/maximumCandidatesPerIssuerName``
/// signature checks; past ``maximumLookups`` the store answers that there is no issuer, the
/// search ends, and ``ServerTrust`` refuses the chain with
/// ``ServerTrustError/Code/validationBudgetExceeded``.
// SAFETY: `lookups` is only read or written while `lock` is held; the other stored properties
// are immutable.
final class BoundedIntermediateStore: CustomCertificateStore, @unchecked Sendable {
    private let bySubject: [DistinguishedName: [Certificate]]
    private let all: Set<Certificate>
    let maximumLookups: Int
    private let lock = NSLock()
    private var lookups = 0

    init(_ certificates: [Certificate], maximumLookups: Int) {
        self.bySubject = Dictionary(grouping: certificates, by: \.subject)
        self.all = Set(certificates)
        self.maximumLookups = maximumLookups
    }

    /// Whether a lookup was refused because the bound was reached.
    var isExhausted: Bool {
        self.lock.withLock { self.lookups > self.maximumLookups }
    }

    subscript(subject: DistinguishedName) -> [Certificate]? {
        get async {
            guard let candidates = self.bySubject[subject] else { return nil }
            let allowed = self.lock.withLock {
                self.lookups += 1
                return self.lookups <= self.maximumLookups
            }
            return allowed ? candidates : nil
        }
    }

    func contains(_ certificate: Certificate) async -> Bool {
        self.all.contains(certificate)
    }

    /// Ignored: the store holds what the server presented, fixed at creation (the `Verifier`
    /// never appends to its intermediates).
    func append(contentsOf certificates: some Sequence<Certificate>) {}

    static func == (lhs: BoundedIntermediateStore, rhs: BoundedIntermediateStore) -> Bool { lhs === rhs }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
