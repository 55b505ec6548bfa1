public import Foundation
public import HTTPTypes

/// What a DPoP client does when the server answers `use_dpop_nonce` (RFC 9449 §8 at the token
/// endpoint, §9 at a resource server): it sends the request again with the nonce that answer
/// supplied, at most ``maximumRetries`` times for one request (a server may supply a new nonce
/// with every answer, §8.2), and never refreshes the tokens for it: what the server refused is
/// the proof's nonce, not the token, and a refresh would spend the refresh token for nothing.
///
/// ``AuthenticatedTransport`` (for `SecureAPIClient` and the OpenAPI `TokenMiddleware`) and
/// ``OAuthTokenEndpoint`` both follow it. Use one value per request, and
/// let the ``DPoPSigner`` note the response's nonce (``DPoPSigner/noteNonce(in:to:)``) before
/// asking:
///
/// ```swift
/// var nonces = DPoPNonceRetry()
/// while true {
///     let response = try await send(request, proof: try signer.proof(for: request))
///     signer.noteNonce(in: response.head, to: request)
///     guard try nonces.shouldRetry(after: response.head, body: response.body) else { return response }
/// }
/// ```
public struct DPoPNonceRetry: Sendable {
    /// How often one request is sent again with a new nonce.
    public static let maximumRetries = 3

    /// How often the request was sent again so far.
    public private(set) var retries = 0

    /// A rule for one request.
    public init() {}

    /// Whether to send the request again, with the nonce `response` supplied.
    ///
    /// - Returns: true for a nonce challenge while retries remain; false for any other answer
    ///   (which the caller handles as it would without DPoP: a 401 that is no nonce challenge
    ///   may judge the token).
    /// - Throws: ``TokenAuthError/Code/dpopNonceRejected`` for a nonce challenge after
    ///   ``maximumRetries`` retries, or a `use_dpop_nonce` answer without a valid nonce. The
    ///   message never holds the nonce.
    public mutating func shouldRetry(after response: HTTPResponse, body: Data) throws(TokenAuthError) -> Bool {
        guard DPoPSigner.asksForNonce(response, body: body) else { return false }
        guard DPoPSigner.isNonceChallenge(response, body: body) else {
            throw TokenAuthError(
                .dpopNonceRejected,
                "the server answered use_dpop_nonce (\(response.status.code)) without a valid DPoP-Nonce to retry with"
            )
        }
        guard self.retries < Self.maximumRetries else {
            throw TokenAuthError(
                .dpopNonceRejected,
                "the server answered use_dpop_nonce (\(response.status.code)) \(self.retries + 1) times for one request; each retry used the nonce it had just supplied"
            )
        }
        self.retries += 1
        return true
    }
}
