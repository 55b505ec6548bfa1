import FuzzSupport
import SecureNetworking

/// `EmailAddress(_:)`: what a user types in a sign-up form.
@_cdecl("email_address_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// One input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    let text = input.restText
    do {
        let address = try EmailAddress(text)
        // An accepted address has an ASCII domain (IDN labels in Punycode), a local part of at most
        // 64 octets, at most 254 octets in all (RFC 5321 §4.5.3.1), and is accepted again as it is.
        require(address.asciiDomain.utf8.allSatisfy { $0 < 0x80 }, "an accepted domain is not ASCII")
        require(address.localPart.utf8.count <= 64, "a local part longer than 64 octets")
        require(address.asciiAddress.utf8.count <= 254, "an accepted address longer than 254 octets")
        require((try? EmailAddress(address.description)) == address, "an accepted address is refused the second time")
    } catch {
        require([.invalidEmail, .tooLong].contains(error.code), "failed with \(error.code)")
        // The message says which rule, never the address.
        if text.utf8.count >= 8 { require(!error.description.contains(text), "the error quotes the address") }
    }
    return 0
}
