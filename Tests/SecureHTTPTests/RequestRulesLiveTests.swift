import Foundation
import HTTPTypes
import Logging
import NIOConcurrencyHelpers
import SecureHTTP
import SecureNetworkingTesting
import ServerTrust
import Testing

/// Policy before the first byte, redirects, size limits, header hygiene and redacted logs.
@Suite("Live HTTP: policy, redirects, limits, hygiene")
struct RequestRulesLiveTests {
    @Test func plainHTTPIsRefusedBeforeConnecting() async throws {
        try await withLoopbackHTTPServer(nil) { server in
            try await withTransport { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.code == .policyViolation)
                #expect(error?.serverTrustError?.code == .insecureScheme)
                #expect(server.statistics.connectionsAccepted == 0)
            }
        }
    }

    @Test func plainHTTPIsAllowedForAnExceptedHost() async throws {
        var policy = Live.policy
        policy.setException(DomainException(allowsInsecureHTTPLoads: true), for: "localhost")
        try await withLoopbackHTTPServer(nil) { server in
            try await withTransport(Live.configuration(policy: policy)) { transport in
                let response = try await transport.send(get(url(server)))
                #expect(response.response.status == .ok)
            }
        }
    }

    @Test func unknownSchemeIsRefused() async throws {
        try await withTransport { transport in
            let request = HTTPRequest(method: .get, scheme: "ftp", authority: "localhost:21", path: "/")
            let error = await expectFailure(transport, request)
            #expect(error?.code == .policyViolation)
            #expect(error?.serverTrustError?.code == .unsupportedScheme)
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
                try await withTransport(Live.configuration(policy: policy)) { transport in
                    let error = await expectFailure(transport, get(url(server)))
                    #expect(error?.code == .insecureRedirect)
                    #expect(plain.statistics.connectionsAccepted == 0)
                }
            }
        }
    }

    @Test func crossOriginRedirectDropsCredentials() async throws {
        let chain = try Live.pki.validChain()
        try await withLoopbackHTTPServer(Live.tls(chain), handler: { _ in .text("landed") }) { other in
            // Same host name, other port: another origin.
            let target = url(other, "/landing").absoluteString
            try await withLoopbackHTTPServer(
                Live.tls(chain),
                handler: { request in
                    request.uri == "/start" ? .redirect(to: "/same-origin") : .redirect(307, to: target)
                }
            ) { server in
                try await withTransport { transport in
                    var fields = HTTPFields()
                    try fields.appendChecked(name: .authorization, value: "Bearer access-token")
                    try fields.appendChecked(name: .cookie, value: "session=abc")
                    try fields.appendChecked(name: .proxyAuthorization, value: "Basic cHJveHk=")
                    try fields.appendChecked(name: HTTPField.Name("X-Request-ID")!, value: "42")
                    let response = try await transport.send(get(url(server, "/start"), headers: fields))
                    #expect(String(decoding: response.body, as: UTF8.self) == "landed")
                    #expect(response.redirectCount == 2)
                    #expect(response.url.absoluteString == target)

                    let sameOrigin = try #require(server.statistics.requests.last)
                    #expect(sameOrigin.uri == "/same-origin")
                    #expect(sameOrigin.header("Authorization") == "Bearer access-token")

                    let landed = try #require(other.statistics.requests.first)
                    #expect(landed.header("Authorization") == nil)
                    #expect(landed.header("Cookie") == nil)
                    #expect(landed.header("Proxy-Authorization") == nil)
                    #expect(landed.header("X-Request-ID") == "42")
                }
            }
        }
    }

    @Test func crossOriginTemporaryRedirectDropsTheBodyUnlessTheRequestOptsIn() async throws {
        let chain = try Live.pki.validChain()
        try await withLoopbackHTTPServer(Live.tls(chain), handler: { _ in .text("landed") }) { other in
            let target = url(other, "/landing").absoluteString
            try await withLoopbackHTTPServer(
                Live.tls(chain),
                handler: { request in
                    request.uri == "/same" ? .redirect(308, to: "/moved") : .redirect(307, to: target)
                }
            ) { server in
                try await withTransport { transport in
                    var request = HTTPRequest(url: url(server, "/same"))
                    request.method = .post
                    request.headerFields[.contentType] = "application/x-www-form-urlencoded"
                    let secret = Array("grant_type=password&password=hunter2".utf8)

                    let response = try await transport.send(request, body: Data(secret))
                    #expect(String(decoding: response.body, as: UTF8.self) == "landed")
                    #expect(response.redirectedAcrossOrigins)
                    // Same origin (308): method and body kept. Other origin (307): method kept,
                    // body and its content type dropped.
                    #expect(server.statistics.requests.map(\.uri) == ["/same", "/moved"])
                    #expect(server.statistics.requests.map(\.body) == [secret, secret])
                    let landed = try #require(other.statistics.requests.first)
                    #expect(landed.method == "POST")
                    #expect(landed.body.isEmpty)
                    #expect(landed.header("Content-Type") == nil)

                    let optedIn = try await transport.send(
                        request,
                        body: Data(secret),
                        options: HTTPRequestOptions(forwardsBodyAcrossOrigins: true)
                    )
                    #expect(optedIn.redirectedAcrossOrigins)
                    let forwarded = try #require(other.statistics.requests.last)
                    #expect(other.statistics.requests.count == 2)
                    #expect(forwarded.body == secret)
                    #expect(forwarded.header("Content-Type") == "application/x-www-form-urlencoded")
                }
            }
        }
    }

    @Test func theFieldsStrippedAcrossOriginsAreConfigurable() async throws {
        let chain = try Live.pki.validChain()
        let apiKey = HTTPField.Name("X-Api-Key")!
        try await withLoopbackHTTPServer(Live.tls(chain), handler: { _ in .text("landed") }) { other in
            let target = url(other, "/landing").absoluteString
            try await withLoopbackHTTPServer(Live.tls(chain), handler: { _ in .redirect(307, to: target) }) { server in
                var fields = HTTPFields()
                fields[apiKey] = "key-123"
                fields[.authorization] = "DPoP access-token"
                fields[HTTPField.Name("DPoP")!] = "eyJ0eXAiOiJkcG9wK2p3dCJ9.proof.signature"
                // The default strips the four credential fields only.
                try await withTransport { transport in
                    _ = try await transport.send(get(url(server, "/start"), headers: fields))
                }
                let first = try #require(other.statistics.requests.last)
                #expect(first.header("X-Api-Key") == "key-123")
                #expect(first.header("Authorization") == nil)
                #expect(first.header("DPoP") == nil)
                // An app adds its own.
                try await withTransport(Live.configuration { $0.crossOriginStrippedFields += [apiKey] }) { transport in
                    _ = try await transport.send(get(url(server, "/start"), headers: fields))
                }
                let second = try #require(other.statistics.requests.last)
                #expect(other.statistics.requests.count == 2)
                #expect(second.header("X-Api-Key") == nil)
                #expect(second.header("Authorization") == nil)
            }
        }
    }

    @Test func aLateBoundCredentialGoesOnlyToTheOriginalOrigin() async throws {
        let chain = try Live.pki.validChain()
        try await withLoopbackHTTPServer(Live.tls(chain), handler: { _ in .status(401) }) { other in
            let target = url(other, "/landing").absoluteString
            try await withLoopbackHTTPServer(
                Live.tls(chain),
                handler: { request in
                    switch request.uri {
                    case "/start": .redirect(to: "/same")
                    case "/same": .redirect(307, to: target)
                    default: .text("ok")
                    }
                }
            ) { server in
                try await withTransport { transport in
                    let calls = NIOLockedValueBox(0)
                    let credential = HTTPRequestOptions.Credential(name: .authorization) {
                        calls.withLockedValue {
                            $0 += 1
                            return "Bearer token-\($0)"
                        }
                    }
                    let response = try await transport.send(
                        get(url(server, "/start")),
                        body: nil,
                        options: HTTPRequestOptions(credential: credential)
                    )
                    #expect(response.response.status.code == 401)
                    #expect(response.redirectedAcrossOrigins)
                    // Bound per hop, when the hop is written, on the original origin only.
                    #expect(
                        server.statistics.requests.map { $0.header("Authorization") } == [
                            "Bearer token-1", "Bearer token-2",
                        ]
                    )
                    #expect(other.statistics.requests.first?.header("Authorization") == nil)
                    #expect(calls.withLockedValue { $0 } == 2)

                    let direct = try await transport.send(
                        get(url(server, "/plain")),
                        body: nil,
                        options: HTTPRequestOptions(credential: credential)
                    )
                    #expect(direct.redirectedAcrossOrigins == false)

                    let injected = HTTPRequestOptions(
                        credential: .init(name: .authorization) { "Bearer a\r\nX-Evil: 1" }
                    )
                    let error = await expectFailure(transport, get(url(server, "/plain")), options: injected)
                    #expect(error?.code == .invalidHeaderValue)
                }
            }
        }
    }

    @Test func perRequestRedirectRulesOverrideTheTransport() async throws {
        try await withLoopbackHTTPServer(
            Live.tls(try Live.pki.validChain()),
            handler: { request in
                request.uri == "/a" ? .redirect(307, to: "/b") : .text("b")
            }
        ) { server in
            try await withTransport { transport in
                let followed = try await transport.send(get(url(server, "/a")))
                #expect(followed.redirectCount == 1)
                let returned = try await transport.send(get(url(server, "/a")), body: nil, options: .tokenEndpoint)
                #expect(returned.response.status.code == 307)
                #expect(returned.redirectCount == 0)
                #expect(server.statistics.requests.map(\.uri) == ["/a", "/b", "/a"])
            }
        }
    }

    @Test func redirectLoopIsAnError() async throws {
        let handler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { request in
            .redirect(to: request.uri == "/a" ? "/b" : "/a")
        }
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain()), handler: handler) { server in
            try await withTransport { transport in
                let error = await expectFailure(transport, get(url(server, "/a")))
                #expect(error?.code == .redirectLoop)
                #expect(server.statistics.requests.map(\.uri) == ["/a", "/b"])
            }
        }
    }

    @Test func redirectLimitIsEnforced() async throws {
        let handler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { request in
            let step = Int(request.uri.dropFirst()) ?? 0
            return .redirect(to: "/\(step + 1)")
        }
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain()), handler: handler) { server in
            try await withTransport { transport in
                let error = await expectFailure(transport, get(url(server, "/0")))
                #expect(error?.code == .tooManyRedirects)
                #expect(server.statistics.requests.count == 6)  // the request and 5 redirects
            }
            try await withTransport(Live.configuration { $0.redirects = .none }) { transport in
                let response = try await transport.send(get(url(server, "/0")))
                #expect(response.response.status == .found)
                #expect(response.response.headerFields[.location] == "/1")
            }
        }
    }

    @Test func seeOtherTurnsAPostIntoAGetWithoutBody() async throws {
        let handler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { request in
            request.method == "POST" ? .redirect(303, to: "/result") : .text("done")
        }
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain()), handler: handler) { server in
            try await withTransport { transport in
                var request = HTTPRequest(url: url(server, "/form"))
                request.method = .post
                request.headerFields[.contentType] = "application/json"
                let response = try await transport.send(request, body: Data("{\"a\":1}".utf8))
                #expect(String(decoding: response.body, as: UTF8.self) == "done")
                let requests = server.statistics.requests
                #expect(requests.map(\.method) == ["POST", "GET"])
                #expect(requests.first?.body == Array("{\"a\":1}".utf8))
                #expect(requests.last?.body.isEmpty == true)
                #expect(requests.last?.header("Content-Type") == nil)
            }
        }
    }

    @Test func bodyOverTheLimitIsRefusedFromContentLength() async throws {
        let handler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { _ in
            .status(200, body: [UInt8](repeating: 0x61, count: 64 * 1024 + 1))
        }
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain()), handler: handler) { server in
            try await withTransport(Live.configuration { $0.maximumResponseBodySize = 64 * 1024 }) { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.code == .responseTooLarge)
            }
        }
    }

    @Test func streamedBodyOverTheLimitIsRefusedWhileReading() async throws {
        let handler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { request in
            request.uri == "/small"
                ? .streamed(chunks: 4, chunkSize: 1024) : .streamed(chunks: 200, chunkSize: 16 * 1024)
        }
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain()), handler: handler) { server in
            try await withTransport(Live.configuration { $0.maximumResponseBodySize = 1024 * 1024 }) { transport in
                let small = try await transport.send(get(url(server, "/small")))
                #expect(small.body.count == 4096)
                let error = await expectFailure(transport, get(url(server, "/large")))
                #expect(error?.code == .responseTooLarge)
            }
        }
    }

    @Test func headerValuesWithCROrLFAreRefused() throws {
        for value in ["Bearer a\r\nX-Injected: 1", "a\nb", "a\rb", "a\u{0}b"] {
            do {
                _ = try HTTPField.checked(name: .authorization, value: value)
                Issue.record("accepted a header value with a control character")
            } catch {
                #expect(error.code == .invalidHeaderValue)
                #expect(!error.description.contains("Bearer"))
            }
        }
        var fields = HTTPFields()
        do {
            try fields.appendChecked(name: .cookie, value: "a=b\r\nSet-Cookie: evil")
            Issue.record("appendChecked accepted CR/LF")
        } catch {
            #expect(error.code == .invalidHeaderValue)
        }
        #expect(fields.isEmpty)
        do {
            _ = try HTTPField.checked(name: "Bad Name", value: "x")
            Issue.record("accepted an invalid header name")
        } catch {
            #expect(error.code == .invalidHeaderValue)
        }
        #expect(try HTTPField.checked(name: "X-Trace", value: "abc 123").value == "abc 123")
    }

    /// swift-http-types rewrites CR/LF in a value built without the check into spaces, so nothing
    /// can be injected on the wire either way: the server sees one header and no extra one.
    @Test func uncheckedFieldsCannotInjectHeaders() async throws {
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain())) { server in
            try await withTransport { transport in
                var fields = HTTPFields()
                fields[HTTPField.Name("X-Note")!] = "a\r\nX-Injected: 1"
                _ = try await transport.send(get(url(server), headers: fields))
                let received = try #require(server.statistics.requests.first)
                #expect(received.header("X-Injected") == nil)
                #expect(received.header("X-Note") == "a  X-Injected: 1")
            }
        }
    }

    @Test func nothingIsCached() async throws {
        let handler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { _ in
            .status(
                200,
                headers: [("Cache-Control", "public, max-age=3600"), ("ETag", "\"v1\"")],
                body: Array("v1".utf8)
            )
        }
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain()), handler: handler) { server in
            try await withTransport { transport in
                _ = try await transport.send(get(url(server, "/doc")))
                _ = try await transport.send(get(url(server, "/doc")))
                #expect(server.statistics.requests.count == 2)
                #expect(server.statistics.requests.last?.header("If-None-Match") == nil)
            }
        }
    }

    @Test func logsRedactCredentials() async throws {
        let lines = NIOLockedValueBox<[String]>([])
        let logger = Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
        let handler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { _ in
            .status(200, headers: [("Set-Cookie", "session=SECRET-COOKIE-VALUE")], body: Array("ok".utf8))
        }
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain()), handler: handler) { server in
            try await withTransport(Live.configuration { $0.logger = logger }) { transport in
                var fields = HTTPFields()
                try fields.appendChecked(name: .authorization, value: "Bearer SECRET-ACCESS-TOKEN")
                try fields.appendChecked(name: .cookie, value: "id=SECRET-COOKIE-SENT")
                try fields.appendChecked(name: .proxyAuthorization, value: "Basic SECRET-PROXY")
                _ = try await transport.send(get(url(server), headers: fields))
                // Query strings carry reset codes, API keys and `access_token=`: logged paths stop before them.
                _ = try await transport.send(
                    get(url(server, "/reset/confirm?code=SECRET-RESET-CODE&access_token=SECRET-QUERY-TOKEN"))
                )
            }
        }
        let text = lines.withLockedValue { $0.joined(separator: "\n") }
        #expect(text.contains("/reset/confirm?…"))
        #expect(text.contains("authorization: <redacted>") || text.contains("Authorization: <redacted>"))
        #expect(text.contains("<redacted>"))
        #expect(text.contains("200"))
        #expect(!text.contains("SECRET"))
    }
}

struct CapturingLogHandler: LogHandler {
    let lines: NIOLockedValueBox<[String]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        self.lines.withLockedValue { $0.append("\(event.level): \(event.message)") }
    }
}
