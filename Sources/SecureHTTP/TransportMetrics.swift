import CoreMetrics
import SecureNetworkingInternal
import ServerTrust

/// The swift-metrics instruments of `NIOHTTPTransport`, made once per transport.
///
/// They report to ``HTTPTransportConfiguration/metricsFactory``, or to `MetricsSystem.factory`,
/// which records nothing until the app bootstraps a backend. Dimensions take a few fixed values
/// (a protocol, a status class, a ServerTrust error code): never a host, a path or a credential.
struct TransportMetrics: Sendable {
    /// The names, stable across releases.
    enum Label {
        static let connectionsOpened = "securenet_http_connections_opened_total"
        static let connectionSetup = "securenet_http_connection_setup_duration"
        static let tlsHandshakes = "securenet_tls_handshakes_total"
        static let trustEvaluations = "securenet_trust_evaluations_total"
        static let trustFailures = "securenet_trust_failures_total"
        static let pinFailures = "securenet_pin_failures_total"
        static let requests = "securenet_http_requests_total"
        static let requestDuration = "securenet_http_request_duration"
    }

    private let factory: any MetricsFactory
    private let http1Connections: Counter
    private let http2Connections: Counter
    private let connectionSetup: Timer
    private let handshakesSucceeded: Counter
    private let handshakesFailed: Counter
    private let cacheHits: Counter
    private let cacheMisses: Counter
    /// By status class: `failed` (no response) at 0, `1xx` … `5xx` at 1 … 5.
    private let requests: [Counter]
    private let requestDurations: [Timer]

    static let statusClasses = ["failed", "1xx", "2xx", "3xx", "4xx", "5xx"]

    init(factory: (any MetricsFactory)?) {
        let factory = factory ?? MetricsSystem.factory
        self.factory = factory
        self.http1Connections = Counter(
            label: Label.connectionsOpened,
            dimensions: [("protocol", "http/1.1")],
            factory: factory
        )
        self.http2Connections = Counter(
            label: Label.connectionsOpened,
            dimensions: [("protocol", "h2")],
            factory: factory
        )
        self.connectionSetup = Timer(label: Label.connectionSetup, factory: factory)
        self.handshakesSucceeded = Counter(
            label: Label.tlsHandshakes,
            dimensions: [("result", "success")],
            factory: factory
        )
        self.handshakesFailed = Counter(
            label: Label.tlsHandshakes,
            dimensions: [("result", "failure")],
            factory: factory
        )
        self.cacheHits = Counter(label: Label.trustEvaluations, dimensions: [("cache", "hit")], factory: factory)
        self.cacheMisses = Counter(label: Label.trustEvaluations, dimensions: [("cache", "miss")], factory: factory)
        self.requests = Self.statusClasses.map {
            Counter(label: Label.requests, dimensions: [("status_class", $0)], factory: factory)
        }
        self.requestDurations = Self.statusClasses.map {
            Timer(label: Label.requestDuration, dimensions: [("status_class", $0)], factory: factory)
        }
    }

    /// A connection is ready for requests, `setup` after the attempt began (TCP and TLS).
    func connectionOpened(http2: Bool, tls: Bool, setup: Duration) {
        (http2 ? self.http2Connections : self.http1Connections).increment()
        if tls { self.handshakesSucceeded.increment() }
        self.connectionSetup.recordNanoseconds(setup.nanoseconds)
    }

    /// A connection attempt failed; `error` says whether in the TLS handshake.
    func connectionFailed(_ error: SecureHTTPError) {
        if Self.handshakeCodes.contains(error.code) { self.handshakesFailed.increment() }
    }

    static let handshakeCodes: Set<SecureHTTPError.Code> = [
        .serverTrustFailure, .tlsHandshakeFailure, .tlsHandshakeTimeout, .tlsVersionRefused, .cipherSuiteRefused,
        .clientCertificateRequired, .tlsFailure,
    ]

    /// A trust decision: from the decision cache, or a full evaluation.
    func trustEvaluated(cached: Bool) {
        (cached ? self.cacheHits : self.cacheMisses).increment()
    }

    /// A chain refused by ServerTrust, by code (`pinMismatch`, `untrustedRoot`, …), and a pin
    /// mismatch by whether it was enforced or only reported.
    func trustFailed(_ code: ServerTrustError.Code) {
        Counter(label: Label.trustFailures, dimensions: [("code", code.description)], factory: self.factory).increment()
    }

    func pinMismatch(_ result: PinValidationReport.Result) {
        let mode = result == .rejected ? "enforced" : "report_only"
        Counter(label: Label.pinFailures, dimensions: [("mode", mode)], factory: self.factory).increment()
    }

    /// A request ended: with the final response's status, or without a response.
    func requestEnded(status: Int?, duration: Duration) {
        let index = status.map { (100...599).contains($0) ? $0 / 100 : 0 } ?? 0
        self.requests[index].increment()
        self.requestDurations[index].recordNanoseconds(duration.nanoseconds)
    }
}
