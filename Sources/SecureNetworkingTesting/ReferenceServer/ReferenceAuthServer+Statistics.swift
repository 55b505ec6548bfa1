#if TestServers
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension ReferenceAuthServer {
    /// A snapshot of what a ``ReferenceAuthServer`` has answered so far.
    public struct Statistics: Hashable, Sendable {
        /// Requests to `/oauth/token`, whatever their outcome.
        public var tokenEndpointCalls = 0
        /// Requests to `/auth/login`, whatever their outcome.
        public var loginCalls = 0
        /// Requests to `/user/profile` (GET and PATCH), whatever their outcome.
        public var profileCalls = 0
        /// Refresh-token families revoked, by reuse of a spent refresh token or by
        /// ``ReferenceAuthServer/revokeAllTokens()``.
        public var revokedFamilies = 0
        /// Refresh requests answered, within the reuse grace window, with the successor an
        /// earlier redemption of the same refresh token had issued.
        public var refreshReplays = 0
        /// Refresh-token families revoked at `/oauth/revoke` (RFC 7009).
        public var revocations = 0
        /// Authorization codes issued by `/oauth/authorize`.
        public var authorizationCodes = 0
        /// DPoP proofs (RFC 9449) that passed every check.
        public var dpopProofsAccepted = 0
        /// DPoP proofs refused (`invalid_dpop_proof`): a bad signature, method, URI, `iat`,
        /// `ath`, or a replay.
        public var dpopProofsRefused = 0
        /// DPoP proofs refused because their `jti` had been seen before (counted in
        /// ``dpopProofsRefused`` too).
        public var dpopReplays = 0
        /// `use_dpop_nonce` challenges answered (a proof without a live nonce while
        /// ``ReferenceAuthServer/Configuration/requiresDPoPNonce`` is on).
        public var dpopNonceChallenges = 0
        /// Requests refused because a DPoP-bound access token came without a valid proof of its
        /// key: as a bearer token, with no proof, or with another key's proof.
        public var boundTokenMisuses = 0
        /// Sign-ins refused with 429 by the failed-sign-in limits.
        public var rateLimitedLogins = 0
        /// Every request the server answered, on any path.
        public var requests = 0
        /// TLS connections that reached HTTP (each after a completed handshake), HTTP/1.1 and
        /// HTTP/2.
        public var connections = 0
        /// Connections that negotiated HTTP/2.
        public var http2Connections = 0
        /// HTTP/2 streams the clients opened.
        public var http2Streams = 0

        /// All counters at zero.
        public init() {}
    }
}
#endif
