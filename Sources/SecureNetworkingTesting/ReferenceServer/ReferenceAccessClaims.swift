#if TestServers
import JWTKit

/// The claims of a reference server JWT access token.
///
/// `exp` is checked by the server against its injected clock rather than in ``verify(using:)``
/// (which would use the wall clock), so tests can move time forward.
struct ReferenceAccessClaims: JWTPayload {
    /// The user's email.
    var sub: SubjectClaim
    var iat: IssuedAtClaim
    var exp: ExpirationClaim
    var jti: IDClaim
    /// The refresh-token family the token was issued with.
    var fam: String
    /// The confirmation (RFC 7800) of a DPoP-bound token: the key's thumbprint (RFC 9449 §6.1).
    var cnf: Confirmation?

    struct Confirmation: Codable, Sendable {
        var jkt: String
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
#endif
