#if TestServers
#if canImport(Security)
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import SecureHTTP
import SecureNetworkingTesting
import ServerTrust
import Testing

/// `URLSessionTransport` against real TLS on 127.0.0.1 (Apple platforms only): Security.framework
/// validates the chain against the policy's anchors (the test root, minted at the real clock), then
/// ServerTrust's pins run on the chain it validated. The same cases the NIO transport passes in
/// `PinningLiveTests`, `TLSProtocolLiveTests` and `RequestRulesLiveTests`.
@Suite("URLSessionTransport against loopback TLS (Apple platforms)")
struct URLSessionTransportAppleTests {
    /// A transport for one test, invalidated afterwards.
    func withURLSessionTransport<R: Sendable>(
        _ configuration: HTTPTransportConfiguration = Live.configuration(),
        _ body: (URLSessionTransport) async throws -> R
    ) async throws -> R {
        let transport = try URLSessionTransport(configuration: configuration)
        defer { transport.invalidate() }
        return try await body(transport)
    }

    @Test func validChainWithMatchingPinsIsAccepted() async throws {
        let chain = try Live.pki.validChain()
        let reports = NIOLockedValueBox<[PinValidationReport]>([])
        let policy = try PinningLiveTests.policy(pins: [Live.pki.intermediate.pin, PinningLiveTests.unrelatedPins[0]])
        let configuration = Live.configuration(policy: policy) {
            $0.pinValidationReporter = { report in reports.withLockedValue { $0.append(report) } }
        }
        try await withLoopbackHTTPServer(Live.tls(chain), handler: { _ in .text("hello") }) { server in
            try await withURLSessionTransport(configuration) { transport in
                let response = try await transport.send(get(url(server, "/hello")))
                #expect(response.response.status == .ok)
                #expect(String(decoding: response.body, as: UTF8.self) == "hello")
                #expect(server.statistics.requests.map(\.uri) == ["/hello"])
                #expect(server.statistics.handshakesCompleted == 1)
                #expect(reports.withLockedValue { $0.isEmpty })
            }
        }
    }

    @Test func pinMismatchIsRefusedAndListsTheServedPins() async throws {
        let chain = try Live.pki.validChain()
        let reports = NIOLockedValueBox<[PinValidationReport]>([])
        let policy = try PinningLiveTests.policy(pins: PinningLiveTests.unrelatedPins)
        let configuration = Live.configuration(policy: policy) {
            $0.pinValidationReporter = { report in reports.withLockedValue { $0.append(report) } }
        }
        try await withLoopbackHTTPServer(Live.tls(chain)) { server in
            try await withURLSessionTransport(configuration) { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.code == .serverTrustFailure, "\(String(describing: error))")
                #expect(error?.serverTrustError?.code == .pinMismatch)
                let message = error?.serverTrustError?.message ?? ""
                #expect(message.contains(chain.leafIdentity.pin.description))
                #expect(message.contains(Live.pki.intermediate.pin.description))
                #expect(error?.pinReport?.result == .rejected)
                #expect(reports.withLockedValue { $0.map(\.host) } == ["localhost"])
                #expect(server.statistics.requests.isEmpty)
            }
        }
    }

    /// Security.framework finds no path from a chain of another root to the policy's anchors
    /// (errSecNotTrusted), reported with ServerTrust's code.
    @Test func chainFromAnotherRootIsRefused() async throws {
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.untrustedRootChain())) { server in
            try await withURLSessionTransport { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.code == .serverTrustFailure, "\(String(describing: error))")
                #expect(error?.serverTrustError?.code == .untrustedRoot, "\(String(describing: error))")
                #expect(server.statistics.requests.isEmpty)
            }
        }
    }

    /// The device trusts the interception CA: without pins the intercepted connection validates.
    @Test func interceptionWithATrustedCAAndNoPinsIsAccepted() async throws {
        let anchors = TrustAnchors.only([Live.pki.root.certificate, Live.pki.interceptionCA.certificate])
        let configuration = Live.configuration(policy: TransportSecurityPolicy(trustAnchors: anchors))
        try await withInterception { server, proxy in
            try await withURLSessionTransport(configuration) { transport in
                let response = try await transport.send(get(URL(string: "https://localhost:\(proxy.port)/secret")!))
                #expect(String(decoding: response.body, as: UTF8.self) == "from the real server")
                #expect(proxy.interceptedConnections == 1)
                #expect(server.statistics.requests.map(\.uri) == ["/secret"])
            }
        }
    }

    /// The same interception is refused when the host is pinned to its real keys.
    @Test func interceptionIsRefusedWithPins() async throws {
        let anchors = TrustAnchors.only([Live.pki.root.certificate, Live.pki.interceptionCA.certificate])
        let realKeys = [Live.pki.intermediate.pin, Live.pki.root.pin]
        let policy = try PinningLiveTests.policy(pins: realKeys, anchors: anchors)
        try await withInterception { server, proxy in
            try await withURLSessionTransport(Live.configuration(policy: policy)) { transport in
                let error = await expectFailure(transport, get(URL(string: "https://localhost:\(proxy.port)/secret")!))
                #expect(error?.serverTrustError?.code == .pinMismatch, "\(String(describing: error))")
                #expect(error?.serverTrustError?.message.contains(Live.pki.interceptionCA.pin.description) == true)
                #expect(server.statistics.requests.isEmpty)
            }
        }
    }

    /// A PKCS#12 identity (the only kind URLSession takes) answers the server's request for a
    /// client certificate.
    @Test func clientCertificateFromPKCS12IsPresented() async throws {
        let client = try Live.pki.clientIdentity(commonName: "p12-client")
        let bundle = try PKCS12Fixture.make(client, passphrase: "correct horse")
        let configuration = Live.configuration { $0.clientIdentity = .pkcs12(bundle, passphrase: "correct horse") }
        try await withLoopbackHTTPServer(try TLSProtocolLiveTests.mutualTLSServer()) { server in
            try await withURLSessionTransport(configuration) { transport in
                let response = try await transport.send(get(url(server)))
                #expect(response.response.status == .ok)
                #expect(server.statistics.requests.count == 1)
            }
        }
    }

    /// Without a configured identity the challenge is cancelled, rather than left to the system
    /// (which could present an identity the app never chose).
    @Test func missingClientCertificateIsRefused() async throws {
        try await withLoopbackHTTPServer(try TLSProtocolLiveTests.mutualTLSServer()) { server in
            try await withURLSessionTransport { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.code == .clientCertificateRequired, "\(String(describing: error))")
                #expect(server.statistics.requests.isEmpty)
            }
        }
    }

    /// URLSession never follows a redirect itself: the request driver does, by the same rules as
    /// on every platform (same-origin hop keeps the credentials, a cross-origin one drops them).
    @Test func redirectsAreFollowedByTheDriverAndDropCredentialsAcrossOrigins() async throws {
        let chain = try Live.pki.validChain()
        try await withLoopbackHTTPServer(Live.tls(chain), handler: { _ in .text("landed") }) { other in
            let target = url(other, "/landing").absoluteString
            try await withLoopbackHTTPServer(
                Live.tls(chain),
                handler: { request in
                    request.uri == "/start" ? .redirect(to: "/same-origin") : .redirect(307, to: target)
                }
            ) { server in
                try await withURLSessionTransport { transport in
                    var fields = HTTPFields()
                    try fields.appendChecked(name: .authorization, value: "Bearer access-token")
                    try fields.appendChecked(name: .cookie, value: "session=abc")
                    let response = try await transport.send(get(url(server, "/start"), headers: fields))
                    #expect(String(decoding: response.body, as: UTF8.self) == "landed")
                    #expect(response.redirectCount == 2)
                    #expect(response.redirectedAcrossOrigins)
                    #expect(response.url.absoluteString == target)

                    #expect(server.statistics.requests.map(\.uri) == ["/start", "/same-origin"])
                    #expect(server.statistics.requests.last?.header("Authorization") == "Bearer access-token")
                    let landed = try #require(other.statistics.requests.first)
                    #expect(landed.uri == "/landing")
                    #expect(landed.header("Authorization") == nil)
                    #expect(landed.header("Cookie") == nil)
                }
            }
        }
    }

    @Test func redirectFromHTTPSToHTTPIsRefused() async throws {
        var policy = Live.policy
        policy.setException(DomainException(allowsInsecureHTTPLoads: true), for: "localhost")
        try await withLoopbackHTTPServer(nil) { plain in
            let target = url(plain, "/downgraded").absoluteString
            try await withLoopbackHTTPServer(
                Live.tls(try Live.pki.validChain()),
                handler: { _ in .redirect(to: target) }
            ) { server in
                try await withURLSessionTransport(Live.configuration(policy: policy)) { transport in
                    let error = await expectFailure(transport, get(url(server)))
                    #expect(error?.code == .insecureRedirect, "\(String(describing: error))")
                    #expect(server.statistics.requests.count == 1)
                    #expect(plain.statistics.connectionsAccepted == 0)
                }
            }
        }
    }

    private func withInterception(
        _ body: (LoopbackHTTPServer, InterceptingProxy) async throws -> Void
    ) async throws {
        let chain = try Live.pki.validChain()
        try await withLoopbackHTTPServer(Live.tls(chain), handler: { _ in .text("from the real server") }) { server in
            let proxy = try await InterceptingProxy.start(
                upstreamPort: server.port,
                interceptionChain: try Live.pki.interceptionChain(),
                upstreamRoots: [Live.pki.root]
            )
            do {
                try await body(server, proxy)
                await proxy.shutdown()
            } catch {
                await proxy.shutdown()
                throw error
            }
        }
    }
}
#endif
#endif
