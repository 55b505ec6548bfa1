#if canImport(Security)
public import Foundation
public import HTTPTypes
import HTTPTypesFoundation
import Security
import ServerTrust
import SwiftASN1
import X509

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
/// - Important: A response is accepted only from a connection whose server trust this transport
///   evaluated for the same `ConnectionRequirements`; anything else (for example a
///   connection URLSession reused for another host) fails closed with
///   ``SecureHTTPError/Code/serverTrustFailure``.
/// - Important: Settings honoured only by ``NIOHTTPTransport``: PEM client identities (use
///   PKCS#12 here), `TransportSecurityPolicy.requiresForwardSecrecy` (URLSession
///   and App Transport Security choose the cipher suites), and the separate
///   ``HTTPTransportConfiguration/Timeouts/connect`` and
///   ``HTTPTransportConfiguration/Timeouts/tlsHandshake`` timeouts (here the request timeout and
///   the whole-request deadline bound them). Per-domain minimum TLS versions are enforced with
///   one URLSession per distinct minimum.
/// - Important: App Transport Security (the app's `Info.plist`) applies on top of the policy:
///   plain `http` and TLS versions below 1.2 also need an ATS exception, or URLSession refuses
///   them (plain `http` is then thrown as ``SecureHTTPError/Code/policyViolation``, an old TLS
///   version as ``SecureHTTPError/Code/tlsFailure``).
public final class URLSessionTransport: HTTPTransport {
    /// The configuration in force.
    public let configuration: HTTPTransportConfiguration
    private let driver: RequestDriver
    /// One session per distinct minimum TLS version of the policy (global and per-domain).
    private let lanes: [TLSVersion: URLSessionLane]
    private let requestTimeout: TimeInterval

    /// Creates a transport and its URLSessions.
    ///
    /// - Parameter configuration: policy, limits, timeouts and client identity.
    /// - Throws: ``SecureHTTPError/Code/invalidClientIdentity`` when the client identity is PEM
    ///   (supported by ``NIOHTTPTransport`` only) or its PKCS#12 bundle cannot be imported;
    ///   ``SecureHTTPError/Code/policyViolation`` when a trust anchor of the policy cannot be
    ///   encoded or a minimum TLS version has no Security.framework equivalent.
    /// - Important: On macOS 13 and 14, `SecPKCS12Import` adds a PKCS#12 identity to the
    ///   default keychain (the in-memory import option exists from macOS 15). On macOS 15 and
    ///   later, and on iOS, tvOS and watchOS, the identity stays in process memory.
    public init(configuration: HTTPTransportConfiguration = HTTPTransportConfiguration()) throws(SecureHTTPError) {
        // Everything that can fail runs before the first session exists, so a throw leaks none.
        _ = try URLSessionTransportDelegate.anchorCertificates(configuration.policy.trustAnchors)
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

        let requestTimeout = Self.seconds(configuration.timeouts.request)
        var lanes: [TLSVersion: URLSessionLane] = [:]
        for (minimum, protocolVersion) in protocolVersions {
            let sessionConfiguration = URLSessionConfiguration.ephemeral
            sessionConfiguration.urlCache = nil
            sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
            sessionConfiguration.httpCookieStorage = nil
            sessionConfiguration.httpShouldSetCookies = false
            sessionConfiguration.httpCookieAcceptPolicy = .never
            sessionConfiguration.urlCredentialStorage = nil
            sessionConfiguration.tlsMinimumSupportedProtocolVersion = protocolVersion
            sessionConfiguration.timeoutIntervalForRequest = requestTimeout
            sessionConfiguration.timeoutIntervalForResource = requestTimeout
            sessionConfiguration.httpMaximumConnectionsPerHost = configuration.maximumConnectionsPerHost
            sessionConfiguration.waitsForConnectivity = false
            let delegate = URLSessionTransportDelegate(
                evaluator: ServerTrust(configuration: configuration.serverTrust),
                maximumResponseBodySize: configuration.maximumResponseBodySize,
                pinValidationReporter: configuration.pinValidationReporter,
                clientCredential: clientCredential,
                now: configuration.now
            )
            let session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: nil)
            lanes[minimum] = URLSessionLane(session: session, delegate: delegate)
        }

        self.configuration = configuration
        self.driver = RequestDriver(configuration: configuration)
        self.lanes = lanes
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
    public func send(_ request: HTTPRequest, body: Data?, options: HTTPRequestOptions) async throws(SecureHTTPError) -> HTTPTransportResponse {
        try await self.driver.send(request, body: body, options: options) { hop throws(SecureHTTPError) in
            try await self.exchange(hop)
        }
    }

    /// Cancels every request in flight and refuses new ones; the sessions cannot be reused.
    public func invalidate() {
        for lane in self.lanes.values {
            if lane.delegate.table.invalidate() {
                lane.session.invalidateAndCancel()
            }
        }
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

        guard let lane = self.lanes[hop.requirements.minimumTLSVersion] else {
            // Unreachable: init made a session for every minimum the policy can produce.
            throw SecureHTTPError(
                .policyViolation,
                "no session enforces \(hop.requirements.minimumTLSVersion) for \(hop.requirements.host)"
            )
        }
        let table = lane.delegate.table
        guard let task = table.makeTask(in: lane.session, for: urlRequest, requirements: hop.requirements) else {
            throw URLSessionTaskTable.shutDown
        }
        if hop.lane == .credentials {
            task.priority = URLSessionTask.highPriority
        }
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
            if hop.requirements.usesTLS, !table.isVerified(hop.requirements) {
                throw SecureHTTPError(
                    .serverTrustFailure,
                    "the response from \(hop.requirements.host) came over a connection whose certificate chain this transport did not evaluate"
                )
            }
            return (exchange.response, exchange.body)
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

/// A session and its delegate.
struct URLSessionLane: Sendable {
    let session: URLSession
    let delegate: URLSessionTransportDelegate
}

/// The response of one exchange.
struct URLSessionExchange: Sendable {
    let response: HTTPResponse
    let body: Data
}

typealias URLSessionOutcome = Result<URLSessionExchange, SecureHTTPError>

/// A client certificate credential built from a PKCS#12 identity.
// SAFETY: the credential is only read, through `credential`, while `lock` is held; it is set
// once in `init`. URLCredential and the SecIdentity it holds are immutable after creation.
final class URLSessionClientCredential: @unchecked Sendable {
    private let lock = NSLock()
    private let stored: URLCredential

    /// The credential presented to client-certificate challenges.
    var credential: URLCredential {
        self.lock.lock()
        defer { self.lock.unlock() }
        return self.stored
    }

    init(_ identity: ClientIdentity) throws(SecureHTTPError) {
        switch identity.storage {
        case .pem:
            throw Self.pemUnsupported
        case .pkcs12(let bundle, let passphrase):
            self.stored = try Self.importPKCS12(bundle, passphrase: passphrase)
        }
    }

    static var pemUnsupported: SecureHTTPError {
        SecureHTTPError(
            .invalidClientIdentity,
            "PEM client identities are supported by NIOHTTPTransport only; use a PKCS#12 identity on Apple platforms"
        )
    }

    /// Imports the first identity of a PKCS#12 bundle and the certificates that come with it.
    private static func importPKCS12(_ bundle: [UInt8], passphrase: [UInt8]?) throws(SecureHTTPError) -> URLCredential {
        // A bundle without a passphrase is read with the empty one (what `openssl pkcs12
        // -passout pass:` writes).
        var options: [String: Any] = [
            kSecImportExportPassphrase as String: String(decoding: passphrase ?? [], as: UTF8.self)
        ]
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            options[kSecImportToMemoryOnly as String] = true
        }
        var rawItems: CFArray?
        let status = SecPKCS12Import(Data(bundle) as CFData, options as CFDictionary, &rawItems)
        guard status == errSecSuccess else {
            let reason = status == errSecAuthFailed ? "wrong passphrase or damaged bundle" : "OSStatus \(status)"
            throw SecureHTTPError(.invalidClientIdentity, "the PKCS#12 bundle could not be imported (\(reason))")
        }
        guard let items = rawItems as? [[String: Any]], let first = items.first,
            let identity = cfObject(
                first[kSecImportItemIdentity as String],
                typeID: SecIdentityGetTypeID(),
                as: SecIdentity.self
            )
        else {
            throw SecureHTTPError(
                .invalidClientIdentity,
                "the PKCS#12 bundle holds no certificate with its private key"
            )
        }
        let chain = (first[kSecImportItemCertChain as String] as? [Any] ?? []).compactMap {
            cfObject($0, typeID: SecCertificateGetTypeID(), as: SecCertificate.self)
        }
        var leaf: SecCertificate?
        _ = SecIdentityCopyCertificate(identity, &leaf)
        // URLCredential wants the certificates that lead from the identity's leaf to a root.
        let intermediates = chain.filter { certificate in leaf.map { !CFEqual($0, certificate) } ?? true }
        return URLCredential(
            identity: identity,
            certificates: intermediates.isEmpty ? nil : intermediates,
            persistence: .forSession
        )
    }
}

/// The CF object in `value` when its type is `typeID`, else nil.
func cfObject<T: AnyObject>(_ value: Any?, typeID: CFTypeID, as type: T.Type) -> T? {
    guard let value else { return nil }
    let object = value as AnyObject
    guard CFGetTypeID(object) == typeID else { return nil }
    return unsafeDowncast(object, to: T.self)
}

/// The session delegate: refuses redirects, answers TLS challenges, bounds response bodies and
/// completes the exchanges of ``URLSessionTaskTable``.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, Sendable {
    let table = URLSessionTaskTable()
    private let evaluator: ServerTrust
    private let maximumResponseBodySize: Int
    private let pinValidationReporter: (@Sendable (PinValidationReport) -> Void)?
    private let clientCredential: URLSessionClientCredential?
    private let now: @Sendable () -> Date

    init(
        evaluator: ServerTrust,
        maximumResponseBodySize: Int,
        pinValidationReporter: (@Sendable (PinValidationReport) -> Void)?,
        clientCredential: URLSessionClientCredential?,
        now: @escaping @Sendable () -> Date
    ) {
        self.evaluator = evaluator
        self.now = now
        self.maximumResponseBodySize = maximumResponseBodySize
        self.pinValidationReporter = pinValidationReporter
        self.clientCredential = clientCredential
        super.init()
    }

    // MARK: URLSessionTaskDelegate

    /// Never follows a redirect: the 3xx response goes back to the request driver, which
    /// applies the same redirect rules on every platform.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest
    ) async -> URLRequest? {
        nil
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge
    ) async -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        let space = challenge.protectionSpace
        switch space.authenticationMethod {
        case NSURLAuthenticationMethodServerTrust:
            // A proxy's own TLS is left to the system; the origin behind it gets its own challenge.
            if space.isProxy() { return (.performDefaultHandling, nil) }
            return self.evaluateServerTrust(space.serverTrust, task: task)
        case NSURLAuthenticationMethodClientCertificate:
            guard let clientCredential = self.clientCredential else {
                // No identity: the server decides; a refusal surfaces as clientCertificateRequired.
                return (.performDefaultHandling, nil)
            }
            return (.useCredential, clientCredential.credential)
        default:
            return (.performDefaultHandling, nil)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        self.table.complete(task.taskIdentifier, error: error, response: task.response)
    }

    // MARK: URLSessionDataDelegate

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if self.table.append(data, to: dataTask.taskIdentifier, limit: self.maximumResponseBodySize) {
            dataTask.cancel()
        }
    }

    // MARK: Server trust

    /// Security.framework validates the path for the requested host; ServerTrust then applies
    /// the key rules and pins to the validated chain.
    ///
    /// `SecTrustEvaluateWithError` may block briefly (it can fetch intermediates or revocation
    /// data); it runs once per new TLS connection.
    private func evaluateServerTrust(
        _ serverTrust: SecTrust?,
        task: URLSessionTask
    ) -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        let identifier = task.taskIdentifier
        guard let requirements = self.table.requirements(for: identifier), requirements.usesTLS else {
            self.table.record(
                SecureHTTPError(
                    .serverTrustFailure,
                    "a TLS challenge arrived for a request this transport did not send over TLS"
                ),
                for: identifier
            )
            return (.cancelAuthenticationChallenge, nil)
        }
        let host = requirements.host
        guard let trust = serverTrust else {
            self.table.record(
                SecureHTTPError(.serverTrustFailure, "\(host) presented no certificate chain"),
                for: identifier
            )
            return (.cancelAuthenticationChallenge, nil)
        }

        if let failure = Self.configure(trust, for: requirements) {
            self.table.record(failure, for: identifier)
            return (.cancelAuthenticationChallenge, nil)
        }
        var cfError: CFError?
        guard SecTrustEvaluateWithError(trust, &cfError) else {
            let status = OSStatus(truncatingIfNeeded: cfError.map { CFErrorGetCode($0) } ?? 0)
            if let reason = Self.platformReason(status, host: host) {
                self.table.record(SecureHTTPError.trust(reason, host: host), for: identifier)
            } else {
                self.table.record(
                    SecureHTTPError(
                        .serverTrustFailure,
                        "\(host) is not trusted: Security.framework rejected its certificate chain (OSStatus \(status))"
                    ),
                    for: identifier
                )
            }
            return (.cancelAuthenticationChallenge, nil)
        }

        guard let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate], !chain.isEmpty else {
            self.table.record(
                SecureHTTPError(.serverTrustFailure, "\(host) is not trusted: the validated chain could not be read"),
                for: identifier
            )
            return (.cancelAuthenticationChallenge, nil)
        }
        let der = chain.map { [UInt8](SecCertificateCopyData($0) as Data) }
        let decision = self.evaluator.evaluate(platformValidatedChain: der, requirements: requirements, now: self.now())
        if let report = decision.pinReport {
            self.pinValidationReporter?(report)
        }
        if let failure = decision.failure {
            self.table.record(SecureHTTPError.trust(failure, host: host, report: decision.pinReport), for: identifier)
            return (.cancelAuthenticationChallenge, nil)
        }
        self.table.markVerified(requirements)
        return (.useCredential, URLCredential(trust: trust))
    }

    /// The ServerTrust reason for the statuses `SecTrustEvaluateWithError` reports whose meaning
    /// is unambiguous; nil for the others (revocation, policy constraints, …).
    private static func platformReason(_ status: OSStatus, host: String) -> ServerTrustError? {
        switch status {
        case errSecCertificateExpired:
            return ServerTrustError(.expired, "a certificate of the chain has expired (OSStatus \(status))")
        case errSecCertificateNotValidYet:
            return ServerTrustError(.notYetValid, "a certificate of the chain is not valid yet (OSStatus \(status))")
        case errSecHostNameMismatch:
            return ServerTrustError(.hostnameMismatch, "the certificate does not cover \(host) (OSStatus \(status))")
        case errSecNotTrusted, errSecCreateChainFailed:
            return ServerTrustError(
                .untrustedRoot,
                "Security.framework found no path to a trust anchor (OSStatus \(status))"
            )
        default:
            return nil
        }
    }

    /// Sets the SSL policy for the requested host and the policy's trust anchors on `trust`;
    /// returns the failure, if any.
    private static func configure(_ trust: SecTrust, for requirements: ConnectionRequirements) -> SecureHTTPError? {
        let host = requirements.host
        let policy = SecPolicyCreateSSL(true, host as CFString)
        guard SecTrustSetPolicies(trust, policy) == errSecSuccess else {
            return SecureHTTPError(.serverTrustFailure, "the SSL policy for \(host) could not be set")
        }
        let anchors = requirements.trustAnchors
        guard !anchors.includesSystemRoots || !anchors.certificates.isEmpty else { return nil }

        let anchorDER: [Data]
        do throws(SecureHTTPError) {
            anchorDER = try Self.anchorCertificates(anchors)
        } catch {
            return error
        }
        var certificates: [SecCertificate] = []
        for der in anchorDER {
            guard let certificate = SecCertificateCreateWithData(nil, der as CFData) else {
                return SecureHTTPError(
                    .serverTrustFailure,
                    "a trust anchor of the policy is not a certificate Security.framework reads"
                )
            }
            certificates.append(certificate)
        }
        guard SecTrustSetAnchorCertificates(trust, certificates as CFArray) == errSecSuccess,
            // Setting anchors disables the system roots; turn them back on for `.system(adding:)`.
            SecTrustSetAnchorCertificatesOnly(trust, !anchors.includesSystemRoots) == errSecSuccess
        else {
            return SecureHTTPError(.serverTrustFailure, "the trust anchors for \(host) could not be set")
        }
        return nil
    }

    /// The DER encoding of the app-supplied anchors.
    static func anchorCertificates(_ anchors: TrustAnchors) throws(SecureHTTPError) -> [Data] {
        var encoded: [Data] = []
        for certificate in anchors.certificates {
            var serializer = DER.Serializer()
            do {
                try serializer.serialize(certificate)
            } catch {
                throw SecureHTTPError(.policyViolation, "a trust anchor of the policy could not be DER-encoded")
            }
            encoded.append(Data(serializer.serializedBytes))
        }
        return encoded
    }
}
#endif
