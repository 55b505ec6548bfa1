import Foundation
import FuzzSupport
import ServerTrust

/// A signed pin-set update arrives from the network: the verifier reads the envelope, and a
/// document (signed or not) is parsed by `PinSetUpdate(json:)`. Neither may trap, and a document
/// that parses must write itself back to a document that parses to the same value.
@_cdecl("pin_set_update_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// One input: the first byte picks the envelope path or the document path.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let kind = input.byte()
    let bytes = Data(input.rest)
    if kind & 1 == 0 {
        // The verifier: nothing it is given is trusted (the key is random), so every input must
        // end in a typed refusal, never in an accepted update.
        let accepted = try? verifier.verify(
            bytes,
            current: .none,
            compiled: .none,
            appliedVersion: nil,
            now: Date(timeIntervalSince1970: 1_800_000_000)
        )
        require(accepted == nil, "an update signed by no trusted key was accepted")
    } else if let update = try? PinSetUpdate(json: bytes) {
        let again = try? PinSetUpdate(json: update.jsonData())
        require(again == update, "a document does not read back as itself")
    }
    return 0
}

let verifier: PinUpdateVerifier = {
    guard
        let verifier = try? PinUpdateVerifier(
            trustedKeys: [PinUpdateSigningKey.generate(.ed25519).publicKey],
            audience: "com.example.app"
        )
    else {
        preconditionFailure("a verifier with one key")
    }
    return verifier
}()
