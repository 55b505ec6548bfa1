import Foundation
public import SecureHTTP
public import TokenAuth

/// Why an API call failed.
///
/// The ``message`` is written by the library and never contains the server's text, a token, a
/// header value or a body. For the user, ask ``userMessage(_:)``, which picks a sentence written in
/// advance from a ``UserMessageCatalog``. The only thing taken from an error body is
/// ``serverErrorCode``, and only when it looks like a code (`invalid_credentials`), never prose.
public struct APIError: Error, Sendable, CustomStringConvertible {
    /// A stable error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Base: String, Sendable {
            case invalidRequest, signedOut, authenticationFailed
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
        /// A valid token could not be obtained for a transient reason (the token endpoint was
        /// unreachable or answered 5xx); the session is kept.
        public static let authenticationFailed = Code(base: .authenticationFailed)
        /// 400.
        public static let badRequest = Code(base: .badRequest)
        /// 401, after the one refresh-and-retry (or for a request that carried no token).
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

    /// A sentence for the user, chosen from `catalog`: by ``serverErrorCode`` when the catalog
    /// knows it, else by status, else a plain sentence for the code.
    public func userMessage(_ catalog: UserMessageCatalog = UserMessageCatalog()) -> String {
        if let code = self.serverErrorCode, let message = catalog.messages[code] { return message }
        if let status = self.status {
            if let message = catalog.statusMessages[status] { return message }
            if (500...599).contains(status), let message = catalog.statusMessages[500] { return message }
        }
        switch self.code {
        case .signedOut: return catalog.statusMessages[401] ?? catalog.fallback
        case .transportFailure:
            if self.transportError?.code == .serverTrustFailure || self.transportError?.code == .policyViolation {
                return "A secure connection to the server could not be established."
            }
            return "The server could not be reached. Please check your connection and try again."
        default: return catalog.fallback
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

    /// Maps a token manager error: terminal ones mean the session is gone.
    static func authentication(_ error: TokenAuthError) -> APIError {
        if error.isTerminal || error.code == .signedOut {
            return APIError(
                .signedOut,
                "the session has ended (\(error.code)); sign in again",
                authenticationError: error
            )
        }
        return APIError(
            .authenticationFailed,
            "a valid access token could not be obtained (\(error.code))",
            transportError: error.transportError,
            authenticationError: error
        )
    }

    /// Maps a transport error.
    static func transport(_ error: SecureHTTPError) -> APIError {
        if error.code == .cancelled {
            return APIError(.cancelled, "the request was cancelled", transportError: error)
        }
        return APIError(.transportFailure, "the request failed in the transport: \(error.code)", transportError: error)
    }
}
