import Crypto
import Foundation
import SecureNetworkingTesting
import ServerTrust
import SwiftASN1
import Testing
import X509

/// Serial numbers, anchors, unusable extra certificates, weak signatures and public suffixes:
/// the cases where ServerTrust refused a good chain or misreported a bad one.
@Suite("Conformance: anchors, serials, path building, public suffixes")
struct PathConformanceTests {
    let pki = Fixtures.pki

    /// The certificate re-encoded with another signature algorithm in both places (TBS and
    /// outer), keeping the signature bytes: what a SHA-1 signed certificate looks like to a parser.
    static func reencoded(_ der: [UInt8], signatureAlgorithm oid: ASN1ObjectIdentifier) throws -> [UInt8] {
        guard case .constructed(let parts) = try DER.parse(der).content else { throw CocoaError(.coderInvalidValue) }
        let nodes = Array(parts)
        guard case .constructed(let tbsParts) = nodes[0].content else { throw CocoaError(.coderInvalidValue) }
        let fields = Array(tbsParts)
        let signatureIndex =
            fields[0].identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) ? 2 : 1
        func algorithm(_ coder: inout DER.Serializer) throws {
            try coder.appendConstructedNode(identifier: .sequence) { try $0.serialize(oid) }
        }
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { coder in
            try coder.appendConstructedNode(identifier: .sequence) { tbs in
                for (index, field) in fields.enumerated() {
                    if index == signatureIndex {
                        try algorithm(&tbs)
                    } else {
                        tbs.serializeRawBytes(field.encodedBytes)
                    }
                }
            }
            try algorithm(&coder)
            coder.serializeRawBytes(nodes[2].encodedBytes)
        }
        return serializer.serializedBytes
    }

    static let ecdsaWithSHA1: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 1]

    func evaluateDER(
        _ chain: [[UInt8]],
        anchors: TrustAnchors? = nil,
        host: String = "localhost"
    ) async -> TrustDecision {
        let requirements = ConnectionRequirements(host: host, trustAnchors: anchors ?? pki.trustAnchors)
        return await ServerTrust().evaluate(presentedChain: chain, requirements: requirements, now: Fixtures.now)
    }

    // MARK: 8. The Public Suffix List's ICANN section; private-section wildcards are accepted

    @Test(arguments: [
        // Private section: the suffix's owner is the applicant, and browsers accept these.
        ("*.s3.amazonaws.com", "bucket.s3.amazonaws.com", true),
        ("*.s3.us-east-2.amazonaws.com", "bucket.s3.us-east-2.amazonaws.com", true),
        ("*.cloudfront.net", "d111111abcdef8.cloudfront.net", true),
        ("*.github.io", "someone.github.io", true),
        ("*.herokuapp.com", "app.herokuapp.com", true),
        ("*.azurewebsites.net", "site.azurewebsites.net", true),
        ("*.blogspot.com", "someone.blogspot.com", true),
        // ICANN section: refused.
        ("*.com", "example.com", false),
        ("*.co.uk", "example.co.uk", false),
        ("*.foo.kawasaki.jp", "a.foo.kawasaki.jp", false),
        ("*.city.kawasaki.jp", "www.city.kawasaki.jp", true),
        ("*.xn--55qx5d.cn", "a.xn--55qx5d.cn", false),
        ("*.example.s3.amazonaws.com", "a.example.s3.amazonaws.com", true),
        ("*.example.co.uk", "www.example.co.uk", true),
    ])
    func wildcardsDirectlyUnderAnICANNSuffixAreRefused(san: String, host: String, trusted: Bool) async throws {
        let chain = try pki.leaf {
            $0.dnsNames = [san]
            $0.ipAddresses = []
            $0.commonName = san
        }
        let decision = try await evaluate(chain, host: host)
        #expect(decision.isTrusted == trusted, "\(san): \(decision.failure?.description ?? "trusted")")
        if !trusted { #expect(decision.failure?.code == .hostnameMismatch) }
    }

    @Test func theBuiltInListIsTheICANNSection() {
        let list = PublicSuffixList.builtIn
        #expect(PublicSuffixList.builtInListDate == "2026-10-07")
        for suffix in ["com", "co.uk", "xn--55qx5d.cn", "foo.ck", "a.kawasaki.jp", "net"] {
            #expect(list.isPublicSuffix(suffix), "\(suffix)")
        }
        for domain in [
            "example.com", "www.ck", "city.kawasaki.jp", "s3.amazonaws.com", "github.io", "cloudfront.net",
            "appspot.com",
        ] {
            #expect(!list.isPublicSuffix(domain), "\(domain)")
        }
    }

    @Test func thePrivateSectionCountsOnlyWhenAsked() {
        let text = "com\n// ===BEGIN PRIVATE DOMAINS===\ngithub.io\n*.compute.example\n"
        let icann = PublicSuffixList(parsing: text)
        #expect(icann.isPublicSuffix("com"))
        #expect(!icann.isPublicSuffix("github.io"))
        #expect(!icann.isPublicSuffix("a.compute.example"))
        let both = PublicSuffixList(parsing: text, includingPrivateDomains: true)
        #expect(both.isPublicSuffix("github.io"))
        #expect(both.isPublicSuffix("a.compute.example"))
    }

    // MARK: 9. The anchor is trusted by configuration: profile rules judge the presented path

    @Test func anAnchorWithSerialZeroIsTrustedButAPresentedCertificateIsNot() async throws {
        let root = try pki.makeCA(name: "Serial Zero Root", issuer: nil) { $0.serialNumberBytes = [0] }
        let issuing = try pki.makeCA(name: "Issuing CA under Serial Zero", issuer: root)
        let chain = try pki.leaf { $0.issuer = .custom(issuing, presenting: [issuing]) }
        let decision = try await evaluate(chain, anchors: .only([root.certificate]))
        #expect(decision.isTrusted, "\(decision.failure?.description ?? "")")
        let zero = try pki.makeCA(name: "Serial Zero Intermediate", issuer: pki.root) { $0.serialNumberBytes = [0] }
        let refused = try pki.leaf { $0.issuer = .custom(zero, presenting: [zero]) }
        #expect(try await evaluate(refused).failure?.code == .invalidSerialNumber)
    }

    /// The roots of the system bundle (`ca-certificates`, which `.ci/run` installs).
    static func systemRoots() throws -> [Certificate] {
        let text = try String(contentsOfFile: "/etc/ssl/certs/ca-certificates.crt", encoding: .utf8)
        return try PEMDocument.parseMultiple(pemString: text).compactMap { try? Certificate(derEncoded: $0.derBytes) }
    }

    @Test func realPublicRootsWithLegacyProfilesAreNotJudged() throws {
        let roots = try Self.systemRoots()
        #expect(roots.count > 100)
        // Starfield Root Certificate Authority – G2 has serial 0 and anchors real sites (fastly.com).
        let starfield = try #require(
            roots.first { String(describing: $0.subject).contains("Starfield Root Certificate Authority - G2") }
        )
        #expect(starfield.serialNumber.bytes.allSatisfy { $0 == 0 })
        // Every system root may end a path: none of the rules that see anchors refuses one. (The
        // path is leaf → root, so that a root's own path length limit is not what is tested.)
        let chain = try pki.validChain().certificates
        let rules: [any ChainRule] = [
            SerialNumberPolicy(), CertificateAuthorityPolicy(), KeyUsageRolePolicy(), ServerAuthUsagePolicy(),
            ExtensionProfilePolicy(), AnchorProfilePolicy(appSuppliedAnchors: []), KeyIdentifierPolicy(),
            CertificateStrengthPolicy(),
            StrictNameConstraintsPolicy(),
        ]
        var refused: [String] = []
        for root in roots {
            let path = [chain[0], root]
            for var rule in rules {
                if let failure = rule.check(certificates: path) { refused.append("\(root.subject): \(failure)") }
            }
        }
        #expect(refused.isEmpty, "\(refused.prefix(5))")
        // The same rules do judge an anchor the app supplied: a root with authorityCertIssuer in
        // its AKI, like QuoVadis Root CA 2, is refused only then.
        let quoVadis = try #require(
            roots.first { String(describing: $0.subject).contains("QuoVadis Root CA 2") && $0.subject == $0.issuer }
        )
        let path = [chain[0], quoVadis]
        #expect(AnchorProfilePolicy(appSuppliedAnchors: []).check(certificates: path) == nil)
        #expect(
            AnchorProfilePolicy(appSuppliedAnchors: [quoVadis]).check(certificates: path)?.code
                == .certificateProfileViolation
        )
    }

    // MARK: 10. An unusable extra certificate does not refuse a chain that has a path without it

    @Test func anUnparseableExtraCertificateIsSkipped() async throws {
        let chain = try pki.validChain()
        let sha1Other = try Self.reencoded(pki.rsaIntermediate.derBytes, signatureAlgorithm: Self.ecdsaWithSHA1)
        #expect(throws: (any Error).self) { try Certificate(derEncoded: sha1Other) }
        let withSHA1Extra = await evaluateDER(chain.derChain + [sha1Other])
        #expect(withSHA1Extra.isTrusted, "\(withSHA1Extra.failure?.description ?? "")")
        let withGarbage = await evaluateDER(chain.derChain + [[0x30, 0x03, 0x02, 0x01, 0x00]])
        #expect(withGarbage.isTrusted)
        // Near miss: when the unreadable certificate is the one the path needs, its reason is given.
        let sha1Intermediate = try Self.reencoded(pki.intermediate.derBytes, signatureAlgorithm: Self.ecdsaWithSHA1)
        let needed = await evaluateDER([chain.derChain[0], sha1Intermediate])
        #expect(needed.failure?.code == .weakSignatureAlgorithm, "\(needed.failure?.description ?? "trusted")")
        // An unreadable leaf still refuses the chain.
        let garbageLeaf = await evaluateDER([[0x30, 0x03, 0x02, 0x01, 0x00]] + Array(chain.derChain.dropFirst()))
        #expect(garbageLeaf.failure?.code == .malformedCertificate)
    }

    // MARK: 12. The real reason for a SHA-1 signature

    @Test func aSHA1SignedLeafIsAWeakSignatureNotAMalformedCertificate() async throws {
        let chain = try pki.validChain()
        let sha1Leaf = try Self.reencoded(chain.derChain[0], signatureAlgorithm: Self.ecdsaWithSHA1)
        let decision = await evaluateDER([sha1Leaf] + Array(chain.derChain.dropFirst()))
        #expect(decision.failure?.code == .weakSignatureAlgorithm)
        #expect(decision.failure?.message.contains("ecdsa-with-SHA1") == true)
        // sha1WithRSAEncryption, which swift-certificates parses, is refused by the strength rule.
        #expect(try await evaluate(pki.sha1Chain()).failure?.code == .weakSignatureAlgorithm)
    }

    // MARK: 13. Serial numbers as swift-certificates mints them

    @Test func serialsFromSwiftCertificatesGeneratorAreAccepted() async throws {
        for _ in 0..<16 {
            let serial = Certificate.SerialNumber()
            let chain = try pki.leaf { $0.serialNumberBytes = Array(serial.bytes) }
            let decision = try await evaluate(chain)
            #expect(decision.isTrusted, "serial \(serial): \(decision.failure?.description ?? "")")
        }
        // The case this is about: a 20-octet value whose DER encoding needs a sign octet.
        let signed = try pki.leaf { $0.serialNumberBytes = [0xFF] + Array(repeating: 0x01, count: 19) }
        // The encoding really has the sign octet: INTEGER, 21 content octets, 0x00 first.
        let encoded = try RawSerial.content(signed.derChain[0])
        #expect(encoded.count == 21 && encoded.first == 0x00)
        #expect(try await evaluate(signed).isTrusted)
        // Both sides of the line: zero and a 21-octet value are refused.
        #expect(try await evaluate(pki.leaf { $0.serialNumberBytes = [0] }).failure?.code == .invalidSerialNumber)
        #expect(
            try await evaluate(pki.leaf { $0.serialNumberBytes = [0x01] + Array(repeating: 0, count: 20) }).failure?
                .code == .invalidSerialNumber
        )
    }
}

/// The DER content octets of a certificate's serialNumber, as encoded.
enum RawSerial {
    static func content(_ der: [UInt8]) throws -> ArraySlice<UInt8> {
        guard case .constructed(let parts) = try DER.parse(der).content,
            case .constructed(let tbs) = Array(parts)[0].content
        else { throw CocoaError(.coderInvalidValue) }
        let fields = Array(tbs)
        let serial =
            fields[0].identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) ? fields[1] : fields[0]
        guard case .primitive(let bytes) = serial.content else { throw CocoaError(.coderInvalidValue) }
        return bytes
    }
}
