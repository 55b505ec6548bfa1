#if TestServers
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import SecureHTTP
import SecureNetworkingTesting
import ServerTrust
import Testing

/// `NIOHTTPTransport` through an HTTP `CONNECT` proxy (RFC 9110 §9.3.6), and the proxy of
/// `securenet intercept` (`InterceptingProxy.startConnectProxy`) reporting whether a client
/// pinned: real TLS on 127.0.0.1, the proxy relaying upstream over verified TLS.
@Suite("Live TLS: CONNECT proxies and interception")
struct ProxyTunnelLiveTests {
    /// The proxy's CA, minted now.
    static let authority: InterceptionAuthority = {
        do { return try InterceptionAuthority.create() } catch {
            preconditionFailure("InterceptionAuthority: \(error)")
        }
    }()

    /// The anchors of a device that trusts the proxy's CA as well as the real root.
    static let anchorsTrustingTheProxy = TrustAnchors.only([Live.pki.root.certificate, authority.certificate])

    static func pinnedPolicy(anchors: TrustAnchors) throws -> TransportSecurityPolicy {
        var policy = TransportSecurityPolicy(trustAnchors: anchors)
        policy.pinning.pin(
            try HostPattern("localhost"),
            to: try PinSet(pins: [Live.pki.intermediate.pin, Live.pki.root.pin])
        )
        return policy
    }

    @Test(arguments: WireProtocol.allCases)
    func aPinnedClientRefusesTheInterceptionAndIsReportedHeld(over wire: WireProtocol) async throws {
        let policy = try Self.pinnedPolicy(anchors: Self.anchorsTrustingTheProxy)
        try await withRealServerAndProxy(wire: wire) { server, proxy, records in
            try await withTransport(
                Live.configuration(policy: policy) { $0.proxy = HTTPProxy(host: "127.0.0.1", port: proxy.port) }
            ) {
                transport in
                let error = await expectFailure(transport, get(url(server, "/secret")))
                #expect(error?.code == .serverTrustFailure)
                #expect(error?.serverTrustError?.code == .pinMismatch)
                #expect(error?.serverTrustError?.message.contains(Self.authority.pin.description) == true)
            }
            let record = try await records.next()
            #expect(record.outcome == .held)
            #expect(record.host == "localhost")
            #expect(record.port == server.port)
            #expect(record.request == nil)
            // The client ends the handshake with an alert, which the proxy names.
            #expect(record.reason == "the client aborted the TLS handshake with a certificate_unknown alert")
            #expect(proxy.interceptedConnections == 0)
            #expect(server.statistics.requests.isEmpty)
        }
    }

    @Test func anUnpinnedClientThatTrustsTheProxyCAIsReadInFull() async throws {
        let policy = TransportSecurityPolicy(trustAnchors: Self.anchorsTrustingTheProxy)
        try await withRealServerAndProxy(wire: .http1) { server, proxy, records in
            try await withTransport(
                Live.configuration(policy: policy) { $0.proxy = HTTPProxy(host: "127.0.0.1", port: proxy.port) }
            ) {
                transport in
                var request = get(url(server, "/secret?access_token=s3cr3t-query&page=2"))
                request.headerFields[.authorization] = "Bearer t0ken-from-the-app"
                let response = try await transport.send(request)
                #expect(response.response.status == .ok)
                #expect(String(decoding: response.body, as: UTF8.self) == "from the real server")
            }
            let record = try await records.next()
            #expect(record.outcome == .intercepted)
            #expect(record.host == "localhost")
            #expect(record.request == "GET /secret?access_token=REDACTED&page=2 HTTP/1.1 [Authorization]")
            #expect(record.status == 200)
            #expect(proxy.interceptedConnections == 1)
            // The proxy read the credential (it relayed it), but does not report it.
            #expect(server.statistics.requests.map { $0.header("authorization") } == ["Bearer t0ken-from-the-app"])
            #expect(server.statistics.requests.map(\.uri) == ["/secret?access_token=s3cr3t-query&page=2"])
            #expect(!"\(record)".contains("t0ken") && !"\(record)".contains("s3cr3t"))
        }
    }

    @Test func aClientThatDoesNotTrustTheProxyCAIsHeld() async throws {
        try await withRealServerAndProxy(wire: .http1) { server, proxy, records in
            try await withTransport(Live.configuration { $0.proxy = HTTPProxy(host: "127.0.0.1", port: proxy.port) }) {
                transport in
                let error = await expectFailure(transport, get(url(server, "/secret")))
                #expect(error?.code == .serverTrustFailure)
                #expect(error?.serverTrustError?.code == .untrustedRoot)
            }
            let record = try await records.next()
            #expect(record.outcome == .held)
            #expect(record.reason == "the client aborted the TLS handshake with a certificate_unknown alert")
            #expect(server.statistics.requests.isEmpty)
        }
    }

    /// A pass-through host's tunnel is relayed untouched: the pinned client completes its
    /// handshake with the real server through the proxy, over either HTTP version.
    @Test(arguments: WireProtocol.allCases)
    func throughABlindTunnelTLSIsEndToEndAndPinsMatch(over wire: WireProtocol) async throws {
        let policy = try Self.pinnedPolicy(anchors: Live.pki.trustAnchors)
        try await withRealServerAndProxy(wire: wire, passThrough: ["LOCALHOST"]) { server, proxy, records in
            try await withTransport(
                Live.configuration(policy: policy) { $0.proxy = HTTPProxy(host: "127.0.0.1", port: proxy.port) }
            ) {
                transport in
                for _ in 0..<3 {
                    let response = try await transport.send(get(url(server, "/secret")))
                    #expect(String(decoding: response.body, as: UTF8.self) == "from the real server")
                }
                #expect(transport.statistics.connectionsOpened == 1)
            }
            let record = try await records.next()
            #expect(record == InterceptingProxy.Connection(host: "localhost", port: server.port, outcome: .tunneled))
            #expect(server.statistics.requests.count == 3)
            expectNegotiated(wire, on: server)
        }
    }

    /// A proxy that answers the CONNECT with anything but 2xx: nothing reaches the origin.
    @Test(arguments: [(407, "it asked for authentication (407)"), (403, "it answered with a status other than 2xx")])
    func aRefusedTunnelIsProxyRefused(status: Int, explanation: String) async throws {
        try await withLoopbackHTTPServer(nil, handler: { _ in .status(status) }) { proxyServer in
            let proxy = HTTPProxy(host: "127.0.0.1", port: proxyServer.port, authorization: "Basic cHJveHk6cGFzcw==")
            try await withTransport(Live.configuration { $0.proxy = proxy }) { transport in
                let error = await expectFailure(transport, get(URL(string: "https://localhost:1/secret")!))
                #expect(error?.code == .proxyRefused)
                #expect(error?.message.contains(explanation) == true, "\(String(describing: error))")
                #expect(error?.message.contains("cHJveHk6cGFzcw") == false)
            }
            let connect = try #require(proxyServer.statistics.requests.first)
            #expect(connect.method == "CONNECT")
            #expect(connect.uri == "localhost:1")
            #expect(connect.header("host") == "localhost:1")
            #expect(connect.header("proxy-authorization") == "Basic cHJveHk6cGFzcw==")
        }
    }

    @Test func aProxySettingIsCheckedBeforeAnyConnection() async throws {
        try await withLoopbackHTTPServer(nil) { proxyServer in
            let injected = HTTPProxy(host: "127.0.0.1", port: proxyServer.port, authorization: "Basic x\r\nX-Evil: 1")
            #expect("\(injected)" == "http://127.0.0.1:\(proxyServer.port) (authorization redacted)")
            try await withTransport(Live.configuration { $0.proxy = injected }) { transport in
                let error = await expectFailure(transport, get(URL(string: "https://localhost:1/")!))
                #expect(error?.code == .invalidHeaderValue)
            }
            try await withTransport(Live.configuration { $0.proxy = HTTPProxy(host: "127.0.0.1", port: 0) }) {
                transport in
                let error = await expectFailure(transport, get(URL(string: "https://localhost:1/")!))
                #expect(error?.code == .invalidRequest)
            }
            #expect(proxyServer.statistics.connectionsAccepted == 0)
        }
    }

    @Test func theRedactedRequestLineNamesCredentialsWithoutTheirValues() {
        var request = HTTPRequest(
            method: .post,
            scheme: "https",
            authority: "a.example",
            path: "/v1/x?code=abc&state=s&API_KEY=k&q=1"
        )
        request.headerFields[.cookie] = "session=1"
        request.headerFields[HTTPField.Name("X-Api-Key")!] = "k"
        #expect(
            InterceptingProxy.redactedRequestLine(request)
                == "POST /v1/x?code=REDACTED&state=s&API_KEY=REDACTED&q=1 HTTP/1.1 [Cookie, X-Api-Key]"
        )
    }

    // MARK: - Fixture

    /// What the proxy reports, one connection at a time.
    struct Records {
        let stream: AsyncStream<InterceptingProxy.Connection>

        /// The next report; fails after 10 s (a watchdog: reports come within milliseconds).
        func next() async throws -> InterceptingProxy.Connection {
            let stream = self.stream
            return try await withThrowingTaskGroup(of: InterceptingProxy.Connection?.self) { group in
                group.addTask {
                    var iterator = stream.makeAsyncIterator()
                    return await iterator.next()
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(10))
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return try #require(first, "the proxy reported no connection")
            }
        }
    }

    /// A real server for `localhost` (answering "from the real server") and the intercepting
    /// proxy in front of it, which relays with a transport that verifies the real server.
    private func withRealServerAndProxy(
        wire: WireProtocol,
        passThrough: Set<String> = [],
        _ body: (LoopbackHTTPServer, InterceptingProxy, Records) async throws -> Void
    ) async throws {
        let (stream, continuation) = AsyncStream.makeStream(of: InterceptingProxy.Connection.self)
        try await withLoopbackHTTPServer(
            Live.tls(try Live.pki.validChain(), over: wire),
            handler: { _ in .text("from the real server") }
        ) {
            server in
            try await withTransport(Live.configuration { $0.redirects = .none }) { upstream in
                let proxy = try await InterceptingProxy.startConnectProxy(
                    authority: Self.authority,
                    passThrough: passThrough,
                    forward: { request, body in
                        let answer = try await upstream.send(
                            request,
                            body: body.readableBytes == 0 ? nil : Data(buffer: body)
                        )
                        return (answer.response, ByteBuffer(data: answer.body))
                    },
                    onConnection: { continuation.yield($0) }
                )
                do {
                    try await body(server, proxy, Records(stream: stream))
                    await proxy.shutdown()
                } catch {
                    await proxy.shutdown()
                    throw error
                }
            }
        }
    }
}
#endif
