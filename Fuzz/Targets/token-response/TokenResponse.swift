import Foundation
import FuzzSupport
import HTTPTypes
import SecureHTTP

@testable import TokenAuth

/// `OAuthTokenEndpoint`'s decoding of a token endpoint's answer (RFC 6749 §5.1, §5.2): any
/// status and any body.
@_cdecl("token_response_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// One input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let status = input.pick([200, 200, 400, 401, 403, 500, 302])
    let response = HTTPTransportResponse(
        response: HTTPResponse(status: .init(code: status), headerFields: [.contentType: "application/json"]),
        body: Data(input.rest),
        url: URL(string: "https://auth.example/token")!
    )
    do {
        let token = try OAuthTokenEndpoint.parse(response)
        require(status == 200, "a token read from a \(status) answer")
        require(!token.accessToken.isEmpty, "an empty access token accepted")
        if let expiresIn = token.expiresIn { require(expiresIn.isFinite, "a non-finite lifetime") }
    } catch {
        // The message is shown to users and logged: it must not carry the body (a token).
        // (Compared as bytes: Foundation's `String.contains` stops at an embedded NUL.)
        if status == 200, input.rest.count >= 12 {
            require(!contains(Array("\(error)".utf8), input.rest), "the error quotes the response body")
        }
    }
    return 0
}

/// Whether `needle` occurs in `haystack`, byte for byte.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
    return (0...(haystack.count - needle.count)).contains { start in
        haystack[start..<(start + needle.count)].elementsEqual(needle)
    }
}
