public import SwiftASN1
public import X509

/// Name constraints (RFC 5280 §4.2.1.10, §6.1.3 (b)–(c), §6.1.4 (g)), enforced without the gaps
/// of swift-certificates 1.21.1's own check, which ServerTrust does not run.
///
/// - A wildcard DNS name stands for every name it can match: `*.example.com` is refused under an
///   excluded `bar.example.com` (any name it stands for is excluded) and is within a permitted
///   subtree only when every name it stands for is (the class of Go's CVE-2025-61727).
/// - A name that cannot be evaluated (a malformed DNS name, a URI without a host name, an
///   `otherName` under an `otherName` constraint) is refused wherever a constraint of its type
///   applies, never waved through an excluded subtree.
/// - A constraint type the certificate has no name of does not matter: an `otherName` excluded
///   subtree cannot exclude a DNS name.
/// - Self-issued intermediates are not checked against the constraints above them (RFC 5280
///   §6.1.3 (b)); the leaf always is.
/// - `directoryName` constraints are evaluated (RDN prefix, attribute values compared without
///   regard to case and repeated spaces, RFC 5280 §7.1); `emailAddress` attributes of the subject
///   are checked as `rfc822Name`s.
/// - The extension itself must be well formed: critical under RFC 5280 alone (§4.2.1.10:
///   "Conforming CAs MUST mark this extension as critical"; the private-PKI profile), critical or
///   not under the Web PKI profile, whose Baseline Requirements allow a non-critical one for
///   compatibility (§7.1.2.5.2); either way the constraints are enforced, so criticality changes
///   nothing for a client that reads them. Only in a CA certificate (§4.2.1.10 "MUST be used only in a
///   CA certificate"), at least one of the two subtree lists, neither list empty
///   (`GeneralSubtrees ::= SEQUENCE SIZE (1..MAX)`), no `minimum` or `maximum` (§4.2.1.10: "MUST
///   be zero" and "MUST be absent"), every constraint well formed for its type.
///
/// Failures are ``ServerTrustError/Code/nameConstraintViolation``.
public struct StrictNameConstraintsPolicy: ChainRule, Sendable {
    /// The critical extensions this policy processes (the verifier refuses unprocessed ones).
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [.X509ExtensionID.nameConstraints]

    /// Whether non-critical name constraints are accepted (and enforced): under the Web PKI
    /// profile only.
    public let acceptsNonCriticalConstraints: Bool

    /// Creates the policy with RFC 5280's rule: name constraints must be critical.
    public init() {
        self.acceptsNonCriticalConstraints = false
    }

    /// Creates the policy for a profile: under ``CertificateProfile/webPKI`` non-critical name
    /// constraints are accepted and enforced, as the Baseline Requirements allow them.
    public init(profile: CertificateProfile) {
        self.acceptsNonCriticalConstraints = profile.appliesBaselineRequirements
    }

    /// The failure of this rule for a path (leaf first, anchor last), or nil when it holds.
    public func check(certificates: [Certificate]) -> ServerTrustError? {
        let leaf = certificates[0]
        if leaf.extensions[oid: .X509ExtensionID.nameConstraints] != nil {
            return Self.violation(
                "the leaf (\(leaf.subjectText)) carries name constraints, which only a CA certificate may"
            )
        }
        for issuerIndex in certificates.indices.dropFirst() {
            let issuer = certificates[issuerIndex]
            guard let ext = issuer.extensions[oid: .X509ExtensionID.nameConstraints] else { continue }
            let role = certificates.role(issuerIndex)
            if !ext.critical, !self.acceptsNonCriticalConstraints {
                return Self.violation(
                    "the name constraints of the \(role) (\(issuer.subjectText)) are not critical (RFC 5280 §4.2.1.10)"
                )
            }
            let constraints: Constraints
            do {
                constraints = try Constraints(ext)
            } catch let failure as ServerTrustError {
                return Self.violation("the name constraints of the \(role) (\(issuer.subjectText)) \(failure.message)")
            } catch {
                return Self.violation("the name constraints of the \(role) (\(issuer.subjectText)) are malformed")
            }
            for subjectIndex in 0..<issuerIndex {
                let certificate = certificates[subjectIndex]
                if subjectIndex > 0, certificate.isSelfIssued { continue }
                if let problem = constraints.check(certificate) {
                    return Self.violation(
                        "the \(certificates.role(subjectIndex)) (\(certificate.subjectText)): \(problem), under the name constraints of the \(role) (\(issuer.subjectText))"
                    )
                }
            }
        }
        return nil
    }

    static func violation(_ message: String) -> ServerTrustError {
        ServerTrustError(.nameConstraintViolation, message)
    }
}

extension StrictNameConstraintsPolicy {
    /// One CA's constraints, validated once and indexed by name type, so that checking a name
    /// costs a few hash lookups (one per label) rather than one comparison per subtree.
    struct Constraints {
        let permitted: NameMatching.Index
        let excluded: NameMatching.Index

        init(_ ext: Certificate.Extension) throws {
            try Self.checkStructure(ext.value)
            let parsed = try NameConstraints(ext)
            for constraint in parsed.permittedSubtrees + parsed.excludedSubtrees {
                if let problem = NameMatching.constraintProblem(constraint) {
                    throw ServerTrustError(.nameConstraintViolation, "hold an invalid constraint: \(problem)")
                }
            }
            self.permitted = NameMatching.Index(parsed.permittedSubtrees)
            self.excluded = NameMatching.Index(parsed.excludedSubtrees)
        }

        /// `NameConstraints ::= SEQUENCE { permittedSubtrees [0] GeneralSubtrees OPTIONAL,
        /// excludedSubtrees [1] GeneralSubtrees OPTIONAL }`, each `GeneralSubtree` its base alone.
        static func checkStructure(_ value: ArraySlice<UInt8>) throws {
            let root = try DER.parse(value)
            guard root.identifier == .sequence, case .constructed(let fields) = root.content else {
                throw ServerTrustError(.nameConstraintViolation, "are not a SEQUENCE")
            }
            var expectedTags: [UInt] = [0, 1]
            var count = 0
            for field in fields {
                guard field.identifier.tagClass == .contextSpecific,
                    let position = expectedTags.firstIndex(of: field.identifier.tagNumber),
                    case .constructed(let subtrees) = field.content
                else {
                    throw ServerTrustError(.nameConstraintViolation, "have an unexpected field")
                }
                expectedTags.removeFirst(position + 1)
                count += 1
                var subtreeCount = 0
                for subtree in subtrees {
                    subtreeCount += 1
                    guard case .constructed(let parts) = subtree.content else {
                        throw ServerTrustError(.nameConstraintViolation, "have a malformed subtree")
                    }
                    var partCount = 0
                    for _ in parts { partCount += 1 }
                    if partCount != 1 {
                        throw ServerTrustError(
                            .nameConstraintViolation,
                            "have a subtree with minimum or maximum, which RFC 5280 §4.2.1.10 forbids"
                        )
                    }
                }
                if subtreeCount == 0 {
                    throw ServerTrustError(
                        .nameConstraintViolation,
                        "have an empty \(field.identifier.tagNumber == 0 ? "permitted" : "excluded") subtree list"
                    )
                }
            }
            if count == 0 {
                throw ServerTrustError(.nameConstraintViolation, "have neither permitted nor excluded subtrees")
            }
        }

        /// Why the certificate's names break the constraints, or nil.
        func check(_ certificate: Certificate) -> String? {
            var names: [GeneralName] = []
            if !certificate.subject.isEmpty {
                names.append(.directoryName(certificate.subject))
                for rdn in certificate.subject {
                    for attribute in rdn where attribute.type == .RDNAttributeType.emailAddress {
                        names.append(.rfc822Name(String(attribute.value) ?? ""))
                    }
                }
            }
            do {
                if let sans = try certificate.extensions.subjectAlternativeNames { names.append(contentsOf: sans) }
            } catch {
                return "its subject alternative names are malformed"
            }
            for name in names {
                let kind = NameMatching.Kind(name)
                let hasPermitted = self.permitted.constrains(kind)
                guard hasPermitted || self.excluded.constrains(kind) else { continue }
                guard kind.isSupported else {
                    return "its \(kind) name cannot be checked against \(kind) constraints"
                }
                let candidate: NameMatching.Candidate
                switch NameMatching.Candidate.make(name) {
                case .success(let value): candidate = value
                case .failure(let problem): return problem.reason
                }
                if self.excluded.contains(candidate, everyInstance: false) {
                    return "\(NameMatching.text(name)) is within an excluded \(kind) subtree"
                }
                if hasPermitted, !self.permitted.contains(candidate, everyInstance: true) {
                    return "\(NameMatching.text(name)) is outside every permitted \(kind) subtree"
                }
            }
            return nil
        }
    }
}
