#if OpenAPI
public import Foundation
public import HTTPTypes
public import OpenAPIRuntime
public import SecureHTTP
public import TokenAuth

/// A swift-openapi-runtime `ClientMiddleware` that sends a call with the session's access token
/// from a `TokenManager`, through TokenAuth's `AuthenticatedTransport`: the rules are
/// `SecureAPIClient`'s. A 401 to the token sent gets one refresh, however many calls got the 401
/// for the same token, and one retry; a refused refresh token ends the session (the call fails
/// with `TokenAuthError.Code.signedOut` inside the generated client's `ClientError`). With a
/// `DPoPSigner` and a DPoP-bound session, each request carries a proof (RFC 9449) and a
/// `use_dpop_nonce` challenge is answered with the nonce it supplied.
///
/// The token (and its proof, signed for the URL the request goes to) is bound as the request
/// leaves the middleware. With ``SecureClientTransport`` under it, the middleware learns whether a
/// redirect led the request to another origin (which never saw the token: the transport strips
/// `Authorization`), and such a 401 refreshes nothing and is not retried. Over another
/// `ClientTransport` it cannot tell, and every 401 is taken as the token's.
///
/// A request is retried with its body, so a body that can be read only once is collected first
/// (up to ``maximumRequestBodySize``). Operations listed in `unauthenticated` (a sign-in, say)
/// are sent without a token.
public struct TokenMiddleware: ClientMiddleware {
    /// The session's tokens.
    public let tokens: TokenManager
    /// The DPoP signer, for a session whose tokens are DPoP-bound; nil refuses such a session
    /// (`TokenAuthError.Code.proofOfPossessionFailed`).
    public let dpop: DPoPSigner?
    /// Operation ids sent without a token.
    public let unauthenticated: Set<String>
    /// The largest request body kept for a retry, in bytes. Default 10 MiB.
    public let maximumRequestBodySize: Int

    /// A middleware for `tokens`, with DPoP proofs made by `dpop` when the session's tokens are
    /// DPoP-bound.
    public init(
        tokens: TokenManager,
        dpop: DPoPSigner? = nil,
        unauthenticated: Set<String> = [],
        maximumRequestBodySize: Int = 10 * 1024 * 1024
    ) {
        self.tokens = tokens
        self.dpop = dpop
        self.unauthenticated = unauthenticated
        self.maximumRequestBodySize = maximumRequestBodySize
    }

    /// Sends `request` through `next` with the session's token, as the type's summary says.
    ///
    /// - Throws: `TokenAuthError` when no valid token could be obtained (`signedOut` for an
    ///   ended session), a DPoP-bound session has no signer (`proofOfPossessionFailed`), or the
    ///   server kept refusing the proof's nonce (`dpopNonceRejected`); otherwise what `next` throws.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        if self.unauthenticated.contains(operationID) { return try await next(request, body, baseURL) }
        if self.dpop == nil, try await self.tokens.validBundle().isDPoPBound {
            throw Self.dpopRefused
        }
        let replayable = try await self.replayable(body)
        // The hop (and `next` in it) lives only for this call.
        return try await withoutActuallyEscaping(next) { next in
            try await self.send(request, body: replayable, baseURL: baseURL, next: next)
        }
    }

    /// Sends `request` through `next` with an ``AuthenticatedTransport``.
    private func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        next: @escaping MiddlewareHop.Next
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let hop = MiddlewareHop(next: next, body: body, baseURL: baseURL)
        let transport = AuthenticatedTransport(hop, tokens: self.tokens, dpop: self.dpop)
        var state = AuthenticatedTransport.State()
        var attempts = 1
        do throws(AuthenticatedTransport.Failure) {
            let response = try await transport.send(
                request,
                body: nil,
                options: HTTPRequestOptions(),
                use: .token,
                state: &state,
                attempts: &attempts
            ) { head, _ in head }
            return (response.response, hop.responseBody(for: response))
        } catch {
            switch error {
            case .authentication(let failure), .nonceRejected(let failure, _): throw failure
            case .transport(let failure), .proof(let failure), .invalidToken(let failure):
                throw hop.thrown ?? failure
            case .prepare(let failure): throw failure
            }
        }
    }

    /// `body` if it can be read again, else its bytes (up to the limit) as one that can.
    private func replayable(_ body: HTTPBody?) async throws -> HTTPBody? {
        guard let body, body.iterationBehavior == .single else { return body }
        return HTTPBody(try await Data(collecting: body, upTo: self.maximumRequestBodySize))
    }

    static let dpopRefused = TokenAuthError(
        .proofOfPossessionFailed,
        "a DPoP-bound session needs a proof per request: give TokenMiddleware a DPoPSigner"
    )
}

/// The rest of the middleware chain as the `HTTPTransport` an ``AuthenticatedTransport`` sends
/// through: each attempt binds the credential (and its DPoP proof, for the URL the request is
/// sent to) as the request leaves the middleware, and calls `next` once, with an
/// ``ExchangeRecord`` that brings back what ``SecureClientTransport`` saw of the exchange.
///
/// The token is bound here rather than when the request has its connection, as the middleware
/// did before the wrapper: a call that waits for a connection while another refreshes is answered
/// 401 and retried once (what `OpenAPIClientTests` counts).
final class MiddlewareHop: HTTPTransport {
    typealias Next = @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)

    private let next: Next
    private let body: HTTPBody?
    private let baseURL: URL
    // SAFETY: `last` is read and written only under `lock`.
    private nonisolated(unsafe) var last: (body: HTTPBody?, collected: Bool, thrown: (any Error)?) = (nil, false, nil)
    private let lock = NSLock()

    init(next: @escaping Next, body: HTTPBody?, baseURL: URL) {
        self.next = next
        self.body = body
        self.baseURL = baseURL
    }

    /// What `next` threw at the last attempt (handed on as it is).
    var thrown: (any Error)? { self.lock.withLock { self.last.thrown } }

    /// The body to hand on with `response`: the one `next` returned, or the bytes read from it.
    func responseBody(for response: HTTPTransportResponse) -> HTTPBody? {
        let (body, collected, _) = self.lock.withLock { self.last }
        guard collected else { return body }
        return response.body.isEmpty ? nil : HTTPBody(response.body)
    }

    func send(
        _ request: HTTPRequest,
        body: Data?,
        options: HTTPRequestOptions
    ) async throws(SecureHTTPError) -> HTTPTransportResponse {
        self.lock.withLock { self.last = (nil, false, nil) }
        let bound = try self.bind(options.credential, on: request)
        let record = ExchangeRecord()
        do {
            let (response, responseBody) = try await ExchangeRecord.$current.withValue(record) {
                try await self.next(bound, self.body, self.baseURL)
            }
            // A nonce challenge or a 401 is judged by its body; other bodies pass on unread.
            let judged = response.status == .unauthorized || response.status == .badRequest
            var data = Data()
            if judged, let responseBody {
                data = try await Data(collecting: responseBody, upTo: 64 * 1024)
            }
            self.lock.withLock { self.last = (responseBody, judged, nil) }
            return HTTPTransportResponse(
                response: response,
                body: data,
                url: record.url ?? SecureClientTransport.fullURL(self.baseURL, path: request.path) ?? self.baseURL,
                redirectedAcrossOrigins: record.redirectedAcrossOrigins
            )
        } catch {
            self.lock.withLock { self.last = (nil, false, error) }
            throw SecureHTTPError(.invalidRequest, "the middleware chain under TokenMiddleware failed")
        }
    }

    /// `request` with `credential` bound, and its proof made for the URL the request goes to.
    private func bind(
        _ credential: HTTPRequestOptions.Credential?,
        on request: HTTPRequest
    ) throws(SecureHTTPError) -> HTTPRequest {
        guard let credential, let value = credential.value() else { return request }
        var request = request
        do {
            try request.headerFields.setChecked(name: credential.name, value: value)
        } catch {
            throw SecureHTTPError(
                .invalidHeaderValue,
                "the value of \(credential.name) contains a character HTTP forbids"
            )
        }
        guard let proof = credential.proof else { return request }
        var target = request
        if let url = SecureClientTransport.url(self.baseURL, path: request.path) {
            (target.scheme, target.authority, target.path) = (url.scheme, url.authority, url.path)
        }
        let field: HTTPField?
        do {
            field = try proof(target, value)
        } catch {
            throw SecureHTTPError(
                .credentialUnavailable,
                "the proof that goes with \(credential.name) could not be made"
            )
        }
        if let field { request.headerFields[field.name] = field.value }
        return request
    }
}

/// What ``SecureClientTransport`` saw of one exchange that ``TokenMiddleware`` sent: the final
/// URL, and whether a redirect led to another origin. The generated client gives the middleware
/// only the response's head, so the record travels as a task-local value from the middleware
/// down to the transport.
final class ExchangeRecord: Sendable {
    /// The record of the exchange under way in this task, if a middleware asked for one.
    @TaskLocal static var current: ExchangeRecord?

    // SAFETY: `seen` is read and written only under `lock`.
    private nonisolated(unsafe) var seen: (crossed: Bool, url: URL?) = (false, nil)
    private let lock = NSLock()

    /// Whether the last response came from another origin than the request was sent to.
    var redirectedAcrossOrigins: Bool { self.lock.withLock { self.seen.crossed } }

    /// The URL of the request that produced the last response.
    var url: URL? { self.lock.withLock { self.seen.url } }

    /// Records the transport's answer.
    func note(_ answer: HTTPTransportResponse) {
        let url = answer.url
        self.lock.withLock { self.seen = (answer.redirectedAcrossOrigins, url) }
    }
}
#endif
