#if canImport(Security)
public import Foundation
public import HTTPTypes
import HTTPTypesFoundation
import Security
public import ServerTrust
import SwiftASN1
import X509
import SecureNetworkingInternal

/// The Apple-platform HTTPS transport: URLSession, with ServerTrust's certificate rules and pins
/// applied to the chain Security.framework validated.
///
/// Every decision is made by the portable code the other transports share: the request driver
/// applies the policy (before any byte is sent), the header checks, the redirect rules and the
/// whole-request deadline; URLSession never follows a redirect itself. For each new TLS
/// connection the session delegate has Security.framework validate the path for the requested
/// host (`SecPolicyCreateSSL`, the policy's trust anchors), then runs
/// `ServerTrust.evaluate(platformValidatedChain:requirements:now:)` on the validated chain (key
/// sizes, SHA-2 signatures, pins). A rejection cancels the handshake and is thrown as
/// ``SecureHTTPError/Code/serverTrustFailure`` with the reason: ServerTrust's, with the pin
/// report, or, for a refusal by Security.framework, the closest ServerTrust code (expired, not yet
/// valid, host name mismatch, untrusted root) and the OSStatus.
///
/// Sessions are ephemeral: no URL cache, no cookies, no credential storage.
///
/// - Important: Security.framework validates the path (trust anchors, host name, validity,
///   revocation as the system SSL policy does it) and this transport then applies the key rules
///   and the pins. ServerTrust's own path validation and Web PKI rules (exact expiry, serial
///   numbers, key usage by role, the validation budget) run only in ``NIOHTTPTransport``.
/// - Important: Each distinct ``ConnectionRequirements`` (origin, TLS floor, anchors, pins) has
///   a URLSession of its own, and URLSession never shares a connection between sessions, so a
///   request only ever travels on a connection this transport evaluated for its own origin and
///   pins; HTTP/2 connection coalescing cannot carry it over a connection checked for another
///   host. A response over a new connection that raised no challenge fails closed with
///   ``SecureHTTPError/Code/serverTrustFailure``. Every decision the delegate makes is
///   `URLSessionDelegatePolicy`'s, which is tested on every platform.
/// - Important: Settings honoured only by ``NIOHTTPTransport``: PEM client identities (use
///   PKCS#12 here), `TransportSecurityPolicy.requiresForwardSecrecy` (URLSession
///   and App Transport Security choose the cipher suites), and the separate
///   ``HTTPTransportConfiguration/Timeouts/connect`` and
///   ``HTTPTransportConfiguration/Timeouts/tlsHandshake`` timeouts (here the request timeout and
///   the whole-request deadline bound them). A server asking for a client certificate when
///   none is configured fails with ``SecureHTTPError/Code/clientCertificateRequired`` (the system's
///   default handling could present an identity the app never chose).
/// - Important: App Transport Security (the app's `Info.plist`) applies on top of the policy:
///   plain `http` and TLS versions below 1.2 also need an ATS exception, or URLSession refuses
///   them (plain `http` is then thrown as ``SecureHTTPError/Code/policyViolation``, an old TLS
///   version as ``SecureHTTPError/Code/tlsFailure``).
public final class URLSessionTransport: PinUpdatableTransport {
    /// The configuration in force.
    public let configuration: HTTPTransportConfiguration
    private let driver: RequestDriver
    /// One session per distinct ``ConnectionRequirements``, created on first use.
    private let lanes: URLSessionLanes
    private let requestTimeout: TimeInterval

    /// The default for `maximumSessions`.
    public static let defaultMaximumSessions = URLSessionTransportDefaults.maximumSessions

    /// Creates a transport; its URLSessions are created on first use.
    ///
    /// - Parameters:
    ///   - configuration: policy, limits, timeouts and client identity.
    ///   - maximumSessions: the most URLSessions kept at once (one per distinct origin and
    ///     requirements); when a new one would pass it, the least recently used session stops
    ///     taking requests and closes once its requests in flight finish. At least 1.
    /// - Throws: ``SecureHTTPError/Code/invalidClientIdentity`` when the client identity is PEM
    ///   (supported by ``NIOHTTPTransport`` only) or its PKCS#12 bundle cannot be imported;
    ///   ``SecureHTTPError/Code/policyViolation`` when a trust anchor of the policy cannot be
    ///   encoded or a minimum TLS version has no Security.framework equivalent.
    /// - Important: On macOS 13 and 14, `SecPKCS12Import` adds a PKCS#12 identity to the
    ///   default keychain (the in-memory import option exists from macOS 15). On macOS 15 and
    ///   later, and on iOS, tvOS and watchOS, the identity stays in process memory.
    public init(
        configuration: HTTPTransportConfiguration = HTTPTransportConfiguration(),
        maximumSessions: Int = URLSessionTransport.defaultMaximumSessions
    ) throws(SecureHTTPError) {
        // Everything that can fail runs here, before any session exists.
        _ = try SecTrustChainValidator.anchorCertificates(configuration.policy.trustAnchors)
        var clientCredential: URLSessionClientCredential?
        if let identity = configuration.clientIdentity {
            clientCredential = try URLSessionClientCredential(identity)
        }
        var minimums: Set<TLSVersion> = [configuration.policy.minimumTLSVersion]
        for exception in configuration.policy.exceptionDomains.values {
            if let minimum = exception.minimumTLSVersion { minimums.insert(minimum) }
        }
        var protocolVersions: [TLSVersion: tls_protocol_version_t] = [:]
        for minimum in minimums {
            guard let version = tls_protocol_version_t(rawValue: minimum.wireValue) else {
                throw SecureHTTPError(.policyViolation, "\(minimum) has no Security.framework equivalent")
            }
            protocolVersions[minimum] = version
        }

        let requestTimeout = configuration.timeouts.request.timeInterval
        let factory = URLSessionFactory(
            protocolVersions: protocolVersions,
            requestTimeout: requestTimeout,
            maximumConnectionsPerHost: configuration.maximumConnectionsPerHost,
            policy: URLSessionDelegatePolicy(
                evaluator: ServerTrust(configuration: configuration.serverTrust),
                hasClientIdentity: clientCredential != nil,
                now: configuration.now,
                transparencyReporter: configuration.transparencyReporter
            ),
            maximumResponseBodySize: configuration.maximumResponseBodySize,
            pinValidationReporter: configuration.pinValidationReporter,
            clientCredential: clientCredential
        )
        self.configuration = configuration
        self.driver = RequestDriver(configuration: configuration)
        self.lanes = URLSessionLanes(pool: URLSessionPool(limit: max(1, maximumSessions)), factory: factory)
        self.requestTimeout = requestTimeout
    }

    deinit {
        self.invalidate()
    }

    /// Sends a request; see ``HTTPTransport/send(_:body:options:)``.
    ///
    /// URLSession keeps its own connections, so the lanes of ``HTTPRequestOptions`` map to task
    /// priority (`URLSessionTask.highPriority` for ``HTTPRequestOptions/Lane/credentials``) and
    /// the ``HTTPRequestOptions/credential`` is bound when the task is created for each hop.
    ///
    /// - Throws: ``SecureHTTPError``; ``SecureHTTPError/Code/shutDown`` after ``invalidate()``.
    public func send(
        _ request: HTTPRequest,
        body: Data?,
        options: HTTPRequestOptions
    ) async throws(SecureHTTPError) -> HTTPTransportResponse {
        try await self.driver.send(request, body: body, options: options) { hop throws(SecureHTTPError) in
            try await self.exchange(hop)
        }
    }

    /// Puts the compiled-in pins with `update` applied in force (the compiled-in pins alone for
    /// nil); see ``PinUpdatableTransport``. The sessions of requirements whose pins changed take
    /// no new task and close once their tasks in flight finish: URLSession raises a trust
    /// challenge only for a new connection, so the next request opens one in a new session.
    public func applyPinUpdate(_ update: PinSetUpdate?) {
        let change = self.driver.applyPinUpdate(update)
        self.lanes.retire(where: change.isStale)
    }

    /// Cancels every request in flight and refuses new ones; the sessions cannot be reused.
    public func invalidate() {
        self.lanes.invalidateAll()
    }

    /// Sends one hop and reads its response, without following a redirect.
    private func exchange(_ hop: PreparedHop) async throws(SecureHTTPError) -> (HTTPResponse, Data) {
        guard var urlRequest = URLRequest(httpRequest: try hop.boundRequest()) else {
            throw SecureHTTPError(.invalidRequest, "the request cannot be expressed as a URLRequest")
        }
        urlRequest.httpBody = hop.body
        urlRequest.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        urlRequest.httpShouldHandleCookies = false
        urlRequest.timeoutInterval = self.requestTimeout

        // A session being retired by another request takes no new task: lease again (a fresh
        // lease is the most recently used session, so this ends unless the limit is tiny and
        // many origins are leased at once).
        var hop = hop
        for _ in 0..<URLSessionLanes.maximumLeaseAttempts {
            // Prepared before a pin update: resolved again, so that no session is made (and no
            // connection verified) for the pins it replaced (issue 51 item 14).
            hop = try self.driver.current(hop)
            let lane = try self.lanes.lane(for: hop.requirements)
            let table = lane.delegate.table
            switch table.makeTask(in: lane.session, for: urlRequest, requirements: hop.requirements) {
            case .invalidated:
                throw URLSessionTaskTable.shutDown
            case .retired:
                continue
            case .task(let task):
                if hop.lane == .credentials {
                    task.priority = URLSessionTask.highPriority
                }
                return try await Self.run(task, in: table)
            }
        }
        throw SecureHTTPError(
            .connectFailed,
            "no URLSession could take the request to \(hop.requirements.host): too many origins at once for maximumSessions"
        )
    }

    /// Resumes `task` and waits for the delegate to end it.
    private static func run(
        _ task: URLSessionDataTask,
        in table: URLSessionTaskTable
    ) async throws(SecureHTTPError) -> (HTTPResponse, Data) {
        let identifier = task.taskIdentifier
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<URLSessionOutcome, Never>) in
                if table.attach(continuation, to: identifier) {
                    task.resume()
                }
            }
        } onCancel: {
            table.cancel(identifier, with: SecureHTTPError(.cancelled, "the request was cancelled"))
        }
        switch outcome {
        case .failure(let error):
            throw error
        case .success(let exchange):
            return (exchange.response, exchange.body)
        }
    }
}

/// A session and its delegate.
struct URLSessionLane: Sendable {
    let session: URLSession
    let delegate: URLSessionTransportDelegate

    /// Takes no new task and closes once the tasks in flight finish.
    func retire() {
        if self.delegate.table.retire() {
            self.session.finishTasksAndInvalidate()
        }
    }

    /// Cancels the tasks in flight and closes.
    func invalidate() {
        if self.delegate.table.invalidate() {
            self.session.invalidateAndCancel()
        }
    }
}

/// Makes the session for one ``ConnectionRequirements``: ephemeral (no URL cache, no cookies,
/// no credential storage), the requirements' TLS floor, and a delegate of its own.
struct URLSessionFactory: Sendable {
    let protocolVersions: [TLSVersion: tls_protocol_version_t]
    let requestTimeout: TimeInterval
    let maximumConnectionsPerHost: Int
    let policy: URLSessionDelegatePolicy
    let maximumResponseBodySize: Int
    let pinValidationReporter: (@Sendable (PinValidationReport) -> Void)?
    let clientCredential: URLSessionClientCredential?

    func make(_ requirements: ConnectionRequirements) throws(SecureHTTPError) -> URLSessionLane {
        guard let protocolVersion = self.protocolVersions[requirements.minimumTLSVersion] else {
            // Unreachable: init mapped every minimum the policy can produce.
            throw SecureHTTPError(
                .policyViolation,
                "no session enforces \(requirements.minimumTLSVersion) for \(requirements.host)"
            )
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCredentialStorage = nil
        configuration.tlsMinimumSupportedProtocolVersion = protocolVersion
        configuration.timeoutIntervalForRequest = self.requestTimeout
        configuration.timeoutIntervalForResource = self.requestTimeout
        configuration.httpMaximumConnectionsPerHost = self.maximumConnectionsPerHost
        configuration.waitsForConnectivity = false
        let delegate = URLSessionTransportDelegate(
            policy: self.policy,
            anchorDER: try SecTrustChainValidator.anchorCertificates(requirements.trustAnchors),
            maximumResponseBodySize: self.maximumResponseBodySize,
            pinValidationReporter: self.pinValidationReporter,
            clientCredential: self.clientCredential
        )
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        return URLSessionLane(session: session, delegate: delegate)
    }
}

/// The transport's sessions: ``URLSessionPool`` under a lock, and the retired sessions whose
/// requests are still in flight (so that ``URLSessionTransport/invalidate()`` ends them too).
// SAFETY: `pool` and `retired` are read and written only while `lock` is held; sessions are made
// under it (URLSession's initializer calls no delegate method) and retired or invalidated after
// it is released.
final class URLSessionLanes: @unchecked Sendable {
    static let maximumLeaseAttempts = 4

    private let lock = NSLock()
    private var pool: URLSessionPool<URLSessionLane>
    private var retired: [URLSessionLane] = []
    private let factory: URLSessionFactory

    init(pool: URLSessionPool<URLSessionLane>, factory: URLSessionFactory) {
        self.pool = pool
        self.factory = factory
    }

    /// The session for `requirements`.
    ///
    /// - Throws: ``SecureHTTPError/Code/shutDown`` after ``invalidateAll()``.
    func lane(for requirements: ConnectionRequirements) throws(SecureHTTPError) -> URLSessionLane {
        self.lock.lock()
        let lease: URLSessionPool<URLSessionLane>.Lease
        do {
            lease = try self.pool.session(for: requirements, make: self.factory.make)
        } catch {
            self.lock.unlock()
            throw error
        }
        switch lease {
        case .closed:
            self.lock.unlock()
            throw URLSessionTaskTable.shutDown
        case .session(let lane, let retiring):
            if let retiring {
                self.retired.removeAll { $0.delegate.table.isDrained }
                self.retired.append(retiring)
            }
            self.lock.unlock()
            retiring?.retire()
            return lane
        }
    }

    /// Retires the sessions whose requirements `isRetired` picks: they take no new task and
    /// close once their tasks in flight finish.
    func retire(where isRetired: (ConnectionRequirements) -> Bool) {
        self.lock.lock()
        let picked = self.pool.retire(where: isRetired)
        self.retired.removeAll { $0.delegate.table.isDrained }
        self.retired += picked
        self.lock.unlock()
        for lane in picked {
            lane.retire()
        }
    }

    /// Ends every request in flight, the retired sessions' included, and refuses new ones.
    func invalidateAll() {
        self.lock.lock()
        let all = self.pool.close() + self.retired
        self.retired = []
        self.lock.unlock()
        for lane in all {
            lane.invalidate()
        }
    }
}

/// The response of one exchange.
struct URLSessionExchange: Sendable {
    let response: HTTPResponse
    let body: Data
}

typealias URLSessionOutcome = Result<URLSessionExchange, SecureHTTPError>
#endif
