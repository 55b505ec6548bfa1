import Foundation
public import SecureHTTP
public import TokenAuth

/// Why an API call failed.
///
/// The ``message`` is written by the library, says why in one line (a transport failure carries
/// the transport's reason, and a refused certificate the trust reason: "the request failed:
/// localhost is not trusted: …") and never contains the server's text, a token, a header value or
/// a body. For the user, ask ``userMessage``, a sentence written in advance for the situation (a
/// wrong password, an ended session, a timeout, an unreachable server, a refused certificate), or
/// ``userMessage(_:)`` with an app's own ``UserMessageCatalog``. The only thing taken from an
/// error body is ``serverErrorCode``, and only when it looks like a code (`invalid_credentials`),
/// never prose.
public struct APIError: Error, Sendable, CustomStringConvertible {
    /// A stable error code.
    ///
    /// `Code` is a struct with static members, not an enum, so that codes can be added without
    /// breaking anyone's code. Compare with `==` (`error.code == .signedOut`), or `switch` over it
    /// with `case .signedOut:` patterns (they match through `~=`, as for any `Equatable` value); a
    /// `switch` then needs a `default:` case:
    ///
    /// ```swift
    /// switch error.code {
    /// case .signedOut, .invalidCredentials: showSignIn()
    /// case .transportFailure: showOffline(error.userMessage)
    /// default: showAlert(error.userMessage)
    /// }
    /// ```
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Base: String, Sendable {
            case invalidRequest, signedOut, invalidCredentials, authenticationFailed
            case badRequest, unauthorized, forbidden, notFound, conflict, unprocessable, rateLimited
            case clientError, serverError, unexpectedStatus
            case unexpectedContentType, decodingFailed, transportFailure, cancelled
        }

        let base: Base

        /// A description of the code.
        public var description: String { self.base.rawValue }

        /// The request could not be built: a bad header value, a body that does not encode, an
        /// interceptor that refused it, or a call that needs a session on a client without one.
        public static let invalidRequest = Code(base: .invalidRequest)
        /// There is no session, or it ended (the refresh token was refused, inactivity). Sign in again.
        public static let signedOut = Code(base: .signedOut)
        /// The sign-in was refused: the server answered 401, or 400 without an error code or with
        /// `invalid_credentials` or `invalid_grant` (``APIError/status`` and
        /// ``APIError/serverErrorCode`` say which). Set only by
        /// ``SecureAPIClient/signIn(_:)``; the user should check what they typed.
        public static let invalidCredentials = Code(base: .invalidCredentials)
        /// A valid token could not be obtained for a transient reason (the token endpoint was
        /// unreachable or answered 5xx); the session is kept.
        public static let authenticationFailed = Code(base: .authenticationFailed)
        /// 400.
        public static let badRequest = Code(base: .badRequest)
        /// 401, after the one refresh-and-retry (or for a request that carried no token). The
        /// session is kept: the server refused this request, not the session (compare
        /// ``signedOut``).
        public static let unauthorized = Code(base: .unauthorized)
        /// 403.
        public static let forbidden = Code(base: .forbidden)
        /// 404.
        public static let notFound = Code(base: .notFound)
        /// 409.
        public static let conflict = Code(base: .conflict)
        /// 422.
        public static let unprocessable = Code(base: .unprocessable)
        /// 429 (``APIError/retryAfter`` holds the server's wish when it gave one).
        public static let rateLimited = Code(base: .rateLimited)
        /// Any other 4xx.
        public static let clientError = Code(base: .clientError)
        /// 5xx.
        public static let serverError = Code(base: .serverError)
        /// A 1xx or 3xx that was not followed.
        public static let unexpectedStatus = Code(base: .unexpectedStatus)
        /// A 2xx whose content type is not one the request accepts.
        public static let unexpectedContentType = Code(base: .unexpectedContentType)
        /// A 2xx body that does not decode, or breaks a ``ValidatedResponse`` constraint.
        public static let decodingFailed = Code(base: .decodingFailed)
        /// The transport failed: policy, trust, TLS, connection, deadline or size limit. See
        /// ``APIError/transportError``.
        public static let transportFailure = Code(base: .transportFailure)
        /// The task was cancelled.
        public static let cancelled = Code(base: .cancelled)
    }

    /// What went wrong.
    public let code: Code
    /// The HTTP status, for errors that come from a response.
    public let status: Int?
    /// A description written by the library; it names what failed, never a secret.
    public let message: String
    /// The error code of a JSON error body (`code`, `error` or `error_code`), when it is a
    /// short identifier (letters, digits, `_`, `-`, `.`; at most 64 characters); the same code
    /// ``UserMessageCatalog`` looks up.
    public let serverErrorCode: String?
    /// How long the server asked the client to wait (`Retry-After`), if it said.
    public let retryAfter: Duration?
    /// The transport's error, for ``Code/transportFailure`` (and token-endpoint failures).
    public let transportError: SecureHTTPError?
    /// The token manager's error, for ``Code/signedOut`` and ``Code/authenticationFailed``.
    public let authenticationError: TokenAuthError?
    /// The decoding or validation error, for ``Code/decodingFailed``.
    public let validationError: ValidationError?
    /// How many attempts the request took before it failed: 1 when it was not retried; a 401 →
    /// refresh → retry, and each retry after a transient failure, count as one more.
    public internal(set) var attempts: Int = 1

    /// Creates an error.
    public init(
        _ code: Code,
        _ message: String,
        status: Int? = nil,
        serverErrorCode: String? = nil,
        retryAfter: Duration? = nil,
        transportError: SecureHTTPError? = nil,
        authenticationError: TokenAuthError? = nil,
        validationError: ValidationError? = nil
    ) {
        self.code = code
        self.message = message
        self.status = status
        self.serverErrorCode = serverErrorCode
        self.retryAfter = retryAfter
        self.transportError = transportError
        self.authenticationError = authenticationError
        self.validationError = validationError
    }

    /// A sentence for the user from the standard ``UserMessageCatalog``: "The e-mail or password
    /// is wrong.", "Your session has ended. Please sign in again.", "The server took too long to
    /// answer. Please try again.", and so on. Never the server's text.
    public var userMessage: String { self.userMessage(UserMessageCatalog()) }

    /// A sentence for the user, chosen from `catalog`: by ``serverErrorCode`` when the catalog
    /// knows it; else for the situation the library recognised (see
    /// ``UserMessageCatalog/Situation``: a refused sign-in, an ended session, a timeout, an
    /// unreachable server, a connection that could not be made secure); else by status; else the
    /// catalog's fallback.
    ///
    /// - Parameter catalog: the sentences to choose from; the standard ones by default.
    public func userMessage(_ catalog: UserMessageCatalog = UserMessageCatalog()) -> String {
        if let code = self.serverErrorCode, let message = catalog.messages[code] { return message }
        if let situation = self.situation, let message = catalog.situationMessages[situation] { return message }
        if let status = self.status {
            if let message = catalog.statusMessages[status] { return message }
            if (500...599).contains(status), let message = catalog.statusMessages[500] { return message }
        }
        return catalog.fallback
    }

    /// The situation the code (and the transport's or token manager's error) tells, when it is one
    /// a user needs told apart.
    var situation: UserMessageCatalog.Situation? {
        switch self.code {
        case .signedOut: return .signedOut
        case .invalidCredentials: return .invalidCredentials
        case .transportFailure, .authenticationFailed:
            return self.transportError.flatMap { Self.situation(for: $0.code) }
        default: return nil
        }
    }

    /// What a transport failure means for the user.
    static func situation(for code: SecureHTTPError.Code) -> UserMessageCatalog.Situation? {
        switch code {
        case .deadlineExceeded, .tlsHandshakeTimeout: .timedOut
        case .connectFailed, .connectTimeout, .proxyRefused: .unreachable
        case .connectionClosed, .streamReset, .requestNotProcessed: .connectionLost
        case .serverTrustFailure, .policyViolation, .insecureRedirect, .tlsVersionRefused, .cipherSuiteRefused,
            .tlsHandshakeFailure, .clientCertificateRequired, .tlsFailure, .invalidClientIdentity:
            .insecureConnection
        default: nil
        }
    }

    /// `code (status): message`.
    public var description: String {
        var text = "APIError.\(self.code)"
        if let status = self.status { text += " (\(status))" }
        if let serverCode = self.serverErrorCode { text += " [\(serverCode)]" }
        return "\(text): \(self.message)"
    }

    /// The code for an HTTP status that is not 2xx.
    static func code(forStatus status: Int) -> Code {
        switch status {
        case 400: .badRequest
        case 401: .unauthorized
        case 403: .forbidden
        case 404: .notFound
        case 409: .conflict
        case 422: .unprocessable
        case 429: .rateLimited
        case 400...499: .clientError
        case 500...599: .serverError
        default: .unexpectedStatus
        }
    }

    /// Maps a token manager error: terminal ones mean the session is gone. The message says why,
    /// in the library's words (never the token endpoint's `error_description`).
    static func authentication(_ error: TokenAuthError) -> APIError {
        if error.isTerminal || error.code == .signedOut {
            return APIError(
                .signedOut,
                "the session has ended: \(Self.reason(error)); sign in again",
                authenticationError: error
            )
        }
        return APIError(
            .authenticationFailed,
            "a valid access token could not be obtained: \(Self.reason(error))",
            transportError: error.transportError,
            authenticationError: error
        )
    }

    /// Maps a transport error; the message carries the transport's reason, and for a refused
    /// server or URL the ServerTrust reason too.
    static func transport(_ error: SecureHTTPError) -> APIError {
        if error.code == .cancelled {
            return APIError(.cancelled, "the request was cancelled", transportError: error)
        }
        return APIError(.transportFailure, "the request failed: \(error.explanation)", transportError: error)
    }

    /// Turns the failure of a sign-in request into the error ``SecureAPIClient/signIn(_:)``
    /// throws: a 401, or a 400 without a code or with `invalid_credentials` or `invalid_grant`,
    /// becomes ``Code/invalidCredentials`` (its ``userMessage`` is "The e-mail or password is
    /// wrong."); any other error is returned unchanged.
    static func signInFailed(_ error: APIError) -> APIError {
        let refused: Bool
        switch (error.status, error.serverErrorCode) {
        case (401, _): refused = true
        case (400, nil), (400, "invalid_credentials"), (400, "invalid_grant"): refused = true
        default: refused = false
        }
        guard refused, let status = error.status,
            error.code == .unauthorized || error.code == .badRequest
        else { return error }
        var mapped = APIError(
            .invalidCredentials,
            "the sign-in was refused: the server answered \(status)\(error.serverErrorCode.map { " (\($0))" } ?? "")",
            status: status,
            serverErrorCode: error.serverErrorCode,
            retryAfter: error.retryAfter
        )
        mapped.attempts = error.attempts
        return mapped
    }

    /// Why the token manager failed, in the library's words. Messages of the codes that may
    /// quote the token endpoint (its `error_description`, a token type) are replaced with a
    /// sentence of ours; the OAuth code is kept when it is a short identifier.
    static func reason(_ error: TokenAuthError) -> String {
        let oauth = error.oauthError.flatMap { UserMessageCatalog.isIdentifier($0) ? " (\($0))" : nil } ?? ""
        switch error.code {
        case .transportFailure:
            guard let transport = error.transportError else { return error.message }
            return "\(error.message): \(transport.explanation)"
        case .invalidGrant: return "the token endpoint refused the grant\(oauth)"
        case .invalidClient: return "the token endpoint refused the client\(oauth)"
        case .authorizationRejected: return "the authorization server refused the request\(oauth)"
        case .proofOfPossessionFailed where error.oauthError != nil:
            return "the token endpoint refused the DPoP proof\(oauth)"
        case .invalidResponse: return "the token endpoint's answer is not a token response\(oauth)"
        case .storageFailure:
            guard let storage = error.storageError else { return error.message }
            return "\(error.message): \(storage.message)"
        default: return error.message
        }
    }
}
