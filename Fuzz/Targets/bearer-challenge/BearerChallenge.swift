import FuzzSupport
import TokenAuth

/// `BearerChallenge(parsing:)`: a server's `WWW-Authenticate` field (RFC 6750 §3), for the
/// Bearer and DPoP schemes.
@_cdecl("bearer_challenge_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// One input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let scheme = input.pick(["Bearer", "DPoP", "bearer"])
    let header = input.restText
    guard let challenge = BearerChallenge(parsing: header, scheme: scheme) else { return 0 }
    // A parameter's value comes from the field: it can be no longer than the field itself.
    for value in [challenge.realm, challenge.error, challenge.errorDescription, challenge.scope] {
        require((value?.utf8.count ?? 0) <= header.utf8.count, "a parameter longer than the field")
    }
    require(challenge.isInvalidToken == (challenge.error == "invalid_token"), "isInvalidToken disagrees")
    return 0
}
