import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import SecureNetworkingTesting
import Testing

@testable import SecureHTTP

/// The HTTP/1.1 request as bytes (RFC 9112): request line, `Host`, fields, framing and body;
/// and the framing rules the driver enforces before any byte is sent, live.
@Suite("HTTP/1.1 request bytes and framing")
struct HTTP1WireTests {
    private func encode(
        _ request: HTTPRequest,
        body: Data? = nil
    ) throws(SecureHTTPError) -> (String, HTTP1RequestBytes) {
        let encoded = try HTTP1RequestBytes(request, body: body, allocator: ByteBufferAllocator())
        return (String(buffer: encoded.bytes), encoded)
    }

    private func request(
        _ method: HTTPRequest.Method = .get,
        path: String = "/a?b=1",
        _ fields: HTTPFields = [:]
    ) -> HTTPRequest {
        HTTPRequest(
            method: method,
            scheme: "https",
            authority: "api.example.com:8443",
            path: path,
            headerFields: fields
        )
    }

    @Test func aGetIsTheRequestLineHostFirstTheFieldsAndNoFraming() throws {
        let (text, encoded) = try self.encode(
            self.request(.get, [.accept: "application/json", HTTPField.Name("X-Trace")!: "abc"])
        )
        #expect(
            text
                == "GET /a?b=1 HTTP/1.1\r\nHost: api.example.com:8443\r\nAccept: application/json\r\nX-Trace: abc\r\n\r\n"
        )
        #expect(encoded.method == .GET)
        #expect(encoded.keepAlive)
    }

    /// A Host equal to the authority is written as the app set it, once; one naming another
    /// host is refused (HTTP/2 could not send it: issue 51 item 20).
    @Test func aHostFieldOfTheRequestIsKeptAndNotDoubled() throws {
        let (text, _) = try self.encode(self.request(.get, [HTTPField.Name("Host")!: "API.example.com:8443"]))
        #expect(text == "GET /a?b=1 HTTP/1.1\r\nHost: API.example.com:8443\r\n\r\n")
        #expect(throws: SecureHTTPError(.invalidRequest, "")) {
            try self.encode(self.request(.get, [HTTPField.Name("Host")!: "other.example.com"]))
        }
    }

    @Test func aBodyGetsItsContentLength() throws {
        let (text, encoded) = try self.encode(
            self.request(.post, path: "/p", [.contentType: "text/plain"]),
            body: Data("hello".utf8)
        )
        #expect(
            text
                == "POST /p HTTP/1.1\r\nHost: api.example.com:8443\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello"
        )
        #expect(encoded.method == .POST)
    }

    @Test func aPostWithoutBodySaysContentLengthZeroAndAGetDoesNot() throws {
        for method in [HTTPRequest.Method.post, .put, .patch] {
            let (text, _) = try self.encode(self.request(method, path: "/p"))
            #expect(text == "\(method.rawValue) /p HTTP/1.1\r\nHost: api.example.com:8443\r\nContent-Length: 0\r\n\r\n")
        }
        for method in [HTTPRequest.Method.get, .head, .delete, .options] {
            let (text, _) = try self.encode(self.request(method, path: "/p"))
            #expect(!text.contains("Content-Length"))
        }
    }

    @Test func theRequestsOwnContentLengthIsNotDoubled() throws {
        let (text, _) = try self.encode(self.request(.put, path: "/p", [.contentLength: "2"]), body: Data("hi".utf8))
        #expect(text == "PUT /p HTTP/1.1\r\nHost: api.example.com:8443\r\nContent-Length: 2\r\n\r\nhi")
    }

    /// RFC 9112 §6.1: chunked must be the last transfer coding; the body then goes as one
    /// chunk and the last chunk.
    @Test func aChunkedTransferEncodingFramesTheBodyAsOneChunk() throws {
        let (text, _) = try self.encode(
            self.request(.post, path: "/p", [.transferEncoding: "chunked"]),
            body: Data(count: 26)
        )
        let zeros = String(repeating: "\0", count: 26)
        #expect(
            text
                == "POST /p HTTP/1.1\r\nHost: api.example.com:8443\r\nTransfer-Encoding: chunked\r\n\r\n1a\r\n\(zeros)\r\n0\r\n\r\n"
        )
        let (empty, _) = try self.encode(self.request(.post, path: "/p", [.transferEncoding: "gzip, Chunked"]))
        #expect(empty.hasSuffix("Transfer-Encoding: gzip, Chunked\r\n\r\n0\r\n\r\n"))
    }

    @Test(arguments: ["chunked, gzip", "gzip", "chunked;q=1"])
    func aTransferEncodingThatDoesNotEndWithChunkedIsRefused(_ codings: String) {
        do {
            _ = try self.encode(self.request(.post, path: "/p", [.transferEncoding: codings]), body: Data("x".utf8))
            Issue.record("a body that cannot be framed was encoded")
        } catch {
            #expect(error.code == .invalidRequest)
        }
    }

    /// RFC 9112 §9.6: the `close` connection option, in any case and position, ends keep-alive.
    @Test(arguments: [
        ("close", false), ("Keep-Alive, Close", false), (" upgrade ,close ", false), ("keep-alive", true),
        ("closed", true),
    ])
    func theCloseOptionEndsKeepAlive(_ value: String, _ keepAlive: Bool) throws {
        let (_, encoded) = try self.encode(self.request(.get, [.connection: value]))
        #expect(encoded.keepAlive == keepAlive)
    }

    // MARK: Response fields

    /// The connection's cache hands back the last response's fields only for byte-identical
    /// fields: a value spelled with other bytes (even canonically equivalent Unicode, which
    /// `String`'s `==` equates) or in another order builds new ones.
    @Test func responseFieldsAreReusedOnlyWhenByteIdentical() throws {
        var cache = ResponseFieldsCache()
        let first = try cache.fields(HTTPHeaders([("Content-Type", "text/plain"), ("X-Name", "caf\u{E9}")]))
        #expect(first[HTTPField.Name("X-Name")!] == "caf\u{E9}")
        #expect(first.map(\.name.rawName) == ["Content-Type", "X-Name"])
        let same = try cache.fields(HTTPHeaders([("Content-Type", "text/plain"), ("X-Name", "caf\u{E9}")]))
        #expect(same == first)
        let decomposed = try cache.fields(HTTPHeaders([("Content-Type", "text/plain"), ("X-Name", "cafe\u{301}")]))
        #expect(Array(decomposed[HTTPField.Name("X-Name")!]!.utf8) == Array("cafe\u{301}".utf8))
        let reordered = try cache.fields(HTTPHeaders([("X-Name", "cafe\u{301}"), ("Content-Type", "text/plain")]))
        #expect(reordered.map(\.name.rawName) == ["X-Name", "Content-Type"])
        do {
            _ = try cache.fields(HTTPHeaders([("Bad Name", "x")]))
            Issue.record("a field name with a space was accepted")
        } catch {
            #expect(error.code == .invalidResponse)
        }
    }

    // MARK: Framing rules, before any byte is sent

    /// A request's own framing fields that would let its bytes be read another way (RFC 9112
    /// §6.2, §6.3; RFC 9110 §8.6), each refused before a connection is opened.
    struct Framing: Sendable, CustomTestStringConvertible {
        let fields: [(HTTPField.Name, String)]
        let body: Data?
        let testDescription: String
    }

    static let unframeable = [
        Framing(
            fields: [(.contentLength, "5")],
            body: Data("hi".utf8),
            testDescription: "longer than the body: the server would wait"
        ),
        Framing(
            fields: [(.contentLength, "1")],
            body: Data("hi".utf8),
            testDescription: "shorter: the rest would be the next request"
        ),
        Framing(fields: [(.contentLength, "2")], body: nil, testDescription: "a length without a body"),
        Framing(fields: [(.contentLength, "-2")], body: Data("hi".utf8), testDescription: "not a length"),
        Framing(fields: [(.contentLength, "2, 3")], body: Data("hi".utf8), testDescription: "a list in one field"),
        Framing(
            fields: [(.contentLength, "2"), (.contentLength, "3")],
            body: Data("hi".utf8),
            testDescription: "two fields that disagree"
        ),
        Framing(
            fields: [(.contentLength, "2"), (.transferEncoding, "chunked")],
            body: Data("hi".utf8),
            testDescription: "a length with Transfer-Encoding"
        ),
    ]

    @Test(arguments: Self.unframeable)
    func aRequestWhoseFramingFieldsDisagreeWithItsBodyIsRefused(_ framing: Framing) async throws {
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain())) { server in
            try await withTransport { transport in
                var request = get(url(server, "/p"))
                request.method = .post
                for (name, value) in framing.fields {
                    request.headerFields.append(HTTPField(name: name, value: value))
                }
                let error = await expectFailure(transport, request, body: framing.body)
                #expect(error?.code == .invalidRequest)
                #expect(server.statistics.connectionsAccepted == 0)
            }
        }
    }

    /// The accepted side of the same rules, over the wire: the server reads exactly the body,
    /// chunked or not, and the connection carries the next request.
    @Test func framedBodiesArriveWholeAndTheConnectionCarriesOn() async throws {
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain())) { server in
            try await withTransport { transport in
                var sized = get(url(server, "/sized"))
                sized.method = .post
                sized.headerFields[.contentLength] = "5"
                _ = try await transport.send(sized, body: Data("hello".utf8))
                var chunked = get(url(server, "/chunked"))
                chunked.method = .post
                chunked.headerFields[.transferEncoding] = "chunked"
                _ = try await transport.send(chunked, body: Data("world!".utf8))
                _ = try await transport.send(get(url(server, "/after")))
                let requests = server.statistics.requests
                #expect(requests.map(\.uri) == ["/sized", "/chunked", "/after"])
                #expect(requests.map { String(decoding: $0.body, as: UTF8.self) } == ["hello", "world!", ""])
                #expect(Set(requests.map(\.connection)).count == 1)
            }
        }
    }

    /// A response to HEAD has no body whatever its Content-Length says (RFC 9110 §9.3.2): the
    /// decoder must know the method, or it would wait for the body and read the next response
    /// as one.
    @Test func aHeadResponseHasNoBodyAndTheConnectionCarriesOn() async throws {
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain())) { server in
            try await withTransport { transport in
                var head = get(url(server, "/head"))
                head.method = .head
                let response = try await transport.send(head)
                #expect(response.response.status == .ok)
                #expect(response.response.headerFields[.contentLength].flatMap(Int.init).map { $0 > 0 } == true)
                #expect(response.body.isEmpty)
                let after = try await transport.send(get(url(server, "/after")))
                #expect(!after.body.isEmpty)
                #expect(server.statistics.connectionsAccepted == 1)
                #expect(server.statistics.requests.map(\.method) == ["HEAD", "GET"])
            }
        }
    }
}
