import Foundation
import FuzzSupport
import ServerTrust

/// `TransportSecurityPolicy(json:)`: a policy file is read from disk or shipped in an app
/// bundle, so any bytes may arrive. A policy that loads must answer for any URL without trapping.
@_cdecl("policy_json_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// One input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    guard let policy = try? TransportSecurityPolicy(json: Data(input.rest)) else { return 0 }
    for url in probeURLs {
        if let requirements = try? policy.requirements(for: url) {
            // The policy never answers for a host other than the one asked about.
            require(requirements.host == url.host?.lowercased(), "requirements for another host")
        }
    }
    return 0
}

let probeURLs = [
    "https://api.example.com/v1", "http://legacy.example.com/", "https://a.b.legacy.example.com:8443/",
    "http://localhost:8080/", "https://127.0.0.1/", "http://[::1]/", "https://xn--bcher-kva.example/",
].map { URL(string: $0)! }
