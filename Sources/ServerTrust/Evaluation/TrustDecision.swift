public import X509

/// The outcome of a ``ServerTrust`` evaluation.
///
/// A rejected server is an expected outcome, so it is a value with a reason rather than a thrown
/// error; ``validatedChain()`` turns it into a throw for callers that want one.
public struct TrustDecision: Sendable {
    /// The host evaluated.
    public let host: String
    /// The port evaluated.
    public let port: Int
    /// The validated chain, leaf first and trust anchor last; empty when validation failed.
    public let chain: [Certificate]
    /// Why the server was rejected, or nil when it is trusted.
    public let failure: ServerTrustError?
    /// The pin report, when the chain did not match the host's pins (whether or not enforced).
    public let pinReport: PinValidationReport?
    /// What Certificate Transparency found, when the connection requires it (compliant, not
    /// compliant, or not enforced because the log list is stale).
    public let transparencyReport: CertificateTransparencyReport?
    /// What the validated chain does that a standard asks CAs not to do but that has no security
    /// effect for a client (a common name that is not one of the SANs, say); empty when rejected.
    public let warnings: [TrustWarning]

    init(
        host: String,
        port: Int,
        chain: [Certificate],
        failure: ServerTrustError?,
        pinReport: PinValidationReport?,
        transparencyReport: CertificateTransparencyReport? = nil,
        warnings: [TrustWarning] = []
    ) {
        self.host = host
        self.port = port
        self.chain = chain
        self.failure = failure
        self.pinReport = pinReport
        self.transparencyReport = transparencyReport
        self.warnings = failure == nil ? warnings : []
    }

    /// This decision with `warnings` about its validated chain.
    func adding(_ warnings: [TrustWarning]) -> TrustDecision {
        guard !warnings.isEmpty, self.isTrusted else { return self }
        return TrustDecision(
            host: self.host,
            port: self.port,
            chain: self.chain,
            failure: self.failure,
            pinReport: self.pinReport,
            transparencyReport: self.transparencyReport,
            warnings: self.warnings + warnings
        )
    }

    /// Whether the connection may proceed.
    public var isTrusted: Bool { self.failure == nil }

    /// The validated chain, or the failure thrown.
    public func validatedChain() throws(ServerTrustError) -> [Certificate] {
        if let failure { throw failure }
        return self.chain
    }
}
