#if TestServers
import Foundation
import HTTPTypes
import SecureHTTP
import Testing

@testable import TokenAuth

/// Issue 51 item 15: the GETs a loopback receiver keeps before the app waits are kept by
/// `state`, so local GETs without one, with forged ones or repeating one never push the browser's
/// redirect out, and what is kept stays bounded.
@Suite("Loopback redirect receiver: GETs kept by state")
struct LoopbackPendingStateTests {
    /// The status a GET to `url` is answered with.
    static func get(_ transport: NIOHTTPTransport, _ url: String) async throws -> Int {
        try await transport.send(HTTPRequest(url: URL(string: url)!)).response.status.code
    }

    @Test func localGETsBeforeTheWaitDoNotPushTheRedirectOut() async throws {
        let receiver = try await LoopbackRedirectReceiver.start()
        let request = AuthorizationRequest(
            authorizationEndpoint: URL(string: "https://auth.example.com/authorize")!,
            clientID: "cli",
            redirectURI: receiver.redirectURI
        )
        let callback = receiver.redirectURI.absoluteString
        let right = URL(string: callback + "?code=good&state=\(request.state)")!
        let kept = LoopbackRedirectReceiver.Waiter.maximumPending
        var configuration = Live.configuration
        configuration.policy.allowsLocalNetworking = true
        try await withNIOHTTPTransport(configuration: configuration) { (transport) async throws -> Void in
            // Before the app waits, more GETs than the receiver keeps: without a state, and with
            // forged ones. Each is answered as kept.
            for index in 0..<(kept + 4) {
                #expect(try await Self.get(transport, callback + "?code=x") == 200)
                #expect(try await Self.get(transport, callback + "?code=x&state=forged-\(index)") == 200)
            }
            // The browser's redirect.
            #expect(try await Self.get(transport, right.absoluteString) == 200)
            // After it: GETs without a state, or with one already kept, take no room.
            for _ in 0..<(kept + 4) {
                #expect(try await Self.get(transport, callback) == 200)
                #expect(try await Self.get(transport, callback + "?code=y&state=forged-\(kept + 3)") == 200)
            }
        }
        #expect(receiver.keptRedirects == kept)
        let redirected = try await receiver.redirect(for: request, within: .seconds(5))
        #expect(redirected == right)
        #expect(try request.response(from: redirected).code == "good")
        #expect(receiver.isListening == false)
    }
}
#endif
