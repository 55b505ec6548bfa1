#if OpenAPI
public import Foundation
public import HTTPTypes
public import OpenAPIRuntime
public import SecureHTTP

/// A swift-openapi-runtime `ClientTransport` over a SecureNetworking `HTTPTransport`: the
/// clients swift-openapi-generator writes send every request through the pinned, policy-checked
/// transport (`NIOHTTPTransport`, or `URLSessionTransport` on Apple platforms).
///
/// ```swift
/// let transport = try NIOHTTPTransport(configuration: HTTPTransportConfiguration(policy: policy))
/// let client = Client(
///     serverURL: URL(string: "https://api.example.com")!,
///     transport: SecureClientTransport(transport),
///     middlewares: [TokenMiddleware(tokens: tokenManager)]
/// )
/// ```
///
/// Bodies: a request body is collected up to ``maximumRequestBodySize`` before it is sent (a
/// larger one fails without a byte on the wire); a response body is the transport's, read up to
/// its `maximumResponseBodySize`, and handed over as a known-length `HTTPBody` that can be read
/// more than once.
public struct SecureClientTransport: ClientTransport {
    /// The transport requests go through.
    public let transport: any HTTPTransport
    /// The largest request body sent, in bytes. Default 10 MiB.
    public let maximumRequestBodySize: Int

    /// A client transport over `transport`.
    public init(_ transport: any HTTPTransport, maximumRequestBodySize: Int = 10 * 1024 * 1024) {
        self.transport = transport
        self.maximumRequestBodySize = maximumRequestBodySize
    }

    /// Sends `request` to `baseURL` joined with the request's path.
    ///
    /// - Throws: `SecureHTTPError` from the transport (a policy violation, a refused server or
    ///   pin, a timeout, …), or `invalidRequest` when the body is larger than
    ///   ``maximumRequestBodySize`` or the URL cannot be formed. The generated client wraps it in
    ///   its `ClientError`, whose `underlyingError` is this error.
    public func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var outgoing = request
        guard let url = Self.url(baseURL, path: request.path) else {
            throw SecureHTTPError(.invalidRequest, "the URL of \(operationID) cannot be formed from the server URL")
        }
        outgoing.scheme = url.scheme
        outgoing.authority = url.authority
        outgoing.path = url.path
        let data: Data?
        if let body {
            do {
                data = try await Data(collecting: body, upTo: self.maximumRequestBodySize)
            } catch {
                throw SecureHTTPError(
                    .invalidRequest,
                    "the body of \(operationID) is larger than \(self.maximumRequestBodySize) bytes"
                )
            }
        } else {
            data = nil
        }
        let answer = try await self.transport.send(outgoing, body: data)
        // TokenMiddleware judges a 401 by it: after a cross-origin redirect the token was not sent.
        ExchangeRecord.current?.note(answer)
        return (answer.response, answer.body.isEmpty ? nil : HTTPBody(answer.body))
    }

    /// ``url(_:path:)`` as a URL.
    static func fullURL(_ base: URL, path: String?) -> URL? {
        guard let parts = Self.url(base, path: path) else { return nil }
        return URL(string: "\(parts.scheme)://\(parts.authority)\(parts.path)")
    }

    /// `https://host:port/prefix` + `/path?query` (a server URL may carry a path prefix).
    static func url(_ base: URL, path: String?) -> (scheme: String, authority: String, path: String)? {
        guard let scheme = base.scheme, let host = base.host else { return nil }
        let authority = (host.contains(":") ? "[\(host)]" : host) + (base.port.map { ":\($0)" } ?? "")
        var prefix = base.path
        while prefix.hasSuffix("/") { prefix.removeLast() }
        return (scheme, authority, prefix + (path ?? "/"))
    }
}
#endif
