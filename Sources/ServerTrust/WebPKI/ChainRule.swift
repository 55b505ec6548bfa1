import SwiftASN1
public import X509

/// A check over a candidate path that reports a typed ``ServerTrustError``.
///
/// Each Web PKI rule is both a `ChainRule` (so ``ServerTrust`` can tell which rule failed, and
/// a diagnostic tool can run a rule over any path) and a swift-certificates `VerifierPolicy` (so
/// it can be used in any `Verifier`).
public protocol ChainRule: VerifierPolicy {
    /// The failure of this rule for a path (leaf first, anchor last), or nil when it holds.
    mutating func check(certificates: [Certificate]) -> ServerTrustError?
}

extension ChainRule {
    /// The failure of this rule for a candidate chain from a `Verifier`, or nil when it holds.
    public mutating func check(_ chain: UnverifiedCertificateChain) -> ServerTrustError? {
        self.check(certificates: Array(chain))
    }

    /// Runs ``check(certificates:)`` and turns a failure into the verifier's reason text.
    public mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult
    {
        guard let failure = self.check(certificates: Array(chain)) else { return .meetsPolicy }
        let text = failure.description
        return .failsToMeetPolicy(reason: text)
    }
}

extension Certificate {
    /// Whether subject and issuer are the same name (a root, or a self-issued certificate).
    var isSelfIssued: Bool { self.subject == self.issuer }

    /// Whether the certificate is self-signed: self-issued and verified by its own key. Only for
    /// the rare paths that must tell a root from a key-rollover certificate (same name, new key).
    var isSelfSigned: Bool {
        self.isSelfIssued && self.publicKey.isValidSignature(self.signature, for: self)
    }

    /// Whether the certificate is a CA according to its basic constraints.
    var isCertificateAuthority: Bool {
        if case .isCertificateAuthority = try? self.extensions.basicConstraints { return true }
        return false
    }

    /// The authorityKeyIdentifier and subjectKeyIdentifier, each nil when absent; throws when
    /// either is malformed.
    var keyIdentifiers: (authority: AuthorityKeyIdentifier?, subject: SubjectKeyIdentifier?) {
        get throws { (try self.extensions.authorityKeyIdentifier, try self.extensions.subjectKeyIdentifier) }
    }

    /// The subject, for messages: chosen by whoever made the certificate, so escaped
    /// (``OutsideText/escaped(_:)``).
    var subjectText: String { OutsideText.escaped(String(describing: self.subject)) }
}

/// Which trust anchors the profile rules judge: those the app supplied, never the system's roots.
///
/// Membership is decided without hashing a certificate when it can be (swift-certificates hashes
/// a certificate's every byte): with app anchors only, every anchor is the app's; with the system
/// roots only, none is.
struct AppAnchors: Sendable {
    private enum Storage: Sendable {
        case all, none
        case some(Set<Certificate>)
    }

    private let storage: Storage

    /// These certificates.
    init(_ certificates: some Sequence<Certificate>) {
        let set = Set(certificates)
        self.storage = set.isEmpty ? .none : .some(set)
    }

    /// The app-supplied anchors of a trust configuration.
    init(_ anchors: TrustAnchors) {
        if !anchors.includesSystemRoots {
            self.storage = .all
        } else if anchors.certificates.isEmpty {
            self.storage = .none
        } else {
            self.storage = .some(Set(anchors.certificates))
        }
    }

    func contains(_ certificate: Certificate) -> Bool {
        switch self.storage {
        case .all: return true
        case .none: return false
        case .some(let set): return set.contains(certificate)
        }
    }
}

extension Array where Element == Certificate {
    /// The certificates the server presented on this path: all but the trust anchor. A path of
    /// one certificate is a leaf trusted directly, and counts as presented.
    var presentedIndices: Range<Int> { self.count > 1 ? 0..<(self.count - 1) : 0..<self.count }

    /// The index of the trust anchor, when the path has one distinct from the leaf.
    var anchorIndex: Int? { self.count > 1 ? self.count - 1 : nil }

    /// `leaf`, `intermediate N` or `anchor`, for messages.
    func role(_ index: Int) -> String {
        if index == 0 { return "leaf" }
        if index == self.count - 1 { return "anchor" }
        return "intermediate \(index)"
    }
}

extension Certificate {
    /// The basic constraints, or nil when the extension is absent; throws when it is malformed.
    var basicConstraintsIsCA: Bool? {
        get throws {
            switch try self.extensions.basicConstraints {
            case .some(.isCertificateAuthority): return true
            case .some(.notCertificateAuthority): return false
            case .none: return nil
            }
        }
    }
}
