import ServerTrust

extension NIOHTTPTransport {
    /// Why a transport with `policy` cannot validate chains with `platformTrust`, or nil when it
    /// can: the policy trusts the system roots, ServerTrust cannot read them and there is no
    /// platform verifier. Unreachable on Linux (the CA bundle is read) and on
    /// Apple platforms (Security.framework validates); kept so that a platform with neither
    /// fails when the transport is built, not at the first handshake.
    static func rootStoreProblem(_ policy: TransportSecurityPolicy, platformTrust: PlatformTrust) -> SecureHTTPError? {
        guard platformTrust.validation(for: policy.trustAnchors) == .impossible else { return nil }
        return SecureHTTPError(
            .policyViolation,
            "NIOHTTPTransport cannot validate chains to the system roots on this platform: name the roots with TrustAnchors.only(_:profile:)"
        )
    }
}
