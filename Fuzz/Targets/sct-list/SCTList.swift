import FuzzSupport
import ServerTrust

/// `SignedCertificateTimestamp.parseList`: the SCT list of RFC 6962 §3.3, as a server sends it
/// in the TLS extension or an OCSP response, or as a certificate embeds it.
@_cdecl("sct_list_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// One input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let origin = input.pick([SignedCertificateTimestamp.Origin.embedded, .tlsExtension, .ocspResponse])
    let bytes = input.rest
    guard let list = try? SignedCertificateTimestamp.parseList(bytes, origin: origin) else { return 0 }
    require(!list.isEmpty && list.count <= SignedCertificateTimestamp.maximumListCount, "list size out of bounds")
    for timestamp in list {
        require(timestamp.logID.count == 32, "a log ID that is not 32 bytes")
        require(timestamp.origin == origin, "the origin changed")
    }
    // The format has one encoding: what was read is written back byte for byte.
    require(SignedCertificateTimestamp.serializeList(list) == bytes, "the list does not serialise back")
    return 0
}
