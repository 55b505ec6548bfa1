public import Foundation
public import HTTPTypes
public import OpenAPIRuntime
public import TokenAuth

/// A swift-openapi-runtime `ClientMiddleware` that attaches the session's access token from a
/// `TokenManager` and follows `SecureAPIClient`'s rule for a 401 (`UnauthorizedRetry`): one
/// refresh, however many calls got the 401 for the same token, and one retry; a refused refresh
/// token ends the session (the call fails with `TokenAuthError.Code.signedOut` inside the
/// generated client's `ClientError`).
///
/// A 401 judges the token only where the token was sent: with ``SecureClientTransport`` under
/// it, the middleware learns whether a redirect led the request to another origin (which never
/// saw the token), and such a 401 refreshes nothing and is not retried. Over another
/// `ClientTransport` it cannot tell, and every 401 is taken as the token's.
///
/// A request is retried with its body, so a body that can be read only once is collected first
/// (up to ``maximumRequestBodySize``). Operations listed in `unauthenticated` (a sign-in, say)
/// are sent without a token. DPoP-bound sessions need a proof per request, which this middleware
/// does not make: it refuses them (use `SecureAPIClient` with `.oauth(dpop:)`).
public struct TokenMiddleware: ClientMiddleware {
    /// The session's tokens.
    public let tokens: TokenManager
    /// Operation ids sent without a token.
    public let unauthenticated: Set<String>
    /// The largest request body kept for a retry, in bytes. Default 10 MiB.
    public let maximumRequestBodySize: Int

    /// A middleware for `tokens`.
    public init(
        tokens: TokenManager,
        unauthenticated: Set<String> = [],
        maximumRequestBodySize: Int = 10 * 1024 * 1024
    ) {
        self.tokens = tokens
        self.unauthenticated = unauthenticated
        self.maximumRequestBodySize = maximumRequestBodySize
    }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        if self.unauthenticated.contains(operationID) { return try await next(request, body, baseURL) }
        let bundle = try await self.tokens.validBundle()
        guard !bundle.isDPoPBound else {
            throw TokenAuthError(
                .proofOfPossessionFailed,
                "a DPoP-bound session needs a proof per request; TokenMiddleware sends bearer tokens only"
            )
        }
        let replayable = try await self.replayable(body)
        var token = bundle.accessToken
        var rule = UnauthorizedRetry()
        while true {
            var attempt = request
            attempt.headerFields[.authorization] = TokenBundle.authorizationValue(
                tokenType: "Bearer",
                accessToken: token
            )
            let exchange = ExchangeRecord()
            let (response, responseBody) = try await ExchangeRecord.$current.withValue(exchange) {
                try await next(attempt, replayable, baseURL)
            }
            guard response.status == .unauthorized,
                let retry = try await rule.token(
                    after401To: token,
                    redirectedAcrossOrigins: exchange.redirectedAcrossOrigins,
                    tokens: self.tokens
                )
            else {
                return (response, responseBody)
            }
            token = retry
        }
    }

    /// `body` if it can be read again, else its bytes (up to the limit) as one that can.
    private func replayable(_ body: HTTPBody?) async throws -> HTTPBody? {
        guard let body, body.iterationBehavior == .single else { return body }
        return HTTPBody(try await Data(collecting: body, upTo: self.maximumRequestBodySize))
    }
}

/// What ``SecureClientTransport`` saw of one exchange that ``TokenMiddleware`` sent: whether a
/// redirect led it to another origin. The generated client gives the middleware only the
/// response's head, so the record travels as a task-local value from the middleware down to
/// the transport.
final class ExchangeRecord: Sendable {
    /// The record of the exchange under way in this task, if a middleware asked for one.
    @TaskLocal static var current: ExchangeRecord?

    // SAFETY: `crossed` is read and written only under `lock`.
    private nonisolated(unsafe) var crossed = false
    private let lock = NSLock()

    /// Whether the last response came from another origin than the request was sent to.
    var redirectedAcrossOrigins: Bool { self.lock.withLock { self.crossed } }

    /// Records the transport's answer.
    func note(redirectedAcrossOrigins: Bool) {
        self.lock.withLock { self.crossed = redirectedAcrossOrigins }
    }
}
