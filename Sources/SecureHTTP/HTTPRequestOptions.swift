public import HTTPTypes

/// How one request differs from the transport's defaults: its connection lane, its redirect
/// rules, and a credential bound at the last moment.
///
/// ```swift
/// var options = HTTPRequestOptions()
/// options.credential = .init(name: .authorization) { "Bearer \(currentToken())" }
/// let response = try await transport.send(request, body: nil, options: options)
/// ```
public struct HTTPRequestOptions: Sendable {
    /// Which connections of an origin a request may use.
    public struct Lane: Hashable, Sendable, CustomStringConvertible {
        enum Kind: Hashable, Sendable {
            case standard
            case credentials
        }

        let kind: Kind

        /// The shared connections of the origin, in first-come order.
        public static let standard = Lane(kind: .standard)
        /// Connections of their own, for the token endpoint: a refresh never waits in the queue
        /// of the API requests that are waiting for it, even when they target the same host.
        /// They count separately against ``HTTPTransportConfiguration/maximumConnectionsPerHost``.
        public static let credentials = Lane(kind: .credentials)

        /// `standard` or `credentials`.
        public var description: String {
            switch self.kind {
            case .standard: "standard"
            case .credentials: "credentials"
            }
        }
    }

    /// A header field whose value is read when the request has its connection (after any wait
    /// for one), rather than when the request is made. A request that queued behind others
    /// therefore never carries an access token that was replaced while it waited.
    ///
    /// The field is sent only to the origin of the original request: after a redirect to another
    /// origin it is not bound again (like the fields of
    /// ``HTTPTransportConfiguration/crossOriginStrippedFields``).
    public struct Credential: Sendable {
        /// The field to set, usually `Authorization`.
        public var name: HTTPField.Name
        /// The value to send now; nil leaves the field as the request has it. It is checked for
        /// CR, LF and NUL like every other field.
        public var value: @Sendable () -> String?
        /// A second field bound with the value, computed from the hop as it will be sent (its
        /// method, scheme, authority and path) and the value just bound: a DPoP proof
        /// (RFC 9449 §4.2) signs them, so it is made here rather than when the request is made.
        /// Called once per hop that binds the credential; nil (the default) adds nothing. An
        /// error fails the request with ``SecureHTTPError/Code/credentialUnavailable``.
        public var proof: (@Sendable (_ request: HTTPRequest, _ value: String) throws -> HTTPField?)?

        /// Creates a credential bound at connection time.
        public init(
            name: HTTPField.Name,
            value: @escaping @Sendable () -> String?,
            proof: (@Sendable (_ request: HTTPRequest, _ value: String) throws -> HTTPField?)? = nil
        ) {
            self.name = name
            self.value = value
            self.proof = proof
        }
    }

    /// The lane. Default ``Lane/standard``.
    public var lane: Lane
    /// The redirect rules for this request; nil (the default) uses the transport's
    /// ``HTTPTransportConfiguration/redirects``.
    public var redirects: RedirectPolicy?
    /// Whether a 307 or 308 redirect to another origin re-sends the body. Default false: the
    /// body (a password, a refresh token, a client secret) is dropped, with its `Content-Type`,
    /// and the method is kept (RFC 9110 §15.4.8, §15.4.9), so the other origin sees an empty
    /// request. Set it only for a body that may go to any origin the server redirects to.
    public var forwardsBodyAcrossOrigins: Bool
    /// A field bound when the request has its connection; nil (the default) binds nothing.
    public var credential: Credential?
    /// How long this request may take, from the call to the last byte of the response, redirects
    /// included; nil (the default) uses the transport's
    /// `HTTPTransportConfiguration.timeouts.request`, whether this is longer or shorter.
    /// Past it the request fails with ``SecureHTTPError/Code/deadlineExceeded``. (`URLSessionTransport`
    /// keeps its sessions' resource timeout, the transport's, which cuts a longer one short.)
    public var timeout: Duration?
    /// Called when the head of a final (non-1xx) response arrives, before its body is read: once
    /// per hop, redirects included. `NIOHTTPTransport` calls it on the connection's event loop:
    /// keep it short (the URLSession transport does not call it). For
    /// timing the first byte of a response (`securenet request -v`); nil (the default) costs
    /// nothing.
    public var responseHeadObserver: (@Sendable () -> Void)?

    /// Creates options; every argument defaults to the transport's behaviour.
    public init(
        lane: Lane = .standard,
        redirects: RedirectPolicy? = nil,
        forwardsBodyAcrossOrigins: Bool = false,
        credential: Credential? = nil
    ) {
        self.lane = lane
        self.redirects = redirects
        self.forwardsBodyAcrossOrigins = forwardsBodyAcrossOrigins
        self.credential = credential
    }

    /// The options of a token-endpoint request (RFC 6749 §3.2): its own lane, and no redirect
    /// is followed, so a refresh token, password or client secret is never re-sent to another
    /// URL; a 3xx is returned as it is.
    public static let tokenEndpoint = HTTPRequestOptions(lane: .credentials, redirects: RedirectPolicy.none)
}
