import ServerTrust

extension NIOHTTPTransport {
    /// Whether ServerTrust can read this platform's root store.
    ///
    /// swift-certificates reads the root store from the CA bundle Linux distributions install
    /// (`CertificateStore.systemTrustRoots`); Apple platforms keep theirs inside
    /// Security.framework, which does not hand it out on iOS, tvOS, watchOS or visionOS, so there
    /// the store is empty and every chain to a public root would be refused as untrusted.
    static var platformRootStoreIsReadable: Bool {
        #if canImport(Security)
        return false
        #else
        return true
        #endif
    }

    /// Why a transport with `policy` cannot validate chains here, or nil when it can: the policy
    /// trusts the system roots and the platform's root store cannot be read.
    static func rootStoreProblem(_ policy: TransportSecurityPolicy, rootStoreIsReadable: Bool) -> SecureHTTPError? {
        guard !rootStoreIsReadable, policy.trustAnchors.includesSystemRoots else { return nil }
        return SecureHTTPError(
            .policyViolation,
            "NIOHTTPTransport cannot read the system root store on this platform: name the roots with TrustAnchors.only(_:profile:), or use URLSessionTransport for the system roots"
        )
    }
}
