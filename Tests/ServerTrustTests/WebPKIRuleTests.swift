import Foundation
import SecureNetworkingTesting
import ServerTrust
import SwiftASN1
import Testing
import X509

/// The Web PKI rules swift-certificates 1.21.1 does not enforce by itself: each has a chain that
/// breaks it and a near miss that is accepted.
@Suite("Web PKI rules")
struct WebPKIRuleTests {
    let pki = Fixtures.pki

    // MARK: Extended key usage (RFC 5280 §4.2.1.12, BR §7.1.2.3)

    @Test func clientAuthOnlyLeafIsNotAServer() async throws {
        let decision = try await evaluate(pki.leaf { $0.extendedKeyUsage = [.clientAuth] })
        #expect(decision.failure?.code == .serverAuthNotPermitted)
    }

    @Test func serverAuthWithOtherUsagesIsAccepted() async throws {
        #expect(try await evaluate(pki.leaf { $0.extendedKeyUsage = [.clientAuth, .serverAuth] }).isTrusted)
    }

    @Test func intermediateRestrictedToClientAuthCannotIssueServers() async throws {
        let restricted = try pki.makeIntermediate(name: "Client-only CA", extendedKeyUsage: [.clientAuth])
        let chain = try pki.leaf { $0.issuer = .custom(restricted, presenting: [restricted]) }
        #expect(try await evaluate(chain).failure?.code == .serverAuthNotPermitted)

        let serverCA = try pki.makeIntermediate(name: "Server CA", extendedKeyUsage: [.serverAuth, .clientAuth])
        let good = try pki.leaf { $0.issuer = .custom(serverCA, presenting: [serverCA]) }
        #expect(try await evaluate(good).isTrusted)
    }

    // MARK: Host names (RFC 9525 §6.3, RFC 6125 §6.4.3, BR §3.2.2.6)

    @Test(arguments: [
        // presented SAN, host, trusted?
        ("*.example.com", "bar.example.com", true),
        ("*.example.com", "a.bar.example.com", false),
        ("*.example.com", "example.com", false),
        ("ba*.example.com", "bar.example.com", false),
        ("*ar.example.com", "bar.example.com", false),
        ("b*r.example.com", "bar.example.com", false),
        ("bar.*.com", "bar.example.com", false),
        ("*.com", "example.com", false),
        ("*.co.uk", "example.co.uk", false),
        ("*.example.co.uk", "www.example.co.uk", true),
        ("*.github.io", "someone.github.io", true),
        ("*", "localhost", false),
        ("BAR.Example.COM", "bar.example.com.", true),
    ])
    func wildcardAndNameRules(san: String, host: String, trusted: Bool) async throws {
        let chain = try pki.leaf {
            $0.dnsNames = [san]
            $0.ipAddresses = []
            $0.commonName = san
        }
        let decision = try await evaluate(chain, host: host)
        #expect(decision.isTrusted == trusted, "\(decision.failure?.description ?? "trusted")")
        if !trusted { #expect(decision.failure?.code == .hostnameMismatch) }
    }

    @Test func commonNameWithoutSANIsNotUsed() async throws {
        let cnOnly = try pki.leaf {
            $0.includesSubjectAlternativeNames = false
            $0.commonName = "localhost"
        }
        let decision = try await evaluate(cnOnly)
        #expect(decision.failure?.code == .hostnameMismatch)
        #expect(decision.failure?.message.contains("no subject alternative name") == true)
        // The same common name with a SAN is fine.
        #expect(try await evaluate(pki.leaf { $0.commonName = "localhost" }).isTrusted)
    }

    @Test func ipAddressMatchesOnlyAnIPSAN() async throws {
        let dnsForm = try pki.leaf {
            $0.dnsNames = ["127.0.0.1"]
            $0.ipAddresses = []
        }
        #expect(try await evaluate(dnsForm, host: "127.0.0.1").failure?.code == .hostnameMismatch)
        let ipForm = try pki.leaf {
            $0.dnsNames = []
            $0.ipAddresses = ["127.0.0.1"]
            $0.commonName = "127.0.0.1"
        }
        #expect(try await evaluate(ipForm, host: "127.0.0.1").isTrusted)
    }

    @Test func anotherPublicSuffixListCanBeLoaded() async throws {
        let list = PublicSuffixList(parsing: "// comment\nexample\n*.ck\n!www.ck\n")
        #expect(list.isPublicSuffix("example"))
        #expect(list.isPublicSuffix("foo.ck"))
        #expect(!list.isPublicSuffix("www.ck"))
        #expect(!list.isPublicSuffix("example.com"))
        // The built-in list knows `*.ck` too; a list without it lets the wildcard through.
        let chain = try pki.leaf {
            $0.dnsNames = ["*.foo.ck"]
            $0.ipAddresses = []
            $0.commonName = "*.foo.ck"
        }
        #expect(
            try await evaluate(chain, host: "a.foo.ck", configuration: .init(publicSuffixes: list)).failure?.code
                == .hostnameMismatch
        )
        #expect(try await evaluate(chain, host: "a.foo.ck").failure?.code == .hostnameMismatch)
        let lax = PublicSuffixList(parsing: "example\n")
        #expect(try await evaluate(chain, host: "a.foo.ck", configuration: .init(publicSuffixes: lax)).isTrusted)
        // An exception rule (`!www.ck`) is not a suffix, so a wildcard under it is allowed.
        let underException = try pki.leaf {
            $0.dnsNames = ["*.www.ck"]
            $0.ipAddresses = []
            $0.commonName = nil
        }
        #expect(try await evaluate(underException, host: "a.www.ck").isTrusted)
    }

    // MARK: Key usage by role (RFC 5280 §4.2.1.3, §4.2.1.9)

    @Test func leafThatCanSignCertificatesIsRejected() async throws {
        let chain = try pki.leaf { $0.keyUsage = KeyUsage(digitalSignature: true, keyCertSign: true) }
        #expect(try await evaluate(chain).failure?.code == .invalidKeyUsage)
        #expect(
            try await evaluate(pki.leaf { $0.keyUsage = KeyUsage(digitalSignature: true, keyEncipherment: true) })
                .isTrusted
        )
    }

    @Test func caWithKeyUsageButNoKeyCertSignIsRejected() async throws {
        let ca = try pki.makeIntermediate(
            name: "No keyCertSign CA",
            keyUsage: KeyUsage(digitalSignature: true, cRLSign: true)
        )
        let chain = try pki.leaf { $0.issuer = .custom(ca, presenting: [ca]) }
        let failure = try await evaluate(chain).failure
        #expect(failure?.code == .invalidKeyUsage, "\(failure?.description ?? "trusted")")
        let withoutKeyUsage = try pki.makeIntermediate(name: "No key usage CA", keyUsage: nil)
        #expect(
            try await evaluate(pki.leaf { $0.issuer = .custom(withoutKeyUsage, presenting: [withoutKeyUsage]) })
                .isTrusted
        )
    }

    // MARK: Serial numbers (RFC 5280 §4.1.2.2)

    @Test func serialValueLongerThanTwentyOctetsIsRejected() async throws {
        // A 21-octet value (22 octets on the wire with its sign octet) is refused…
        let long = try pki.leaf { $0.serialNumberBytes = [0x01] + Array(repeating: 0x11, count: 20) }
        let failure = try await evaluate(long).failure
        #expect(failure?.code == .invalidSerialNumber)
        #expect(failure?.message.contains("21-octet value") == true)
        // …and a 20-octet value is the limit, whatever its top bit.
        #expect(
            try await evaluate(pki.leaf { $0.serialNumberBytes = [0x7F] + Array(repeating: 0x11, count: 19) }).isTrusted
        )
    }

    @Test func negativeSerialIsRejected() async throws {
        let requirements = ConnectionRequirements(host: "localhost", trustAnchors: pki.trustAnchors)
        let decision = await ServerTrust().evaluate(
            presentedChain: try pki.negativeSerialChainDER(),
            requirements: requirements,
            now: Fixtures.now
        )
        #expect(decision.failure?.code == .invalidSerialNumber)
        #expect(decision.failure?.message.contains("not a positive integer") == true)
    }

    // MARK: Validation time (RFC 5280 §4.1.2.5): from notBefore, through notAfter's whole second

    @Test func validityRunsFromNotBeforeThroughTheSecondOfNotAfter() async throws {
        let chain = try pki.validChain()
        let notAfter = chain.leaf.notValidAfter
        let notBefore = chain.leaf.notValidBefore
        #expect(try await evaluate(chain, at: notAfter).isTrusted)
        #expect(try await evaluate(chain, at: notAfter.addingTimeInterval(0.5)).isTrusted)
        #expect(try await evaluate(chain, at: notAfter.addingTimeInterval(0.999)).isTrusted)
        #expect(try await evaluate(chain, at: notAfter.addingTimeInterval(1)).failure?.code == .expired)
        #expect(try await evaluate(chain, at: notBefore).isTrusted)
        #expect(try await evaluate(chain, at: notBefore.addingTimeInterval(-0.5)).failure?.code == .notYetValid)
        #expect(try await evaluate(chain, at: notBefore.addingTimeInterval(-1)).failure?.code == .notYetValid)
    }

    // MARK: Work bounds

    @Test func thousandsOfNameConstraintsAreRefusedWithinTheBudget() async throws {
        let manyDomains = (0..<3000).map { "excluded\($0).example" }
        let constrained = try pki.makeIntermediate(
            name: "Heavily constrained CA",
            nameConstraints: NameConstraints(permittedDNSDomains: ["localhost"], excludedDNSDomains: manyDomains)
        )
        let names = (0..<400).map { "host\($0).localhost" }
        let hostile = try pki.leaf {
            $0.issuer = .custom(constrained, presenting: [constrained])
            $0.dnsNames = ["localhost"] + names
            $0.ipAddresses = []
        }
        let start = ContinuousClock.now
        let decision = try await evaluate(hostile)
        let elapsed = ContinuousClock.now - start
        #expect(decision.failure?.code == .validationBudgetExceeded)
        #expect(decision.failure?.message.contains("comparisons") == true)
        // Not a timing assertion on speed: a sanity bound far above the real cost (milliseconds).
        #expect(elapsed < .seconds(30))

        // Near miss: the same CA with a handful of names is validated in full.
        let modest = try pki.leaf {
            $0.issuer = .custom(constrained, presenting: [constrained])
            $0.dnsNames = ["localhost"]
            $0.ipAddresses = []
        }
        #expect(try await evaluate(modest).isTrusted)
        // And the constraints are really applied: an excluded name is refused by RFC 5280.
        let excluded = try pki.leaf {
            $0.issuer = .custom(constrained, presenting: [constrained])
            $0.dnsNames = ["excluded7.example"]
            $0.ipAddresses = []
        }
        #expect(try await evaluate(excluded, host: "excluded7.example").failure?.code == .nameConstraintViolation)
    }

    @Test func anExhaustedTimeBudgetFailsClosed() async throws {
        let configuration = ServerTrust.Configuration(validationTimeBudget: .zero)
        let decision = try await evaluate(pki.validChain(), configuration: configuration)
        #expect(decision.failure?.code == .validationBudgetExceeded)
    }

    @Test func unsupportedCriticalExtensionOnTheLeafIsRefused() async throws {
        let oid: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 99_999, 1]
        let chain = try pki.leaf {
            $0.extraExtensions = [Certificate.Extension(oid: oid, critical: true, value: [0x05, 0x00])]
        }
        #expect(try await evaluate(chain).failure?.code == .chainPolicyViolation)
        let nonCritical = try pki.leaf {
            $0.extraExtensions = [Certificate.Extension(oid: oid, critical: false, value: [0x05, 0x00])]
        }
        #expect(try await evaluate(nonCritical).isTrusted)
    }

    // MARK: The rules as plain swift-certificates policies

    @Test func rulesWorkInAnyVerifier() async throws {
        // RFC5280Policy() validates at the real current time, so this PKI is minted around it.
        let pki = try TestPKI(referenceTime: Date())
        func validate(_ chain: TestPKI.Chain) async -> CertificateValidationResult {
            var verifier = Verifier(rootCertificates: CertificateStore([pki.root.certificate])) {
                RFC5280Policy()
                ExactExpiryPolicy(validationTime: Date())
                ServerAuthUsagePolicy()
                KeyUsageRolePolicy()
                SerialNumberPolicy()
                WebPKIServerIdentityPolicy(host: "localhost")
                CertificateStrengthPolicy()
            }
            return await verifier.validate(
                leaf: chain.leaf,
                intermediates: CertificateStore(chain.certificates.dropFirst())
            )
        }
        guard
            case .couldNotValidate(let failures) = await validate(try pki.leaf { $0.extendedKeyUsage = [.clientAuth] })
        else {
            Issue.record("a clientAuth-only leaf validated")
            return
        }
        #expect(failures.first?.policyFailureReason.description.hasPrefix("serverAuthNotPermitted:") == true)
        guard case .validCertificate(let chain) = await validate(try pki.validChain()) else {
            Issue.record("the valid chain did not validate")
            return
        }
        #expect(chain.count == 3)
    }
}
