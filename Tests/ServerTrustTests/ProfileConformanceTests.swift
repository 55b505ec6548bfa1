import Crypto
import Foundation
import SecureNetworkingTesting
import ServerTrust
import SwiftASN1
import Testing
import X509
import _CryptoExtras

/// The certificate profile: RFC 5280's structural rules and the Baseline Requirements' own
/// rules (Web PKI profile), each broken once with the exact code asserted, and a near miss.
@Suite("Conformance: certificate profile")
struct ProfileConformanceTests {
    let pki = Fixtures.pki

    /// The test root as the only anchor, under the private-PKI profile.
    var privateAnchors: TrustAnchors { .only([pki.root.certificate], profile: .privatePKI) }

    func leaf(
        under ca: TestPKI.Identity,
        _ configure: (inout TestPKI.LeafOptions) -> Void = { _ in }
    ) throws -> TestPKI.Chain {
        try pki.leaf {
            $0.issuer = .custom(ca, presenting: [ca])
            configure(&$0)
        }
    }

    // MARK: 2. A CA certificate is not a server (BR §7.1.2.7.8, RFC 5280 §4.2.1.9)

    @Test func caCertificateAsTheLeafIsRefused() async throws {
        let caLeaf = try pki.leaf { $0.isCertificateAuthority = true }
        #expect(try await evaluate(caLeaf).failure?.code == .caCertificateAsLeaf)
        #expect(try await evaluate(caLeaf, anchors: privateAnchors).failure?.code == .caCertificateAsLeaf)
        // An intermediate presented alone, as if it were the server's certificate.
        let intermediateOnly = TestPKI.Chain(
            certificates: [pki.intermediate.certificate],
            leafKey: pki.intermediate.privateKey
        )
        #expect(try await evaluate(intermediateOnly).failure?.code == .caCertificateAsLeaf)
        // Near miss: the same leaf with cA=FALSE.
        #expect(try await evaluate(pki.leaf { $0.isCertificateAuthority = false }).isTrusted)
    }

    @Test func pathLengthAndCAFlagsOfIntermediatesAreEnforced() async throws {
        let pathZero = try pki.makeCA(name: "Path 0 CA", issuer: pki.root) { $0.maximumPathLength = 0 }
        let below = try pki.makeCA(name: "Below Path 0", issuer: pathZero)
        let tooDeep = try pki.leaf { $0.issuer = .custom(below, presenting: [below, pathZero]) }
        #expect(try await evaluate(tooDeep).failure?.code == .chainPolicyViolation)
        #expect(try await evaluate(leaf(under: pathZero)).isTrusted)
        let notCA = try pki.makeCA(name: "Not a CA", issuer: pki.root) {
            $0.isCertificateAuthority = false
            $0.keyUsage = nil
        }
        #expect(try await evaluate(leaf(under: notCA)).failure?.code == .chainPolicyViolation)
    }

    // MARK: 3. Key identifiers (RFC 5280 §4.2.1.1, §4.2.1.2; BR §7.1.2)

    @Test func leafWithoutAuthorityKeyIdentifierIsRefusedUnderTheWebPKIProfile() async throws {
        let chain = try pki.leaf { $0.includesAuthorityKeyIdentifier = false }
        let failure = try await evaluate(chain).failure
        #expect(failure?.code == .certificateProfileViolation)
        #expect(failure?.message.contains("no authorityKeyIdentifier") == true)
        #expect(try await evaluate(chain, anchors: privateAnchors).isTrusted)
    }

    @Test func caWithoutSubjectKeyIdentifierIsRefused() async throws {
        let ca = try pki.makeCA(name: "No SKI CA", issuer: pki.root) { $0.includesSubjectKeyIdentifier = false }
        let failure = try await evaluate(leaf(under: ca)).failure
        #expect(failure?.code == .certificateProfileViolation)
        #expect(failure?.message.contains("without subjectKeyIdentifier") == true)
        #expect(try await evaluate(leaf(under: ca), anchors: privateAnchors).isTrusted)
    }

    @Test func appSuppliedRootWithAForeignOrBadAuthorityKeyIdentifierIsRefused() async throws {
        let issuerName = GeneralName.directoryName(try DistinguishedName { CommonName("myCN") })
        let variants: [(String, (Certificate.PublicKey) -> AuthorityKeyIdentifier)] = [
            (
                "authorityCertIssuer",
                {
                    AuthorityKeyIdentifier(
                        keyIdentifier: SubjectKeyIdentifier(hash: $0).keyIdentifier,
                        authorityCertIssuer: [issuerName]
                    )
                }
            ),
            (
                "authorityCertSerialNumber",
                {
                    AuthorityKeyIdentifier(
                        keyIdentifier: SubjectKeyIdentifier(hash: $0).keyIdentifier,
                        authorityCertSerialNumber: .init(bytes: [0x04, 0xD2])
                    )
                }
            ),
            ("not its subjectKeyIdentifier", { _ in AuthorityKeyIdentifier(keyIdentifier: [1, 2, 3, 4]) }),
            ("without keyIdentifier", { _ in AuthorityKeyIdentifier() }),
        ]
        for (label, make) in variants {
            let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
            var options = TestPKI.CAOptions(name: "Root with AKI \(label)")
            options.key = .existing(key)
            options.authorityKeyIdentifier = make(key.publicKey)
            let root = try pki.makeCA(options, issuer: nil)
            let chain = try pki.leaf { $0.issuer = .custom(root, presenting: []) }
            let failure = try await evaluate(chain, anchors: .only([root.certificate])).failure
            #expect(failure?.code == .certificateProfileViolation, "\(label): \(failure?.description ?? "trusted")")
            #expect(failure?.message.contains("the anchor") == true, "\(label)")
        }
        // Near miss: an AKI that names the root's own key.
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        var good = TestPKI.CAOptions(name: "Root with own AKI")
        good.key = .existing(key)
        good.authorityKeyIdentifier = AuthorityKeyIdentifier(
            keyIdentifier: SubjectKeyIdentifier(hash: key.publicKey).keyIdentifier
        )
        let root = try pki.makeCA(good, issuer: nil)
        #expect(
            try await evaluate(
                pki.leaf { $0.issuer = .custom(root, presenting: []) },
                anchors: .only([root.certificate])
            ).isTrusted
        )
    }

    @Test func crossSignedRootWithoutAuthorityKeyIdentifierIsRefused() async throws {
        // root2 cross-signed by the test root: presented between the leaf's CA and the anchor.
        let root2Key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        var root2Options = TestPKI.CAOptions(name: "Second Root")
        root2Options.key = .existing(root2Key)
        let root2 = try pki.makeCA(root2Options, issuer: nil)
        let issuing = try pki.makeCA(name: "Issuing CA under Second Root", issuer: root2)
        for includesAKI in [false, true] {
            var cross = root2Options
            cross.includesAuthorityKeyIdentifier = includesAKI
            let crossSigned = try pki.makeCA(cross, issuer: pki.root)
            #expect(crossSigned.certificate.subject == root2.certificate.subject)
            let chain = try pki.leaf { $0.issuer = .custom(issuing, presenting: [issuing, crossSigned]) }
            let decision = try await evaluate(chain)
            if includesAKI {
                #expect(decision.isTrusted, "\(decision.failure?.description ?? "")")
            } else {
                #expect(decision.failure?.code == .certificateProfileViolation)
            }
        }
    }

    // MARK: 4. Criticality and the subject (RFC 5280 §4.2.1.6, §4.2.1.9, §4.2.1.11, §4.1.2.6, §4.2.2.1)

    @Test func policyConstraintsMustBeCritical() async throws {
        // PolicyConstraints ::= SEQUENCE { requireExplicitPolicy [0] 0 }
        let value: [UInt8] = [0x30, 0x03, 0x80, 0x01, 0x00]
        for critical in [false, true] {
            let ext = Certificate.Extension(oid: [2, 5, 29, 36], critical: critical, value: value[...])
            let ca = try pki.makeCA(name: "PC CA \(critical)", issuer: pki.root) { $0.extraExtensions = [ext] }
            let decision = try await evaluate(leaf(under: ca))
            if critical {
                #expect(decision.isTrusted, "\(decision.failure?.description ?? "")")
            } else {
                #expect(decision.failure?.code == .certificateProfileViolation)
                #expect(decision.failure?.message.contains("policyConstraints") == true)
            }
        }
    }

    @Test func basicConstraintsOfAnIntermediateMustBeCritical() async throws {
        let ca = try pki.makeCA(name: "Non-critical BC CA", issuer: pki.root) { $0.basicConstraintsIsCritical = false }
        #expect(try await evaluate(leaf(under: ca)).failure?.code == .certificateProfileViolation)
        #expect(
            try await evaluate(leaf(under: ca), anchors: privateAnchors).failure?.code == .certificateProfileViolation
        )
    }

    @Test func emptySubjectNeedsACriticalSubjectAltName() async throws {
        let empty = DistinguishedName()
        let nonCritical = try pki.leaf { $0.subject = empty }
        #expect(try await evaluate(nonCritical).failure?.code == .certificateProfileViolation)
        let critical = try pki.leaf {
            $0.subject = empty
            $0.subjectAlternativeNamesAreCritical = true
        }
        #expect(try await evaluate(critical).isTrusted)
    }

    @Test func criticalSubjectAltNameWithASubjectIsRefusedUnderTheWebPKIProfile() async throws {
        let chain = try pki.leaf { $0.subjectAlternativeNamesAreCritical = true }
        let failure = try await evaluate(chain).failure
        #expect(failure?.code == .certificateProfileViolation)
        #expect(failure?.message.contains("critical subjectAltName") == true)
        #expect(try await evaluate(chain, anchors: privateAnchors).isTrusted)
    }

    @Test func caWithAnEmptySubjectIsRefused() async throws {
        let ca = try pki.makeCA(name: "", issuer: pki.root) {
            $0.subject = DistinguishedName()
            $0.extraExtensions = [
                try! Certificate.Extension(SubjectAlternativeNames([.dnsName("ca.example")]), critical: true)
            ]
        }
        let chain = try pki.leaf { $0.issuer = .custom(ca, presenting: [ca]) }
        let failure = try await evaluate(chain).failure
        #expect(failure?.code == .certificateProfileViolation)
        #expect(failure?.message.contains("empty subject") == true)
    }

    @Test func malformedAuthorityInformationAccessIsRefused() async throws {
        // SEQUENCE { INTEGER 0 }: not a sequence of AccessDescriptions.
        let bad = Certificate.Extension(
            oid: .X509ExtensionID.authorityInformationAccess,
            critical: false,
            value: [0x30, 0x03, 0x02, 0x01, 0x00]
        )
        let failure = try await evaluate(pki.leaf { $0.extraExtensions = [bad] }).failure
        #expect(failure?.code == .certificateProfileViolation)
        #expect(failure?.message.contains("authorityInformationAccess") == true)
        let good = try AuthorityInformationAccess([
            .init(method: .issuingCA, location: .uniformResourceIdentifier("http://ca.example/ca.der"))
        ])
        .makeCertificateExtension()
        #expect(try await evaluate(pki.leaf { $0.extraExtensions = [good] }).isTrusted)
    }

    // MARK: 5. Common name consistency (BR §7.1.4.3): a warning, never a refusal

    @Test(arguments: [
        // common name, DNS SANs, IP SANs, host, consistent?
        ("www.example.com", ["www.example.com"], [String](), "www.example.com", true),
        ("notinsan.example.com", ["valid.example.com"], [], "valid.example.com", false),
        ("Example.COM", ["example.com"], [], "example.com", false),
        ("bücher.example", ["xn--bcher-kva.example"], [], "xn--bcher-kva.example", false),
        ("xn--bcher-kva.example", ["xn--bcher-kva.example"], [], "xn--bcher-kva.example", true),
        ("192.168.1.1", [], ["192.168.1.1"], "192.168.1.1", true),
        ("192.168.001.001", [], ["192.168.1.1"], "192.168.1.1", false),
        ("0xC0A80101", [], ["192.168.1.1"], "192.168.1.1", false),
        ("2001:db8::1", [], ["2001:db8::1"], "[2001:db8::1]", true),
        ("2001:DB8::1", [], ["2001:db8::1"], "[2001:db8::1]", false),
        ("2001:0db8:0000:0000:0000:0000:0000:0001", [], ["2001:db8::1"], "[2001:db8::1]", false),
        ("2001:db8::1:0:0:1", [], ["2001:db8:0:0:1:0:0:1"], "[2001:db8::1:0:0:1]", true),
        ("2001:db8:0:0:1:0:0:1", [], ["2001:db8:0:0:1:0:0:1"], "[2001:db8::1:0:0:1]", false),
    ])
    func aCommonNameThatIsNotACopyOfASANIsAWarning(
        cn: String,
        dns: [String],
        ips: [String],
        host: String,
        consistent: Bool
    ) async throws {
        let chain = try pki.leaf {
            $0.commonName = cn
            $0.dnsNames = dns
            $0.ipAddresses = ips
        }
        // The host is identified by the SAN only (RFC 9525 §6.3), so the CN never refuses.
        let decision = try await evaluate(chain, host: host)
        #expect(decision.isTrusted, "\(cn): \(decision.failure?.description ?? "")")
        #expect(decision.warnings.map(\.code) == (consistent ? [] : [.commonNameInconsistent]), "\(cn)")
        if !consistent {
            #expect(decision.warnings.first?.message.contains("BR §7.1.4.3") == true)
            // The rule binds publicly trusted CAs: the private-PKI profile does not mention it.
            let relaxed = try await evaluate(chain, host: host, anchors: privateAnchors)
            #expect(relaxed.isTrusted && relaxed.warnings.isEmpty, "\(cn) under the private profile")
            // Run as a rule of its own, it still fails.
            #expect(CommonNamePolicy().check(certificates: chain.certificates)?.code == .certificateProfileViolation)
        }
    }

    @Test func twoCommonNamesAreAWarning() async throws {
        let subject = try DistinguishedName {
            CommonName("localhost")
            CommonName("localhost")
        }
        let decision = try await evaluate(pki.leaf { $0.subject = subject })
        #expect(decision.isTrusted)
        #expect(decision.warnings.map(\.code) == [.commonNameInconsistent])
        #expect(decision.warnings.first?.message.contains("2 common names") == true)
    }

    /// A leaf whose common name is a T61String (real CAs issued such leaves; swift-certificates
    /// does not read the type as a string) is identified by its SAN like any other.
    @Test func aCommonNameInAStringTypeThatIsNotReadIsAWarning() async throws {
        let teletex = try ASN1Any(derEncoded: [0x14, 0x09] + Array("localhost".utf8))
        let subject = DistinguishedName([
            RelativeDistinguishedName(
                RelativeDistinguishedName.Attribute(
                    type: .RDNAttributeType.commonName,
                    value: RelativeDistinguishedName.Attribute.Value(asn1Any: teletex)
                )
            )
        ])
        let decision = try await evaluate(pki.leaf { $0.subject = subject })
        #expect(decision.isTrusted, "\(decision.failure?.description ?? "")")
        #expect(decision.warnings.map(\.code) == [.commonNameInconsistent])
        #expect(decision.warnings.first?.message.contains("T61String") == true)
    }

    /// A keyUsage BIT STRING with trailing zero bits inside its length (5 unused bits declared for
    /// digitalSignature alone, where DER wants 7) asserts the same usages, as BoringSSL, NSS and
    /// Apple read it; a set bit past decipherOnly or a non-zero padding bit is still malformed.
    @Test(arguments: [
        ([UInt8]([0x03, 0x02, 0x05, 0x80]), true),  // digitalSignature, 5 unused bits (DER: 7)
        ([0x03, 0x02, 0x00, 0x80], true),  // digitalSignature, 0 unused bits
        ([0x03, 0x03, 0x00, 0xA0, 0x00], true),  // digitalSignature + keyEncipherment, a zero octet
        ([0x03, 0x02, 0x05, 0x04], false),  // keyCertSign only: not a leaf's usage
        ([0x03, 0x03, 0x00, 0x80, 0x40], false),  // a bit past decipherOnly
        ([0x03, 0x02, 0x05, 0x81], false),  // a padding bit set: not DER
    ])
    func keyUsageWithTrailingZeroBitsIsReadForWhatItAsserts(value: [UInt8], accepted: Bool) async throws {
        let ext = Certificate.Extension(oid: .X509ExtensionID.keyUsage, critical: true, value: value[...])
        let chain = try pki.leaf {
            $0.keyUsage = nil
            $0.extraExtensions = [ext]
        }
        let decision = try await evaluate(chain)
        if accepted {
            #expect(decision.isTrusted, "\(value): \(decision.failure?.description ?? "")")
        } else {
            #expect(decision.failure?.code == .invalidKeyUsage, "\(value)")
        }
    }

    // MARK: 6. Extended key usage (BR §7.1.2.7.6, §7.1.2.7.10, §7.1.2.1.2)

    @Test func criticalExtendedKeyUsageIsRefusedUnderTheWebPKIProfile() async throws {
        let chain = try pki.leaf { $0.extendedKeyUsageIsCritical = true }
        let failure = try await evaluate(chain).failure
        #expect(failure?.code == .serverAuthNotPermitted)
        #expect(failure?.message.contains("critical extended key usage") == true)
        // RFC 5280 §4.2.1.12 allows a critical EKU that lists serverAuth.
        #expect(try await evaluate(chain, anchors: privateAnchors).isTrusted)
    }

    @Test func leafWithoutExtendedKeyUsageIsRefusedUnderTheWebPKIProfileOnly() async throws {
        let chain = try pki.leaf { $0.extendedKeyUsage = nil }
        let failure = try await evaluate(chain).failure
        #expect(failure?.code == .serverAuthNotPermitted)
        // With only the app's anchors, the refusal points at the opt-out.
        #expect(failure?.message.contains("profile: .privatePKI") == true)
        #expect(try await evaluate(chain, anchors: privateAnchors).isTrusted)
        // A chain to the system roots is always held to the Web PKI profile, and no opt-out is offered.
        let mixed = TrustAnchors.system(adding: [pki.root.certificate])
        let systemFailure = try await evaluate(chain, anchors: mixed).failure
        #expect(systemFailure?.code == .serverAuthNotPermitted)
        #expect(systemFailure?.message.contains("privatePKI") == false)
        // A refusal under both profiles offers none either.
        #expect(
            try await evaluate(pki.leaf { $0.extendedKeyUsage = [.clientAuth] }).failure?.message.contains("privatePKI")
                == false
        )
    }

    @Test(arguments: [
        ([ExtendedKeyUsage.Usage.serverAuth, .any], "anyExtendedKeyUsage"),
        ([.serverAuth, .codeSigning], "codeSigning"),
        ([.serverAuth, .emailProtection], "emailProtection"),
        ([.serverAuth, .timeStamping], "timeStamping"),
        ([.serverAuth, .ocspSigning], "OCSPSigning"),
        ([.certificateTransparency], "Precertificate"),
    ])
    func forbiddenPurposesInAServerCertificateAreRefused(usages: [ExtendedKeyUsage.Usage], name: String) async throws {
        let failure = try await evaluate(pki.leaf { $0.extendedKeyUsage = usages }).failure
        #expect(failure?.code == .serverAuthNotPermitted)
        #expect(failure?.message.contains(name) == true, "\(failure?.description ?? "trusted")")
    }

    @Test func appSuppliedRootWithExtendedKeyUsageIsRefused() async throws {
        let root = try pki.makeCA(name: "Root with EKU", issuer: nil) { $0.extendedKeyUsage = [.serverAuth] }
        let chain = try pki.leaf { $0.issuer = .custom(root, presenting: []) }
        let failure = try await evaluate(chain, anchors: .only([root.certificate])).failure
        #expect(failure?.code == .certificateProfileViolation)
        #expect(failure?.message.contains("extKeyUsage") == true)
        #expect(try await evaluate(chain, anchors: .only([root.certificate], profile: .privatePKI)).isTrusted)
    }

    // MARK: 7. RSA moduli that are not a whole number of octets (BR §6.1.5)

    @Test func rsaModulusThatIsNotAWholeNumberOfOctetsIsRefused() async throws {
        // A 2052-bit modulus: odd, top bit set. Only the public key is needed to evaluate.
        var modulus = [UInt8](repeating: 0xA5, count: 257)
        modulus[0] = 0x0F
        modulus[256] |= 1
        let odd = try _RSA.Signing.PublicKey(n: modulus, e: [0x01, 0x00, 0x01])
        #expect(odd.keySizeInBits == 2052)
        let chain = try pki.leaf { $0.publicKey = Certificate.PublicKey(odd) }
        let failure = try await evaluate(chain).failure
        #expect(failure?.code == .certificateProfileViolation)
        #expect(failure?.message.contains("2052-bit RSA modulus") == true)
        #expect(try await evaluate(pki.leaf { $0.key = .rsa(bits: 2048) }).isTrusted)
    }

    // MARK: Key usage (RFC 5280 §4.2.1.3)

    @Test func keyUsageWithNoBitsOrNoTLSUsageIsRefused() async throws {
        #expect(try await evaluate(pki.leaf { $0.keyUsage = KeyUsage() }).failure?.code == .invalidKeyUsage)
        #expect(
            try await evaluate(pki.leaf { $0.keyUsage = KeyUsage(keyAgreement: true) }).failure?.code
                == .invalidKeyUsage
        )
        // keyEncipherment alone suits an RSA key (RSA key transport), not an EC key.
        #expect(
            try await evaluate(
                pki.leaf {
                    $0.key = .rsa(bits: 2048)
                    $0.keyUsage = KeyUsage(keyEncipherment: true)
                }
            ).isTrusted
        )
        #expect(
            try await evaluate(pki.leaf { $0.keyUsage = KeyUsage(keyEncipherment: true) }).failure?.code
                == .invalidKeyUsage
        )
    }
}
