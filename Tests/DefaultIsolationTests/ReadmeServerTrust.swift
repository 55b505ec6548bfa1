// swift-format-ignore-file
// The README's example under "The layers underneath", verbatim: DefaultIsolationTests compares the two.
import Foundation
import ServerTrust
import X509

/// Decides whether the chain a server presented (DER, leaf first) may be trusted for `url`.
func trustedChain(presented: [[UInt8]], url: URL, policyFile: String, companyRoot: Certificate) async throws -> [Certificate] {
    var policy = try TransportSecurityPolicy(contentsOfFile: policyFile)  // a bad file names the key and why
    policy.trustAnchors = .system(adding: [companyRoot])
    let requirements = try policy.requirements(for: url)  // plain http is refused here
    let decision = await ServerTrust().evaluate(presentedChain: presented, requirements: requirements)
    if let report = decision.pinReport { print("pin report for \(report.host): \(report.result)") }
    return try decision.validatedChain()  // or a ServerTrustError whose code says which step failed
}
