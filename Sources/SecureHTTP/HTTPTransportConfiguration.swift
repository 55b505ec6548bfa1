public import Foundation
public import HTTPTypes
public import Logging
public import ServerTrust

/// What a transport enforces and how long it waits. The defaults fail closed.
public struct HTTPTransportConfiguration: Sendable {
    /// The transport security policy: schemes, TLS versions, ciphers, anchors, pins.
    public var policy: TransportSecurityPolicy
    /// Limits of one ServerTrust evaluation.
    public var serverTrust: ServerTrust.Configuration
    /// How redirects are handled. Default: followed, at most 5.
    public var redirects: RedirectPolicy
    /// The fields removed from a request when a redirect leaves its origin (scheme, host and
    /// port). Default `Authorization`, `Cookie` and `Proxy-Authorization`; add an app's own
    /// credential fields (`X-Api-Key`). Removed fields are not restored if a later redirect
    /// comes back to the first origin.
    public var crossOriginStrippedFields: [HTTPField.Name] = HTTPTransportConfiguration.defaultCrossOriginStrippedFields
    /// The largest response body accepted, in bytes; larger responses fail with
    /// ``SecureHTTPError/Code/responseTooLarge`` while being read. Default 10 MiB.
    public var maximumResponseBodySize: Int
    /// Connect, handshake, request and idle timeouts.
    public var timeouts: Timeouts
    /// The most connections open at once to one origin. Default 6.
    public var maximumConnectionsPerHost: Int
    /// The identity presented when a server asks for a client certificate (mutual TLS).
    public var clientIdentity: ClientIdentity?
    /// Where the transport logs; nil (the default) keeps it silent. Credential header values
    /// are always redacted.
    public var logger: Logger?
    /// Called with the report of every pin mismatch, enforced or report-only.
    public var pinValidationReporter: (@Sendable (PinValidationReport) -> Void)?
    /// The clock for certificate validity, pin-set expiry and the decision cache. Default: the
    /// system time.
    public var now: @Sendable () -> Date = { Date() }

    /// `Authorization`, `Cookie` and `Proxy-Authorization`.
    public static let defaultCrossOriginStrippedFields: [HTTPField.Name] = [.authorization, .cookie, .proxyAuthorization]

    /// The timeouts of a transport.
    public struct Timeouts: Hashable, Sendable {
        /// Opening the TCP connection. Default 10 s.
        public var connect: Duration
        /// The TLS handshake, certificate evaluation included. Default 10 s.
        public var tlsHandshake: Duration
        /// The whole request, redirects included, until the last body byte. Default 60 s.
        public var request: Duration
        /// How long an unused pooled connection stays open. Default 60 s.
        public var idle: Duration

        /// Creates timeouts.
        public init(
            connect: Duration = .seconds(10),
            tlsHandshake: Duration = .seconds(10),
            request: Duration = .seconds(60),
            idle: Duration = .seconds(60)
        ) {
            self.connect = connect
            self.tlsHandshake = tlsHandshake
            self.request = request
            self.idle = idle
        }
    }

    /// Creates a configuration; every argument defaults to the strict setting.
    public init(
        policy: TransportSecurityPolicy = .strict,
        serverTrust: ServerTrust.Configuration = ServerTrust.Configuration(),
        redirects: RedirectPolicy = .follow(maximum: 5),
        maximumResponseBodySize: Int = 10 * 1024 * 1024,
        timeouts: Timeouts = Timeouts(),
        maximumConnectionsPerHost: Int = 6,
        clientIdentity: ClientIdentity? = nil,
        logger: Logger? = nil,
        pinValidationReporter: (@Sendable (PinValidationReport) -> Void)? = nil
    ) {
        self.policy = policy
        self.serverTrust = serverTrust
        self.redirects = redirects
        self.maximumResponseBodySize = maximumResponseBodySize
        self.timeouts = timeouts
        self.maximumConnectionsPerHost = max(1, maximumConnectionsPerHost)
        self.clientIdentity = clientIdentity
        self.logger = logger
        self.pinValidationReporter = pinValidationReporter
    }
}

/// How a transport handles 3xx responses.
public struct RedirectPolicy: Hashable, Sendable {
    /// The most redirects followed for one request; 0 returns 3xx responses to the caller.
    public let maximum: Int

    /// Follow up to `maximum` redirects (never from `https` to `http`; credentials are dropped
    /// when the origin changes; a loop is an error).
    public static func follow(maximum: Int = 5) -> RedirectPolicy {
        RedirectPolicy(maximum: max(0, maximum))
    }

    /// Do not follow redirects: 3xx responses are returned as they are.
    public static let none = RedirectPolicy(maximum: 0)
}
