#if TestServers
import Crypto
import Foundation
import HTTPTypes
import SecureNetworkingInternal

/// Checks DPoP proofs (RFC 9449 §4.3) for the reference server: one `DPoP` field holding a JWT
/// with `typ` `dpop+jwt`, `alg` ES256 and a public P-256 `jwk`; a valid signature; `htm` and
/// `htu` matching the request; `iat` within the window; `ath` matching the access token when
/// one is presented; a `jti` not seen before (per key); and a live server nonce when nonces are
/// required.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
struct ReferenceDPoPVerifier: Sendable {
    /// How far in the past `iat` may lie (and how long a `jti` is remembered).
    let window: TimeInterval
    /// How far in the future `iat` may lie (clock skew).
    static let futureSkew: TimeInterval = 5
    let requiresNonce: Bool
    let nonceLifetime: TimeInterval
    let state: ReferenceServerState
    let now: @Sendable () -> Date

    static let headerName = HTTPField.Name("DPoP")!
    static let nonceHeaderName = HTTPField.Name("DPoP-Nonce")!

    enum Outcome: Equatable {
        /// No `DPoP` field at all.
        case absent
        /// A valid proof by the key with this thumbprint (RFC 7638).
        case valid(jkt: String)
        /// A proof that must be refused (`invalid_dpop_proof`), and why.
        case invalid(String)
        /// A proof without a live nonce: answer `use_dpop_nonce` with this fresh one.
        case nonceRequired(String)
    }

    /// Checks the request's proof.
    ///
    /// - Parameters:
    ///   - headers: the request's fields.
    ///   - method: the request's method (`htm`).
    ///   - uri: the request's URI without query (`htu`).
    ///   - accessToken: the access token the request presents, for `ath`; nil at the token
    ///     endpoint.
    func verify(
        _ headers: HTTPFields,
        method: HTTPRequest.Method,
        uri: String,
        accessToken: String?
    ) -> Outcome {
        let outcome = self.check(headers, method: method, uri: uri, accessToken: accessToken)
        self.state.recordDPoP(outcome)
        return outcome
    }

    private func check(
        _ headers: HTTPFields,
        method: HTTPRequest.Method,
        uri: String,
        accessToken: String?
    ) -> Outcome {
        let fields = headers[values: Self.headerName]
        if fields.isEmpty { return .absent }
        // §4.3 1–2: exactly one field, one well-formed JWS in compact form.
        guard fields.count == 1 else { return .invalid("more than one DPoP field") }
        let parts = fields[0].split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = ReferenceHTTP.base64URLDecode(parts[0]),
            let payloadData = ReferenceHTTP.base64URLDecode(parts[1]),
            let signature = ReferenceHTTP.base64URLDecode(parts[2]),
            let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
            let claims = (try? JSONSerialization.jsonObject(with: payloadData)) as? [String: Any]
        else { return .invalid("the DPoP proof is not a JWT") }
        // §4.3 4–7: the type, an asymmetric algorithm this server supports, a public key only.
        guard header["typ"] as? String == "dpop+jwt" else { return .invalid("typ is not dpop+jwt") }
        guard header["alg"] as? String == "ES256" else { return .invalid("alg is not ES256") }
        guard let jwk = header["jwk"] as? [String: Any], jwk["kty"] as? String == "EC",
            jwk["crv"] as? String == "P-256", jwk["d"] == nil,
            let x = jwk["x"] as? String, let y = jwk["y"] as? String,
            let xBytes = ReferenceHTTP.base64URLDecode(Substring(x)),
            let yBytes = ReferenceHTTP.base64URLDecode(Substring(y)),
            xBytes.count == 32, yBytes.count == 32,
            let key = try? P256.Signing.PublicKey(rawRepresentation: xBytes + yBytes)
        else { return .invalid("jwk is not a public P-256 key") }
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            key.isValidSignature(ecdsa, for: Data((parts[0] + "." + parts[1]).utf8))
        else { return .invalid("the DPoP proof's signature does not verify") }
        // §4.3 3, 8–9: the claims, the method, the URI (query and fragment ignored).
        guard let jti = claims["jti"] as? String, !jti.isEmpty, jti.utf8.count <= 256,
            let htm = claims["htm"] as? String, let htu = claims["htu"] as? String,
            let iatNumber = claims["iat"] as? NSNumber
        else { return .invalid("jti, htm, htu or iat is missing") }
        guard htm == method.rawValue else { return .invalid("htm is not the request's method") }
        guard Self.normalized(htu) == Self.normalized(uri) else { return .invalid("htu is not the request's URI") }
        // §4.3 11: issued within the window.
        let now = self.now()
        let iat = Date(timeIntervalSince1970: iatNumber.doubleValue)
        guard iat <= now.addingTimeInterval(Self.futureSkew), now.timeIntervalSince(iat) <= self.window else {
            return .invalid("iat is outside the accepted window")
        }
        // §4.3 12 (§7.1): bound to the presented access token.
        if let accessToken {
            let ath = Base64URL.encode(Array(SHA256.hash(data: Data(accessToken.utf8))))
            guard claims["ath"] as? String == ath else { return .invalid("ath is not the access token's hash") }
        }
        // §4.3 10 (§8, §9): a nonce this server supplied, still live.
        if self.requiresNonce {
            guard let nonce = claims["nonce"] as? String, self.state.isLiveDPoPNonce(nonce, now: now) else {
                return .nonceRequired(self.state.issueDPoPNonce(now: now, lifetime: self.nonceLifetime))
            }
        }
        let jkt = Self.thumbprint(x: x, y: y)
        // §11.1: a proof is used once; the jti is remembered as long as its iat is acceptable.
        guard self.state.recordDPoPJTI(jkt + ":" + jti, expiresAt: iat.addingTimeInterval(self.window), now: now)
        else { return .invalid("the DPoP proof was used before") }
        return .valid(jkt: jkt)
    }

    /// RFC 7638 §3: the SHA-256 of the required members in lexicographic order.
    static func thumbprint(x: String, y: String) -> String {
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        return Base64URL.encode(Array(SHA256.hash(data: Data(canonical.utf8))))
    }

    /// The URI without query and fragment, scheme and host lowercased and the default port
    /// dropped (RFC 3986 §6.2.2.1, §6.2.3).
    static func normalized(_ uri: String) -> String {
        var text = Substring(uri)
        if let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<end] }
        guard let schemeEnd = text.range(of: "://") else { return String(text) }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        let rest = text[schemeEnd.upperBound...]
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<slash].lowercased()
        let path = rest[slash...].isEmpty ? "/" : String(rest[slash...])
        if scheme == "https", authority.hasSuffix(":443") { authority.removeLast(4) }
        if scheme == "http", authority.hasSuffix(":80") { authority.removeLast(3) }
        return "\(scheme)://\(authority)\(path)"
    }
}
#endif
