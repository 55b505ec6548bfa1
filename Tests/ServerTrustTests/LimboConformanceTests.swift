import Foundation
import ServerTrust
import SwiftASN1
import Testing
import X509

/// Measures ServerTrust against C2SP x509-limbo (which includes the bettertls name-constraint and
/// path-building suites). It runs only when `SECURENET_LIMBO_JSON` names a `limbo.json`; see
/// `Scripts/run-limbo.sh`. It is a measurement, not a gate: disagreements are printed (and written
/// to `SECURENET_LIMBO_REPORT` when set), and the test fails only when the file cannot be read.
///
/// - `SECURENET_LIMBO_PROFILE=private` passes the anchors as `TrustAnchors.only(…, profile:
///   .privatePKI)`; otherwise they are `TrustAnchors.only(…)`, the Web PKI profile.
/// - `SECURENET_LIMBO_INCLUDE=prefix` runs only the cases whose id starts with `prefix`.
@Suite("Conformance: x509-limbo (opt-in)")
struct LimboConformanceTests {
    static let environment = ProcessInfo.processInfo.environment

    // MARK: The limbo.json schema, the fields this harness reads

    struct Limbo: Decodable {
        let version: Int
        let testcases: [Testcase]
    }

    struct PeerName: Decodable {
        let kind: String
        let value: String
    }

    struct Testcase: Decodable {
        let id: String
        let features: [String]
        let validationKind: String
        let trustedCerts: [String]
        let untrustedIntermediates: [String]
        let peerCertificate: String
        let validationTime: String?
        let extendedKeyUsage: [String]
        let expectedResult: String
        let expectedPeerName: PeerName?
        let maxChainDepth: Int?
        let crls: [String]?

        enum CodingKeys: String, CodingKey {
            case id, features, crls
            case validationKind = "validation_kind"
            case trustedCerts = "trusted_certs"
            case untrustedIntermediates = "untrusted_intermediates"
            case peerCertificate = "peer_certificate"
            case validationTime = "validation_time"
            case extendedKeyUsage = "extended_key_usage"
            case expectedResult = "expected_result"
            case expectedPeerName = "expected_peer_name"
            case maxChainDepth = "max_chain_depth"
        }
    }

    // MARK: Outcomes

    enum Outcome: Equatable {
        case agree
        case acceptedBad
        case rejectedGood
        case skipped(String)
    }

    struct Result {
        let id: String
        let outcome: Outcome
        /// The error code and message of a refusal, or the warnings of an acceptance.
        let detail: String
    }

    /// The suite a case is counted under: `bettertls::<suite>` for bettertls cases, the first
    /// component of the id (`rfc5280`, `webpki`, `pathlen`, …) for limbo's own.
    static func suite(of id: String) -> String {
        let parts = id.components(separatedBy: "::")
        if parts.first == "bettertls", parts.count > 1 { return "bettertls::\(parts[1])" }
        return "limbo::\(parts.first ?? id)"
    }

    static func der(_ pem: String) throws -> [UInt8] {
        try PEMDocument(pemString: pem).derBytes
    }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    /// The warnings of a decision, read by name so this harness builds with or without them.
    static func warnings(_ decision: TrustDecision) -> [String] {
        guard let child = Mirror(reflecting: decision).children.first(where: { $0.label == "warnings" }),
            let list = child.value as? [Any]
        else { return [] }
        return list.map { "\($0)" }
    }

    /// Why a case is not run, or nil when it is.
    static func skipReason(_ testcase: Testcase) -> String? {
        if testcase.validationKind != "SERVER" { return "client validation (\(testcase.validationKind))" }
        if !(testcase.crls ?? []).isEmpty || testcase.features.contains("has-crl") {
            return "revocation (CRL) not checked"
        }
        if !testcase.extendedKeyUsage.allSatisfy({ $0 == "serverAuth" }) {
            return "EKU other than serverAuth: \(testcase.extendedKeyUsage.joined(separator: ","))"
        }
        guard let peer = testcase.expectedPeerName else { return "no expected peer name" }
        if peer.kind != "DNS", peer.kind != "IP" { return "peer name kind \(peer.kind)" }
        // ServerTrust bounds the presented chain (10 certificates), not the built path's depth.
        if let depth = testcase.maxChainDepth, depth < 10 { return "max_chain_depth \(depth) (no per-path setting)" }
        return nil
    }

    static func run(_ testcase: Testcase, privatePKI: Bool) async -> Result {
        if let reason = skipReason(testcase) { return Result(id: testcase.id, outcome: .skipped(reason), detail: "") }
        let expectSuccess = testcase.expectedResult == "SUCCESS"
        var roots: [Certificate] = []
        for pem in testcase.trustedCerts {
            do {
                roots.append(try Certificate(pemEncoded: pem))
            } catch {
                // An anchor that does not parse cannot be trusted: count it as a refusal.
                return Result(
                    id: testcase.id,
                    outcome: expectSuccess ? .rejectedGood : .agree,
                    detail: "harness: trusted certificate does not parse: \(error)"
                )
            }
        }
        var presented: [[UInt8]] = []
        do {
            presented = try ([testcase.peerCertificate] + testcase.untrustedIntermediates).map(der)
        } catch {
            return Result(
                id: testcase.id,
                outcome: expectSuccess ? .rejectedGood : .agree,
                detail: "harness: not PEM: \(error)"
            )
        }
        var now = Date()
        if let text = testcase.validationTime {
            guard let date = date(text) else {
                return Result(id: testcase.id, outcome: .skipped("unreadable validation_time \(text)"), detail: "")
            }
            now = date
        }
        let anchors = privatePKI ? TrustAnchors.only(roots, profile: .privatePKI) : TrustAnchors.only(roots)
        let requirements = ConnectionRequirements(host: testcase.expectedPeerName!.value, trustAnchors: anchors)
        let decision = await ServerTrust().evaluate(presentedChain: presented, requirements: requirements, now: now)
        if let failure = decision.failure {
            return Result(
                id: testcase.id,
                outcome: expectSuccess ? .rejectedGood : .agree,
                detail: "\(failure.code): \(failure.message)"
            )
        }
        let warnings = warnings(decision)
        return Result(
            id: testcase.id,
            outcome: expectSuccess ? .agree : .acceptedBad,
            detail: warnings.isEmpty ? "trusted" : "trusted with warnings: \(warnings.joined(separator: "; "))"
        )
    }

    static func report(_ results: [Result], source: String, profile: String) -> String {
        struct Counts {
            var agree = 0
            var acceptedBad = 0
            var rejectedGood = 0
            var skipped = 0
            var total: Int { agree + acceptedBad + rejectedGood + skipped }
        }
        var bySuite: [String: Counts] = [:]
        for result in results {
            var counts = bySuite[suite(of: result.id), default: Counts()]
            switch result.outcome {
            case .agree: counts.agree += 1
            case .acceptedBad: counts.acceptedBad += 1
            case .rejectedGood: counts.rejectedGood += 1
            case .skipped: counts.skipped += 1
            }
            bySuite[suite(of: result.id)] = counts
        }
        func row(_ name: String, _ counts: Counts) -> String {
            let cells = [counts.total, counts.agree, counts.acceptedBad, counts.rejectedGood, counts.skipped]
            return name.padding(toLength: 28, withPad: " ", startingAt: 0)
                + cells.map { String($0).leftPadded(to: 8) }.joined() + "\n"
        }
        var text = "x509-limbo: \(source), profile \(profile)\n\n"
        text += "suite".padding(toLength: 28, withPad: " ", startingAt: 0)
        text += ["cases", "agree", "acc-bad", "rej-good", "skipped"].map { $0.leftPadded(to: 8) }.joined() + "\n"
        func total(_ prefix: String) -> Counts {
            bySuite.filter { $0.key.hasPrefix(prefix) }.values.reduce(into: Counts()) {
                $0.agree += $1.agree
                $0.acceptedBad += $1.acceptedBad
                $0.rejectedGood += $1.rejectedGood
                $0.skipped += $1.skipped
            }
        }
        for name in bySuite.keys.sorted() { text += row(name, bySuite[name]!) }
        text += row("all limbo (native)", total("limbo::"))
        text += row("all bettertls", total("bettertls::"))
        text += row("all", total(""))
        for (title, outcome) in [("accepted bad", Outcome.acceptedBad), ("rejected good", .rejectedGood)] {
            let list = results.filter { $0.outcome == outcome }
            text += "\n\(title) (\(list.count)):\n"
            for result in list { text += "  \(result.id)  \(result.detail)\n" }
        }
        var reasons: [String: Int] = [:]
        for result in results {
            if case .skipped(let reason) = result.outcome { reasons[reason, default: 0] += 1 }
        }
        text += "\nskipped (\(reasons.values.reduce(0, +))):\n"
        for reason in reasons.keys.sorted() { text += "  \(reasons[reason]!)  \(reason)\n" }
        return text
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["SECURENET_LIMBO_JSON"] != nil))
    func measureAgainstLimbo() async throws {
        let path = try #require(Self.environment["SECURENET_LIMBO_JSON"])
        let limbo = try JSONDecoder().decode(Limbo.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        let privatePKI = Self.environment["SECURENET_LIMBO_PROFILE"] == "private"
        let include = Self.environment["SECURENET_LIMBO_INCLUDE"] ?? ""
        var results: [Result] = []
        for testcase in limbo.testcases where testcase.id.hasPrefix(include) {
            results.append(await Self.run(testcase, privatePKI: privatePKI))
        }
        #expect(!results.isEmpty, "no testcase in \(path) matches '\(include)'")
        let text = Self.report(results, source: path, profile: privatePKI ? "privatePKI" : "webPKI")
        print(text)
        if let reportPath = Self.environment["SECURENET_LIMBO_REPORT"] {
            try text.write(toFile: reportPath, atomically: true, encoding: .utf8)
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? " " + self : String(repeating: " ", count: width - count) + self
    }
}
