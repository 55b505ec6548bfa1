#if TestServers
import Foundation
import HTTPTypes
import Hummingbird

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension ReferenceResponder {
    /// The longest display name `PATCH /user/profile` accepts, in characters.
    static let maximumDisplayNameLength = 64

    /// `POST /auth/login` with `{"email", "password"}`: a new refresh-token family.
    func login(_ exchange: Exchange) async -> Response {
        let jkt: String?
        switch self.tokenRequestKey(exchange) {
        case .success(let key): jkt = key
        case .failure(let refusal): return refusal.response
        }
        guard let object = ReferenceHTTP.jsonObject(exchange.body),
            let email = object["email"] as? String,
            let password = object["password"] as? String
        else {
            return ReferenceHTTP.error(
                .badRequest,
                "invalid_request",
                message: "a JSON body with email and password is required"
            )
        }
        // Limited before the password is looked at: a correct guess after the limit is refused too.
        let address = exchange.context.remoteAddress
        if let wait = self.state.loginRetryAfter(
            email: email,
            address: address,
            now: self.now(),
            limits: self.loginLimits
        ) {
            let seconds = max(1, Int(wait.rounded(.up)))
            return ReferenceHTTP.error(
                .tooManyRequests,
                "too_many_requests",
                message: "too many failed sign-ins; try again in \(seconds) s",
                headers: [.retryAfter: String(seconds)]
            )
        }
        // Unknown users cost a verification too, so timing does not tell which emails exist.
        let stored = self.state.passwordHash(for: email)
        let matches = (try? await self.hasher.verify(password, against: stored ?? self.dummyPasswordHash)) ?? false
        let succeeded = stored != nil && matches
        self.state.recordLogin(
            email: email,
            address: address,
            succeeded: succeeded,
            now: self.now(),
            limits: self.loginLimits
        )
        guard succeeded else {
            return ReferenceHTTP.error(.unauthorized, "invalid_credentials", message: "the email or password is wrong")
        }
        return await self.tokenResponse(email: email, familyID: self.state.openFamily(for: email, jkt: jkt), jkt: jkt)
            .response
    }

    /// The DPoP key a token request proved (nil without a proof), or the 400 to answer
    /// (RFC 9449 §5: `invalid_dpop_proof`; §8: `use_dpop_nonce` with a fresh `DPoP-Nonce`).
    /// Checked before anything is redeemed, so a nonce challenge never spends a code or a
    /// refresh token.
    func tokenRequestKey(_ exchange: Exchange) -> Result<String?, Refusal> {
        switch self.dpop.verify(exchange.headers, method: exchange.method, uri: exchange.uri, accessToken: nil) {
        case .absent:
            guard !self.requiresDPoP else {
                return .failure(Refusal(response: Self.dpopError("invalid_dpop_proof", "a DPoP proof is required")))
            }
            return .success(nil)
        case .valid(let jkt):
            return .success(jkt)
        case .invalid(let reason):
            return .failure(Refusal(response: Self.dpopError("invalid_dpop_proof", reason)))
        case .nonceRequired(let nonce):
            return .failure(
                Refusal(
                    response: Self.dpopError(
                        "use_dpop_nonce",
                        "the DPoP proof must carry the server's nonce",
                        headers: [ReferenceDPoPVerifier.nonceHeaderName: nonce]
                    )
                )
            )
        }
    }

    /// An RFC 6749 §5.2-style 400 for a DPoP error at the token endpoint.
    static func dpopError(_ code: String, _ description: String, headers: HTTPFields = [:]) -> Response {
        ReferenceHTTP.json(.badRequest, ["error": code, "error_description": description], headers: headers)
    }

    /// `POST /oauth/token`, form-encoded or JSON: the refresh-token grant with rotation and
    /// reuse detection.
    func token(_ exchange: Exchange) async -> Response {
        guard let fields = ReferenceHTTP.formOrJSONFields(exchange.body, contentType: exchange.headers[.contentType]),
            let grant = fields["grant_type"]
        else {
            return ReferenceHTTP.error(.badRequest, "invalid_request", message: "grant_type is required")
        }
        let jkt: String?
        switch self.tokenRequestKey(exchange) {
        case .success(let key): jkt = key
        case .failure(let refusal): return refusal.response
        }
        if grant == "authorization_code" {
            return await self.authorizationCodeGrant(fields, jkt: jkt)
        }
        guard grant == "refresh_token" else {
            return ReferenceHTTP.error(
                .badRequest,
                "unsupported_grant_type",
                message: "only authorization_code and refresh_token are supported"
            )
        }
        guard let refreshToken = fields["refresh_token"], !refreshToken.isEmpty else {
            return ReferenceHTTP.error(.badRequest, "invalid_request", message: "refresh_token is required")
        }
        let digest = ReferenceTokenIssuer.digest(refreshToken)
        // RFC 9449 §5: a refresh token bound to a key is redeemed only with a proof by that key
        // (checked before it is spent, so a thief's attempt costs the owner nothing).
        if let bound = self.state.familyKey(ofRefreshToken: digest) {
            guard let jkt else {
                return Self.dpopError("invalid_dpop_proof", "this refresh token is DPoP-bound; a proof is required")
            }
            guard jkt == bound else {
                self.logger.notice("a DPoP-bound refresh token was presented with another key's proof")
                return Self.invalidGrant("the refresh token is bound to another key")
            }
        }
        switch self.state.redeemRefreshToken(digest: digest, now: self.now(), graceWindow: self.refreshGraceWindow) {
        case .redeemed(let familyID, let email):
            let (response, issued) = await self.tokenResponse(email: email, familyID: familyID, jkt: jkt)
            if let issued, self.refreshGraceWindow > 0 { self.state.recordSuccessor(of: digest, issued) }
            if let gate = self.refreshResponseGate { await gate.opened() }
            return response
        case .replayed(let issued):
            self.logger.notice(
                "a refresh token was presented again within the grace window: the same successor is returned"
            )
            return Self.tokenJSON(issued)
        case .reused:
            self.logger.notice("a spent refresh token was presented again: its family is revoked")
            return Self.invalidGrant("the refresh token was already used; its family is revoked")
        case .invalid:
            return Self.invalidGrant("the refresh token is unknown, expired or revoked")
        }
    }

    /// `GET` or `PATCH /user/profile` with a bearer token.
    func profile(_ exchange: Exchange) async -> Response {
        let email: String
        switch await self.authenticate(exchange) {
        case .success(let user): email = user
        case .failure(let refusal): return refusal.response
        }
        guard exchange.method == .patch else {
            guard let account = self.state.account(for: email) else {
                return ReferenceHTTP.error(.notFound, "not_found")
            }
            return Self.profileResponse(email: email, account)
        }
        guard let object = ReferenceHTTP.jsonObject(exchange.body), let displayName = object["display_name"] as? String
        else {
            return ReferenceHTTP.error(
                .badRequest,
                "invalid_request",
                message: "a JSON body with display_name is required"
            )
        }
        let trimmed = displayName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, displayName.count <= Self.maximumDisplayNameLength else {
            return ReferenceHTTP.error(
                .unprocessableContent,
                "validation_failed",
                message: "display_name must be 1 to \(Self.maximumDisplayNameLength) characters"
            )
        }
        guard let account = self.state.updateDisplayName(of: email, to: displayName, at: self.now()) else {
            return ReferenceHTTP.error(.notFound, "not_found")
        }
        return Self.profileResponse(email: email, account)
    }

    /// Why a request was not authenticated, as a 401 with an RFC 6750 challenge.
    struct Refusal: Error {
        let response: Response
    }

    /// The email of the access token's user, or the 401 to answer. A bearer token is taken as
    /// `Authorization: Bearer`; a DPoP-bound one only as `Authorization: DPoP` with a proof by
    /// its key over this request and this token (RFC 9449 §7.1).
    func authenticate(_ exchange: Exchange) async -> Result<String, Refusal> {
        let token: String
        let presentedAsDPoP: Bool
        switch ReferenceHTTP.accessToken(in: exchange.headers) {
        case .dpop(let value):
            (token, presentedAsDPoP) = (value, true)
        case .bearer(let value):
            (token, presentedAsDPoP) = (value, false)
        case .missing:
            return .failure(
                Refusal(
                    response: ReferenceHTTP.error(
                        .unauthorized,
                        "unauthorized",
                        message: "a bearer token is required",
                        headers: ReferenceHTTP.bearerChallenge(errorDescription: nil)
                    )
                )
            )
        }
        let description: String
        switch await self.issuer.check(accessToken: token) {
        case .valid(let email, let jkt):
            switch (jkt, presentedAsDPoP) {
            case (nil, false):
                return .success(email)
            case (nil, true):
                return .failure(Self.dpopRefusal("invalid_token", "the access token is not DPoP-bound"))
            case (.some, false):
                self.state.recordBoundTokenMisuse()
                return .failure(
                    Self.dpopRefusal("invalid_token", "the access token is DPoP-bound; present it with a proof")
                )
            case (.some(let bound), true):
                switch self.dpop.verify(
                    exchange.headers,
                    method: exchange.method,
                    uri: exchange.uri,
                    accessToken: token
                ) {
                case .valid(let proved) where proved == bound:
                    return .success(email)
                case .valid:
                    self.state.recordBoundTokenMisuse()
                    return .failure(
                        Self.dpopRefusal("invalid_dpop_proof", "the proof's key is not the key the token is bound to")
                    )
                case .absent:
                    self.state.recordBoundTokenMisuse()
                    return .failure(Self.dpopRefusal("invalid_dpop_proof", "a DPoP proof is required"))
                case .invalid(let reason):
                    return .failure(Self.dpopRefusal("invalid_dpop_proof", reason))
                case .nonceRequired(let nonce):
                    return .failure(
                        Self.dpopRefusal(
                            "use_dpop_nonce",
                            "the DPoP proof must carry the server's nonce",
                            nonce: nonce
                        )
                    )
                }
            }
        case .expired: description = "the access token expired"
        case .revoked: description = "the access token was revoked"
        case .invalid: description = "the access token is not valid"
        }
        if presentedAsDPoP { return .failure(Self.dpopRefusal("invalid_token", description)) }
        return .failure(
            Refusal(
                response: ReferenceHTTP.error(
                    .unauthorized,
                    "invalid_token",
                    message: description,
                    headers: ReferenceHTTP.bearerChallenge(errorDescription: description)
                )
            )
        )
    }

    /// `POST /oauth/revoke` (RFC 7009 §2.1), form-encoded: `token` and an optional
    /// `token_type_hint`. A refresh or access token revokes its whole family (the refresh token,
    /// its successors and the access tokens issued with them, as §2.1 recommends). An unknown,
    /// expired or already revoked token is answered 200 too (§2.2): the client cannot tell, and
    /// needs not.
    func revoke(_ exchange: Exchange) async -> Response {
        guard let fields = ReferenceHTTP.formOrJSONFields(exchange.body, contentType: exchange.headers[.contentType]),
            let token = fields["token"], !token.isEmpty
        else {
            return ReferenceHTTP.error(.badRequest, "invalid_request", message: "token is required")
        }
        let digest = ReferenceTokenIssuer.digest(token)
        // The hint orders the search; a token of the other type is still found (§2.1).
        let asRefresh = { self.state.revokeFamily(ofRefreshToken: digest) }
        let asAccess = {
            await self.issuer.family(ofAccessToken: token).map { self.state.revokeFamily(id: $0) } ?? false
        }
        if fields["token_type_hint"] == "access_token" {
            if !(await asAccess()) { _ = asRefresh() }
        } else if !asRefresh() {
            _ = await asAccess()
        }
        return Response(status: .ok, headers: [.cacheControl: "no-store"])
    }

    /// A 401 with a `WWW-Authenticate: DPoP` challenge (RFC 9449 §7.1), `algs="ES256"`.
    static func dpopRefusal(_ code: String, _ description: String, nonce: String? = nil) -> Refusal {
        var headers: HTTPFields = [
            .wwwAuthenticate: #"DPoP algs="ES256", error="\#(code)", error_description="\#(description)""#
        ]
        if let nonce { headers[ReferenceDPoPVerifier.nonceHeaderName] = nonce }
        return Refusal(response: ReferenceHTTP.error(.unauthorized, code, message: description, headers: headers))
    }

    /// A token response for a new pair (bound to the DPoP key `jkt`, if given), and the pair
    /// (nil when signing failed).
    func tokenResponse(
        email: String,
        familyID: String,
        jkt: String? = nil
    ) async -> (response: Response, issued: ReferenceTokenIssuer.Issued?) {
        do {
            let issued = try await self.issuer.issue(email: email, familyID: familyID, jkt: jkt)
            return (Self.tokenJSON(issued), issued)
        } catch {
            self.logger.error("signing an access token failed")
            return (ReferenceHTTP.error(.internalServerError, "server_error"), nil)
        }
    }

    private static func tokenJSON(_ issued: ReferenceTokenIssuer.Issued) -> Response {
        ReferenceHTTP.json(
            .ok,
            [
                "access_token": issued.accessToken,
                "token_type": issued.jkt == nil ? "Bearer" : "DPoP",
                "expires_in": issued.expiresIn,
                "refresh_token": issued.refreshToken,
                "scope": "profile",
            ],
            headers: [HTTPField.Name("Pragma")!: "no-cache"]
        )
    }

    static func invalidGrant(_ description: String) -> Response {
        ReferenceHTTP.json(.badRequest, ["error": "invalid_grant", "error_description": description])
    }

    private static func profileResponse(email: String, _ account: ReferenceServerState.Account) -> Response {
        ReferenceHTTP.json(
            .ok,
            [
                "email": email,
                "display_name": account.displayName,
                "updated_at": account.updatedAt.formatted(.iso8601),
            ]
        )
    }
}
#endif
