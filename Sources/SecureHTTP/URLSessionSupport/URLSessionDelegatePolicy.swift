import Foundation
import ServerTrust

/// Every decision `URLSessionTransport`'s session delegate makes, as plain values, so that it is
/// tested on every platform; the Apple adapter only translates URLSession and Security.framework
/// values into these and carries out the answer.
///
/// One challenge goes through two steps:
/// 1. ``step(for:taskRequirements:)`` says what to do with the challenge: evaluate the server
///    trust for these requirements, present the client identity, leave it to the system, or
///    cancel it with an error;
/// 2. for a server-trust evaluation, ``conclude(_:requirements:)`` takes what
///    Security.framework said about the chain (validated, refused with a status, or not
///    evaluable) and applies ServerTrust's key rules and pins to the validated chain.
///
/// When the task completes, ``completionFailure(usesTLS:challengeAccepted:connection:sessionAcceptedAConnection:)`` decides
/// whether its response may be used: only a response that came over a connection this transport
/// evaluated for the task's requirements is.
struct URLSessionDelegatePolicy: Sendable {
    /// The facts of one authentication challenge.
    struct Challenge: Sendable, Hashable {
        /// `URLProtectionSpace.authenticationMethod`, reduced to what the policy distinguishes.
        enum Method: Sendable, Hashable {
            /// `NSURLAuthenticationMethodServerTrust`.
            case serverTrust
            /// `NSURLAuthenticationMethodClientCertificate`.
            case clientCertificate
            /// Any other method (HTTP Basic, Digest, NTLM, Negotiate, …).
            case other
        }

        var method: Method
        /// `URLProtectionSpace.host`.
        var host: String
        /// `URLProtectionSpace.port`.
        var port: Int
        /// `URLProtectionSpace.isProxy()`.
        var isProxy: Bool
        /// Whether the challenge carries a `SecTrust` (`URLProtectionSpace.serverTrust`).
        var hasServerTrust: Bool = true
    }

    /// What the delegate does with a challenge.
    enum Step: Sendable, Equatable {
        /// Have Security.framework validate the chain for these requirements, then
        /// ``URLSessionDelegatePolicy/conclude(_:requirements:)``.
        case evaluateServerTrust(ConnectionRequirements)
        /// Answer with the configured client identity (`.useCredential`).
        case presentClientIdentity
        /// `.performDefaultHandling`.
        case performDefaultHandling
        /// `.cancelAuthenticationChallenge`; the task fails with this error.
        case cancel(SecureHTTPError)
    }

    /// What Security.framework said about a server's chain (shared with `NIOHTTPTransport`).
    typealias PlatformEvaluation = PlatformTrustEvaluation
    /// The OSStatus of a refused evaluation, in ServerTrust's vocabulary.
    typealias PlatformRefusal = PlatformTrustRefusal

    /// The outcome of a server-trust evaluation.
    struct Conclusion: Sendable {
        /// The failure that cancels the challenge, or nil to accept the chain.
        var failure: SecureHTTPError?
        /// The pin report to hand to the reporter (a mismatch, enforced or report-only).
        var pinReport: PinValidationReport?
    }

    /// What the task metrics say about the connection that carried a request.
    struct Connection: Sendable, Hashable {
        /// `URLSessionTaskTransactionMetrics.isReusedConnection`.
        var isReused: Bool
    }

    /// Applies the key rules and pins to chains the platform validated.
    let evaluator: ServerTrust
    /// Whether the transport has a client identity to present.
    let hasClientIdentity: Bool
    /// The time pin-set expiry is judged at.
    let now: @Sendable () -> Date
    /// Told of every CT report other than compliant (refused, or a stale log list).
    var transparencyReporter: (@Sendable (CertificateTransparencyReport) -> Void)? = nil

    // MARK: Challenges

    /// What to do with `challenge`, raised for a task sent with `taskRequirements` (nil when the
    /// task is not one this transport is waiting for).
    ///
    /// - A challenge for a proxy is left to the system (its own TLS); the origin behind the proxy
    ///   gets a challenge of its own.
    /// - A server-trust or client-certificate challenge for a host or port other than the task's
    ///   is cancelled: a chain is only ever evaluated, and an identity only ever presented, for
    ///   the origin the request was prepared for.
    /// - A client-certificate challenge without a configured identity is cancelled
    ///   (``SecureHTTPError/Code/clientCertificateRequired``): the system's default handling can
    ///   pick an identity the app never configured (on macOS, a keychain identity preference).
    /// - Other methods (HTTP authentication) get the default handling: without credential
    ///   storage that delivers the 401 to the caller.
    func step(for challenge: Challenge, taskRequirements: ConnectionRequirements?) -> Step {
        switch challenge.method {
        case .other:
            return .performDefaultHandling
        case .serverTrust, .clientCertificate:
            break
        }
        if challenge.isProxy {
            return .performDefaultHandling
        }
        guard let requirements = taskRequirements else {
            return .cancel(
                SecureHTTPError(
                    .serverTrustFailure,
                    "a TLS challenge arrived for a request this transport is not waiting for"
                )
            )
        }
        guard requirements.usesTLS else {
            return .cancel(
                SecureHTTPError(
                    .serverTrustFailure,
                    "a TLS challenge arrived for a request this transport did not send over TLS"
                )
            )
        }
        // Normalised as every requirements host is (ASCII lower case, no trailing dot, no brackets).
        let challengedHost = ConnectionRequirements(host: challenge.host).host
        guard challengedHost == requirements.host, challenge.port == requirements.port else {
            return .cancel(
                SecureHTTPError(
                    .serverTrustFailure,
                    "a TLS challenge for another origin arrived on the request to \(requirements.host):\(requirements.port)"
                )
            )
        }
        switch challenge.method {
        case .serverTrust:
            guard challenge.hasServerTrust else {
                return .cancel(
                    SecureHTTPError(.serverTrustFailure, "\(requirements.host) presented no certificate chain")
                )
            }
            return .evaluateServerTrust(requirements)
        case .clientCertificate:
            guard self.hasClientIdentity else {
                return .cancel(
                    SecureHTTPError(
                        .clientCertificateRequired,
                        "\(requirements.host) asked for a client certificate and the transport has no client identity"
                    )
                )
            }
            return .presentClientIdentity
        case .other:
            return .performDefaultHandling
        }
    }

    /// Accepts or refuses a chain Security.framework evaluated for `requirements`.
    ///
    /// A refusal by Security.framework is reported with the closest ServerTrust code (expired,
    /// not yet valid, host name mismatch, untrusted root) and the OSStatus; a validated chain then
    /// goes through ServerTrust's key rules and pins
    /// (`ServerTrust.evaluate(platformValidatedChain:requirements:now:)`).
    func conclude(_ evaluation: PlatformEvaluation, requirements: ConnectionRequirements) -> Conclusion {
        let conclusion = PlatformTrustConclusion(
            evaluation,
            evaluator: self.evaluator,
            requirements: requirements,
            now: self.now()
        )
        let decision = conclusion.decision
        if let report = decision?.transparencyReport, report.result != .compliant {
            self.transparencyReporter?(report)
        }
        return Conclusion(
            failure: conclusion.failure.map {
                SecureHTTPError.trust($0, host: requirements.host, report: decision?.pinReport)
            },
            pinReport: decision?.pinReport
        )
    }

    // MARK: Redirects and completion

    /// What the delegate answers to `willPerformHTTPRedirection`: always nil, so the 3xx goes
    /// back to the request driver, which applies the same redirect rules on every platform
    /// (scheme, policy, origin, credentials, hop limit).
    func followsRedirect(status: Int) -> Bool {
        false
    }

    /// Why a completed task's response must not be used, or nil when it may.
    ///
    /// Each URLSession serves one ``ConnectionRequirements`` (see ``URLSessionPool``), so every
    /// connection of a session was opened for the same origin, and URLSession raises a
    /// server-trust challenge when it opens one: a connection whose challenge was cancelled never
    /// carries a request. What remains to check per task over TLS:
    /// - its own challenge was accepted: the response came over the connection it evaluated;
    /// - its metrics show a new connection and it raised no challenge (which URLSession should
    ///   never do, for example a resumed TLS session that skipped it): refused;
    /// - otherwise (a reused connection, or no metrics yet) the response is used only if the
    ///   session has accepted at least one connection, the one the task must have reused.
    ///
    /// - Parameters:
    ///   - usesTLS: whether the request went over TLS.
    ///   - challengeAccepted: whether this task's own server-trust challenge was accepted.
    ///   - connection: the connection of the task's last network transaction, from its metrics;
    ///     nil when the metrics have not arrived.
    ///   - sessionAcceptedAConnection: whether the session has accepted any server-trust
    ///     challenge.
    func completionFailure(
        usesTLS: Bool,
        challengeAccepted: Bool,
        connection: Connection?,
        sessionAcceptedAConnection: Bool
    ) -> SecureHTTPError? {
        guard usesTLS, !challengeAccepted else { return nil }
        if let connection, !connection.isReused {
            return SecureHTTPError(
                .serverTrustFailure,
                "the response came over a new connection whose certificate chain this transport did not evaluate"
            )
        }
        guard sessionAcceptedAConnection else {
            return SecureHTTPError(
                .serverTrustFailure,
                "the response came over a connection whose certificate chain this transport did not evaluate"
            )
        }
        return nil
    }
}
