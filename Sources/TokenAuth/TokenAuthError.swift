public import SecureHTTP
public import SecureStorage

/// An error from TokenAuth.
///
/// ``isTerminal`` tells the two families apart: a terminal error means the session is over (the
/// tokens were cleared and a signed-out event was emitted); any other error left the tokens in
/// place, and the call may be retried later. Messages never hold a token, a password or a
/// client secret.
public struct TokenAuthError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier of what went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case signedOut, invalidGrant, invalidClient, authorizationRejected
            case transportFailure, serverError, invalidResponse, refreshLoop, storageFailure
            case invalidAuthorizationResponse, authorizationCancelled, proofOfPossessionFailed
            case dpopNonceRejected, sessionLocked
            // issue 51 item 7
            case sessionChanged
        }

        fileprivate let base: Base

        /// The text form of the code, stable across releases.
        public var description: String { self.base.rawValue }

        /// There is no session: never signed in, signed out, or ended by inactivity.
        public static let signedOut = Code(base: .signedOut)
        /// The token endpoint answered `invalid_grant`: the refresh token (or the password) is
        /// no longer valid. Terminal.
        public static let invalidGrant = Code(base: .invalidGrant)
        /// The token endpoint answered `invalid_client`. Terminal.
        public static let invalidClient = Code(base: .invalidClient)
        /// Another 400 or 401 from the token endpoint (`unauthorized_client`, `invalid_scope`,
        /// `invalid_request`, …). Terminal.
        public static let authorizationRejected = Code(base: .authorizationRejected)
        /// The token endpoint could not be reached or trusted (network, timeout, TLS, pins);
        /// see ``TokenAuthError/transportError``. Tokens are kept.
        public static let transportFailure = Code(base: .transportFailure)
        /// The token endpoint answered 5xx or 429. Tokens are kept.
        public static let serverError = Code(base: .serverError)
        /// The token endpoint's answer was not a valid token response. Tokens are kept.
        public static let invalidResponse = Code(base: .invalidResponse)
        /// More refreshes in a short window than the configured limit: a refresh loop was
        /// stopped. Tokens are kept.
        public static let refreshLoop = Code(base: .refreshLoop)
        /// The secure store failed; see ``TokenAuthError/storageError``.
        public static let storageFailure = Code(base: .storageFailure)
        /// An authorization redirect (RFC 6749 §4.1.2) that must not be used: no `state`, a
        /// `state` that is not the request's (a forged or replayed response, RFC 6749 §10.12),
        /// no `code`, or another redirect URI. The code in it is never exchanged.
        public static let invalidAuthorizationResponse = Code(base: .invalidAuthorizationResponse)
        /// The user closed the sign-in page (an in-app browser session's cancel): nothing to
        /// report to the user as a failure.
        public static let authorizationCancelled = Code(base: .authorizationCancelled)
        /// DPoP (RFC 9449) failed: a proof could not be made (a key that cannot sign, a request
        /// without an absolute URI), or the token endpoint refused the proof
        /// (`invalid_dpop_proof`, §5). Not terminal: the tokens are kept.
        public static let proofOfPossessionFailed = Code(base: .proofOfPossessionFailed)
        /// The server kept answering `use_dpop_nonce` (RFC 9449 §8, §9): it refused the proofs
        /// made with the nonces it supplied more than ``DPoPNonceRetry/maximumRetries`` times for
        /// one request, or asked for a nonce without supplying a valid one. A nonce problem, not
        /// a token problem: the tokens are kept and were not refreshed.
        public static let dpopNonceRejected = Code(base: .dpopNonceRejected)
        /// The session is locked (``TokenManager/lock()``): its tokens are kept in the store, and
        /// nothing is handed out until ``TokenManager/unlock()`` has read them again (through the
        /// store's user-presence gate, when it has one). Not terminal.
        public static let sessionLocked = Code(base: .sessionLocked)
        // issue 51 item 7
        /// Another sign-in (``TokenManager/signIn(_:)``) replaced the session a request belongs
        /// to while the request was on its way: it is sent with neither session's token. Not
        /// terminal: the session now in place is kept.
        public static let sessionChanged = Code(base: .sessionChanged)
    }

    /// What went wrong, as a stable code.
    public let code: Code
    /// A short explanation for people; it never holds a secret.
    public let message: String
    /// The OAuth 2 `error` value from the token endpoint (RFC 6749 §5.2), when there was one.
    public let oauthError: String?
    /// The transport's error, for ``Code/transportFailure``.
    public let transportError: SecureHTTPError?
    /// The store's error, for ``Code/storageFailure``.
    public let storageError: SecureStoreError?
    /// For ``Code/serverError``: how long the token endpoint asked the client to wait
    /// (`Retry-After` on a 429 or 503); a ``TokenManager`` does not call it again before then.
    public let retryAfter: Duration?

    /// Creates an error. Never put a token, password or secret in `message`.
    public init(
        _ code: Code,
        _ message: String,
        oauthError: String? = nil,
        transportError: SecureHTTPError? = nil,
        storageError: SecureStoreError? = nil,
        retryAfter: Duration? = nil
    ) {
        self.retryAfter = retryAfter
        self.code = code
        self.message = message
        self.oauthError = oauthError
        self.transportError = transportError
        self.storageError = storageError
    }

    /// Whether the session is over: the tokens are cleared and the user must sign in again.
    public var isTerminal: Bool {
        [.signedOut, .invalidGrant, .invalidClient, .authorizationRejected].contains(self.code)
    }

    /// `code: message`.
    public var description: String {
        if let transportError { return "\(self.code): \(self.message): \(transportError)" }
        if let storageError { return "\(self.code): \(self.message): \(storageError)" }
        return "\(self.code): \(self.message)"
    }

    public static func == (lhs: TokenAuthError, rhs: TokenAuthError) -> Bool {
        lhs.code == rhs.code
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.code)
    }

    static func storage(_ error: SecureStoreError, _ what: String) -> TokenAuthError {
        TokenAuthError(.storageFailure, what, storageError: error)
    }
}
