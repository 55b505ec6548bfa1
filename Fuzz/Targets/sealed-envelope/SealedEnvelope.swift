import Crypto
import Foundation
import FuzzSupport
import SecureCrypto

/// `SealedEnvelope(parsing:)` and `Sealer.open`: bytes read back from storage or the network,
/// opened under one fixed key (the seeds were sealed under it, so valid envelopes open).
@_cdecl("sealed_envelope_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// One input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let associatedData = input.pick([Data(), Data("context".utf8)])
    let bytes = Data(input.rest)
    guard let envelope = try? SealedEnvelope(parsing: bytes) else {
        do {
            _ = try sealer.open(bytes, authenticating: associatedData)
            fatalError("opened an envelope that does not parse")
        } catch {
            return 0
        }
    }
    // One encoding: the parsed envelope writes back byte for byte.
    require(envelope.bytes == bytes, "the envelope does not serialise back")
    do {
        let plaintext = try sealer.open(bytes, authenticating: associatedData)
        require(plaintext.count + 30 == bytes.count, "an opened message of the wrong length")
    } catch {
        require(
            [
                .authenticationFailed, .algorithmNotAllowed, .unsupportedVersion, .truncated, .invalidInput,
                .keyAgreementFailed,
            ].contains(error.code),
            "open failed with \(error.code)"
        )
    }
    return 0
}

let sealer = try! Sealer(key: SymmetricKey(data: [UInt8](repeating: 0x42, count: 32)))
