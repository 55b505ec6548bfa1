#if TestServers
import Crypto
import Foundation
import JWTKit
import SecureNetworkingInternal

/// Mints and checks the reference server's tokens: access tokens (ES256 JWTs or opaque) and
/// opaque refresh tokens, with expiry measured by the injected clock.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
struct ReferenceTokenIssuer: Sendable {
    /// A freshly issued pair, as the token response carries it.
    struct Issued: Sendable {
        let accessToken: String
        let refreshToken: String
        let expiresIn: Int
        /// The DPoP key the access token is bound to (`token_type: DPoP`), if any.
        let jkt: String?
    }

    let format: ReferenceAuthServer.TokenFormat
    let accessTokenLifetime: TimeInterval
    let refreshTokenLifetime: TimeInterval
    let now: @Sendable () -> Date
    let state: ReferenceServerState
    /// Holds the signing key generated at start; nil for opaque tokens.
    let keys: JWTKeyCollection?

    init(configuration: ReferenceAuthServer.Configuration, state: ReferenceServerState) async {
        self.format = configuration.tokenFormat
        self.accessTokenLifetime = configuration.accessTokenLifetime.timeInterval
        self.refreshTokenLifetime = configuration.refreshTokenLifetime.timeInterval
        self.now = configuration.now
        self.state = state
        if configuration.tokenFormat == .jwt {
            let keys = JWTKeyCollection()
            await keys.add(ecdsa: ES256PrivateKey())
            self.keys = keys
        } else {
            self.keys = nil
        }
    }

    /// Issues an access token (bound to the DPoP key `jkt`, if given) and the next refresh token
    /// of `familyID`.
    func issue(email: String, familyID: String, jkt: String? = nil) async throws -> Issued {
        let issuedAt = self.now()
        let accessExpiry = issuedAt.addingTimeInterval(self.accessTokenLifetime)
        let accessToken: String
        if let keys = self.keys {
            let claims = ReferenceAccessClaims(
                sub: SubjectClaim(value: email),
                iat: IssuedAtClaim(value: issuedAt),
                exp: ExpirationClaim(value: accessExpiry),
                jti: IDClaim(value: UUID().uuidString),
                fam: familyID,
                cnf: jkt.map { ReferenceAccessClaims.Confirmation(jkt: $0) }
            )
            accessToken = try await keys.sign(claims)
        } else {
            accessToken = Self.randomToken()
            self.state.storeOpaqueAccessToken(
                digest: Self.digest(accessToken),
                email: email,
                familyID: familyID,
                expiresAt: accessExpiry,
                jkt: jkt
            )
        }
        let refreshToken = Self.randomToken()
        self.state.storeRefreshToken(
            digest: Self.digest(refreshToken),
            familyID: familyID,
            expiresAt: issuedAt.addingTimeInterval(self.refreshTokenLifetime)
        )
        return Issued(
            accessToken: accessToken,
            refreshToken: refreshToken,
            expiresIn: Int(self.accessTokenLifetime.rounded()),
            jkt: jkt
        )
    }

    /// Checks an access token: signature or lookup, expiry against the injected clock, and
    /// that its family has not been revoked.
    func check(accessToken: String) async -> ReferenceServerState.AccessCheck {
        guard let keys = self.keys else {
            return self.state.checkOpaqueAccessToken(digest: Self.digest(accessToken), now: self.now())
        }
        guard let claims = try? await keys.verify(accessToken, as: ReferenceAccessClaims.self) else {
            return .invalid
        }
        guard self.now() < claims.exp.value else { return .expired }
        let family = self.state.checkFamily(claims.fam, email: claims.sub.value)
        guard case .valid(let email, _) = family else { return family }
        return .valid(email: email, jkt: claims.cnf?.jkt)
    }

    /// The family of an access token this server issued (signature checked, expiry not: an
    /// expired token can still be revoked); nil when it is not one of its tokens.
    func family(ofAccessToken token: String) async -> String? {
        guard let keys = self.keys else { return self.state.familyOfOpaqueAccessToken(digest: Self.digest(token)) }
        return (try? await keys.verify(token, as: ReferenceAccessClaims.self))?.fam
    }

    /// 32 random bytes, base64url without padding.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Base64URL.encode(bytes)
    }

    /// The SHA-256 of a token, hex: what the state keeps instead of the token.
    static func digest(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
#endif
