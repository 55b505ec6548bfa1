import Foundation
import FuzzSupport
import ServerTrust

/// `InfoPlistPolicy(infoPlist:)`: an app's Info.plist (XML, binary or OpenStep; a source file
/// with preprocessor lines is refused) turned into a policy.
@_cdecl("info_plist_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// One input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    guard let read = try? TransportSecurityPolicy.readInfoPlist(Data(input.rest)) else { return 0 }
    for url in probeURLs {
        if let requirements = try? read.policy.requirements(for: url) {
            require(requirements.host == url.host?.lowercased(), "requirements for another host")
        }
    }
    for warning in read.warnings {
        require(warning.keyPath.hasPrefix("NSAppTransportSecurity"), "a warning outside NSAppTransportSecurity")
    }
    return 0
}

let probeURLs = [
    "https://api.example.com/v1", "http://news.example/", "http://api.bank.example/", "http://localhost/",
    "https://10.0.0.1/",
].map { URL(string: $0)! }
