import Foundation
import FuzzSupport
import HTTPTypes

@testable import SecureHTTP

/// Redirect `Location` resolution (`RedirectRules.next`): a chain of up to four redirects,
/// each a status and a `Location` line from the input, starting from an authenticated POST.
@_cdecl("redirect_location_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// One input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let statuses = (0..<4).map { _ in input.pick([301, 302, 303, 307, 308, 200]) }
    let locations = input.restText.split(separator: "\n", omittingEmptySubsequences: false).prefix(4)
    var request = HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/v1/items?x=1")
    request.headerFields[.authorization] = "Bearer secret-token"
    request.headerFields[.cookie] = "session=secret"
    request.headerFields[.contentType] = "application/json"
    let first = RedirectHop(request: request, body: Data("{\"password\":\"secret\"}".utf8))
    guard let firstOrigin = Origin(first.url) else { fatalError("the first hop has no origin") }
    var rules = RedirectRules(policy: .follow(maximum: 3), first: first)
    var hop = first
    var leftOrigin = false
    for (status, location) in zip(statuses, locations) {
        var fields = HTTPFields()
        fields[.location] = String(location)
        let response = HTTPResponse(status: .init(code: status), headerFields: fields)
        guard let next = try? rules.next(after: response, of: hop) else { break }
        guard let origin = Origin(next.url) else { fatalError("a redirect to a URL without an origin") }
        require(origin.scheme == "https", "https downgraded to \(origin.scheme)")
        require(rules.followed <= 3, "more redirects than the policy allows")
        if origin != firstOrigin { leftOrigin = true }
        if leftOrigin {
            // Credentials and a body bound for the first origin never go to another.
            require(next.request.headerFields[.authorization] == nil, "Authorization sent across origins")
            require(next.request.headerFields[.cookie] == nil, "Cookie sent across origins")
            require(next.body == nil, "a body sent across origins")
        }
        hop = next
    }
    return 0
}
