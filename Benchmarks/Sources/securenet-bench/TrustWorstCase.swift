import Crypto
import Foundation
import SecureNetworkingTesting
import ServerTrust
import SwiftASN1
import X509

/// Inputs a hostile or broken server can send to make one ServerTrust evaluation expensive,
/// each timed over several evaluations (the slowest is reported). The issue's bound: none may
/// take longer than 50 ms.
struct HostileTrustInput {
    let name: String
    let chain: [[UInt8]]
    let requirements: ConnectionRequirements
    /// Whether the evaluation is expected to accept the chain.
    let accepted: Bool

    /// The inputs' names, in the order ``all(now:)`` returns them.
    static let names = [
        "name constraints at the budget (1,000 subtrees × 1,000 names)",
        "name constraints over the budget (5,000 subtrees × 2,001 names)",
        "branching paths (3 levels × 3 same-name CAs, 9 intermediates, all failing)",
        "ten certificates, eight intermediates",
        "64 certificates: 15 layers × 4 same-name CAs and a leaf, all paths failing (the issuer-lookup bound)",
    ]

    static func all(now: Date) throws -> [HostileTrustInput] {
        let pki = try TestPKI(referenceTime: now)
        let anchors = pki.trustAnchors
        func requirements(_ host: String) -> ConnectionRequirements {
            ConnectionRequirements(host: host, trustAnchors: anchors)
        }
        var inputs: [HostileTrustInput] = []

        // Name constraints just under the work budget: 1,000 excluded subtrees × 1,000 names.
        let excluded = (0..<1_000).map { "excluded\($0).example" }
        let underBudget = try pki.makeCA(name: "Constrained CA (under budget)", issuer: pki.root) {
            $0.nameConstraints = NameConstraints(permittedDNSDomains: ["localhost"], excludedDNSDomains: excluded)
        }
        let names = ["localhost"] + (0..<998).map { "h\($0).localhost" }
        let wide = try pki.leaf {
            $0.issuer = .custom(underBudget, presenting: [underBudget])
            $0.dnsNames = names
            $0.ipAddresses = []
        }
        inputs.append(
            .init(name: Self.names[0], chain: wide.derChain, requirements: requirements("localhost"), accepted: true)
        )

        // Name constraints far over the budget: refused before they are evaluated.
        let overBudget = try pki.makeCA(name: "Constrained CA (over budget)", issuer: pki.root) {
            $0.nameConstraints = NameConstraints(
                permittedDNSDomains: ["localhost"],
                excludedDNSDomains: (0..<5_000).map { "x\($0).example" }
            )
        }
        let hostile = try pki.leaf {
            $0.issuer = .custom(overBudget, presenting: [overBudget])
            $0.dnsNames = ["localhost"] + (0..<2_000).map { "n\($0).localhost" }
            $0.ipAddresses = []
        }
        inputs.append(
            .init(
                name: Self.names[1],
                chain: hostile.derChain,
                requirements: requirements("localhost"),
                accepted: false
            )
        )

        // A branching graph: three levels, each three certificates with the same subject and key
        // issued by the level above, so 27 candidate paths, every one failing at the end (the
        // leaf is for another host): the path builder's worst case within 10 certificates.
        var levels: [[TestPKI.Identity]] = []
        var issuers: [TestPKI.Identity] = [pki.root]
        for level in 0..<3 {
            let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
            var copies: [TestPKI.Identity] = []
            for copy in 0..<3 {
                var options = TestPKI.CAOptions(name: "Branching level \(level)")
                options.key = .existing(key)
                options.serialNumberBytes = [UInt8(level + 1), UInt8(copy + 1)]
                copies.append(try pki.makeCA(options, issuer: issuers[copy % issuers.count]))
            }
            levels.append(copies)
            issuers = copies
        }
        let branching = try pki.leaf {
            $0.issuer = .custom(levels[2][0], presenting: levels.reversed().flatMap { $0 })
            $0.dnsNames = ["other.example"]
            $0.ipAddresses = []
            $0.commonName = "other.example"
        }
        inputs.append(
            .init(
                name: Self.names[2],
                chain: branching.derChain,
                requirements: requirements("localhost"),
                accepted: false
            )
        )

        // The longest chain accepted: ten certificates, eight intermediates deep.
        var issuer = pki.root
        var deep: [TestPKI.Identity] = []
        for level in 0..<8 {
            issuer = try pki.makeCA(name: "Deep CA \(level)", issuer: issuer)
            deep.append(issuer)
        }
        let long = try pki.leaf { $0.issuer = .custom(issuer, presenting: deep.reversed()) }
        inputs.append(
            .init(
                name: Self.names[3],
                chain: long.derChain + [pki.root.derBytes],
                requirements: requirements("localhost"),
                accepted: true
            )
        )

        // The most certificates a server may present, in layers that make the path builder's
        // search exponential (4¹⁵ partial paths): the issuer-lookup bound ends it.
        var layerIssuers: [TestPKI.Identity] = [pki.root]
        var layers: [TestPKI.Identity] = []
        for level in 0..<15 {
            let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
            var copies: [TestPKI.Identity] = []
            for copy in 0..<4 {
                var options = TestPKI.CAOptions(name: "Layer \(level)")
                options.key = .existing(key)
                options.serialNumberBytes = [UInt8(level + 1), UInt8(copy + 1)]
                copies.append(try pki.makeCA(options, issuer: layerIssuers[copy % layerIssuers.count]))
            }
            layers = copies + layers
            layerIssuers = copies
        }
        let layered = try pki.leaf {
            $0.issuer = .custom(layerIssuers[0], presenting: layers)
            $0.dnsNames = ["other.example"]
            $0.ipAddresses = []
            $0.commonName = "other.example"
        }
        inputs.append(
            .init(
                name: Self.names[4],
                chain: layered.derChain,
                requirements: requirements("localhost"),
                accepted: false
            )
        )
        return inputs
    }
}

/// The slowest of `rounds` evaluations of each hostile input, in milliseconds.
func measureHostileInputs(rounds: Int = 20) async throws -> [(String, Double)] {
    let now = Date()
    let evaluator = ServerTrust()
    var results: [(String, Double)] = []
    for input in try HostileTrustInput.all(now: now) {
        var slowest = 0.0
        for _ in 0..<rounds {
            let start = nowNanoseconds()
            let decision = await evaluator.evaluate(
                presentedChain: input.chain,
                requirements: input.requirements,
                now: now
            )
            slowest = max(slowest, Double(nowNanoseconds() - start) / 1e6)
            guard decision.isTrusted == input.accepted else {
                throw BenchError(
                    "\(input.name): expected \(input.accepted ? "accepted" : "refused"), got \(String(describing: decision.failure))"
                )
            }
        }
        results.append((input.name, slowest))
    }
    return results
}
