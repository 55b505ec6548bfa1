import Foundation
import SecureNetworkingTesting
import Testing
import X509

@testable import ServerTrust

/// The diagnosis of a chain without a path runs on the failure path, on certificates a server
/// chose: its signature checks are bounded.
@Suite("Why no path was found")
struct MissingPathDiagnosisTests {
    @Test func anHonestChainNeedsOneCheckPerLink() throws {
        let pki = try TestPKI(referenceTime: Date())
        let diagnosis = ServerTrust.diagnoseMissingPath(try pki.validChain().certificates)
        #expect(diagnosis.failure.code == .untrustedRoot)
        #expect(diagnosis.failure.message.contains(pki.root.certificate.subject.description))
        #expect(diagnosis.signatureChecks == 1)
    }

    @Test func manyCAsWithTheIssuersNameCostABoundedNumberOfChecks() throws {
        let pki = try TestPKI(referenceTime: Date())
        // The leaf without its intermediate, and 40 decoys that carry the intermediate's name
        // but not its key: each would otherwise be a signature check.
        var presented = try pki.missingIntermediateChain().certificates
        for index in 0..<40 {
            var options = TestPKI.CAOptions(name: "decoy \(index)")
            options.subject = pki.intermediate.certificate.subject
            presented.append(try pki.makeCA(options, issuer: pki.root).certificate)
        }
        let diagnosis = ServerTrust.diagnoseMissingPath(presented)
        #expect(diagnosis.failure.code == .missingIntermediate)
        #expect(diagnosis.signatureChecks == ServerTrust.maximumDiagnosisSignatureChecks)
    }
}
