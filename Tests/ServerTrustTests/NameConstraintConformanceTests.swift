import Foundation
import SecureNetworkingTesting
import ServerTrust
import SwiftASN1
import Testing
import X509

/// RFC 5280 §4.2.1.10 name constraints, as StrictNameConstraintsPolicy enforces them: each case
/// breaks one clause, with a near miss that is accepted.
@Suite("Conformance: name constraints")
struct NameConstraintConformanceTests {
    let pki = Fixtures.pki

    /// A leaf for `names` (CN the first name) under an intermediate with `constraints`.
    func chain(
        constraints: NameConstraints? = nil,
        rawConstraints: [UInt8]? = nil,
        names: [String],
        otherNames: [GeneralName] = []
    ) throws -> TestPKI.Chain {
        let ca = try pki.makeCA(name: "Constrained CA \(names.first ?? "")", issuer: pki.root) {
            $0.nameConstraints = constraints
            if let rawConstraints {
                $0.extraExtensions = [
                    Certificate.Extension(
                        oid: .X509ExtensionID.nameConstraints,
                        critical: true,
                        value: rawConstraints[...]
                    )
                ]
            }
        }
        var extra: [Certificate.Extension] = []
        if !otherNames.isEmpty {
            let sans = names.map { GeneralName.dnsName($0) } + otherNames
            extra = [try SubjectAlternativeNames(sans).makeCertificateExtension()]
        }
        return try pki.leaf {
            $0.issuer = .custom(ca, presenting: [ca])
            $0.dnsNames = names
            $0.ipAddresses = []
            $0.commonName = names.first
            if !extra.isEmpty {
                $0.includesSubjectAlternativeNames = false
                $0.extraExtensions = extra
            }
        }
    }

    // MARK: 1. A wildcard SAN is judged by every name it stands for (Go CVE-2025-61727)

    @Test func wildcardUnderAnExcludedNameIsRefused() async throws {
        let bypass = try chain(
            constraints: NameConstraints(excludedDNSDomains: ["bar.example.com"]),
            names: ["*.example.com"]
        )
        let decision = try await evaluate(bypass, host: "bar.example.com")
        #expect(decision.failure?.code == .nameConstraintViolation, "\(decision.failure?.description ?? "trusted")")
        #expect(decision.failure?.message.contains("within an excluded dNSName subtree") == true)
        // The same wildcard for another host is refused too: the certificate, not the host, is judged.
        #expect(try await evaluate(bypass, host: "foo.example.com").failure?.code == .nameConstraintViolation)
        // Excluding the parent domain excludes every name the wildcard stands for.
        let parent = try chain(
            constraints: NameConstraints(excludedDNSDomains: ["example.com"]),
            names: ["*.example.com"]
        )
        #expect(try await evaluate(parent, host: "foo.example.com").failure?.code == .nameConstraintViolation)
    }

    @Test func wildcardThatCannotReachAnExcludedNameIsAccepted() async throws {
        // `*.example.com` stands for one label only: it can never be a.bar.example.com.
        let deeper = try chain(
            constraints: NameConstraints(excludedDNSDomains: ["a.bar.example.com"]),
            names: ["*.example.com"]
        )
        #expect(try await evaluate(deeper, host: "foo.example.com").isTrusted)
        let elsewhere = try chain(
            constraints: NameConstraints(excludedDNSDomains: ["bar.example.org"]),
            names: ["*.example.com"]
        )
        #expect(try await evaluate(elsewhere, host: "bar.example.com").isTrusted)
    }

    @Test func wildcardIsPermittedOnlyWhenEveryNameItStandsForIs() async throws {
        let narrow = try chain(
            constraints: NameConstraints(permittedDNSDomains: ["bar.example.com"]),
            names: ["*.example.com"]
        )
        let decision = try await evaluate(narrow, host: "bar.example.com")
        #expect(decision.failure?.code == .nameConstraintViolation)
        #expect(decision.failure?.message.contains("outside every permitted") == true)
        let wide = try chain(
            constraints: NameConstraints(permittedDNSDomains: ["example.com"]),
            names: ["*.example.com"]
        )
        #expect(try await evaluate(wide, host: "bar.example.com").isTrusted)
    }

    @Test func exactNamesFollowRFC5280Subtrees() async throws {
        let constraints = NameConstraints(
            permittedDNSDomains: ["example.com"],
            excludedDNSDomains: ["secret.example.com"]
        )
        #expect(
            try await evaluate(chain(constraints: constraints, names: ["www.example.com"]), host: "www.example.com")
                .isTrusted
        )
        #expect(
            try await evaluate(chain(constraints: constraints, names: ["example.com"]), host: "example.com").isTrusted
        )
        // `host1.example.com` is not within `host.example.com` (label boundaries, RFC 5280 §4.2.1.10).
        #expect(
            try await evaluate(chain(constraints: constraints, names: ["notexample.com"]), host: "notexample.com")
                .failure?.code
                == .nameConstraintViolation
        )
        #expect(
            try await evaluate(
                chain(constraints: constraints, names: ["a.secret.example.com"]),
                host: "a.secret.example.com"
            )
            .failure?.code == .nameConstraintViolation
        )
        // Case does not matter to DNS names.
        #expect(
            try await evaluate(
                chain(constraints: constraints, names: ["a.SECRET.example.com"]),
                host: "a.secret.example.com"
            )
            .failure?.code == .nameConstraintViolation
        )
    }

    // MARK: 1. Malformed constraints and constraints where they do not belong

    @Test(arguments: ["..example.com", ".", "example..com", "*.example.com", ".example.com."])
    func malformedDNSConstraintIsRefused(constraint: String) async throws {
        let bad = try chain(constraints: NameConstraints(excludedDNSDomains: [constraint]), names: ["www.example.org"])
        let decision = try await evaluate(bad, host: "www.example.org")
        #expect(
            decision.failure?.code == .nameConstraintViolation,
            "\(constraint): \(decision.failure?.description ?? "trusted")"
        )
        #expect(decision.failure?.message.contains("invalid constraint") == true)
    }

    /// Non-critical name constraints: RFC 5280 §4.2.1.10 says they MUST be critical, the Baseline
    /// Requirements allow them non-critical. Under the Web PKI profile they are accepted and
    /// still enforced (criticality changes nothing for a client that reads them, as x509-limbo's
    /// `webpki::nc::permitted-dns-match-noncritical` expects); under RFC 5280 alone (the
    /// private-PKI profile) they are refused (`rfc5280::nc::permitted-dns-match-noncritical`).
    @Test func nonCriticalNameConstraintsAreEnforcedUnderTheWebPKIProfileAndRefusedUnderRFC5280() async throws {
        let constraints = NameConstraints(permittedDNSDomains: ["example.com"])
        let ext = try Certificate.Extension(constraints, critical: false)
        let ca = try pki.makeCA(name: "Non-critical NC CA", issuer: pki.root) { $0.extraExtensions = [ext] }
        func leaf(_ name: String) throws -> TestPKI.Chain {
            try pki.leaf {
                $0.issuer = .custom(ca, presenting: [ca])
                $0.dnsNames = [name]
                $0.ipAddresses = []
                $0.commonName = name
            }
        }
        let inside = try await evaluate(leaf("www.example.com"), host: "www.example.com")
        #expect(inside.isTrusted, "\(inside.failure?.description ?? "")")
        let outside = try await evaluate(leaf("www.example.net"), host: "www.example.net")
        #expect(outside.failure?.code == .nameConstraintViolation)
        #expect(outside.failure?.message.contains("not critical") == false)
        let privateAnchors = TrustAnchors.only([pki.root.certificate], profile: .privatePKI)
        let strict = try await evaluate(leaf("www.example.com"), host: "www.example.com", anchors: privateAnchors)
        #expect(strict.failure?.code == .nameConstraintViolation)
        #expect(strict.failure?.message.contains("are not critical (RFC 5280 §4.2.1.10)") == true)
    }

    /// A leading period has a meaning in URI and e-mail constraints only (RFC 5280 §4.2.1.10);
    /// a DNS constraint spelled `.example.com` is malformed, as x509-limbo's
    /// `rfc5280::nc::invalid-dnsname-leading-period` expects, and refuses the chain whether it
    /// permits or excludes, and whatever the names below it.
    @Test(arguments: [true, false])
    func aDNSConstraintWithALeadingPeriodIsMalformed(permitted: Bool) async throws {
        let constraints =
            permitted
            ? NameConstraints(permittedDNSDomains: [".example.com"])
            : NameConstraints(excludedDNSDomains: [".example.com"])
        for name in ["www.example.com", "example.com"] {
            let failure = try await evaluate(chain(constraints: constraints, names: [name]), host: name).failure
            #expect(failure?.code == .nameConstraintViolation, "\(name)")
            #expect(failure?.message.contains("a leading period is not allowed") == true, "\(name)")
        }
    }

    @Test(arguments: [true, false])
    func nameConstraintsInTheLeafAreRefused(critical: Bool) async throws {
        let constraints = NameConstraints(permittedDNSDomains: ["localhost"])
        let ext = try Certificate.Extension(constraints, critical: critical)
        let leaf = try pki.leaf { $0.extraExtensions = [ext] }
        let decision = try await evaluate(leaf)
        #expect(decision.failure?.code == .nameConstraintViolation, "\(decision.failure?.description ?? "trusted")")
        #expect(decision.failure?.message.contains("only a CA certificate may") == true)
        #expect(try await evaluate(pki.leaf()).isTrusted)
    }

    @Test(arguments: [
        // SEQUENCE { [0] {} , [1] {} }: both lists present and empty.
        [0x30, 0x04, 0xA0, 0x00, 0xA1, 0x00] as [UInt8],
        // SEQUENCE { [0] {} }: an empty permitted list.
        [0x30, 0x02, 0xA0, 0x00],
        // SEQUENCE { [1] {} }: an empty excluded list.
        [0x30, 0x02, 0xA1, 0x00],
        // SEQUENCE {}: neither list.
        [0x30, 0x00],
    ])
    func emptySubtreeListsAreRefused(value: [UInt8]) async throws {
        let decision = try await evaluate(chain(rawConstraints: value, names: ["localhost"]))
        #expect(decision.failure?.code == .nameConstraintViolation, "\(decision.failure?.description ?? "trusted")")
    }

    @Test func subtreeWithMinimumOrMaximumIsRefused() async throws {
        // [0] { SEQUENCE { [2] "localhost", [1] INTEGER 1 } }: a maximum.
        let base: [UInt8] = [0x82, 0x09] + Array("localhost".utf8)
        let subtree: [UInt8] = [0x30, UInt8(base.count + 3)] + base + [0x81, 0x01, 0x01]
        let permitted: [UInt8] = [0xA0, UInt8(subtree.count)] + subtree
        let value: [UInt8] = [0x30, UInt8(permitted.count)] + permitted
        #expect(
            try await evaluate(chain(rawConstraints: value, names: ["localhost"])).failure?.code
                == .nameConstraintViolation
        )
        // The same subtree without the maximum is fine.
        let plain: [UInt8] = [0x30, UInt8(base.count)] + base
        let good: [UInt8] = [0x30, UInt8(plain.count + 2), 0xA0, UInt8(plain.count)] + plain
        #expect(try await evaluate(chain(rawConstraints: good, names: ["localhost"])).isTrusted)
    }

    // MARK: 11. Valid chains swift-certificates refused

    @Test func selfIssuedIntermediateIsNotJudgedByTheConstraintsAboveIt() async throws {
        // root → CA (permits example.com) → a self-issued CA (same subject, new key, a SAN
        // outside the subtree) → leaf in the subtree. RFC 5280 §6.1.3 (b) skips self-issued
        // intermediates.
        let ca = try pki.makeCA(name: "Rollover CA", issuer: pki.root) {
            $0.nameConstraints = NameConstraints(permittedDNSDomains: ["example.com"])
        }
        let outside = try SubjectAlternativeNames([.dnsName("rollover.example.org")]).makeCertificateExtension()
        let rolled = try pki.makeCA(name: "Rollover CA", issuer: ca) { $0.extraExtensions = [outside] }
        #expect(rolled.certificate.subject == rolled.certificate.issuer)
        let leaf = try pki.leaf {
            $0.issuer = .custom(rolled, presenting: [rolled, ca])
            $0.dnsNames = ["www.example.com"]
            $0.ipAddresses = []
            $0.commonName = "www.example.com"
        }
        let decision = try await evaluate(leaf, host: "www.example.com")
        #expect(decision.isTrusted, "\(decision.failure?.description ?? "")")
        #expect(try decision.validatedChain().count == 4)

        // Near miss: an intermediate that is not self-issued is judged, and its SAN is outside.
        let other = try pki.makeCA(name: "Sub CA", issuer: ca) { $0.extraExtensions = [outside] }
        let judged = try pki.leaf {
            $0.issuer = .custom(other, presenting: [other, ca])
            $0.dnsNames = ["www.example.com"]
            $0.ipAddresses = []
            $0.commonName = "www.example.com"
        }
        #expect(try await evaluate(judged, host: "www.example.com").failure?.code == .nameConstraintViolation)
    }

    @Test func anOtherNameSubtreeCannotExcludeADNSName() async throws {
        let upn = GeneralName.otherName(
            .init(
                typeID: [1, 3, 6, 1, 4, 1, 311, 20, 2, 3],
                value: try ASN1Any(erasing: ASN1UTF8String("a@example.com"))
            )
        )
        let constraints = NameConstraints(excludedSubtrees: [upn])
        let dnsOnly = try chain(constraints: constraints, names: ["www.example.com"])
        let decision = try await evaluate(dnsOnly, host: "www.example.com")
        #expect(decision.isTrusted, "\(decision.failure?.description ?? "")")
        // Near miss: a leaf that does carry an otherName cannot be checked against it: refused.
        let withOtherName = try chain(constraints: constraints, names: ["www.example.com"], otherNames: [upn])
        let refused = try await evaluate(withOtherName, host: "www.example.com")
        #expect(refused.failure?.code == .nameConstraintViolation)
        #expect(refused.failure?.message.contains("cannot be checked") == true)
    }

    // MARK: Other name forms

    @Test func ipAddressRangesAreApplied() async throws {
        let tenSlash8 = ASN1OctetString(contentBytes: [10, 0, 0, 0, 255, 0, 0, 0])
        let ca = try pki.makeCA(name: "IP CA", issuer: pki.root) {
            $0.nameConstraints = NameConstraints(permittedIPRanges: [tenSlash8])
        }
        func leaf(_ address: String) throws -> TestPKI.Chain {
            try pki.leaf {
                $0.issuer = .custom(ca, presenting: [ca])
                $0.dnsNames = []
                $0.ipAddresses = [address]
                $0.commonName = address
            }
        }
        #expect(try await evaluate(leaf("10.1.2.3"), host: "10.1.2.3").isTrusted)
        #expect(try await evaluate(leaf("11.1.2.3"), host: "11.1.2.3").failure?.code == .nameConstraintViolation)
        // A mask that is not a prefix is malformed.
        let holey = ASN1OctetString(contentBytes: [10, 0, 0, 0, 255, 0, 255, 0])
        let bad = try pki.makeCA(name: "Holey CA", issuer: pki.root) {
            $0.nameConstraints = NameConstraints(permittedIPRanges: [holey])
        }
        let chain = try pki.leaf {
            $0.issuer = .custom(bad, presenting: [bad])
            $0.dnsNames = []
            $0.ipAddresses = ["10.1.2.3"]
            $0.commonName = "10.1.2.3"
        }
        #expect(try await evaluate(chain, host: "10.1.2.3").failure?.code == .nameConstraintViolation)
    }

    @Test func directoryNameConstraintsAreEvaluated() async throws {
        let permitted = try DistinguishedName { OrganizationName("SecureNetworking Tests") }
        let other = try DistinguishedName { OrganizationName("Someone Else") }
        let inside = try chain(
            constraints: NameConstraints(permittedSubtrees: [.directoryName(permitted)]),
            names: ["localhost"]
        )
        #expect(try await evaluate(inside).isTrusted)
        let outside = try chain(
            constraints: NameConstraints(permittedSubtrees: [.directoryName(other)]),
            names: ["localhost"]
        )
        #expect(try await evaluate(outside).failure?.code == .nameConstraintViolation)
        // Excluded without regard to case: a change of case does not escape the exclusion.
        let shouted = try DistinguishedName { OrganizationName("SECURENETWORKING tests") }
        let excluded = try chain(
            constraints: NameConstraints(excludedSubtrees: [.directoryName(shouted)]),
            names: ["localhost"]
        )
        #expect(try await evaluate(excluded).failure?.code == .nameConstraintViolation)
    }

    @Test func uriWithoutAHostIsRefusedUnderURIConstraints() async throws {
        let constraints = NameConstraints(permittedURIDomains: [".example.com"])
        let uri = GeneralName.uniformResourceIdentifier("urn:example:thing")
        let refused = try chain(constraints: constraints, names: ["localhost"], otherNames: [uri])
        #expect(try await evaluate(refused).failure?.code == .nameConstraintViolation)
        let hosted = GeneralName.uniformResourceIdentifier("https://api.example.com/path")
        #expect(
            try await evaluate(chain(constraints: constraints, names: ["localhost"], otherNames: [hosted])).isTrusted
        )
    }
}
