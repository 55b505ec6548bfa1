public import Foundation
public import HTTPTypes
public import ServerTrust

/// Sends HTTP requests under a ``HTTPTransportConfiguration``: the transport policy is enforced
/// before any byte is sent, the server is trusted only after ServerTrust accepted it in the
/// handshake, redirects follow the configured rules and response bodies are bounded.
///
/// ``NIOHTTPTransport`` is the portable implementation; `URLSessionTransport` is the Apple one.
public protocol HTTPTransport: Sendable {
    /// Sends a request and returns the final response, after any redirects.
    ///
    /// - Parameters:
    ///   - request: the request; its scheme, authority and path form the URL.
    ///   - body: the request body, if any. The transport frames it: leave out
    ///     `Content-Length`, or give the body's exact size (anything else is refused with
    ///     ``SecureHTTPError/Code/invalidRequest`` before a byte is sent, since a wrong length
    ///     would let the bytes after it be read as another request).
    ///   - options: the request's lane, redirect rules and late-bound credential.
    /// - Throws: ``SecureHTTPError``; cancelling the task throws ``SecureHTTPError/Code/cancelled``.
    func send(
        _ request: HTTPRequest,
        body: Data?,
        options: HTTPRequestOptions
    ) async throws(SecureHTTPError) -> HTTPTransportResponse
}

extension HTTPTransport {
    /// Sends a request with the transport's default options.
    public func send(_ request: HTTPRequest, body: Data?) async throws(SecureHTTPError) -> HTTPTransportResponse {
        try await self.send(request, body: body, options: HTTPRequestOptions())
    }

    /// Sends a request without a body.
    public func send(_ request: HTTPRequest) async throws(SecureHTTPError) -> HTTPTransportResponse {
        try await self.send(request, body: nil)
    }
}

/// A complete response: head, body and the URL that produced it.
public struct HTTPTransportResponse: Sendable {
    /// The status and header fields.
    public var response: HTTPResponse
    /// The body, at most ``HTTPTransportConfiguration/maximumResponseBodySize`` bytes.
    public var body: Data
    /// The URL of the request that produced this response (differs from the original after redirects).
    public var url: URL {
        get { self.storedURL ?? self.finalRequest?.url ?? URL(string: "about:blank")! }
        set { self.storedURL = newValue }
    }
    /// How many redirects were followed.
    public var redirectCount: Int
    /// Whether a redirect led to another origin. From then on the fields of
    /// ``HTTPTransportConfiguration/crossOriginStrippedFields`` and the request's
    /// ``HTTPRequestOptions/credential`` were not sent, so this response (a 401, say) does not
    /// judge the credentials of the original request.
    public var redirectedAcrossOrigins: Bool

    // The URL is built from the final request only when asked for: parsing it on every
    // response would cost more than the rest of a keep-alive exchange's bookkeeping.
    private var storedURL: URL?
    private var finalRequest: HTTPRequest?

    /// Creates a response.
    public init(
        response: HTTPResponse,
        body: Data,
        url: URL,
        redirectCount: Int = 0,
        redirectedAcrossOrigins: Bool = false
    ) {
        self.response = response
        self.body = body
        self.storedURL = url
        self.redirectCount = redirectCount
        self.redirectedAcrossOrigins = redirectedAcrossOrigins
    }

    /// A response whose URL is that of `request` (scheme, authority and path).
    init(response: HTTPResponse, body: Data, request: HTTPRequest, redirectCount: Int, redirectedAcrossOrigins: Bool) {
        self.response = response
        self.body = body
        self.finalRequest = request
        self.redirectCount = redirectCount
        self.redirectedAcrossOrigins = redirectedAcrossOrigins
    }
}

/// A transport whose pins a verified pin-set update changes while it runs (see `PinSetUpdate`
/// and `PinUpdateVerifier`): ``NIOHTTPTransport`` and `URLSessionTransport`.
public protocol PinUpdatableTransport: HTTPTransport {
    /// Puts the transport's compiled-in pins (its policy's `PinningPolicy`) with `update`
    /// applied in force, or the compiled-in pins alone for nil. Requests prepared from then on
    /// are verified under them; connections verified under pins that changed take no new
    /// request, and a request prepared before that is still waiting for a connection (or is
    /// retried after it was not sent) is resolved again under the new pins. Verify the update
    /// first: this applies what it is given.
    func applyPinUpdate(_ update: PinSetUpdate?)
}
