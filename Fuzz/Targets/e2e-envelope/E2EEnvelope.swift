import Foundation
import FuzzSupport
import SecureCrypto

/// `E2EEnvelope(parsing:)` and `E2EPrivateKey.open`: an HPKE envelope as another device sent
/// it, opened with one fixed recipient key (the seeds were sealed to it).
@_cdecl("e2e_envelope_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// One input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    let bytes = Data(input.rest)
    guard let envelope = try? E2EEnvelope(parsing: bytes) else {
        require((try? recipient.open(bytes)) == nil, "opened an envelope that does not parse")
        return 0
    }
    require(envelope.bytes == bytes, "the envelope does not serialise back")
    do {
        _ = try recipient.open(bytes)
    } catch {
        require(
            [.authenticationFailed, .unsupportedVersion, .truncated, .invalidInput, .keyAgreementFailed].contains(
                error.code
            ),
            "open failed with \(error.code)"
        )
    }
    return 0
}

let recipient = try! E2EPrivateKey(rawRepresentation: [UInt8](repeating: 0x24, count: 32))
