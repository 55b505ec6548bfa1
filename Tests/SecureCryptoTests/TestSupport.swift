import Foundation
import SecureCrypto
import Testing

/// Bytes from hex, ignoring spaces; test vectors are written as in their sources.
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    precondition(digits.count % 2 == 0, "odd hex length in a test vector")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16) ?? 0 }
}

/// The code of the `SecureCryptoError` that `body` throws, or `nil` if it returns.
///
/// (Closures infer `throws(any Error)` without the FullTypedThrows feature, so this takes an
/// untyped closure; another error type is recorded as an issue.)
func errorCode<T>(_ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation) -> SecureCryptoError.Code?
{
    do {
        _ = try body()
        return nil
    } catch let error as SecureCryptoError {
        return error.code
    } catch {
        Issue.record("threw \(type(of: error)), not SecureCryptoError", sourceLocation: sourceLocation)
        return nil
    }
}

/// `count` bytes from a seeded generator, so a failing size or bit is reproducible.
func deterministicBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed &+ 0x9E37_79B9_7F4A_7C15
    var bytes = [UInt8]()
    bytes.reserveCapacity(count)
    while bytes.count < count {
        // SplitMix64.
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        withUnsafeBytes(of: z) { bytes.append(contentsOf: $0.prefix(count - bytes.count)) }
    }
    return bytes
}

/// `bytes` with bit `bit` (0 = most significant bit of byte 0) inverted.
func flippingBit(_ bit: Int, of bytes: Data) -> Data {
    var copy = bytes
    let index = copy.startIndex + bit / 8
    copy[index] ^= 0x80 >> UInt8(bit % 8)
    return copy
}
