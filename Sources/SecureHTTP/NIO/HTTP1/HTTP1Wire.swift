import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// One HTTP/1.1 request as bytes (RFC 9112): the request line, the fields, the framing and the
/// body, written in one buffer and one write.
///
/// The request reaching it has been checked by the driver, every hop of it: a scheme, an
/// authority and a path of RFC 3986 characters only (``RequestTarget/isValid(_:)``), field
/// names that are tokens (swift-http-types refuses others) and field values without CR, LF or
/// NUL (``RequestDriver/prepare(_:)``, and ``PreparedHop/boundRequest()`` for a credential), and
/// a `Content-Length` that agrees with the body. So no byte of it can end a line early.
struct HTTP1RequestBytes {
    /// The head and body, ready for the TLS handler.
    let bytes: ByteBuffer
    /// The method, which the response decoder needs (a response to `HEAD` has no body).
    let method: HTTPMethod
    /// Whether the request lets the connection carry another one (no `Connection: close`).
    let keepAlive: Bool

    private static let crlf: StaticString = "\r\n"

    /// Encodes `request` with `body`.
    ///
    /// Framing (RFC 9112 §6): the body is sent with the request's own `Content-Length` (which
    /// the driver checked against the body), or with one this adds; with `Transfer-Encoding`
    /// whose last coding is `chunked`, as one chunk. `POST`, `PUT` and `PATCH` without a body
    /// say `Content-Length: 0`. `Host` comes first unless the request has one (§3.2).
    ///
    /// - Throws: ``SecureHTTPError/Code/invalidRequest`` for a `Transfer-Encoding` whose last
    ///   coding is not `chunked` (§6.1: the request could not be framed), and for a `Host` that
    ///   differs from the authority (``HostField``: HTTP/2 would not send it).
    init(_ request: HTTPRequest, body: Data?, allocator: ByteBufferAllocator) throws(SecureHTTPError) {
        try HostField.check(request)
        let method = request.method.rawValue
        let path = request.path ?? "/"
        var buffer = allocator.buffer(capacity: 256 + (body?.count ?? 0))
        buffer.writeString(method)
        buffer.writeStaticString(" ")
        buffer.writeString(path)
        buffer.writeStaticString(" HTTP/1.1\r\n")

        var hasHost = false
        var hasContentLength = false
        var transferEncoding: String?
        var keepAlive = true
        for field in request.headerFields {
            switch field.name {
            case .contentLength: hasContentLength = true
            case .transferEncoding: transferEncoding = transferEncoding.map { "\($0), \(field.value)" } ?? field.value
            case .connection: if Self.hasCloseToken(field.value) { keepAlive = false }
            default: if field.name.canonicalName == "host" { hasHost = true }
            }
        }
        if !hasHost, let authority = request.authority {
            buffer.writeStaticString("Host: ")
            buffer.writeString(authority)
            buffer.writeStaticString(Self.crlf)
        }
        for field in request.headerFields {
            buffer.writeString(field.name.rawName)
            buffer.writeStaticString(": ")
            buffer.writeString(field.value)
            buffer.writeStaticString(Self.crlf)
        }

        if let transferEncoding {
            let last = transferEncoding.split(separator: ",").last?.trimmingCharacters(in: .whitespaces).lowercased()
            guard last == "chunked" else {
                throw SecureHTTPError(
                    .invalidRequest,
                    "the request's Transfer-Encoding does not end with chunked, so its body cannot be framed"
                )
            }
            buffer.writeStaticString(Self.crlf)
            if let body, !body.isEmpty {
                buffer.writeString(String(body.count, radix: 16))
                buffer.writeStaticString(Self.crlf)
                buffer.writeBytes(body)
                buffer.writeStaticString(Self.crlf)
            }
            buffer.writeStaticString("0\r\n\r\n")
        } else {
            if !hasContentLength {
                if let body {
                    buffer.writeStaticString("Content-Length: ")
                    buffer.writeString(String(body.count))
                    buffer.writeStaticString(Self.crlf)
                } else if request.method == .post || request.method == .put || request.method == .patch {
                    buffer.writeStaticString("Content-Length: 0\r\n")
                }
            }
            buffer.writeStaticString(Self.crlf)
            if let body { buffer.writeBytes(body) }
        }
        self.bytes = buffer
        self.method = HTTPMethod(rawValue: method)
        self.keepAlive = keepAlive
    }

    /// Whether a `Connection` value lists the `close` option (RFC 9112 §9.6).
    private static func hasCloseToken(_ value: String) -> Bool {
        value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "close" }
    }
}

/// NIO's HTTP/1.1 response decoder, told each request's method by ``HTTP1ClientHandler``
/// instead of watching the requests go by: the request is written as bytes
/// (``HTTP1RequestBytes``), so no request part passes the decoder, and
/// `ByteToMessageHandler` around this one stays out of the outbound path.
struct HTTP1ResponseDecoder: ByteToMessageDecoder {
    typealias InboundOut = HTTPClientResponsePart

    /// The decoder proper (a class: the handler holds it too).
    let decoder: HTTPResponseDecoder

    init() {
        self.decoder = HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes)
    }

    private static let getHead = HTTPRequestHead(version: .http1_1, method: .GET, uri: "")

    /// Tells the decoder which method the next response answers.
    func requestSent(_ method: HTTPMethod) {
        let head = method == .GET ? Self.getHead : HTTPRequestHead(version: .http1_1, method: method, uri: "")
        self.decoder.write(data: .head(head))
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        try self.decoder.decode(context: context, buffer: &buffer)
    }

    mutating func decodeLast(
        context: ChannelHandlerContext,
        buffer: inout ByteBuffer,
        seenEOF: Bool
    ) throws -> DecodingState {
        try self.decoder.decodeLast(context: context, buffer: &buffer, seenEOF: seenEOF)
    }

    mutating func decoderAdded(context: ChannelHandlerContext) {
        self.decoder.decoderAdded(context: context)
    }

    mutating func decoderRemoved(context: ChannelHandlerContext) {
        self.decoder.decoderRemoved(context: context)
    }
}
