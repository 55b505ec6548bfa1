import FuzzSupport
import ServerTrust
import X509

/// `CertificateFile(bytes:)` (PEM or DER, as `securenet pins` reads them), and the text forms a
/// user types: `Pin`, `PinSet` and `HostPattern`.
@_cdecl("certificate_file_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// One input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    let bytes = input.rest
    if let file = try? CertificateFile(bytes: bytes) {
        require(!file.entries.isEmpty, "a certificate file with no entries")
        for entry in file.entries {
            if let certificate = entry.certificate {
                require(Pin(certificate: certificate) == entry.pin, "an entry's pin is not its certificate's")
            }
        }
    }
    let text = input.restText
    let lines = text.split(whereSeparator: \.isNewline).map(String.init)
    for line in lines.prefix(8) {
        if let pin = try? Pin(line) {
            require(pin.digest.count == 32, "a pin that is not 32 bytes")
            require((try? Pin(pin.description)) == pin, "a pin's text does not read back")
        }
        if let pattern = try? HostPattern(line) {
            require((try? HostPattern(pattern.description)) == pattern, "a host pattern's text does not read back")
        }
    }
    if let set = try? PinSet(Array(lines.prefix(8))) {
        require(Set(set.pins).count >= 2, "an enforced pin set without a distinct backup pin")
    }
    return 0
}
