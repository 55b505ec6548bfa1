import FuzzSupport

@testable import SecureCrypto

/// PHC password-hash strings (`$pbkdf2-sha256$i=…$salt$hash`, `$scrypt$ln=…,r=…,p=…$…`) as a
/// stored hash arrives from a database: parsed, checked against the cost limits, then verified.
/// The limits are the guard: low ones here, so that no accepted string takes long to verify.
@_cdecl("phc_string_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// One input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    let text = input.restText
    let verified: Bool?
    do {
        verified = try hasher.verify("password", against: text)
    } catch {
        require(
            [.malformedHash, .unsupportedAlgorithm, .excessiveCost].contains(error.code),
            "verify failed with \(error.code)"
        )
        verified = nil
    }
    guard let record = try? PasswordHashRecord(parsing: text) else {
        require(verified == nil, "verify accepted a string the parser refuses")
        return 0
    }
    let withinLimits = (try? record.check(limits)) != nil
    require(withinLimits == (verified != nil), "verify and the limits disagree")
    // What was read writes back to a string that reads the same.
    guard let again = try? PasswordHashRecord(parsing: record.encoded) else {
        fatalError("a parsed record does not read back")
    }
    require(again.salt == record.salt && again.hash == record.hash, "salt or hash changed on the way back")
    require(again.encoded == record.encoded, "the encoding is not stable")
    return 0
}

let limits = PasswordHasher.Limits(maximumPBKDF2Iterations: 2_000, maximumScryptMemoryBytes: 1 << 20)
let hasher = try! PasswordHasher(
    configuration: .init(algorithm: .pbkdf2SHA256, pbkdf2Iterations: 1_000, limits: limits)
)
