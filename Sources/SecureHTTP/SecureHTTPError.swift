public import ServerTrust

/// An error from a SecureHTTP transport.
///
/// Errors compare equal when their ``code`` is equal. A refused server or URL carries the
/// ServerTrust reason in ``serverTrustError``. Messages name hosts, status codes and header
/// *names*, never header values, bodies, tokens or keys.
public struct SecureHTTPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier of what went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case invalidRequest, invalidHeaderValue, credentialUnavailable, policyViolation, serverTrustFailure
            case connectFailed, connectTimeout, tlsHandshakeTimeout, deadlineExceeded
            case tlsVersionRefused, cipherSuiteRefused, tlsHandshakeFailure, clientCertificateRequired, tlsFailure
            case invalidClientIdentity, connectionClosed, invalidResponse, responseTooLarge
            case insecureRedirect, tooManyRedirects, redirectLoop, invalidRedirect
            case cancelled, shutDown
            case requestNotProcessed, streamReset, proxyRefused
        }

        fileprivate let base: Base

        /// The text form of the code, stable across releases.
        public var description: String { self.base.rawValue }

        /// The request has no scheme, authority or path, or its URL cannot be formed; or it
        /// cannot be framed safely (RFC 9112 §6): a `Content-Length` that is not the body's
        /// size, `Content-Length` fields that disagree, `Content-Length` with
        /// `Transfer-Encoding`, or (HTTP/1.1) a `Transfer-Encoding` that does not end with
        /// `chunked`.
        public static let invalidRequest = Code(base: .invalidRequest)
        /// A header value holds CR, LF or NUL (header injection), or a name is not a valid token.
        public static let invalidHeaderValue = Code(base: .invalidHeaderValue)
        /// The proof that goes with a late-bound credential
        /// (``HTTPRequestOptions/Credential/proof``, a DPoP proof) could not be made; nothing
        /// was sent.
        public static let credentialUnavailable = Code(base: .credentialUnavailable)
        /// The transport policy refused the URL before any byte was sent (plain `http` to a host
        /// without an exception, an unknown scheme); see ``SecureHTTPError/serverTrustError``.
        public static let policyViolation = Code(base: .policyViolation)
        /// The server's certificate chain was rejected in the TLS handshake; see
        /// ``SecureHTTPError/serverTrustError`` for the reason (expired, pin mismatch, …).
        public static let serverTrustFailure = Code(base: .serverTrustFailure)
        /// The TCP connection could not be opened.
        public static let connectFailed = Code(base: .connectFailed)
        /// The TCP connection was not open within the connect timeout.
        public static let connectTimeout = Code(base: .connectTimeout)
        /// The TLS handshake did not finish within its timeout.
        public static let tlsHandshakeTimeout = Code(base: .tlsHandshakeTimeout)
        /// The whole request (redirects included) did not finish within its deadline.
        public static let deadlineExceeded = Code(base: .deadlineExceeded)
        /// The server offered only a TLS version below the policy's minimum.
        public static let tlsVersionRefused = Code(base: .tlsVersionRefused)
        /// The server shares no TLS 1.2 cipher suite with the policy: BoringSSL said so, or the
        /// server refused the handshake before presenting a certificate (a server without
        /// forward-secret suites when the policy requires forward secrecy, or with only CBC suites
        /// when the domain has no `"cipherSuites": "ats"` exception).
        public static let cipherSuiteRefused = Code(base: .cipherSuiteRefused)
        /// The server ended the handshake with a `handshake_failure` alert after presenting its
        /// certificate (most often a client certificate it did not accept).
        public static let tlsHandshakeFailure = Code(base: .tlsHandshakeFailure)
        /// The server requires a client certificate and none (or none it accepts) was presented.
        public static let clientCertificateRequired = Code(base: .clientCertificateRequired)
        /// Any other TLS failure.
        public static let tlsFailure = Code(base: .tlsFailure)
        /// The client identity (certificate chain and key, or PKCS#12) could not be loaded.
        public static let invalidClientIdentity = Code(base: .invalidClientIdentity)
        /// The connection closed before the response was complete.
        public static let connectionClosed = Code(base: .connectionClosed)
        /// The server's response was not valid HTTP. Over HTTP/2 this includes a stream that this
        /// client reset because the response broke the protocol (a `content-length` the DATA
        /// frames contradict, an uppercase or connection-specific field name, a pseudo-header
        /// after a regular field), which is not ``SecureHTTPError/Code/streamReset``.
        public static let invalidResponse = Code(base: .invalidResponse)
        /// The response body was larger than the configured limit; reading stopped there.
        public static let responseTooLarge = Code(base: .responseTooLarge)
        /// A redirect from `https` to plain `http`.
        public static let insecureRedirect = Code(base: .insecureRedirect)
        /// More redirects than the configured limit.
        public static let tooManyRedirects = Code(base: .tooManyRedirects)
        /// A redirect leads back to a URL already visited.
        public static let redirectLoop = Code(base: .redirectLoop)
        /// A redirect without a usable `Location`.
        public static let invalidRedirect = Code(base: .invalidRedirect)
        /// The request's task was cancelled.
        public static let cancelled = Code(base: .cancelled)
        /// The transport has been shut down.
        public static let shutDown = Code(base: .shutDown)
        /// The server said it did not process the request: an HTTP/2 `GOAWAY` whose last stream
        /// id is below the request's stream, or `REFUSED_STREAM` (RFC 9113 §6.8, §8.7). The
        /// transport retries idempotent requests once on a new connection; a request with another
        /// method fails with this code, and the caller may send it again.
        public static let requestNotProcessed = Code(base: .requestNotProcessed)
        /// The server reset the HTTP/2 stream (`RST_STREAM` with an error other than
        /// `REFUSED_STREAM`) before the response was complete.
        public static let streamReset = Code(base: .streamReset)
        /// The configured ``HTTPProxy`` did not open a `CONNECT` tunnel to the origin: it answered
        /// with a status other than 2xx (407 when it wants `Proxy-Authorization`), closed the
        /// connection, or did not answer within the TLS handshake timeout. Nothing was sent to
        /// the origin.
        public static let proxyRefused = Code(base: .proxyRefused)
    }

    /// What went wrong, as a stable code.
    public let code: Code
    /// A short explanation for people; it never holds a secret.
    public let message: String
    /// For ``Code/serverTrustFailure`` and ``Code/policyViolation``: the ServerTrust reason.
    public let serverTrustError: ServerTrustError?
    /// For ``Code/serverTrustFailure`` from a pin mismatch: the pin report.
    public let pinReport: PinValidationReport?
    /// Set by a transport when the request never reached the wire (an HTTP/2 stream that could
    /// not be opened), so it may be sent again whatever its method.
    var requestWasNotSent = false

    /// Creates an error. Never put a header value, body, token or key in `message`.
    ///
    /// Each line of `message` goes through ServerTrust's `OutsideText.escaped(_:)`: a host
    /// name, a proxy's status line or a server's words that reached it cannot rewrite the
    /// terminal or start a CI workflow command.
    public init(
        _ code: Code,
        _ message: String,
        serverTrustError: ServerTrustError? = nil,
        pinReport: PinValidationReport? = nil
    ) {
        self.code = code
        self.message = OutsideText.escapedLines(message)
        self.serverTrustError = serverTrustError
        self.pinReport = pinReport
    }

    /// The ``message`` and, for a refused server or URL, the ServerTrust reason, in one line
    /// for people: "localhost is not trusted: the certificate expired …". No code, no secret.
    public var explanation: String {
        guard let serverTrustError, !serverTrustError.message.isEmpty else { return self.message }
        return "\(self.message): \(serverTrustError.message)"
    }

    /// `code: message`, with the ServerTrust reason when there is one.
    public var description: String {
        if let serverTrustError {
            return "\(self.code): \(self.message): \(serverTrustError)"
        }
        return "\(self.code): \(self.message)"
    }

    public static func == (lhs: SecureHTTPError, rhs: SecureHTTPError) -> Bool {
        lhs.code == rhs.code
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.code)
    }

    static func policy(_ error: ServerTrustError) -> SecureHTTPError {
        SecureHTTPError(.policyViolation, "the transport policy refused the request", serverTrustError: error)
    }

    static func trust(_ error: ServerTrustError, host: String, report: PinValidationReport? = nil) -> SecureHTTPError {
        SecureHTTPError(.serverTrustFailure, "\(host) is not trusted", serverTrustError: error, pinReport: report)
    }
}
