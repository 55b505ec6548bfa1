import Foundation
import HTTPTypes
import HTTPTypesFoundation
import NIOSSL
import SecureHTTP
import SecureNetworkingTesting
import ServerTrust
import Testing

/// A PKI minted at the current time: live TLS validates at the real clock (the test server's
/// BoringSSL checks client certificates at the real clock too). Matrix chains that must be
/// expired or not yet valid are minted relative to it.
enum Live {
    static let pki: TestPKI = {
        do { return try TestPKI(referenceTime: Date()) } catch { preconditionFailure("TestPKI: \(error)") }
    }()

    /// The strict default policy, with the test root as the only anchor.
    static var policy: TransportSecurityPolicy {
        TransportSecurityPolicy(trustAnchors: pki.trustAnchors)
    }

    static func configuration(
        policy: TransportSecurityPolicy = Live.policy,
        _ configure: (inout HTTPTransportConfiguration) -> Void = { _ in }
    ) -> HTTPTransportConfiguration {
        var configuration = HTTPTransportConfiguration(policy: policy)
        // Generous, so that a loaded machine (the suite beside a parallel build) does not fail a
        // test that is not about deadlines; tests about deadlines set their own.
        configuration.timeouts.request = .seconds(60)
        configuration.timeouts.idle = .seconds(20)
        configuration.timeouts.tlsHandshake = .seconds(30)
        configuration.timeouts.connect = .seconds(30)
        configuration.maximumConnectionsPerHost = 4
        configuration.redirects = .follow(maximum: 5)
        configure(&configuration)
        return configuration
    }

    static func tls(
        _ chain: TestPKI.Chain,
        _ configure: (inout LoopbackHTTPServer.TLS) -> Void = { _ in }
    )
        -> LoopbackHTTPServer.TLS
    {
        var tls = LoopbackHTTPServer.TLS(chain: chain)
        configure(&tls)
        return tls
    }
}

func get(_ url: URL, headers: HTTPFields = [:]) -> HTTPRequest {
    var request = HTTPRequest(url: url)
    request.headerFields = headers
    return request
}

func url(_ server: LoopbackHTTPServer, _ path: String = "/", host: String = "localhost") -> URL {
    URL(string: "\(server.usesTLS ? "https" : "http")://\(host):\(server.port)\(path)")!
}

/// Sends and returns the error, failing the test when the request succeeds.
func expectFailure(
    _ transport: some HTTPTransport,
    _ request: HTTPRequest,
    body: Data? = nil,
    options: HTTPRequestOptions = HTTPRequestOptions(),
    sourceLocation: SourceLocation = #_sourceLocation
) async -> SecureHTTPError? {
    do {
        let response = try await transport.send(request, body: body, options: options)
        Issue.record("expected a failure, got \(response.response.status)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// A fresh transport for one test, shut down afterwards.
func withTransport<R: Sendable>(
    _ configuration: HTTPTransportConfiguration = Live.configuration(),
    _ body: (NIOHTTPTransport) async throws -> R
) async throws -> R {
    try await withNIOHTTPTransport(configuration: configuration, body)
}

/// The two protocols the live TLS tests run over: the server offers `h2` in ALPN for HTTP/2,
/// nothing (HTTP/1.1) otherwise; the transport offers both.
enum WireProtocol: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case http1 = "HTTP/1.1"
    case http2 = "HTTP/2"

    var serverVersions: LoopbackHTTPServer.HTTPVersions { self == .http1 ? .http1Only : .http2OrHTTP1 }
    var testDescription: String { self.rawValue }
}

extension Live {
    /// A server for `chain` speaking `wire`.
    static func tls(
        _ chain: TestPKI.Chain,
        over wire: WireProtocol,
        _ configure: (inout LoopbackHTTPServer.TLS) -> Void = { _ in }
    ) -> LoopbackHTTPServer.TLS {
        Live.tls(chain) { tls in
            tls.httpVersions = wire.serverVersions
            configure(&tls)
        }
    }
}

/// Asserts that the server served at least one request and every one over `wire`.
func expectNegotiated(
    _ wire: WireProtocol,
    on server: LoopbackHTTPServer,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let versions = Set(server.statistics.requests.map(\.httpVersion))
    #expect(versions == [wire.rawValue], sourceLocation: sourceLocation)
}
