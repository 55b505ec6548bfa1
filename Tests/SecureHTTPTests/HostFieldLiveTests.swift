import Foundation
import HTTPTypes
import SecureNetworkingTesting
import ServerTrust
import Testing

@testable import SecureHTTP

/// An app-set `Host` (issue 51 item 20): HTTP/1.1 would write it and HTTP/2 drop it, so one
/// that differs from the URL's authority is refused on both protocols, before any byte of the
/// request is sent; one equal to the authority is sent as the authority.
@Suite("NIOHTTPTransport: an app-set Host")
struct HostFieldLiveTests {
    static let host = HTTPField.Name("Host")!

    @Test(arguments: WireProtocol.allCases)
    func aHostThatDiffersFromTheAuthorityIsRefusedOnBothProtocols(_ wire: WireProtocol) async throws {
        let tls = Live.tls(try Live.pki.validChain(), over: wire)
        try await withLoopbackHTTPServer(tls, handler: { request in .text(request.httpVersion) }) { server in
            try await withTransport { transport in
                for value in ["admin.internal", "localhost", "localhost:1", "127.0.0.1:\(server.port)"] {
                    let request = get(url(server, "/"), headers: [Self.host: value])
                    let error = await expectFailure(transport, request)
                    #expect(error?.code == .invalidRequest, "\(value): \(String(describing: error))")
                    #expect(
                        error?.message.contains("differs from its URL's authority localhost:\(server.port)") == true
                    )
                }
                // The refusal came before the wire, on both protocols; the connection still works.
                #expect(server.statistics.requests.isEmpty)
                let response = try await transport.send(get(url(server, "/")))
                #expect(String(decoding: response.body, as: UTF8.self) == wire.rawValue)
            }
        }
    }

    @Test(arguments: WireProtocol.allCases)
    func aHostEqualToTheAuthorityIsSentAsTheAuthority(_ wire: WireProtocol) async throws {
        let tls = Live.tls(try Live.pki.validChain(), over: wire)
        try await withLoopbackHTTPServer(tls, handler: { request in .text(request.httpVersion) }) { server in
            try await withTransport { transport in
                for value in ["localhost:\(server.port)", "LocalHost:\(server.port)"] {
                    let response = try await transport.send(get(url(server, "/"), headers: [Self.host: value]))
                    #expect(response.response.status == .ok)
                    #expect(String(decoding: response.body, as: UTF8.self) == wire.rawValue)
                }
                let recorded = server.statistics.requests
                #expect(recorded.count == 2)
                for request in recorded {
                    #expect(request.httpVersion == wire.rawValue)
                    // One Host (HTTP/2: the :authority, which the server's codec names Host).
                    #expect(request.headers.filter { $0.name.lowercased() == "host" }.count == 1)
                }
                #expect(recorded.first?.header("Host") == "localhost:\(server.port)")
            }
        }
    }

    @Test func authoritiesCompareWithoutCaseAndWithTheDefaultPort() {
        #expect(HostField.sameAuthority("Example.COM", "example.com:443", defaultPort: 443))
        #expect(HostField.sameAuthority("example.com:443", "example.com", defaultPort: 443))
        #expect(HostField.sameAuthority("[::1]:8443", "[::1]:8443", defaultPort: 443))
        #expect(!HostField.sameAuthority("example.com", "example.com:8443", defaultPort: 443))
        #expect(!HostField.sameAuthority("example.com:80", "example.com", defaultPort: 443))
        #expect(!HostField.sameAuthority("example.com.", "example.com", defaultPort: 443))
        #expect(!HostField.sameAuthority("evil.com@example.com", "example.com", defaultPort: 443))
        #expect(!HostField.sameAuthority("example.com:x", "example.com", defaultPort: 443))
        #expect(!HostField.sameAuthority("[::1", "[::1]", defaultPort: 443))
        var request = HTTPRequest(url: URL(string: "https://example.com/")!)
        request.headerFields[Self.host] = "example.com"
        request.headerFields.append(HTTPField(name: Self.host, value: "example.com"))
        #expect(throws: SecureHTTPError(.invalidRequest, "")) { try HostField.check(request) }
    }
}
