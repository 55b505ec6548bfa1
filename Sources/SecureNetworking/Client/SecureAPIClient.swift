import Foundation
import HTTPTypes
import Logging
public import SecureHTTP
import SecureNetworkingInternal
import SecureStorage
public import TokenAuth

/// The API client an app talks to: typed requests over a policy-checked, pinned transport, with
/// the session's access token attached, refreshed once when it expires, and a 401 retried once.
///
/// One call, end to end:
/// 1. the path and query are percent-encoded (RFC 3986) under ``Configuration/baseURL``; the body
///    is encoded (JSON with snake_case keys by default); header values are checked for CR/LF;
/// 2. for a request that ``Request/requiresAuthentication``, the `TokenManager` hands out a
///    valid token (one refresh at a time, ahead of expiry);
/// 3. interceptors adapt the request; the transport enforces the policy, validates the chain and
///    pins in the TLS handshake, follows safe redirects and bounds the body;
/// 4. a 401 to the current token → one refresh → one retry; a refused refresh token ends the
///    session (``APIError/Code/signedOut``). A 401 from another origin (after a redirect the
///    token did not follow) refreshes nothing; a further 401 to a token that was replaced or
///    expired while the request waited is retried with the current one (at most twice);
/// 5. idempotent requests are retried on 408/429/502/503/504 and connection failures, with
///    exponential backoff and jitter, honouring `Retry-After`;
/// 6. a 2xx is checked for its content type and decoded; anything else becomes an ``APIError``
///    with its status and a code, never the server's text.
///
/// ```swift
/// let client = try SecureAPIClient(configuration: .init(
///     baseURL: URL(string: "https://api.example.com/")!,
///     policy: policy,
///     authentication: .oauth(client: .publicClient(id: "ios-app"), store: store)))
/// let profile = try await client.send(Request<Profile>.get("user/profile"))
/// await client.shutdown()
/// ```
public final class SecureAPIClient: Sendable {
    /// The configuration the client was made with.
    public let configuration: Configuration
    /// The transport every request (the token endpoint's included) goes through.
    public let transport: any HTTPTransport
    /// The session's tokens, when the client has ``Configuration/authentication``.
    public let tokens: TokenManager?
    /// The DPoP signer, when the session's tokens are DPoP-bound (RFC 9449).
    public let dpop: DPoPSigner?
    private let ownedTransport: OwnedTransport?
    private let logger: Logger
    /// Whether ``shutdown()`` was called (read by the debug-build check in `deinit`).
    private let wasShutDown = Locked(false)

    /// A transport the client built, and so shuts down.
    enum OwnedTransport: Sendable {
        case nio(NIOHTTPTransport)
        #if canImport(Security)
        case urlSession(URLSessionTransport)
        #endif
    }

    /// Creates a client with its own transport, the one ``Configuration/engine`` names
    /// (`URLSessionTransport` by default on Apple platforms, `NIOHTTPTransport` elsewhere);
    /// call ``shutdown()`` when done.
    ///
    /// - Throws: ``APIError/Code/invalidRequest`` when the base URL is not absolute `https` or
    ///   `http`, or ``APIError/Code/transportFailure`` when the transport cannot be built (a
    ///   client identity that cannot be loaded, such as a PEM identity with the URLSession
    ///   engine).
    public convenience init(configuration: Configuration) throws(APIError) {
        let transport: any HTTPTransport
        let owned: OwnedTransport
        do throws(SecureHTTPError) {
            switch configuration.engine.kind {
            case .nio:
                let nio = try NIOHTTPTransport(configuration: configuration.transport)
                (transport, owned) = (nio, .nio(nio))
            case .urlSession(let maximumSessions):
                #if canImport(Security)
                let urlSession = try URLSessionTransport(
                    configuration: configuration.transport,
                    maximumSessions: maximumSessions
                )
                (transport, owned) = (urlSession, .urlSession(urlSession))
                #else
                // Unreachable: `Engine.urlSession` exists only where Security does.
                _ = maximumSessions
                throw SecureHTTPError(.policyViolation, "URLSessionTransport needs an Apple platform")
                #endif
            }
        } catch {
            throw APIError.transport(error)
        }
        try self.init(configuration: configuration, transport: transport, owned: owned)
    }

    /// Creates a client on a transport the app owns (such as `URLSessionTransport` on Apple
    /// platforms). ``Configuration/transport`` and ``Configuration/engine`` are not used to
    /// build anything in this case.
    public convenience init(configuration: Configuration, transport: any HTTPTransport) throws(APIError) {
        try self.init(configuration: configuration, transport: transport, owned: nil)
    }

    private init(configuration: Configuration, transport: any HTTPTransport, owned: OwnedTransport?) throws(APIError) {
        guard let scheme = configuration.baseURL.scheme?.lowercased(), scheme == "https" || scheme == "http",
            configuration.baseURL.host != nil
        else {
            throw APIError(.invalidRequest, "the base URL must be an absolute https URL")
        }
        self.configuration = configuration
        self.transport = transport
        self.ownedTransport = owned
        self.logger =
            configuration.logger
            ?? Logger(label: "SecureNetworking.SecureAPIClient", factory: { _ in SwiftLogNoOpLogHandler() })
        self.dpop = configuration.authentication?.dpop
        switch configuration.authentication?.source {
        case .none:
            self.tokens = nil
        case .manager(let manager):
            self.tokens = manager
        case .oauth(
            let path,
            let revocation,
            let client,
            let encoding,
            let store,
            let managerConfiguration,
            let now
        ):
            let url = try URLBuilder.url(base: configuration.baseURL, path: path)
            let endpointRevocation: OAuthTokenEndpoint.Revocation
            switch revocation.kind {
            case .path(let revocationPath):
                endpointRevocation = .at(try URLBuilder.url(base: configuration.baseURL, path: revocationPath))
            case .advertised:
                endpointRevocation = .advertised
            case .none:
                endpointRevocation = .none
            }
            let endpoint = OAuthTokenEndpoint(
                url: url,
                transport: transport,
                client: client,
                encoding: encoding,
                revocation: endpointRevocation,
                dpop: configuration.authentication?.dpop
            )
            self.tokens = TokenManager(store: store, refresher: endpoint, configuration: managerConfiguration, now: now)
        }
    }

    /// Checks, in debug builds, that a client that built its own transport was shut down: a
    /// dropped `NIOHTTPTransport` keeps its connections open until the process ends.
    deinit {
        #if DEBUG
        if let warning = Self.releaseWarning(
            ownsTransport: self.ownedTransport != nil,
            wasShutDown: self.wasShutDown.withLock { $0 }
        ) {
            self.logger.warning("\(warning)")
            FileHandle.standardError.write(Data("SecureNetworking: \(warning)\n".utf8))
        }
        #endif
    }

    /// The debug-build warning for a client released in this state, if any.
    static func releaseWarning(ownsTransport: Bool, wasShutDown: Bool) -> String? {
        guard ownsTransport, !wasShutDown else { return nil }
        return
            "a SecureAPIClient was released without shutdown(): its transport's connections stay open until the process ends; call shutdown() or use withSecureAPIClient"
    }

    /// Shuts down the transport the client created (a no-op for an app-owned transport).
    public func shutdown() async {
        self.wasShutDown.withLock { $0 = true }
        switch self.ownedTransport {
        case .nio(let transport):
            await transport.shutdown()
        #if canImport(Security)
        case .urlSession(let transport):
            transport.invalidate()
        #endif
        case nil:
            break
        }
    }

    /// Sends `request` and returns its decoded value.
    ///
    /// - Throws: ``APIError``.
    public func send<Response>(_ request: Request<Response>) async throws(APIError) -> Response {
        try await self.response(for: request).value
    }

    /// Sends `request` and returns its decoded value with the status and header fields.
    ///
    /// - Throws: ``APIError``.
    public func response<Response>(for request: Request<Response>) async throws(APIError) -> APIResponse<Response> {
        try await self.response(for: request, provesKeyWithoutToken: false)
    }

    /// ``response(for:)``; with `provesKeyWithoutToken` (a sign-in request, when the client has
    /// a DPoP signer), the request carries a DPoP proof without `ath`, so the tokens it is
    /// answered with are bound to the key; `redirects` replaces the transport's redirect rules
    /// (a sign-in follows none).
    private func response<Response>(
        for request: Request<Response>,
        provesKeyWithoutToken: Bool,
        redirects: RedirectPolicy? = nil
    ) async throws(APIError) -> APIResponse<Response> {
        var attempt = 1
        do {
            return try await self.response(
                for: request,
                provesKeyWithoutToken: provesKeyWithoutToken,
                redirects: redirects,
                attempt: &attempt
            )
        } catch {
            var failure = error
            failure.attempts = attempt
            throw failure
        }
    }

    /// ``response(for:provesKeyWithoutToken:redirects:)``, counting its attempts in `attempt`. The token
    /// parts (binding, DPoP proof, nonce challenge, 401) are the ``TokenAuth/AuthenticatedTransport``'s;
    /// the failures it hands back are retried here with backoff.
    private func response<Response>(
        for request: Request<Response>,
        provesKeyWithoutToken: Bool,
        redirects: RedirectPolicy?,
        attempt: inout Int
    ) async throws(APIError) -> APIResponse<Response> {
        var prepared = try self.prepare(request)
        prepared.redirects = redirects
        // prepare() refused the request when tokens is nil.
        let use: AuthenticatedTransport.Use? =
            request.requiresAuthentication ? .token : (provesKeyWithoutToken && self.dpop != nil ? .keyProof : nil)
        var state = AuthenticatedTransport.State()
        while true {
            let error: APIError
            switch try await self.exchange(prepared, use: use, state: &state, attempt: &attempt) {
            case .failure(let failure):
                error = failure
            case .success(let response):
                let status = response.response.status.code
                self.logger.debug("← \(status) \(request.method.rawValue) \(prepared.logPath)")
                if (200...299).contains(status) {
                    let value = try self.decode(response, for: request)
                    return APIResponse(
                        value: value,
                        status: response.response.status,
                        headerFields: response.response.headerFields,
                        attempts: attempt
                    )
                }
                error = self.statusError(response)
            }
            guard
                let delay = await self.retryDelay(after: error, request: request, head: prepared.head, attempt: attempt)
            else {
                throw error
            }
            self.logger.debug("retrying \(request.method.rawValue) \(prepared.logPath) after \(error.code) in \(delay)")
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw APIError(.cancelled, "the request was cancelled while waiting to retry")
            }
            attempt += 1
        }
    }

    /// Signs in with a login request that answers with OAuth-style tokens (`access_token`,
    /// `expires_in`, `refresh_token`), stores them in the token manager and returns the bundle.
    ///
    /// The request is sent without a token; its JSON answer is read with the RFC 6749 field
    /// names whatever the client's key strategy.
    ///
    /// Like a token endpoint's request (`HTTPRequestOptions.tokenEndpoint`), it follows no
    /// redirect: the credentials are never re-sent elsewhere, and a token answer from an origin
    /// the login route redirected to (an open redirect handing the app an attacker's session, a
    /// login CSRF) is never taken. A 3xx is thrown as ``APIError/Code/unexpectedStatus``.
    ///
    /// - Throws: ``APIError``; ``APIError/Code/invalidCredentials`` when the server refused the
    ///   credentials (a 401, or a 400 `invalid_credentials`, `invalid_grant` or without a
    ///   code); ``APIError/Code/unexpectedStatus`` with the status for a redirect;
    ///   ``APIError/Code/invalidRequest`` when the client has no ``Configuration/authentication``.
    @discardableResult
    public func signIn(_ request: Request<TokenResponse>) async throws(APIError) -> TokenBundle {
        guard let tokens = self.tokens else {
            throw APIError(.invalidRequest, "the client has no authentication configured")
        }
        var raw = Request<Data>(
            request.method,
            pathSegments: request.pathSegments,
            query: request.query,
            headers: request.headerFields,
            body: request.body,
            requiresAuthentication: false
        )
        raw.isIdempotent = request.isIdempotent
        raw.acceptedContentTypes = request.acceptedContentTypes
        raw.timeout = request.timeout
        let answer: APIResponse<Data>
        do {
            answer = try await self.response(
                for: raw,
                provesKeyWithoutToken: self.dpop != nil,
                redirects: RedirectPolicy.none
            )
        } catch {
            // A refusal of the credentials is not a session that ended (`invalidCredentials`).
            throw APIError.signInFailed(error)
        }
        let tokenResponse: TokenResponse
        do {
            try Self.checkContentType(answer.headerFields, accepted: raw.acceptedContentTypes)
            tokenResponse = try JSONDecoder().decode(TokenResponse.self, from: answer.value)
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(.decodingFailed, "the sign-in answer is not a token response")
        }
        if self.dpop != nil, !tokenResponse.isDPoPBound {
            // RFC 9449 §5: a client that proved its key may discard a Bearer token; this one does.
            throw APIError(
                .decodingFailed,
                "the sign-in answered a \(tokenResponse.tokenType.prefix(20)) token to a request with a DPoP proof; only a DPoP-bound token is accepted"
            )
        }
        let bundle = TokenBundle(tokenResponse, receivedAt: self.configuration.now())
        do {
            try await tokens.signIn(bundle)
        } catch {
            throw APIError.authentication(error)
        }
        return bundle
    }

    /// Ends the session: the tokens are removed from the store.
    public func signOut() async {
        await self.tokens?.signOut()
    }

    // MARK: - Steps

    struct Prepared {
        var head: HTTPRequest
        var body: Data?
        var logPath: String
        var timeout: Duration?
        /// The redirect rules of the request; nil: the transport's.
        var redirects: RedirectPolicy?
    }

    private func prepare<Response>(_ request: Request<Response>) throws(APIError) -> Prepared {
        let target = try URLBuilder.target(
            base: self.configuration.baseURL,
            segments: request.pathSegments,
            query: request.query
        )
        var head = HTTPRequest(method: request.method, url: self.configuration.baseURL)
        head.path = target.pathAndQuery
        head.headerFields = request.headerFields
        if head.headerFields[.accept] == nil, Self.decodesJSON(Response.self) {
            head.headerFields[.accept] = "application/json"
        }
        var body: Data?
        if let requestBody = request.body {
            let (data, contentType) = try self.encode(requestBody)
            body = data
            if head.headerFields[.contentType] == nil {
                do {
                    try head.headerFields.setChecked(name: .contentType, value: contentType)
                } catch {
                    throw APIError(
                        .invalidRequest,
                        "the body's content type is not a valid header value",
                        transportError: error
                    )
                }
            }
        }
        if request.requiresAuthentication, self.tokens == nil {
            throw APIError(.invalidRequest, "the request requires authentication but the client has none configured")
        }
        return Prepared(head: head, body: body, logPath: target.path, timeout: request.timeout)
    }

    private func encode(_ body: RequestBody) throws(APIError) -> (Data, String) {
        switch body.storage {
        case .data(let data, let contentType):
            return (data, contentType)
        case .form(let items):
            return (Data(URLBuilder.formEncoded(items).utf8), "application/x-www-form-urlencoded")
        case .json(let value):
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = self.configuration.keyEncodingStrategy
            encoder.dateEncodingStrategy = self.configuration.dateEncodingStrategy
            do {
                return (try encoder.encode(value), "application/json")
            } catch {
                throw APIError(.invalidRequest, "the request body could not be encoded as JSON")
            }
        }
    }

    /// One attempt (with the token retries the authenticated transport makes inside it): the
    /// response to judge, or a failure the backoff may answer. A cancellation, a failed proof and
    /// a failed refresh are thrown at once.
    private func exchange(
        _ prepared: Prepared,
        use: AuthenticatedTransport.Use?,
        state: inout AuthenticatedTransport.State,
        attempt: inout Int
    ) async throws(APIError) -> Result<HTTPTransportResponse, APIError> {
        var options = HTTPRequestOptions(redirects: prepared.redirects)
        options.timeout = prepared.timeout
        guard let use, let tokens = self.tokens else {
            let head = try await self.adapted(
                prepared.head,
                body: prepared.body,
                logPath: prepared.logPath,
                attempt: attempt
            )
            do {
                return .success(try await self.transport.send(head, body: prepared.body, options: options))
            } catch {
                return try Self.transportFailure(error)
            }
        }
        let authenticated = AuthenticatedTransport(self.transport, tokens: tokens, dpop: self.dpop)
        do {
            return .success(
                try await authenticated.send(
                    prepared.head,
                    body: prepared.body,
                    options: options,
                    use: use,
                    state: &state,
                    attempts: &attempt
                ) { head, attempt in
                    // Interceptors run for every attempt, a token retry's included.
                    try await self.adapted(head, body: prepared.body, logPath: prepared.logPath, attempt: attempt)
                }
            )
        } catch {
            switch error {
            case .transport(let failure):
                return try Self.transportFailure(failure)
            case .proof(let failure):
                throw APIError(
                    .authenticationFailed,
                    "the DPoP proof for the request could not be made",
                    transportError: failure
                )
            case .authentication(let failure):
                self.logger.debug("a valid access token could not be obtained: \(failure.code)")
                throw APIError.authentication(failure)
            case .nonceRejected(let failure, let status):
                throw APIError(
                    .authenticationFailed,
                    "the server kept refusing the DPoP proof's nonce (\(failure.code)); the tokens were kept",
                    status: status,
                    authenticationError: failure
                )
            case .invalidToken(let failure):
                throw APIError(.invalidRequest, "the access token is not a valid header value", transportError: failure)
            case .prepare(let failure as APIError):
                throw failure
            case .prepare:
                throw APIError(.invalidRequest, "the request could not be prepared")
            }
        }
    }

    /// A transport failure the backoff may answer; a cancellation is thrown at once.
    private static func transportFailure(
        _ error: SecureHTTPError
    ) throws(APIError) -> Result<HTTPTransportResponse, APIError> {
        let failure = APIError.transport(error)
        if failure.code == .cancelled { throw failure }
        return .failure(failure)
    }

    /// The head of one attempt: the interceptors' adaptation of `head` (the prepared request,
    /// with the token the authenticated transport sends it with).
    private func adapted(
        _ head: HTTPRequest,
        body: Data?,
        logPath: String,
        attempt: Int
    ) async throws(APIError) -> HTTPRequest {
        if Task.isCancelled { throw APIError(.cancelled, "the request was cancelled") }
        var head = head
        for interceptor in self.configuration.interceptors {
            do {
                try await interceptor.adapt(&head, body: body)
            } catch {
                throw APIError(.invalidRequest, "an interceptor refused the request")
            }
        }
        self.logger.debug("→ \(head.method.rawValue) \(logPath) (attempt \(attempt))")
        return head
    }

    private func statusError(_ response: HTTPTransportResponse) -> APIError {
        let status = response.response.status.code
        let code = APIError.code(forStatus: status)
        let retryAfter = RetryAfter.parse(response.response.headerFields[.retryAfter], now: self.configuration.now())
        return APIError(
            code,
            "the server answered \(status)",
            status: status,
            serverErrorCode: UserMessageCatalog.serverCode(in: response.body),
            retryAfter: retryAfter
        )
    }

    private func retryDelay<Response>(
        after error: APIError,
        request: Request<Response>,
        head: HTTPRequest,
        attempt: Int
    ) async -> Duration? {
        let policy = self.configuration.retry
        guard attempt < policy.maximumAttempts else { return nil }
        for interceptor in self.configuration.interceptors {
            switch await interceptor.retryDecision(for: head, error: error, attempt: attempt).base {
            case .useDefault: continue
            case .doNotRetry: return nil
            case .retry(let delay): return delay
            }
        }
        guard Self.mayRetry(idempotent: request.isIdempotent, error, policy: policy) else { return nil }
        return policy.delay(beforeRetry: attempt, retryAfter: error.retryAfter, random: Double.random(in: 0..<1))
    }

    static func isRetryable(_ error: APIError, policy: RetryPolicy) -> Bool {
        if let status = error.status { return policy.retryableStatuses.contains(status) }
        guard error.code == .transportFailure, let code = error.transportError?.code else { return false }
        return code == .connectFailed || code == .connectTimeout || code == .connectionClosed
            || code == .tlsHandshakeTimeout
            || code == .streamReset || code == .requestNotProcessed
    }

    /// Whether `error` may be answered with another attempt: an idempotent request after any
    /// retryable error; any request after ``SecureHTTP/SecureHTTPError/Code/requestNotProcessed``,
    /// since the server said it did not process it (RFC 9113 §6.8, §8.7).
    static func mayRetry(idempotent: Bool, _ error: APIError, policy: RetryPolicy) -> Bool {
        guard Self.isRetryable(error, policy: policy) else { return false }
        return idempotent || (error.status == nil && error.transportError?.code == .requestNotProcessed)
    }

    // MARK: - Decoding

    static func decodesJSON<Response>(_ type: Response.Type) -> Bool {
        !(type == EmptyResponse.self || type == Data.self || type == String.self)
    }

    private func decode<Response: Decodable>(
        _ response: HTTPTransportResponse,
        for request: Request<Response>
    ) throws(APIError) -> Response {
        if let empty = EmptyResponse() as? Response { return empty }
        if let data = response.body as? Response { return data }
        if Response.self == String.self {
            guard let text = String(data: response.body, encoding: .utf8) as? Response else {
                throw APIError(.decodingFailed, "the response is not UTF-8 text", status: response.response.status.code)
            }
            return text
        }
        try Self.checkContentType(
            response.response.headerFields,
            accepted: request.acceptedContentTypes,
            status: response.response.status.code
        )
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = self.configuration.keyDecodingStrategy
        decoder.dateDecodingStrategy = self.configuration.dateDecodingStrategy
        let value: Response
        do {
            value = try decoder.decode(Response.self, from: response.body)
        } catch let error as DecodingError {
            let validation = ResponseDecoding.describe(error)
            throw APIError(
                .decodingFailed,
                "the response could not be decoded: \(validation)",
                status: response.response.status.code,
                validationError: validation
            )
        } catch {
            throw APIError(.decodingFailed, "the response could not be decoded", status: response.response.status.code)
        }
        if let validated = value as? any ValidatedResponse {
            do {
                try ResponseDecoding.validate(validated)
            } catch {
                throw APIError(
                    .decodingFailed,
                    "the response breaks a constraint: \(error)",
                    status: response.response.status.code,
                    validationError: error
                )
            }
        }
        return value
    }

    static func checkContentType(_ fields: HTTPFields, accepted: [String], status: Int? = nil) throws(APIError) {
        let raw = fields[.contentType] ?? ""
        let mediaType =
            raw.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            ?? ""
        let matches = accepted.contains { pattern in
            let pattern = pattern.lowercased()
            if pattern.hasPrefix("*/*+") {
                return mediaType.hasSuffix(String(pattern.dropFirst(3))) && mediaType.contains("/")
            }
            return mediaType == pattern
        }
        guard matches else {
            throw APIError(
                .unexpectedContentType,
                "the response's content type \(mediaType.isEmpty ? "(none)" : String(mediaType.prefix(64))) is not one the request accepts",
                status: status
            )
        }
    }
}

/// Runs `body` with a client and shuts the client's transport down afterwards, however `body` ends.
///
/// `body` runs on the caller's actor, as `withTaskGroup`'s does: call it from a `@MainActor` view
/// model, or from inside another closure, and use the actor's state in `body` directly; its
/// result need not be `Sendable`.
///
/// ```swift
/// @MainActor final class ProfileModel {
///     var name = ""
///     func load(_ configuration: SecureAPIClient.Configuration) async throws {
///         try await withSecureAPIClient(configuration) { client in
///             self.name = try await client.send(Request<Profile>.get("user/profile")).displayName
///         }
///     }
/// }
/// ```
///
/// - Parameters:
///   - configuration: what the client is built from.
///   - isolation: the actor `body` runs on; the caller's, by default.
///   - body: the work to do with the client.
/// - Throws: what `body` throws, or the ``APIError`` of ``SecureAPIClient/init(configuration:)``.
public func withSecureAPIClient<Result>(
    _ configuration: SecureAPIClient.Configuration,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (SecureAPIClient) async throws -> Result
) async throws -> Result {
    let client = try SecureAPIClient(configuration: configuration)
    do {
        let result = try await body(client)
        await client.shutdown()
        return result
    } catch {
        await client.shutdown()
        throw error
    }
}
