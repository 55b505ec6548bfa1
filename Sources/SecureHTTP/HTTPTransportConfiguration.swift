public import CoreMetrics
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
    /// port). Default `Authorization`, `Cookie`, `Proxy-Authorization` and `DPoP`; add an app's own
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
    /// Called with the Certificate Transparency report of every handshake with a host that
    /// requires CT and was not found compliant: refused (`CertificateTransparencyReport.Result.notCompliant`)
    /// or let through because the log list is stale (`CertificateTransparencyReport.Result.notEnforcedStaleLogList`).
    public var transparencyReporter: (@Sendable (CertificateTransparencyReport) -> Void)?
    /// Called after every TLS handshake's trust decision of `NIOHTTPTransport` (a cached one
    /// included) with the chain the server presented: for tools that show what a server serves
    /// (`securenet pins URL`). It runs on the handshake's path: keep it short.
    public var handshakeObserver: (@Sendable (HandshakeObservation) -> Void)?
    /// Called once for every connection `NIOHTTPTransport` opens, when it is ready for requests:
    /// how long connecting and the TLS handshake took, and what was negotiated (for
    /// `securenet request -v`). Connections whose handshake is observed (this or
    /// ``handshakeObserver``) read the server's choice of version and cipher suite from its
    /// ServerHello; others pay nothing.
    public var connectionObserver: (@Sendable (ConnectionObservation) -> Void)?
    /// The clock for certificate validity, pin-set expiry and the decision cache. Default: the
    /// system time.
    public var now: @Sendable () -> Date = { Date() }
    /// The HTTP versions `NIOHTTPTransport` offers over TLS. Default ``HTTPVersions/automatic``:
    /// ALPN offers `h2` then `http/1.1`, and the server's choice decides the connection type.
    public var httpVersions: HTTPVersions = .automatic
    /// How `NIOHTTPTransport` runs HTTP/2 connections.
    public var http2 = HTTP2Options()
    /// An HTTP proxy `NIOHTTPTransport` tunnels every connection through with `CONNECT`; nil
    /// (the default) connects directly. Trust is decided as for a direct connection: the proxy
    /// sees only encrypted bytes. See ``HTTPProxy``.
    public var proxy: HTTPProxy?
    /// Where `NIOHTTPTransport` reports swift-metrics counters and timers: connections opened
    /// (by protocol) and their setup time, TLS handshakes (by result), trust evaluations (by
    /// decision-cache hit or miss), trust failures (by ServerTrust code), pin mismatches (enforced
    /// or report-only), and requests with their duration (by status class). Nil (the default)
    /// uses `MetricsSystem.factory`, which records nothing until the app bootstraps a backend.
    /// Dimensions never carry a host, a path or a credential.
    public var metricsFactory: (any MetricsFactory)?

    /// Which HTTP versions a transport offers in TLS's ALPN.
    public struct HTTPVersions: Hashable, Sendable, CustomStringConvertible {
        let offersHTTP2: Bool

        /// HTTP/1.1 only: ALPN offers `http/1.1`.
        public static let http1Only = HTTPVersions(offersHTTP2: false)
        /// HTTP/2 when the server chooses it, HTTP/1.1 otherwise: ALPN offers `h2`, then
        /// `http/1.1`.
        ///
        /// HTTP/2 is offered only when every TLS 1.2 cipher suite the connection offers is allowed
        /// by RFC 9113 §9.2.2 (ECDHE with an AEAD cipher): a domain exception that adds CBC
        /// suites, RSA key exchange or TLS below 1.2 makes its connections HTTP/1.1, because
        /// BoringSSL does not tell which suite the server picked. Plain `http` is always HTTP/1.1
        /// (there is no cleartext HTTP/2 here).
        public static let automatic = HTTPVersions(offersHTTP2: true)

        public var description: String { self.offersHTTP2 ? "automatic" : "http1Only" }
    }

    /// How HTTP/2 connections are pooled and kept.
    public struct HTTP2Options: Hashable, Sendable {
        /// The most HTTP/2 connections to one origin (per set of connection requirements and
        /// lane). A second one is opened only when every stream the server allows
        /// (`SETTINGS_MAX_CONCURRENT_STREAMS`) is in use on the first; requests beyond queue.
        /// Default 1.
        public var maximumConnectionsPerHost: Int
        /// The receive window of each stream, announced as `SETTINGS_INITIAL_WINDOW_SIZE`:
        /// how much of one response the server may send before the client reads it.
        /// Default 1 MiB.
        public var streamWindowSize: Int
        /// The receive window of the whole connection. Default 8 MiB (AsyncHTTPClient's).
        public var connectionWindowSize: Int
        /// When set, a PING is sent after this long without any frame from the server, and the
        /// connection is closed (failing its streams with ``SecureHTTPError/Code/connectionClosed``)
        /// when its acknowledgement does not arrive within ``pingTimeout``. Default nil (off).
        public var pingInterval: Duration?
        /// How long a PING may wait for its acknowledgement. Default 10 s.
        public var pingTimeout: Duration

        /// Creates options; the defaults suit most APIs.
        public init(
            maximumConnectionsPerHost: Int = 1,
            streamWindowSize: Int = 1 << 20,
            connectionWindowSize: Int = 8 << 20,
            pingInterval: Duration? = nil,
            pingTimeout: Duration = .seconds(10)
        ) {
            self.maximumConnectionsPerHost = max(1, maximumConnectionsPerHost)
            self.streamWindowSize = min(max(65_535, streamWindowSize), (1 << 31) - 1)
            self.connectionWindowSize = min(max(65_535, connectionWindowSize), (1 << 31) - 1)
            self.pingInterval = pingInterval
            self.pingTimeout = pingTimeout
        }
    }

    /// `Authorization`, `Cookie`, `Proxy-Authorization` and `DPoP` (a proof of possession,
    /// RFC 9449, is made for the original URL and says nothing another origin should hear).
    public static let defaultCrossOriginStrippedFields: [HTTPField.Name] = [
        .authorization, .cookie, .proxyAuthorization, HTTPField.Name("DPoP")!,
    ]

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

/// What one TLS handshake presented and what ServerTrust decided about it.
public struct HandshakeObservation: Sendable {
    /// What the connection had to satisfy (host, port, anchors, pins, CT).
    public let requirements: ConnectionRequirements
    /// The certificates the server presented, DER, leaf first, as sent.
    public let presentedChain: [[UInt8]]
    /// The decision: trusted with its validated chain (anchor included), or the reason it was not.
    public let decision: TrustDecision
    /// The TLS version and cipher suite of the server's ServerHello, which precedes its
    /// certificates; nil when the ServerHello could not be read.
    public let negotiated: NegotiatedTLS?
}

/// The TLS version and cipher suite a server chose, from its ServerHello.
public struct NegotiatedTLS: Hashable, Sendable, CustomStringConvertible {
    /// The version (`TLSv1.3`).
    public let version: TLSVersion
    /// The cipher suite's IANA value (`0x1301`).
    public let cipherSuite: UInt16

    /// Creates a value from the ServerHello's fields.
    public init(version: TLSVersion, cipherSuite: UInt16) {
        self.version = version
        self.cipherSuite = cipherSuite
    }

    /// The suite's IANA name (`TLS_AES_128_GCM_SHA256`), or its value in hex when it is not one
    /// this package can offer.
    public var cipherSuiteName: String {
        Self.names[self.cipherSuite] ?? "0x" + String(self.cipherSuite, radix: 16, uppercase: true)
    }

    /// Whether the key exchange is forward secret: every TLS 1.3 suite, and ECDHE or DHE below.
    public var isForwardSecret: Bool {
        self.version >= .v1_3 || self.cipherSuiteName.hasPrefix("TLS_ECDHE_")
            || self.cipherSuiteName.hasPrefix("TLS_DHE_")
    }

    /// `TLSv1.2, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256`.
    public var description: String { "\(self.version), \(self.cipherSuiteName)" }

    /// The suites any policy of this package offers, and TLS 1.3's (IANA TLS Cipher Suites registry).
    static let names: [UInt16: String] = [
        0x1301: "TLS_AES_128_GCM_SHA256", 0x1302: "TLS_AES_256_GCM_SHA384", 0x1303: "TLS_CHACHA20_POLY1305_SHA256",
        0xC02B: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", 0xC02F: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        0xC02C: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", 0xC030: "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        0xCCA9: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", 0xCCA8: "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        0xC009: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", 0xC00A: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
        0xC013: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", 0xC014: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
        0xC023: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", 0xC027: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
        0x009C: "TLS_RSA_WITH_AES_128_GCM_SHA256", 0x009D: "TLS_RSA_WITH_AES_256_GCM_SHA384",
        0x002F: "TLS_RSA_WITH_AES_128_CBC_SHA", 0x0035: "TLS_RSA_WITH_AES_256_CBC_SHA",
    ]
}

/// One connection `NIOHTTPTransport` opened, once it is ready for requests.
public struct ConnectionObservation: Sendable {
    /// The host and port connected to.
    public let host: String
    /// The port.
    public let port: Int
    /// From the start of the connection attempt until TCP was established; NIO resolves the
    /// name within it.
    public let connect: Duration
    /// From TCP established until the TLS handshake ended (ServerTrust's evaluation included);
    /// nil for plain HTTP.
    public let tlsHandshake: Duration?
    /// `HTTP/1.1` or `HTTP/2`.
    public let httpVersion: String
    /// The TLS version and cipher suite from the server's ServerHello; nil for plain HTTP.
    public let negotiated: NegotiatedTLS?
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
