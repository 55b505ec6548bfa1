import Foundation
import HTTPTypes
import SecureNetworkingTesting
import ServerTrust
import Testing

@testable import SecureHTTP

/// NIOHTTPTransport over HTTP/2 against the in-process loopback server: negotiation, the pool
/// of streams, GOAWAY, resets, the size limit in DATA frames, cancellation and flow control.
@Suite("NIOHTTPTransport: HTTP/2")
struct HTTP2TransportLiveTests {
    // MARK: Negotiation (RFC 9113 §3.2)

    struct Negotiation: Sendable, CustomTestStringConvertible {
        let server: LoopbackHTTPServer.HTTPVersions
        let client: HTTPTransportConfiguration.HTTPVersions
        let expected: String
        var testDescription: String { "server \(self.server), client \(self.client) → \(self.expected)" }
    }

    static let negotiations = [
        Negotiation(server: .http2OrHTTP1, client: .automatic, expected: "HTTP/2"),
        Negotiation(server: .http2Only, client: .automatic, expected: "HTTP/2"),
        Negotiation(server: .http1Only, client: .automatic, expected: "HTTP/1.1"),
        Negotiation(server: .http2OrHTTP1, client: .http1Only, expected: "HTTP/1.1"),
    ]

    @Test(arguments: Self.negotiations)
    func theServersALPNChoiceDecidesTheProtocol(_ case: Negotiation) async throws {
        let tls = Live.tls(try Live.pki.validChain()) { $0.httpVersions = `case`.server }
        try await withLoopbackHTTPServer(tls, handler: { request in .text("\(request.httpVersion) \(request.uri)") }) {
            server in
            try await withTransport(Live.configuration { $0.httpVersions = `case`.client }) { transport in
                let response = try await transport.send(get(url(server, "/hello")))
                #expect(response.response.status == .ok)
                #expect(String(decoding: response.body, as: UTF8.self) == "\(`case`.expected) /hello")
                #expect(transport.statistics.http2ConnectionsOpened == (`case`.expected == "HTTP/2" ? 1 : 0))
            }
        }
    }

    /// RFC 9113 §9.2.2: HTTP/2 over TLS 1.2 must not use a suite of its Appendix A list (CBC,
    /// RSA key exchange). A domain exception that adds such suites keeps `h2` out of ALPN.
    @Test func anExceptionThatAddsProhibitedSuitesKeepsTheConnectionOnHTTP1() async throws {
        let tls = Live.tls(try Live.pki.validChain()) {
            $0.httpVersions = .http2OrHTTP1
            $0.maximumVersion = .tlsv12
            $0.cipherSuites = [.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA]
        }
        try await withLoopbackHTTPServer(tls) { server in
            var policy = Live.policy
            policy.setException(DomainException(cipherSuites: .ats), for: "localhost")
            try await withTransport(Live.configuration(policy: policy)) { transport in
                let response = try await transport.send(get(url(server)))
                #expect(response.response.status == .ok)
                #expect(transport.statistics.http2ConnectionsOpened == 0)
            }
            expectNegotiated(.http1, on: server)
        }
        let requirements = try Live.policy.requirements(for: URL(string: "https://localhost/")!)
        #expect(TLSSetup.offersHTTP2(requirements, versions: .automatic))
        #expect(!TLSSetup.offersHTTP2(requirements, versions: .http1Only))
    }

    /// `offersHTTP2` reads the requirements; it must say exactly what the suite list says: h2
    /// only when every suite offered is ECDHE with an AEAD cipher, at TLS 1.2 or above.
    @Test func theHTTP2OfferFollowsTheSuiteListForEveryException() throws {
        var offered = 0
        for version in [TLSVersion.v1_0, .v1_1, .v1_2, .v1_3] {
            for forwardSecrecy in [true, false] {
                for suites in [CipherSuitePolicy.aeadOnly, .ats] {
                    var policy = Live.policy
                    policy.setException(
                        DomainException(
                            minimumTLSVersion: version,
                            requiresForwardSecrecy: forwardSecrecy,
                            cipherSuites: suites
                        ),
                        for: "localhost"
                    )
                    let requirements = try policy.requirements(for: URL(string: "https://localhost/")!)
                    let bySuiteList =
                        requirements.minimumTLSVersion >= .v1_2
                        && TLSSetup.cipherSuites(for: requirements).allSatisfy(TLSSetup.forwardSecretSuites.contains)
                    #expect(
                        TLSSetup.offersHTTP2(requirements, versions: .automatic) == bySuiteList,
                        "\(version) \(forwardSecrecy) \(suites)"
                    )
                    if bySuiteList { offered += 1 }
                }
            }
        }
        // TLS 1.2 and 1.3 minimums with forward secrecy and the AEAD list.
        #expect(offered == 2)
    }

    // MARK: The pool

    @Test func twoHundredConcurrentRequestsShareOneConnection() async throws {
        let gate = LoopbackHTTPServer.Gate()
        let tls = Live.tls(try Live.pki.validChain(), over: .http2) { $0.maximumConcurrentStreams = 250 }
        try await withLoopbackHTTPServer(tls, handler: { request in .after(gate, .text(request.uri)) }) { server in
            try await withTransport { transport in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<200 {
                        group.addTask {
                            let response = try await transport.send(get(url(server, "/r/\(index)")))
                            #expect(String(decoding: response.body, as: UTF8.self) == "/r/\(index)")
                        }
                    }
                    // All 200 are open at once before any is answered.
                    try await waitUntil { server.statistics.requests.count == 200 }
                    gate.open()
                    try await group.waitForAll()
                }
                let statistics = server.statistics
                #expect(statistics.connectionsAccepted == 1)
                #expect(statistics.handshakesCompleted == 1)
                #expect(statistics.http2Streams == 200)
                #expect(statistics.peakConcurrentStreamsOnAConnection == 200)
                #expect(transport.statistics.connectionsOpened == 1)
                #expect(transport.statistics.http2Streams == 200)
            }
        }
    }

    @Test func aServerLimitOfTenStreamsQueuesTheRest() async throws {
        let tls = Live.tls(try Live.pki.validChain(), over: .http2) { $0.maximumConcurrentStreams = 10 }
        try await withLoopbackHTTPServer(tls, handler: { _ in .delayed(milliseconds: 5, .text("ok")) }) { server in
            try await withTransport { transport in
                try await Self.burst(transport, server, count: 100)
                let statistics = server.statistics
                #expect(statistics.connectionsAccepted == 1)
                #expect(statistics.http2Streams == 100)
                #expect(statistics.peakConcurrentStreamsOnAConnection <= 10)
                #expect(statistics.peakConcurrentStreamsOnAConnection >= 2)
            }
        }
    }

    @Test func whenStreamsRunOutASecondConnectionOpensUpToTheCap() async throws {
        let gate = LoopbackHTTPServer.Gate()
        let tls = Live.tls(try Live.pki.validChain(), over: .http2) { $0.maximumConcurrentStreams = 10 }
        try await withLoopbackHTTPServer(tls, handler: { _ in .after(gate, .text("ok")) }) { server in
            try await withTransport(Live.configuration { $0.http2.maximumConnectionsPerHost = 2 }) { transport in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<30 {
                        group.addTask { _ = try await transport.send(get(url(server, "/r/\(index)"))) }
                    }
                    // Two connections of 10 streams each are busy; the other 10 requests queue.
                    try await waitUntil { server.statistics.requests.count == 20 }
                    #expect(server.statistics.connectionsAccepted == 2)
                    gate.open()
                    try await group.waitForAll()
                }
                #expect(server.statistics.connectionsAccepted == 2)
                #expect(server.statistics.http2Streams == 30)
                #expect(server.statistics.peakConcurrentStreamsOnAConnection == 10)
            }
        }
    }

    /// RFC 9113 §6.8: the streams above GOAWAY's last stream id were not processed. Idempotent
    /// requests are retried on a new connection; the others fail with `requestNotProcessed`.
    @Test(arguments: [HTTPRequest.Method.get, .post])
    func goAwayMidBurst(_ method: HTTPRequest.Method) async throws {
        let gate = LoopbackHTTPServer.Gate()
        let tls = Live.tls(try Live.pki.validChain(), over: .http2) {
            $0.goAway = .init(afterStreams: 30, processedStreams: 10)
        }
        // The streams above the GOAWAY's last stream id (19, the tenth) are not answered.
        let handler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { request in
            request.connection == 1 && (request.stream ?? 0) > 19 ? .stall : .after(gate, .text(request.uri))
        }
        try await withLoopbackHTTPServer(tls, handler: handler) { server in
            try await withTransport { transport in
                let outcomes = try await withThrowingTaskGroup(of: (Int, Result<String, SecureHTTPError>).self) {
                    group in
                    for index in 0..<30 {
                        group.addTask {
                            var request = get(url(server, "/r/\(index)"))
                            request.method = method
                            do {
                                let response = try await transport.send(
                                    request,
                                    body: method == .post ? Data("x".utf8) : nil
                                )
                                return (index, .success(String(decoding: response.body, as: UTF8.self)))
                            } catch {
                                return (index, .failure(error as! SecureHTTPError))
                            }
                        }
                    }
                    try await waitUntil { server.statistics.goAwaysSent == 1 }
                    gate.open()
                    return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
                }
                let failures = outcomes.values.compactMap(\.error)
                let statistics = server.statistics
                let first = statistics.requests.filter { $0.connection == 1 }
                #expect(first.count == 30)
                let refused = Set(first.filter { ($0.stream ?? 0) > 19 }.map(\.uri))
                #expect(refused.count == 20)
                if method == .get {
                    // Retried on a second connection, each exactly once.
                    #expect(failures.isEmpty)
                    #expect(outcomes.allSatisfy { index, result in (try? result.get()) == "/r/\(index)" })
                    #expect(statistics.connectionsAccepted == 2)
                    #expect(transport.statistics.notProcessedRetries == 20)
                    let second = statistics.requests.filter { $0.connection == 2 }
                    #expect(Set(second.map(\.uri)) == refused)
                    #expect(second.count == 20)
                } else {
                    #expect(failures.count == 20)
                    #expect(failures.allSatisfy { $0.code == .requestNotProcessed })
                    #expect(Set(outcomes.filter { $0.value.error != nil }.map { "/r/\($0.key)" }) == refused)
                    #expect(statistics.connectionsAccepted == 1)
                    #expect(transport.statistics.notProcessedRetries == 0)
                }
            }
        }
    }

    // MARK: Per-stream rules

    @Test func aStreamResetByTheServerFailsOnlyThatRequest() async throws {
        let tls = Live.tls(try Live.pki.validChain(), over: .http2)
        try await withLoopbackHTTPServer(tls, handler: { request in request.uri == "/reset" ? .close : .text("ok") }) {
            server in
            try await withTransport { transport in
                let error = await expectFailure(transport, get(url(server, "/reset")))
                #expect(error?.code == .streamReset)
                let response = try await transport.send(get(url(server, "/after")))
                #expect(response.response.status == .ok)
                #expect(server.statistics.connectionsAccepted == 1)
            }
        }
    }

    @Test func aBodyOverTheLimitInDataFramesIsRefusedAndTheConnectionCarriesOn() async throws {
        let tls = Live.tls(try Live.pki.validChain(), over: .http2)
        let handler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { request in
            switch request.uri {
            case "/streamed": .streamed(chunks: 64, chunkSize: 4096)  // no content-length
            case "/declared": .status(200, body: Array(repeating: 0x61, count: 70_000))
            default: .text("ok")
            }
        }
        try await withLoopbackHTTPServer(tls, handler: handler) { server in
            try await withTransport(Live.configuration { $0.maximumResponseBodySize = 64 * 1024 }) { transport in
                #expect(await expectFailure(transport, get(url(server, "/streamed")))?.code == .responseTooLarge)
                #expect(await expectFailure(transport, get(url(server, "/declared")))?.code == .responseTooLarge)
                let response = try await transport.send(get(url(server, "/small")))
                #expect(response.body == Data("ok".utf8))
                #expect(server.statistics.connectionsAccepted == 1)
            }
        }
    }

    @Test func aCancelledStreamIsResetAndItsSiblingCompletes() async throws {
        let gate = LoopbackHTTPServer.Gate()
        let tls = Live.tls(try Live.pki.validChain(), over: .http2)
        try await withLoopbackHTTPServer(
            tls,
            handler: { request in request.uri == "/stall" ? .stall : .after(gate, .text("sibling")) }
        ) { server in
            try await withTransport { transport in
                let sibling = Task { try await transport.send(get(url(server, "/sibling"))) }
                let stalled = Task { try await transport.send(get(url(server, "/stall"))) }
                try await waitUntil { server.statistics.requests.count == 2 }
                stalled.cancel()
                #expect((await stalled.result.error as? SecureHTTPError)?.code == .cancelled)
                try await waitUntil { server.statistics.streamsResetByClient == 1 }
                gate.open()
                let response = try await sibling.value
                #expect(response.body == Data("sibling".utf8))
                #expect(server.statistics.connectionsAccepted == 1)
            }
        }
    }

    /// The server reads the first 16 KiB of a 1 MiB upload and then stops reading the stream
    /// (granting no more flow-control window): the upload stalls, and the request deadline ends
    /// it. The server's own count shows it received part of the upload, never its end.
    @Test func aServerThatStopsReadingTripsTheDeadline() async throws {
        let readLimit = 16 * 1024
        let upload = 1 << 20
        let server = try await StallingHTTP2Server.start(chain: try Live.pki.validChain(), readLimit: readLimit)
        do {
            // A 10 s deadline: with 2 s, a loaded machine (the suite beside a parallel build) once
            // spent it before the upload's head reached the server, which then had read nothing.
            try await withTransport(Live.configuration { $0.timeouts.request = .seconds(10) }) { transport in
                let base = "https://localhost:\(server.port)"
                // The connection first, so that the deadline is spent on the stalled upload (on a
                // loaded machine a first handshake can take longer than the deadline).
                var warmed = false
                for _ in 0..<5 where !warmed {
                    warmed = (try? await transport.send(get(URL(string: base + "/warm")!))) != nil
                }
                #expect(warmed)
                let opened = transport.statistics.http2ConnectionsOpened
                var request = get(URL(string: base + "/upload")!)
                request.method = .post
                let before = server.observed
                let started = ContinuousClock.now
                let error = await expectFailure(transport, request, body: Data(count: upload))
                #expect(error?.code == .deadlineExceeded)
                #expect(ContinuousClock.now - started < .seconds(50))
                // The upload went on the warmed connection.
                #expect(transport.statistics.http2ConnectionsOpened == opened)
                let after = server.observed
                // The upload's head arrived and part of its body was read: at least the limit,
                // far from all of it (the 65,535-byte window and what the server consumed
                // before it stopped), and never its end.
                #expect(after.requestHeads == before.requestHeads + 1)
                #expect(after.bodyBytesRead >= readLimit)
                #expect(after.bodyBytesRead < 2 * 65_535)
                #expect(after.requestsEnded == before.requestsEnded)
            }
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    @Test func connectionSpecificFieldsAreNotSentAndTheAuthorityIsAPseudoField() async throws {
        let tls = Live.tls(try Live.pki.validChain(), over: .http2)
        try await withLoopbackHTTPServer(tls) { server in
            try await withTransport { transport in
                var request = get(url(server, "/fields"))
                request.headerFields[HTTPField.Name("Connection")!] = "keep-alive"
                request.headerFields[HTTPField.Name("Keep-Alive")!] = "timeout=5"
                request.headerFields[HTTPField.Name("Upgrade")!] = "websocket"
                request.headerFields[HTTPField.Name("TE")!] = "gzip"
                request.headerFields[HTTPField.Name("X-Trace")!] = "abc"
                _ = try await transport.send(request)
                let recorded = try #require(server.statistics.requests.first)
                #expect(recorded.httpVersion == "HTTP/2")
                let names = Set(recorded.headers.map { $0.name.lowercased() })
                #expect(names.isDisjoint(with: ["connection", "keep-alive", "upgrade", "te", "transfer-encoding"]))
                #expect(recorded.header("x-trace") == "abc")
                // NIOHTTP2's codec turns `:authority` into the Host field it hands the server.
                #expect(recorded.header("host") == "localhost:\(server.port)")
            }
        }
        let headers = HTTP2Connection.makeHeaders(get(URL(string: "https://example.com/p?q=1")!), body: nil)
        #expect(Array(headers.map(\.name).prefix(4)) == [":method", ":scheme", ":authority", ":path"])
        #expect(headers.first(name: ":path") == "/p?q=1")
    }

    @Test func aHeaderValueWithCRLFIsRefusedBeforeAnyStreamOpens() async throws {
        let tls = Live.tls(try Live.pki.validChain(), over: .http2)
        try await withLoopbackHTTPServer(tls) { server in
            try await withTransport { transport in
                // swift-http-types would turn CR and LF into spaces; a late-bound credential is
                // checked when its connection is leased, so this one reaches the HTTP/2 path.
                let options = HTTPRequestOptions(
                    credential: .init(name: .authorization, value: { "Bearer a\r\nX-Injected: 1" })
                )
                #expect(await expectFailure(transport, get(url(server)), options: options)?.code == .invalidHeaderValue)
                #expect(transport.statistics.http2ConnectionsOpened == 1)
                #expect(server.statistics.http2Streams == 0)
            }
        }
    }

    @Test func redirectsAcrossHostsAreCheckedPerHopAndUseAConnectionEach() async throws {
        let tls = Live.tls(try Live.pki.validChain(), over: .http2)
        try await withLoopbackHTTPServer(tls) { target in
            try await withLoopbackHTTPServer(
                tls,
                handler: { _ in .redirect(to: url(target, "/landed", host: "127.0.0.1").absoluteString) }
            ) { origin in
                try await withTransport { transport in
                    let response = try await transport.send(
                        get(url(origin, "/start"), headers: [.authorization: "Bearer secret"])
                    )
                    #expect(response.response.status == .ok)
                    #expect(response.redirectedAcrossOrigins)
                    #expect(transport.statistics.http2ConnectionsOpened == 2)
                    let landed = try #require(target.statistics.requests.first)
                    #expect(landed.httpVersion == "HTTP/2")
                    #expect(landed.header("authorization") == nil)
                }
            }
        }
    }

    @Test func idleConnectionsCloseAfterTheIdleTimeout() async throws {
        let tls = Live.tls(try Live.pki.validChain(), over: .http2)
        try await withLoopbackHTTPServer(tls) { server in
            try await withTransport(Live.configuration { $0.timeouts.idle = .milliseconds(200) }) { transport in
                _ = try await transport.send(get(url(server)))
                // The client closes the idle connection; the server sees it go.
                try await waitUntil { server.statistics.openConnections == 0 }
                _ = try await transport.send(get(url(server)))
                let requests = server.statistics.requests
                #expect(requests.count == 2)
                #expect(requests.first?.connection != requests.last?.connection)
            }
        }
    }

    /// The request that opened a connection holds it from the handshake on: even a 1 ms idle
    /// timeout cannot close it before that request's stream, however late its task resumes.
    @Test func aConnectionServesTheRequestThatOpenedItWhateverTheIdleTimeout() async throws {
        let tls = Live.tls(try Live.pki.validChain(), over: .http2)
        try await withLoopbackHTTPServer(tls) { server in
            try await withTransport(Live.configuration { $0.timeouts.idle = .milliseconds(1) }) { transport in
                for index in 0..<10 {
                    let response = try await transport.send(get(url(server, "/\(index)")))
                    #expect(response.response.status == .ok)
                    try await waitUntil { server.statistics.openConnections == 0 }
                }
                #expect(transport.statistics.notProcessedRetries == 0)
                #expect(transport.statistics.http2ConnectionsOpened == 10)
            }
        }
    }

    /// An idle HTTP/2 connection is PINGed every interval, the server's acknowledgements keep
    /// it open, and the next request reuses it.
    @Test func pingsKeepAnIdleConnectionCheckedAndOpen() async throws {
        let tls = Live.tls(try Live.pki.validChain(), over: .http2)
        try await withLoopbackHTTPServer(tls) { server in
            let configuration = Live.configuration {
                $0.http2.pingInterval = .milliseconds(50)
                // Neither the idle timeout nor the PING timeout is what this test is about, and a
                // loaded machine once stretched the wait for three PINGs past the 20 s idle
                // timeout (CI, suite beside a build): the connection closed, rightly, and the
                // second request opened a new one.
                $0.timeouts.idle = .seconds(600)
                $0.http2.pingTimeout = .seconds(600)
            }
            try await withTransport(configuration) { transport in
                _ = try await transport.send(get(url(server)))
                try await waitUntil { server.statistics.pingsReceived >= 3 }
                _ = try await transport.send(get(url(server)))
                // The second request rides the connection that served the first, kept open and
                // checked by the PINGs in between. (Compared by connection rather than by count:
                // on a loaded CI machine the first request's stream once failed as not sent on
                // a fresh connection and was retried on a second one, before any PING, so two
                // were accepted and both requests were served on the second. That retry is
                // reported in the note as an open problem; it is not what this test is about.)
                let connections = server.statistics.requests.map(\.connection)
                #expect(connections.count == 2, "\(transport.statistics)")
                #expect(
                    Set(connections).count == 1,
                    "\(transport.statistics), requests on connections \(connections)"
                )
            }
        }
    }

    /// A server that stops answering (here: stops reading, so no PING is acknowledged) fails
    /// the streams on its connection once the PING timeout passes, long before the request
    /// deadline; the next request opens a new connection.
    @Test func anUnansweredPingFailsTheConnectionBeforeTheDeadline() async throws {
        let tls = Live.tls(try Live.pki.validChain(), over: .http2)
        try await withLoopbackHTTPServer(tls, handler: { request in request.uri == "/freeze" ? .freeze : .text("ok") })
        { server in
            let configuration = Live.configuration {
                $0.http2.pingInterval = .milliseconds(100)
                // Long enough for the answered requests' PINGs on a loaded machine (beside a
                // release build at load 7, three fresh connections in a row missed a 1 s timeout),
                // and still far under the request deadline.
                $0.http2.pingTimeout = .seconds(3)
                $0.timeouts.request = .seconds(60)
            }
            try await withTransport(configuration) { transport in
                let started = ContinuousClock.now
                // The connection's first request, and a POST, which is not retried: one attempt,
                // one PING timeout, and no answered request whose PING a loaded machine could
                // fail to acknowledge in time.
                var frozen = get(url(server, "/freeze"))
                frozen.method = .post
                let error = await expectFailure(transport, frozen, body: Data("x".utf8))
                #expect(error?.code == .connectionClosed)
                #expect(error.map { String(describing: $0).contains("PING") } == true)
                // Without the PING the request would wait for its 60 s deadline and fail with
                // deadlineExceeded: the code and the message above are what show the PING ended
                // it. The time only has to be under the deadline: busy suite runs (a release build
                // beside them on two cores) measured 36.7 s and 42.6 s from the test's task, whose
                // wake-ups wait for the cooperative pool, against 1.4 s alone. That the failure
                // does not wait for the frozen server's close_notify is shown by HTTP2ExchangeTests.
                #expect(ContinuousClock.now - started < .seconds(60))
                // The next request gets a new connection (a few tries: on a loaded machine its
                // own PINGs may go unacknowledged for a second too).
                var answered = false
                for _ in 0..<5 where !answered {
                    answered = (try? await transport.send(get(url(server, "/after"))))?.response.status == .ok
                }
                #expect(answered)
                // Counted at the server: on a loaded machine the PING timeout can end the frozen
                // connection before the client counts it as an opened HTTP/2 connection (a busy
                // suite run saw the client's count at 1), but the server accepted both.
                #expect(server.statistics.connectionsAccepted >= 2)
            }
        }
    }

    /// The client announces SETTINGS_MAX_HEADER_LIST_SIZE (RFC 9113 §6.5.2) and enforces it:
    /// a response whose header list is larger is refused with a typed error (a connection error,
    /// RFC 9113 §5.4.1: the HPACK state is lost), a smaller one is accepted, and the next request
    /// opens a new connection.
    @Test func aResponseHeaderListOverTheAnnouncedLimitIsRefused() async throws {
        let tls = Live.tls(try Live.pki.validChain(), over: .http2)
        // NIOHTTP2's default limit, which the client announces: 16 KiB, counting 32 bytes of
        // overhead per field (RFC 9113 §6.5.2).
        let big = String(repeating: "a", count: 20_000)
        let fits = String(repeating: "b", count: 10_000)
        try await withLoopbackHTTPServer(
            tls,
            handler: { request in
                switch request.uri {
                case "/big": .status(200, headers: [("X-Big", big)], body: Array("x".utf8))
                case "/fits": .status(200, headers: [("X-Fits", fits)], body: Array("x".utf8))
                default: .text("ok")
                }
            }
        ) { server in
            try await withTransport { transport in
                let fitting = try await transport.send(get(url(server, "/fits")))
                #expect(fitting.response.headerFields[HTTPField.Name("X-Fits")!] == fits)
                let error = await expectFailure(transport, get(url(server, "/big")))
                #expect(error?.code == .invalidResponse)
                let response = try await transport.send(get(url(server, "/after")))
                #expect(response.response.status == .ok)
                #expect(server.statistics.connectionsAccepted == 2)
            }
        }
    }

    // MARK: Helpers

    static func burst(_ transport: NIOHTTPTransport, _ server: LoopbackHTTPServer, count: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    let response = try await transport.send(get(url(server, "/r/\(index)")))
                    #expect(response.response.status == .ok)
                }
            }
            try await group.waitForAll()
        }
    }
}
