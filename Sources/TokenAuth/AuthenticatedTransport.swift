public import Foundation
public import HTTPTypes
public import SecureHTTP
import SecureNetworkingInternal
import SecureStorage

/// An `HTTPTransport` that sends every request with the session's access token: the one place
/// where a token meets a request.
///
/// It wraps any transport (which knows no tokens) and, for each request:
/// 1. binds the token when the request has its connection (`HTTPRequestOptions.Credential`),
///    so a request that waited while the token was refreshed carries the new one, and only to
///    the origin of the request: after a redirect to another origin the transport binds nothing;
///    and only in the session the request started in: once that session is locked, ended or
///    replaced by another sign-in, the request fails before it is written
///    (``TokenAuthError/Code/sessionLocked``, ``TokenAuthError/Code/signedOut``,
///    ``TokenAuthError/Code/sessionChanged``), with neither the token it started with nor the
///    next session's;
/// 2. with a ``DPoPSigner`` and a DPoP-bound session, adds a proof for that hop and token (RFC 9449);
/// 3. answers a `use_dpop_nonce` challenge with the nonce it supplied (``DPoPNonceRetry``);
/// 4. answers a 401 to the token it sent with one refresh and one retry (``UnauthorizedRetry``);
///    a 401 from another origin refreshes nothing.
///
/// `SecureAPIClient` and the OpenAPI `SecureClientTransport` both send through it.
///
/// ```swift
/// let transport = AuthenticatedTransport(nio, tokens: manager, dpop: signer)
/// let response = try await transport.send(HTTPRequest(method: .get, url: profileURL))
/// ```
public struct AuthenticatedTransport: HTTPTransport {
    /// The transport requests go through.
    public let base: any HTTPTransport
    /// The session's tokens.
    public let tokens: TokenManager
    /// The DPoP signer, for a session whose tokens are DPoP-bound.
    public let dpop: DPoPSigner?

    /// A transport that sends through `base` with the tokens of `tokens`, and DPoP proofs made
    /// by `dpop` when the session's tokens are DPoP-bound.
    public init(_ base: any HTTPTransport, tokens: TokenManager, dpop: DPoPSigner? = nil) {
        self.base = base
        self.tokens = tokens
        self.dpop = dpop
    }

    /// Sends `request` with the session's access token (and a DPoP proof), answering a nonce
    /// challenge and a 401 as the type's summary says.
    ///
    /// - Throws: the base transport's `SecureHTTPError`; `SecureHTTPError.Code.credentialUnavailable`
    ///   when no valid token could be obtained (the session ended, or a refresh failed), the
    ///   session was locked, ended or replaced before the request was written, the DPoP proof
    ///   could not be made, or the server kept refusing the proof's nonce. The message names the
    ///   ``TokenAuthError/Code`` and never holds a token.
    public func send(
        _ request: HTTPRequest,
        body: Data?,
        options: HTTPRequestOptions
    ) async throws(SecureHTTPError) -> HTTPTransportResponse {
        var state = State()
        var attempts = 1
        do {
            return try await self.send(
                request,
                body: body,
                options: options,
                use: .token,
                state: &state,
                attempts: &attempts
            ) { request, _ in request }
        } catch {
            throw error.secureHTTPError
        }
    }
}

// MARK: - The package's entry point

extension AuthenticatedTransport {
    /// What a request presents.
    package enum Use: Sendable {
        /// The session's access token (and a DPoP proof with `ath`).
        case token
        /// No token; with a ``DPoPSigner``, a DPoP proof without `ath` (a sign-in, so the tokens
        /// it is answered with are bound to the key).
        case keyProof
    }

    /// The rules' memory for one request, kept across the attempts a caller makes after a
    /// failure (a backoff retry counts against the same refresh-and-retry).
    package struct State: Sendable {
        var unauthorized = UnauthorizedRetry()
        var nonces = DPoPNonceRetry()
        var token: TokenBinding.Sent?
        /// The session generation the request belongs to (`TokenManager.validSessionBundle()`).
        var generation = 0

        package init() {}
    }

    /// Why a request failed.
    package enum Failure: Error, Sendable {
        /// The base transport failed (a cancellation included).
        case transport(SecureHTTPError)
        /// The DPoP proof for the request could not be made.
        case proof(SecureHTTPError)
        /// No valid token could be obtained (a refresh failed, or the session ended), or the
        /// session the request belongs to was locked, ended or replaced before it was written.
        case authentication(TokenAuthError)
        /// The server kept refusing the proof's nonce, with this status; the tokens were kept.
        case nonceRejected(TokenAuthError, status: Int)
        /// The access token is not a valid header value.
        case invalidToken(SecureHTTPError)
        /// `prepare` threw this error.
        case prepare(any Error)

        /// The failure as a transport error (for the `HTTPTransport` conformance).
        var secureHTTPError: SecureHTTPError {
            switch self {
            case .transport(let error), .proof(let error), .invalidToken(let error): return error
            case .authentication(let error):
                return SecureHTTPError(
                    .credentialUnavailable,
                    "no valid access token could be obtained (\(error.code))"
                )
            case .nonceRejected(let error, let status):
                return SecureHTTPError(
                    .credentialUnavailable,
                    "the server kept refusing the DPoP proof's nonce (\(error.code), \(status))"
                )
            case .prepare:
                return SecureHTTPError(.invalidRequest, "the request could not be prepared")
            }
        }
    }

    /// Sends `request` as `use` says and returns the response to hand on: nonce challenges and
    /// a 401 to the token sent are answered here, each answer counted in `attempts`.
    ///
    /// - Parameters:
    ///   - state: the rules' memory for this request; pass the same value to every attempt of it.
    ///   - attempts: the attempt count of the request, increased for every retry made here.
    ///   - prepare: called before every attempt with `request` (with the token it is sent with)
    ///     and the attempt's number (interceptors, a cancellation check); what it returns is sent. Its error ends the
    ///     request as ``Failure/prepare(_:)``.
    /// - Throws: ``Failure``.
    package func send(
        _ request: HTTPRequest,
        body: Data?,
        options: HTTPRequestOptions,
        use: Use,
        state: inout State,
        attempts: inout Int,
        prepare: (_ request: HTTPRequest, _ attempt: Int) async throws -> HTTPRequest
    ) async throws(Failure) -> HTTPTransportResponse {
        if use == .token, state.token == nil {
            do {
                let (bundle, generation) = try await self.tokens.validSessionBundle()
                state.token = TokenBinding.Sent(token: bundle.accessToken, type: bundle.tokenType)
                state.generation = generation
            } catch {
                throw .authentication(error)
            }
        }
        while true {
            var head = request
            if let token = state.token {
                // The head carries the token too, for the transport's log (redacted) and for a
                // transport that binds no credential; the binding below replaces it at
                // connection time, and the transport strips it if a redirect leaves the origin.
                do {
                    try head.headerFields.setChecked(
                        name: .authorization,
                        value: TokenBundle.authorizationValue(tokenType: token.type, accessToken: token.token)
                    )
                } catch {
                    throw .invalidToken(error)
                }
            }
            do {
                head = try await prepare(head, attempts)
            } catch {
                throw .prepare(error)
            }
            if use == .keyProof, let dpop = self.dpop {
                do {
                    head.headerFields[DPoPSigner.headerName] = try dpop.proof(for: head)
                } catch {
                    throw .authentication(error)
                }
            }
            let generation = state.generation
            let binding = state.token.map { TokenBinding(tokens: self.tokens, fallback: $0, generation: generation) }
            if binding != nil {
                // The head carries the token of the request's session (its first, or the one a
                // 401 was answered with): not sent once that session is locked, ended or replaced.
                do {
                    try self.tokens.checkSending(session: generation)
                } catch {
                    throw .authentication(error)
                }
            }
            var hopOptions = options
            hopOptions.credential = binding.map(self.credential(for:))
            let response: HTTPTransportResponse
            do {
                response = try await self.base.send(head, body: body, options: hopOptions)
            } catch {
                // A binding refused at connection time failed the hop before it was written.
                if let refusal = binding?.refusal { throw .authentication(refusal) }
                if binding != nil, error.code == .credentialUnavailable { throw .proof(error) }
                throw .transport(error)
            }
            if try await self.shouldRetry(after: response, binding: binding, use: use, state: &state) {
                attempts += 1
                continue
            }
            return response
        }
    }

    /// The credential of one attempt: the token bound at connection time, with its DPoP proof.
    ///
    /// A binding the session refuses (locked, ended, replaced) binds an empty value and fails
    /// in the proof, which the transport calls before it writes the hop: the request is not sent,
    /// neither with the head's token nor with another.
    private func credential(for binding: TokenBinding) -> HTTPRequestOptions.Credential {
        let dpop = self.dpop
        let proof: @Sendable (HTTPRequest, String) throws -> HTTPField? = { request, _ in
            if let refusal = binding.refusal { throw refusal }
            // The proof signs the hop as it goes out and the token just bound (`ath`).
            guard let dpop, let sent = binding.sentCredential, sent.isDPoPBound else { return nil }
            return HTTPField(
                name: DPoPSigner.headerName,
                value: try dpop.proof(for: request, accessToken: sent.token)
            )
        }
        return HTTPRequestOptions.Credential(name: .authorization, value: { binding.bind() }, proof: proof)
    }

    /// Whether to send the request again after `response`: a nonce challenge (RFC 9449 §8, §9),
    /// answered with the nonce it supplied and never by a refresh; or a 401 to the token sent,
    /// answered by ``UnauthorizedRetry``. A response from another origin than the token went to
    /// (after a redirect it did not follow) judges neither.
    private func shouldRetry(
        after response: HTTPTransportResponse,
        binding: TokenBinding?,
        use: Use,
        state: inout State
    ) async throws(Failure) -> Bool {
        let status = response.response.status.code
        if let dpop = self.dpop, binding != nil || use == .keyProof {
            // The URL is built only when there is a nonce to keep.
            if response.response.headerFields[DPoPSigner.nonceHeaderName] != nil {
                dpop.noteNonce(in: response.response, from: response.url)
            }
            if !response.redirectedAcrossOrigins {
                do {
                    if try state.nonces.shouldRetry(after: response.response, body: response.body) { return true }
                } catch {
                    throw .nonceRejected(error, status: status)
                }
            }
        }
        guard status == 401, let binding else { return false }
        let next: String?
        do {
            next = try await state.unauthorized.token(
                after401To: binding.sent ?? binding.fallback.token,
                redirectedAcrossOrigins: response.redirectedAcrossOrigins,
                tokens: self.tokens
            )
        } catch {
            throw .authentication(error)
        }
        guard let next else { return false }
        let type = self.tokens.bundleForSending()?.tokenType ?? binding.fallback.type
        state.token = TokenBinding.Sent(token: next, type: type)
        return true
    }
}

/// The access token of one attempt, bound when the request has its connection: the token the
/// manager hands out at that moment for the request's session (a request that waited for a
/// connection while the token was refreshed carries the new one), remembered so that a 401 is
/// judged against the token that was really sent. Nothing is bound once that session is locked,
/// ended or replaced (`refusal`).
final class TokenBinding: Sendable {
    let tokens: TokenManager
    /// The token the attempt started with (and its type), sent when its session publishes none
    /// at that moment (a refreshed bundle the store has not taken yet), and only then.
    let fallback: Sent
    /// The session generation the request belongs to.
    let generation: Int
    private let box = Locked<Sent?>(nil)
    private let refused = Locked<TokenAuthError?>(nil)

    /// An access token as one hop sent it.
    struct Sent: Sendable {
        let token: String
        let type: String

        var isDPoPBound: Bool { TokenBundle.isDPoP(tokenType: self.type) }
    }

    init(tokens: TokenManager, fallback: Sent, generation: Int) {
        self.tokens = tokens
        self.fallback = fallback
        self.generation = generation
    }

    /// Why the last binding bound nothing: the session was locked, ended or replaced.
    var refusal: TokenAuthError? { self.refused.withLock { $0 } }

    /// The token and type sent by the last hop that carried one.
    var sentCredential: Sent? { self.box.withLock { $0 } }

    /// The token sent by the last hop that carried one.
    var sent: String? { self.sentCredential?.token }

    /// The `Authorization` value to send now: `Bearer <token>`, or `DPoP <token>` for a
    /// DPoP-bound one (RFC 9449 §7.1); empty, with `refusal` set, when the request's session
    /// is locked, ended or replaced.
    func bind() -> String {
        let current: TokenBundle?
        do {
            current = try self.tokens.bundleForSending(session: self.generation)
        } catch {
            self.refused.withLock { $0 = error }
            return ""
        }
        let sent = current.map { Sent(token: $0.accessToken, type: $0.tokenType) } ?? self.fallback
        self.refused.withLock { $0 = nil }
        self.box.withLock { $0 = sent }
        return TokenBundle.authorizationValue(tokenType: sent.type, accessToken: sent.token)
    }
}
