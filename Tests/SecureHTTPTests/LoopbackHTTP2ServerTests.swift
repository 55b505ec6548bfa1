#if Tools
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import SecureNetworkingTesting
import Testing

/// The test server's HTTP/2, checked with another stack's client (AsyncHTTPClient): ALPN picks
/// the protocol, streams share one connection, `SETTINGS_MAX_CONCURRENT_STREAMS` is announced and
/// a reset stream leaves its siblings alone.
@Suite("LoopbackHTTPServer: HTTP/2")
struct LoopbackHTTP2ServerTests {
    static func client(_ version: HTTPClient.Configuration.HTTPVersion = .automatic) throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try Live.pki.root.nioCertificate()])
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = version
        // Generous: the whole suite runs in parallel, on a machine that may be building too.
        configuration.timeout = .init(connect: .seconds(60), read: .seconds(60))
        return HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }

    static func withClient<Result: Sendable>(
        _ version: HTTPClient.Configuration.HTTPVersion = .automatic,
        _ body: (HTTPClient) async throws -> Result
    ) async throws -> Result {
        let client = try Self.client(version)
        do {
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    static func tls(_ versions: LoopbackHTTPServer.HTTPVersions, streams: Int = 100) throws -> LoopbackHTTPServer.TLS {
        var tls = LoopbackHTTPServer.TLS(chain: try Live.pki.validChain())
        tls.httpVersions = versions
        tls.maximumConcurrentStreams = streams
        return tls
    }

    static func get(
        _ client: HTTPClient,
        _ server: LoopbackHTTPServer,
        _ path: String = "/"
    ) async throws -> HTTPClientResponse {
        let request = HTTPClientRequest(url: "https://localhost:\(server.port)\(path)")
        return try await client.execute(request, timeout: .seconds(60))
    }

    @Test func alpnPicksHTTP2WhenTheClientOffersIt() async throws {
        try await Self.withClient { client in
            try await withLoopbackHTTPServer(try Self.tls(.http2OrHTTP1)) { server in
                let response = try await Self.get(client, server, "/h2")
                #expect(response.version == .http2)
                #expect(response.status == .ok)
                #expect(String(buffer: try await response.body.collect(upTo: 1024)) == "ok")
                let statistics = server.statistics
                #expect(statistics.http2Connections == 1)
                #expect(statistics.http2Streams == 1)
                let request = try #require(statistics.requests.first)
                #expect(request.httpVersion == "HTTP/2")
                #expect(request.uri == "/h2")
                #expect(request.stream == 1)
            }
        }
    }

    @Test func aClientWithoutH2GetsHTTP1FromTheDualServer() async throws {
        try await Self.withClient(.http1Only) { client in
            try await withLoopbackHTTPServer(try Self.tls(.http2OrHTTP1)) { server in
                let response = try await Self.get(client, server)
                #expect(response.version == .http1_1)
                #expect(server.statistics.http2Connections == 0)
                #expect(server.statistics.requests.first?.httpVersion == "HTTP/1.1")
                #expect(server.statistics.requests.first?.stream == nil)
            }
        }
    }

    @Test func anHTTP2OnlyServerServesNoHTTP1() async throws {
        try await Self.withClient(.http1Only) { client in
            try await withLoopbackHTTPServer(try Self.tls(.http2Only)) { server in
                // The handshake completes (the client offers only http/1.1), then the server hangs up.
                await #expect(throws: HTTPClientError.remoteConnectionClosed) { try await Self.get(client, server) }
                let statistics = server.statistics
                #expect(statistics.handshakesCompleted >= 1)
                #expect(statistics.http2Connections == 0)
                #expect(statistics.requests.isEmpty)
            }
        }
    }

    @Test func twoHundredConcurrentRequestsShareOneConnection() async throws {
        try await Self.withClient { client in
            try await withLoopbackHTTPServer(try Self.tls(.http2OrHTTP1)) { server in
                // The first request settles the protocol, so the burst finds one HTTP/2 connection.
                _ = try await Self.get(client, server, "/warm-up")
                let versions = try await withThrowingTaskGroup(of: HTTPVersion.self) { group in
                    for index in 0..<200 {
                        group.addTask { try await Self.get(client, server, "/\(index)").version }
                    }
                    return try await group.reduce(into: [HTTPVersion]()) { $0.append($1) }
                }
                #expect(versions.count == 200)
                #expect(versions.allSatisfy { $0 == .http2 })
                let statistics = server.statistics
                #expect(statistics.connectionsAccepted == 1)
                #expect(statistics.handshakesCompleted == 1)
                #expect(statistics.http2Streams == 201)
                #expect(Set(statistics.requests.compactMap(\.stream)).count == 201)
            }
        }
    }

    @Test func theServerAnnouncesItsStreamLimit() async throws {
        try await Self.withClient { client in
            try await withLoopbackHTTPServer(
                try Self.tls(.http2OrHTTP1, streams: 10),
                handler: { _ in
                    .delayed(milliseconds: 20, .text("ok"))
                }
            ) { server in
                _ = try await Self.get(client, server, "/warm-up")
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<100 {
                        group.addTask { _ = try await Self.get(client, server, "/\(index)") }
                    }
                    try await group.waitForAll()
                }
                let statistics = server.statistics
                #expect(statistics.http2Streams == 101)
                #expect(statistics.peakConcurrentStreamsOnAConnection <= 10)
                #expect(statistics.peakConcurrentStreamsOnAConnection >= 2)
            }
        }
    }

    @Test func aResetStreamLeavesItsSiblingsAlone() async throws {
        try await Self.withClient { client in
            try await withLoopbackHTTPServer(
                try Self.tls(.http2OrHTTP1),
                handler: { request in
                    request.uri == "/reset" ? .close : .delayed(milliseconds: 50, .text("ok"))
                }
            ) { server in
                _ = try await Self.get(client, server, "/warm-up")
                async let sibling = Self.get(client, server, "/sibling")
                do {
                    _ = try await Self.get(client, server, "/reset")
                    Issue.record("the reset stream produced a response")
                } catch let error as NIOHTTP2Errors.StreamClosed {
                    #expect(error.errorCode == .cancel)
                }
                let response = try await sibling
                #expect(response.status == .ok)
                #expect(response.version == .http2)
                #expect(server.statistics.connectionsAccepted == 1)
            }
        }
    }
}

/// The reference auth server's HTTP/2, checked with AsyncHTTPClient.
@Suite("ReferenceAuthServer: HTTP/2")
struct ReferenceServerHTTP2Tests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test(arguments: [true, false])
    func theReferenceServerNegotiatesHTTP2OnlyWhenAsked(servesHTTP2: Bool) async throws {
        var configuration = ReferenceAuthServer.Configuration(chain: try Live.pki.validChain())
        configuration.servesHTTP2 = servesHTTP2
        let server = try await ReferenceAuthServer.start(configuration)
        do {
            let versions = try await LoopbackHTTP2ServerTests.withClient { client in
                // The first request settles the protocol; the burst then shares what it opened.
                _ = try await client.execute(
                    HTTPClientRequest(url: "https://localhost:\(server.port)/status/204"),
                    timeout: .seconds(60)
                )
                return try await withThrowingTaskGroup(of: (HTTPVersion, HTTPResponseStatus).self) { group in
                    for _ in 0..<20 {
                        group.addTask {
                            let request = HTTPClientRequest(url: "https://localhost:\(server.port)/status/418")
                            let response = try await client.execute(request, timeout: .seconds(60))
                            return (response.version, response.status)
                        }
                    }
                    return try await group.reduce(into: [(HTTPVersion, HTTPResponseStatus)]()) { $0.append($1) }
                }
            }
            #expect(versions.count == 20)
            #expect(versions.allSatisfy { $0.0 == (servesHTTP2 ? .http2 : .http1_1) && $0.1.code == 418 })
            let statistics = server.statistics
            if servesHTTP2 {
                // One connection carried the warm-up and the burst, one stream each.
                #expect(statistics.connections == 1)
                #expect(statistics.http2Connections == 1)
                #expect(statistics.http2Streams == 21)
            } else {
                #expect(statistics.connections >= 1)
                #expect(statistics.http2Connections == 0)
                #expect(statistics.http2Streams == 0)
            }
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }
}
#endif
