import Foundation
import FuzzSupport
import SecureNetworking

/// `ContentSniffer`: an upload's bytes and the name the user gave it.
@_cdecl("content_sniffer_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// One input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let name = input.pick([nil, "photo.png", "scan.PDF", "a.jpeg", "b.gif", "c.webp", "d.heic", "x", ".png", "e.zip"])
    let data = Data(input.rest)
    let detected = ContentSniffer.detect(data)
    do {
        let type = try sniffer.validate(data, fileName: name)
        require(type == detected, "validate and detect disagree")
        if let name {
            let ext = (name as NSString).pathExtension.lowercased()
            require(type.extensions.contains(ext), "a .\(ext) name accepted for \(type)")
        }
    } catch {
        require(
            [.unrecognisedContent, .contentTypeMismatch, .tooLarge].contains(error.code),
            "failed with \(error.code)"
        )
        if error.code == .unrecognisedContent { require(detected == nil, "a recognised type refused as unrecognised") }
    }
    return 0
}

let sniffer = ContentSniffer()
