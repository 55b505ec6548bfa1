import Foundation
import SecureHTTP
import SecureNetworking
import SecureNetworkingTesting
import ServerTrust
import Testing

/// SecureAPIClient over HTTP/2: a POST the server did not process (above a GOAWAY's last stream
/// id) is sent again, once, on a new connection, and the server processes it exactly once.
@Suite("SecureAPIClient over HTTP/2")
struct APIClientHTTP2Tests {
    @Test func aPOSTTheServerDidNotProcessIsSentAgainOnANewConnection() async throws {
        let pki = try TestPKI(referenceTime: Date())
        var tls = LoopbackHTTPServer.TLS(chain: try pki.validChain())
        tls.httpVersions = .http2OrHTTP1
        // Two streams on the first connection; GOAWAY keeps the first (stream 1).
        tls.goAway = .init(afterStreams: 2, processedStreams: 1)
        let gate = LoopbackHTTPServer.Gate()
        let handler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { request in
            request.connection == 1 && (request.stream ?? 0) > 1 ? .stall : .after(gate, .text(#"{"ok":true}"#))
        }
        try await withLoopbackHTTPServer(tls, handler: handler) { server in
            let configuration = SecureAPIClient.Configuration(
                baseURL: server.baseURL,
                transport: HTTPTransportConfiguration(policy: TransportSecurityPolicy(trustAnchors: pki.trustAnchors))
            )
            try await withSecureAPIClient(configuration) { client in
                async let first = client.send(
                    Request<Data>.post("orders/1", body: .json(["n": 1]), requiresAuthentication: false)
                )
                async let second = client.send(
                    Request<Data>.post("orders/2", body: .json(["n": 2]), requiresAuthentication: false)
                )
                try await waitUntil { server.statistics.goAwaysSent == 1 }
                gate.open()
                let (one, two) = try await (first, second)
                #expect(one == Data(#"{"ok":true}"#.utf8))
                #expect(two == Data(#"{"ok":true}"#.utf8))
            }
            let requests = server.statistics.requests
            // The refused POST reached the first connection's handler (which never answered it:
            // the GOAWAY said it was not processed), then was processed on the second.
            #expect(requests.filter { $0.connection == 1 }.count == 2)
            let second = requests.filter { $0.connection == 2 }
            #expect(second.count == 1)
            #expect(second.allSatisfy { $0.method == "POST" && $0.httpVersion == "HTTP/2" })
            #expect(server.statistics.connectionsAccepted == 2)
        }
    }

    private func waitUntil(_ condition: @Sendable () -> Bool) async throws {
        for _ in 0..<2000 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("condition not met within 10 s")
    }
}
