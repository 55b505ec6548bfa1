#if TestServers
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import SecureNetworkingInternal

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension ReferenceResponder {
    /// `GET /oauth/authorize` (RFC 6749 §4.1.1) with PKCE required (RFC 7636, `S256` only, as
    /// RFC 9700 §2.1.1 asks): it approves ``ReferenceAuthServer/Configuration/authorizationUser``
    /// at once and redirects with a single-use, short-lived `code` and the request's `state`.
    ///
    /// A missing or unregistered `redirect_uri` or a missing `client_id` is answered 400 here,
    /// never redirected (§4.1.2.1); every other error is redirected with `error` and `state`.
    func authorize(_ exchange: Exchange) -> Response {
        let query = Dictionary(exchange.query, uniquingKeysWith: { first, _ in first })
        guard let clientID = query["client_id"], !clientID.isEmpty else {
            return ReferenceHTTP.error(.badRequest, "invalid_request", message: "client_id is required")
        }
        guard let redirectURI = query["redirect_uri"], self.acceptsRedirect(redirectURI) else {
            return ReferenceHTTP.error(
                .badRequest,
                "invalid_request",
                message: "redirect_uri is missing or not registered"
            )
        }
        let state = query["state"]
        func redirect(_ fields: [(String, String)]) -> Response {
            let all = fields + (state.map { [("state", $0)] } ?? [])
            let query = all.map { "\(Self.formEncode($0.0))=\(Self.formEncode($0.1))" }.joined(separator: "&")
            let location = redirectURI + (redirectURI.contains("?") ? "&" : "?") + query
            return Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
        }
        guard query["response_type"] == "code" else {
            return redirect([("error", "unsupported_response_type")])
        }
        guard let challenge = query["code_challenge"], (43...128).contains(challenge.utf8.count) else {
            return redirect([("error", "invalid_request"), ("error_description", "PKCE is required (code_challenge)")])
        }
        guard query["code_challenge_method"] == "S256" else {
            return redirect([("error", "invalid_request"), ("error_description", "code_challenge_method must be S256")])
        }
        guard let email = self.authorizationUser, self.state.account(for: email) != nil else {
            return redirect([("error", "access_denied")])
        }
        let code = ReferenceTokenIssuer.randomToken()
        self.state.storeCode(
            digest: ReferenceTokenIssuer.digest(code),
            ReferenceServerState.CodeRecord(
                clientID: clientID,
                redirectURI: redirectURI,
                challenge: challenge,
                email: email,
                expiresAt: self.now().addingTimeInterval(self.authorizationCodeLifetime)
            )
        )
        return redirect([("code", code)])
    }

    /// The authorization code grant (RFC 6749 §4.1.3) with the PKCE check (RFC 7636 §4.6): the
    /// code is single-use and unexpired, and the client, redirect URI and verifier match it.
    func authorizationCodeGrant(_ fields: [String: String], jkt: String?) async -> Response {
        guard let code = fields["code"], let redirectURI = fields["redirect_uri"], let clientID = fields["client_id"]
        else {
            return ReferenceHTTP.error(
                .badRequest,
                "invalid_request",
                message: "code, redirect_uri and client_id are required"
            )
        }
        let digest = ReferenceTokenIssuer.digest(code)
        let record: ReferenceServerState.CodeRecord
        switch self.state.redeemCode(digest: digest, now: self.now()) {
        case .valid(let valid): record = valid
        case .reused:
            self.logger.notice("an authorization code was used twice: its tokens are revoked")
            return Self.invalidGrant("the authorization code was already used")
        case .invalid:
            return Self.invalidGrant("the authorization code is unknown or expired")
        }
        guard record.clientID == clientID, record.redirectURI == redirectURI else {
            return Self.invalidGrant("the code was issued to another client or redirect URI")
        }
        guard let verifier = fields["code_verifier"],
            Self.s256(verifier) == record.challenge
        else {
            return Self.invalidGrant("the code_verifier does not match the code_challenge")
        }
        let familyID = self.state.openFamily(for: record.email, jkt: jkt)
        self.state.attachFamily(familyID, toCode: digest)
        return await self.tokenResponse(email: record.email, familyID: familyID, jkt: jkt).response
    }

    /// Registered exactly, or a loopback `http` redirect on any port (RFC 8252 §7.3, §8.3).
    func acceptsRedirect(_ uri: String) -> Bool {
        if self.redirectURIs.contains(uri) { return true }
        guard let components = URLComponents(string: uri), components.scheme == "http", components.fragment == nil
        else {
            return false
        }
        return components.host == "127.0.0.1" || components.host == "[::1]" || components.host == "::1"
    }

    /// BASE64URL(SHA256(verifier)).
    static func s256(_ verifier: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Data(verifier.utf8))))
    }

    static func formEncode(_ text: String) -> String {
        PercentEncoder.encode(text)
    }
}
#endif
