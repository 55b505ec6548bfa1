import Crypto
import Foundation
import SecureNetworkingTesting
import ServerTrust
import SwiftASN1
import Testing
import X509

@Suite("Trust evaluation: the matrix")
struct TrustMatrixTests {
    let pki = Fixtures.pki

    @Test func validChainIsTrustedAndValidatedUpToTheRoot() async throws {
        let decision = try await evaluate(pki.validChain())
        #expect(decision.isTrusted)
        #expect(decision.failure == nil)
        let chain = try decision.validatedChain()
        #expect(chain.count == 3)
        #expect(chain.last == pki.root.certificate)
        #expect(decision.pinReport == nil)
    }

    @Test(arguments: ["localhost", "127.0.0.1", "::1", "[::1]", "LOCALHOST."])
    func validChainIsTrustedForEveryNameItCarries(host: String) async throws {
        #expect(try await evaluate(pki.validChain(), host: host).isTrusted)
    }

    @Test(arguments: [
        ("expired", ServerTrustError.Code.expired),
        ("notYetValid", .notYetValid),
        ("wrongHost", .hostnameMismatch),
        ("selfSigned", .selfSigned),
        ("untrustedRoot", .untrustedRoot),
        ("missingIntermediate", .missingIntermediate),
        ("sha1", .weakSignatureAlgorithm),
        ("rsa1024", .weakKey),
        ("interception", .untrustedRoot),
    ])
    func everyBadVariantIsRejectedWithItsOwnReason(variant: String, code: ServerTrustError.Code) async throws {
        let chain: TestPKI.Chain
        switch variant {
        case "expired": chain = try pki.expiredChain()
        case "notYetValid": chain = try pki.notYetValidChain()
        case "wrongHost": chain = try pki.wrongHostChain()
        case "selfSigned": chain = try pki.selfSignedChain()
        case "untrustedRoot": chain = try pki.untrustedRootChain()
        case "missingIntermediate": chain = try pki.missingIntermediateChain()
        case "sha1": chain = try pki.sha1Chain()
        case "rsa1024": chain = try pki.rsa1024Chain()
        default: chain = try pki.interceptionChain()
        }
        let decision = try await evaluate(chain)
        #expect(!decision.isTrusted)
        #expect(decision.failure?.code == code, "\(decision.failure?.description ?? "trusted")")
        #expect(decision.chain.isEmpty)
        #expect { try decision.validatedChain() } throws: { ($0 as? ServerTrustError)?.code == code }
    }

    @Test func wrongIPAddressIsAHostnameMismatch() async throws {
        let decision = try await evaluate(pki.validChain(), host: "10.0.0.1")
        #expect(decision.failure?.code == .hostnameMismatch)
        #expect(decision.failure?.message.contains("127.0.0.1") == true)
    }

    @Test func nearMissesOfTheStrengthRulesAreAccepted() async throws {
        // The same RSA intermediate signing with SHA-256, and an RSA-2048 leaf.
        #expect(try await evaluate(pki.leaf { $0.issuer = .rsaIntermediate }).isTrusted)
        #expect(try await evaluate(pki.leaf { $0.key = .rsa(bits: 2048) }).isTrusted)
        #expect(try await evaluate(pki.leaf { $0.key = .p384 }).isTrusted)
    }

    @Test func weakRulesCanBeRelaxedOnlyExplicitly() async throws {
        let relaxed = CertificateRules(minimumRSAKeySize: 2048, minimumECKeySize: 256, requiresSHA2Signatures: false)
        #expect(try await evaluate(pki.sha1Chain(), rules: relaxed).isTrusted)
        let stricter = CertificateRules(minimumRSAKeySize: 2048, minimumECKeySize: 384, requiresSHA2Signatures: true)
        let decision = try await evaluate(pki.validChain(), rules: stricter)
        #expect(decision.failure?.code == .weakKey)
    }

    @Test func emptyAndOverlongChainsAreRefusedBeforeParsing() async throws {
        let requirements = ConnectionRequirements(host: "localhost", trustAnchors: pki.trustAnchors)
        let empty = await ServerTrust().evaluate(presentedChain: [], requirements: requirements, now: Fixtures.now)
        #expect(empty.failure?.code == .emptyChain)
        let valid = try pki.validChain()
        // 64 presented certificates are considered (a server may send every cross-sign it has);
        // 65 are refused before any is parsed.
        let long = Array(repeating: valid.derChain[1], count: 64)
        let overlong = await ServerTrust().evaluate(
            presentedChain: [valid.derChain[0]] + long,
            requirements: requirements,
            now: Fixtures.now
        )
        #expect(overlong.failure?.code == .chainTooLong)
        #expect(overlong.failure?.message.contains("presented 65 certificates; at most 64") == true)
        let longest = await ServerTrust().evaluate(
            presentedChain: [valid.derChain[0]] + long.dropFirst(),
            requirements: requirements,
            now: Fixtures.now
        )
        #expect(longest.isTrusted, "\(longest.failure?.description ?? "")")
        let garbage = await ServerTrust().evaluate(
            presentedChain: [[0x30, 0x00]],
            requirements: requirements,
            now: Fixtures.now
        )
        #expect(garbage.failure?.code == .malformedCertificate)
    }

    /// Layers of CA certificates with the same name and key, each verifying every certificate
    /// below it: the path builder's search grows as the product of the layers (4⁵ = 1,024
    /// partial paths here, every one failing at the end). The issuer-lookup bound ends it with
    /// `validationBudgetExceeded`; without the bound every path would be tried and the refusal
    /// would be the host name. A good path in the same graph is found first.
    @Test func layersOfSameNameCAsExhaustTheIssuerLookupBound() async throws {
        var issuers: [TestPKI.Identity] = [pki.root]
        var presented: [TestPKI.Identity] = []
        for level in 0..<5 {
            let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
            var copies: [TestPKI.Identity] = []
            for copy in 0..<4 {
                var options = TestPKI.CAOptions(name: "Layer \(level)")
                options.key = .existing(key)
                options.serialNumberBytes = [UInt8(level + 1), UInt8(copy + 1)]
                copies.append(try pki.makeCA(options, issuer: issuers[copy % issuers.count]))
            }
            presented = copies + presented
            issuers = copies
        }
        #expect(presented.count == 20)
        let forAnotherHost = try pki.leaf {
            $0.issuer = .custom(issuers[0], presenting: presented)
            $0.dnsNames = ["other.example"]
            $0.ipAddresses = []
        }
        let requirements = ConnectionRequirements(host: "localhost", trustAnchors: pki.trustAnchors)
        let refused = await ServerTrust().evaluate(
            presentedChain: forAnotherHost.derChain,
            requirements: requirements,
            now: Fixtures.now
        )
        #expect(refused.failure?.code == .validationBudgetExceeded, "\(refused.failure?.description ?? "trusted")")
        #expect(refused.failure?.message.contains("48 issuer lookups") == true)
        // With room for the whole search, every path is tried and each fails on the host name.
        let unbounded = await ServerTrust(configuration: .init(maximumIssuerLookups: 10_000)).evaluate(
            presentedChain: forAnotherHost.derChain,
            requirements: requirements,
            now: Fixtures.now
        )
        #expect(unbounded.failure?.code == .hostnameMismatch)
        // The same graph with a leaf for the host: the first path reaches the root.
        let good = try pki.leaf { $0.issuer = .custom(issuers[0], presenting: presented) }
        let trusted = await ServerTrust().evaluate(
            presentedChain: good.derChain,
            requirements: requirements,
            now: Fixtures.now
        )
        #expect(trusted.isTrusted, "\(trusted.failure?.description ?? "")")
    }

    @Test func theSystemRootsDoNotTrustTheTestRoot() async throws {
        let decision = try await evaluate(pki.validChain(), anchors: .system)
        // The intermediate's issuer (the test root) is neither presented nor a system root: the
        // chain leads to a root this policy does not trust, and the message says which and how.
        #expect(decision.failure?.code == .untrustedRoot)
        #expect(decision.failure?.message.contains("CN=SecureNetworking Test Root CA") == true)
        #expect(decision.failure?.message.contains("\"trustAnchors\"") == true)
        #expect(try await evaluate(pki.validChain(), anchors: .system(adding: [pki.root.certificate])).isTrusted)
    }

    // MARK: - Interception proxy

    @Test func interceptionCATrustedByTheDeviceIsAcceptedWithoutPins() async throws {
        let anchors = TrustAnchors.only([pki.root.certificate, pki.interceptionCA.certificate])
        let decision = try await evaluate(pki.interceptionChain(), anchors: anchors)
        #expect(decision.isTrusted)
        #expect(try decision.validatedChain().last == pki.interceptionCA.certificate)
    }

    @Test func interceptionCATrustedByTheDeviceIsRejectedByPins() async throws {
        let anchors = TrustAnchors.only([pki.root.certificate, pki.interceptionCA.certificate])
        let pins = try PinSet(pins: [pki.intermediate.pin, pki.root.pin])
        let proxyChain = try pki.interceptionChain()
        let decision = try await evaluate(proxyChain, anchors: anchors, pins: pins)
        #expect(decision.failure?.code == .pinMismatch)
        // The message lists the served chain's pins, like OkHttp's.
        for pin in proxyChain.pins { #expect(decision.failure?.message.contains(pin.description) == true) }
        #expect(decision.failure?.message.contains(pki.root.pin.description) == true)
        #expect(decision.pinReport?.result == .rejected)
        // The genuine server passes the same pins.
        #expect(try await evaluate(pki.validChain(), anchors: anchors, pins: pins).isTrusted)
    }

    // MARK: - Pins

    @Test func pinMatchesAnyCertificateOfTheValidatedChainAnchorIncluded() async throws {
        let chain = try pki.validChain()
        let other = try pki.leaf().pins[0]
        for pin in [chain.pins[0], pki.intermediate.pin, pki.root.pin] {
            #expect(try await evaluate(chain, pins: PinSet(pins: [pin, other])).isTrusted)
        }
    }

    @Test func pinOnAnUnvalidatedChainNeverHelps() async throws {
        let chain = try pki.untrustedRootChain()
        let decision = try await evaluate(chain, pins: PinSet(pins: chain.pins))
        #expect(decision.failure?.code == .untrustedRoot)
    }

    @Test func pinMismatchListsTheServedPinsAndProducesAReport() async throws {
        let chain = try pki.validChain()
        let pins = try PinSet(pins: [pki.untrustedRoot.pin, pki.interceptionCA.pin])
        let decision = try await evaluate(chain, pins: pins, pattern: "localhost")
        #expect(decision.failure?.code == .pinMismatch)
        let report = try #require(decision.pinReport)
        #expect(report.host == "localhost")
        #expect(report.port == 443)
        #expect(report.pattern == "localhost")
        #expect(report.servedChainPins == chain.pins + [pki.root.pin])
        #expect(report.knownPins == pins.pins)
        #expect(report.result == .rejected)
        #expect(report.date == Fixtures.now)
        for pin in report.servedChainPins { #expect(decision.failure?.message.contains(pin.description) == true) }
        // The report serialises for delivery.
        let json = try JSONEncoder().encode(report)
        #expect(try JSONDecoder().decode(PinValidationReport.self, from: json) == report)
    }

    @Test func backupPinMatchesAfterRotation() async throws {
        // The app pins the current leaf key and a backup key kept offline.
        let backupKey = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let current = try pki.validChain()
        var serializer = DER.Serializer()
        try serializer.serialize(backupKey.publicKey)
        let backupPin = Pin(subjectPublicKeyInfoDER: serializer.serializedBytes)
        let pins = try PinSet(pins: [current.pins[0], backupPin])
        #expect(try await evaluate(current, pins: pins).isTrusted)
        // Rotation: a new certificate for the backup key, under the same intermediate.
        let rotated = try pki.leaf { $0.key = .existing(backupKey) }
        #expect(rotated.pins[0] == backupPin)
        #expect(try await evaluate(rotated, pins: pins).isTrusted)
        // A certificate for any other key does not pass.
        #expect(try await evaluate(pki.validChain(), pins: pins).failure?.code == .pinMismatch)
    }

    @Test func expiredPinSetIsNotEnforcedButReported() async throws {
        let pins = try PinSet(
            pins: [pki.untrustedRoot.pin, pki.interceptionCA.pin],
            expiration: Fixtures.now.addingTimeInterval(-1)
        )
        let decision = try await evaluate(pki.validChain(), pins: pins)
        #expect(decision.isTrusted)
        #expect(decision.pinReport?.result == .expiredNotEnforced)
        // One second earlier the same set was enforced.
        let before = try await evaluate(pki.validChain(), pins: pins, at: Fixtures.now.addingTimeInterval(-2))
        #expect(before.failure?.code == .pinMismatch)
    }

    @Test func reportOnlyPinSetIsAcceptedAndReported() async throws {
        let pins = try PinSet(pins: [pki.untrustedRoot.pin], mode: .reportOnly)
        let decision = try await evaluate(pki.validChain(), pins: pins)
        #expect(decision.isTrusted)
        #expect(decision.pinReport?.result == .reportOnly)
        #expect(decision.pinReport?.servedChainPins.count == 3)
    }

    @Test func enforcedPinSetNeedsABackupPin() {
        #expect {
            try PinSet(pins: [pki.root.pin])
        } throws: { ($0 as? ServerTrustError)?.code == .missingBackupPin }
        #expect {
            try PinSet(pins: [pki.root.pin, pki.root.pin])
        } throws: { ($0 as? ServerTrustError)?.code == .missingBackupPin }
        #expect {
            try PinSet(pins: [], mode: .reportOnly)
        } throws: { ($0 as? ServerTrustError)?.code == .invalidPin }
        #expect(throws: Never.self) { try PinSet(pins: [pki.root.pin], mode: .reportOnly) }
    }

    @Test func ipAddressesCanBePinned() async throws {
        let pins = try PinSet(pins: [pki.untrustedRoot.pin, pki.interceptionCA.pin])
        let decision = try await evaluate(pki.validChain(), host: "127.0.0.1", pins: pins, pattern: "127.0.0.1")
        #expect(decision.failure?.code == .pinMismatch)
        let policy = TransportSecurityPolicy(pinning: PinningPolicy([try HostPattern("127.0.0.1"): pins]))
        let requirements = try policy.requirements(for: URL(string: "https://127.0.0.1:8443/x")!)
        #expect(requirements.pins == pins)
        #expect(requirements.port == 8443)
    }
}
