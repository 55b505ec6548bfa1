import Foundation
import FuzzSupport
import ServerTrust
import X509

/// The whole `ServerTrust.evaluate` on any chain a server could present: the input is a list
/// of certificates, each a 2-byte big-endian length and that many DER bytes, evaluated for
/// `localhost` against one fixed anchor (the tests' root, `Fuzz/Fixtures/anchor.der`) at a fixed
/// time, with a pin set on the tests' intermediate and root.
@_cdecl("trust_evaluate_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// One input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    var chain: [[UInt8]] = []
    while !input.bytes.isEmpty, chain.count < 12 {
        let length = Int(input.byte()) << 8 | Int(input.byte())
        chain.append(input.take(length))
    }
    let decision = runBlocking { [chain] in
        await ServerTrust().evaluate(presentedChain: chain, requirements: Fixture.requirements, now: Fixture.now)
    }
    if decision.isTrusted {
        // Trusted means a validated path that ends at the anchor and starts at the presented leaf.
        require(decision.chain.last == Fixture.anchor, "a trusted chain that does not end at the anchor")
        require(
            chain.first.flatMap { try? Certificate(derEncoded: $0) } == decision.chain.first,
            "a trusted chain that does not start at the presented leaf"
        )
        require(
            decision.chain.contains { Fixture.pins.pins.contains(Pin(certificate: $0)) },
            "trusted without a pinned key in the validated chain"
        )
    }
    return 0
}

enum Fixture {
    static let anchor: Certificate = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fixtures/anchor.der").standardized.path
        guard let der = FileManager.default.contents(atPath: path),
            let certificate = try? Certificate(derEncoded: Array(der))
        else { fatalError("cannot read the fixed anchor at \(path)") }
        return certificate
    }()
    /// TestPKI.referenceTime, when the seed chains are valid.
    static let now = Date(timeIntervalSince1970: 1_767_225_600)
    static let requirements = ConnectionRequirements(
        host: "localhost",
        trustAnchors: .only([anchor]),
        pinScope: "localhost",
        pins: pins
    )
    /// The tests' intermediate and root keys.
    static let pins = try! PinSet([
        "sha256/pzYILsopQZ3x1y2ozoeY6vDR+8c+cu50RYnyPDYlpsk=", "sha256/VcniQpfmya8aSK4WsUKhO6v8YS9CoMNzczaTST1faJg=",
    ])
}
