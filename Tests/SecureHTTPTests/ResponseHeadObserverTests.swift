import Foundation
import SecureHTTP
import SecureNetworkingTesting
import Testing

/// ``HTTPRequestOptions/responseHeadObserver``: once per hop's final response head, over both
/// protocols; never for a request that got no response.
@Suite("Response head observer")
struct ResponseHeadObserverTests {
    @Test(arguments: WireProtocol.allCases)
    func calledOncePerHopWithARedirect(over wire: WireProtocol) async throws {
        let heads = Recorder<ContinuousClock.Instant>()
        var options = HTTPRequestOptions()
        options.responseHeadObserver = { heads.append(.now) }
        let tls = Live.tls(try Live.pki.validChain(), over: wire)
        try await withLoopbackHTTPServer(
            tls,
            handler: { request in
                request.uri == "/start" ? .redirect(to: "/end") : .text("done")
            }
        ) { server in
            try await withTransport { transport in
                let response = try await transport.send(get(url(server, "/start")), body: nil, options: options)
                let returned = ContinuousClock.now
                #expect(String(decoding: response.body, as: UTF8.self) == "done")
                #expect(heads.values.count == 2)
                #expect(heads.values.allSatisfy { $0 <= returned })
            }
        }
    }

    @Test(arguments: WireProtocol.allCases)
    func notCalledWithoutAResponse(over wire: WireProtocol) async throws {
        let heads = Recorder<ContinuousClock.Instant>()
        var options = HTTPRequestOptions()
        options.responseHeadObserver = { heads.append(.now) }
        let tls = Live.tls(try Live.pki.validChain(), over: wire)
        try await withLoopbackHTTPServer(tls, handler: { _ in .close }) { server in
            try await withTransport { transport in
                let error = await #expect(throws: SecureHTTPError.self) {
                    _ = try await transport.send(get(url(server, "/")), body: nil, options: options)
                }
                // HTTP/1.1: the connection closed; HTTP/2: the server reset the stream.
                #expect(
                    error?.code == (wire == .http1 ? .connectionClosed : .streamReset),
                    "\(String(describing: error))"
                )
                #expect(heads.values.isEmpty)
            }
        }
    }
}
