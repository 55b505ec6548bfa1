import ArgumentParser
import Crypto
import Foundation
import HTTPTypes
import TokenAuth

/// What a DPoP proof (RFC 9449) adds to each request: `DPoPSigner.proof(for:accessToken:)`
/// against its floor, one bare ECDSA P-256 signature over bytes of the same length (a proof
/// cannot cost less: the protocol forces one signature per request). Not part of `run`: the
/// figures go into the notes.
struct DPoPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dpop",
        abstract: "Time DPoP proofs against a bare P-256 signature (the floor)."
    )

    @Option(help: "Proofs per round.")
    var proofs = 20_000
    @Option(help: "Rounds (the median is reported).")
    var rounds = 5

    func run() throws {
        let key = P256.Signing.PrivateKey()
        let signer = DPoPSigner(key: DPoPKey(key))
        let request = HTTPRequest(
            method: .get,
            scheme: "https",
            authority: "api.example.com",
            path: "/v1/user/profile?x=1"
        )
        let token = String(repeating: "t", count: 600)  // an ES256 JWT access token's length
        let sample = try signer.proof(for: request, accessToken: token)
        let signingInput = Data(sample.split(separator: ".").prefix(2).joined(separator: ".").utf8)
        var proofTimes: [Double] = []
        var floorTimes: [Double] = []
        var sink = 0
        for _ in 0..<self.rounds {
            var start = ContinuousClock.now
            for _ in 0..<self.proofs { sink &+= try signer.proof(for: request, accessToken: token).utf8.count }
            proofTimes.append(Self.microseconds(ContinuousClock.now - start) / Double(self.proofs))
            start = ContinuousClock.now
            for _ in 0..<self.proofs { sink &+= try key.signature(for: signingInput).rawRepresentation.count }
            floorTimes.append(Self.microseconds(ContinuousClock.now - start) / Double(self.proofs))
        }
        let proof = proofTimes.sorted()[self.rounds / 2]
        let floor = floorTimes.sorted()[self.rounds / 2]
        print(String(format: "DPoP proof: %.1f µs (median of %d rounds × %d)", proof, self.rounds, self.proofs))
        print(String(format: "bare P-256 signature of the same %d bytes: %.1f µs", signingInput.count, floor))
        print(
            String(
                format: "overhead beyond the signature: %.1f µs (%.0f%%); proof size %d bytes (sink %d)",
                proof - floor,
                (proof / floor - 1) * 100,
                sample.utf8.count,
                sink % 10
            )
        )
    }

    static func microseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
    }
}
