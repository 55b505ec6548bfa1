import Crypto
public import Foundation
public import HTTPTypes
import HTTPTypesFoundation
import SecureNetworkingInternal
import SecureStorage

/// Makes the DPoP proofs (RFC 9449 §4) of one client: a JWT signed with its ``DPoPKey`` for each
/// request, bound to the request's method and URI and, for a resource request, to the access
/// token; and remembers each server's `DPoP-Nonce` (§8, §9) for the next proof to that server.
///
/// Share one signer between the token endpoint (``OAuthTokenEndpoint``, whose tokens then come
/// back bound to the key, `token_type: DPoP`) and the requests that use the tokens
/// (`SecureAPIClient`, or `HTTPRequestOptions.Credential.proof` on a transport of your own).
public final class DPoPSigner: Sendable, CustomStringConvertible {
    /// The key the proofs are signed with.
    public let key: DPoPKey
    private let now: @Sendable () -> Date
    /// The latest nonce each origin supplied (`https://host:port` → nonce), for the
    /// `DPoPNonceTable.maximumOrigins` origins used most recently.
    private let nonces = Locked(DPoPNonceTable())
    /// The `jwk` header of every proof, serialised once.
    private let headerSegment: String

    /// The `DPoP` header field.
    public static let headerName = HTTPField.Name("DPoP")!
    /// The `DPoP-Nonce` response field (RFC 9449 §8.1).
    public static let nonceHeaderName = HTTPField.Name("DPoP-Nonce")!
    /// The longest nonce remembered, in bytes; a longer one is ignored.
    static let maximumNonceLength = 1024

    /// Creates a signer.
    ///
    /// - Parameters:
    ///   - key: the key; keep it with ``DPoPKey/stored(in:key:)`` so a relaunch can use the
    ///     tokens bound to it.
    ///   - now: the clock the proofs' `iat` is read from.
    public init(key: DPoPKey, now: @escaping @Sendable () -> Date = { Date() }) {
        self.key = key
        self.now = now
        let header: [String: Any] = ["alg": "ES256", "jwk": key.jwk, "typ": "dpop+jwt"]
        self.headerSegment = Self.segment(header)
    }

    /// A proof for `request` (RFC 9449 §4.2): `htm` its method, `htu` its URI without query and
    /// fragment, `iat` now, a random `jti`, the origin's latest nonce, and `ath` (the
    /// base64url SHA-256 of `accessToken`) for a request that carries an access token (§7.1).
    ///
    /// - Throws: ``TokenAuthError/Code/proofOfPossessionFailed`` when the request has no
    ///   scheme or authority, or the key cannot sign (a Secure Enclave key whose use was
    ///   refused).
    public func proof(for request: HTTPRequest, accessToken: String? = nil) throws(TokenAuthError) -> String {
        guard let origin = Self.origin(of: request) else {
            throw TokenAuthError(.proofOfPossessionFailed, "a DPoP proof needs an absolute request URI")
        }
        var path = request.path ?? "/"
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<end]) }
        if path.isEmpty { path = "/" }
        // The claims in a fixed order, written directly (JSONSerialization costs more than the
        // signature on Linux). Every value is a JSON string or an integer.
        var claims = "{"
        if let accessToken {
            claims += #""ath":""# + Base64URL.encode(SHA256.hash(data: Data(accessToken.utf8))) + #"","#
        }
        claims += #""htm":"# + Self.jsonString(request.method.rawValue)
        claims += #","htu":"# + Self.jsonString(origin + path)
        claims += #","iat":"# + String(Int(self.now().timeIntervalSince1970))
        claims += #","jti":""# + Base64URL.encode(Self.randomBytes(16)) + "\""
        if let nonce = self.nonces.withLock({ $0.nonce(for: origin) }) {
            claims += #","nonce":"# + Self.jsonString(nonce)
        }
        claims += "}"
        let signingInput = self.headerSegment + "." + Base64URL.encode(Array(claims.utf8))
        let signature: Data
        do {
            signature = try self.key.sign(Data(signingInput.utf8))
        } catch {
            throw TokenAuthError(.proofOfPossessionFailed, "the DPoP key could not sign the proof")
        }
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// `count` random bytes from the system's generator, eight at a time.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        return Array(bytes.prefix(count))
    }

    /// `text` as a JSON string (RFC 8259 §7): quotes, backslashes and control characters
    /// escaped.
    static func jsonString(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case _ where scalar.value < 0x20: output += String(format: "\\u%04x", scalar.value)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    /// Remembers the `DPoP-Nonce` of `response` (to `request`) for the next proofs to that
    /// origin (RFC 9449 §8.2: a server may supply a new nonce in any response). The nonces of
    /// the 32 origins used most recently are kept; an older origin's is forgotten, and that
    /// origin's next request is challenged for a nonce again.
    ///
    /// - Returns: whether the response supplied a (valid) nonce.
    @discardableResult
    public func noteNonce(in response: HTTPResponse, to request: HTTPRequest) -> Bool {
        guard let nonce = response.headerFields[Self.nonceHeaderName], Self.isValidNonce(nonce),
            let origin = Self.origin(of: request)
        else { return false }
        self.nonces.withLock { $0.record(nonce, for: origin) }
        return true
    }

    /// Remembers the `DPoP-Nonce` of a response from `url` (see ``noteNonce(in:to:)``).
    @discardableResult
    public func noteNonce(in response: HTTPResponse, from url: URL) -> Bool {
        self.noteNonce(in: response, to: HTTPRequest(method: .get, url: url))
    }

    /// Whether `response` is a nonce challenge (RFC 9449 §8: a token endpoint's 400
    /// `use_dpop_nonce`, §9: a resource server's 401 with `WWW-Authenticate: DPoP
    /// error="use_dpop_nonce"`) that supplies a nonce, so one retry with it may succeed.
    public static func isNonceChallenge(_ response: HTTPResponse, body: Data) -> Bool {
        guard let nonce = response.headerFields[Self.nonceHeaderName], Self.isValidNonce(nonce) else { return false }
        return Self.asksForNonce(response, body: body)
    }

    /// Whether `response` is a `use_dpop_nonce` error (a token endpoint's 400 or a resource
    /// server's 401), whether or not it supplies a valid nonce.
    static func asksForNonce(_ response: HTTPResponse, body: Data) -> Bool {
        switch response.status.code {
        case 401:
            return response.headerFields[values: .wwwAuthenticate].contains { value in
                BearerChallenge(parsing: value, scheme: "DPoP")?.error == "use_dpop_nonce"
            }
        case 400:
            return (try? JSONDecoder().decode(OAuthErrorBody.self, from: body))?.error == "use_dpop_nonce"
        default:
            return false
        }
    }

    /// The key's thumbprint and the origins it holds nonces for; never a nonce.
    public var description: String {
        "DPoPSigner(jkt: \(self.key.thumbprint), nonces: \(self.nonces.withLock { $0.count }))"
    }

    /// `https://host[:port]` of a request, scheme and host lowercased and the default port left
    /// out (RFC 3986 §6.2.2, §6.2.3), as `htu` begins.
    static func origin(of request: HTTPRequest) -> String? {
        guard let scheme = request.scheme?.lowercased(), let authority = request.authority, !authority.isEmpty
        else { return nil }
        var hostPort = authority.lowercased()
        if let userInfoEnd = hostPort.lastIndex(of: "@") {
            hostPort = String(hostPort[hostPort.index(after: userInfoEnd)...])
        }
        let defaultPort = scheme == "https" ? ":443" : scheme == "http" ? ":80" : nil
        if let defaultPort, hostPort.hasSuffix(defaultPort) { hostPort.removeLast(defaultPort.count) }
        return "\(scheme)://\(hostPort)"
    }

    /// `nonce = 1*NQCHAR` (RFC 9449 §8.1), bounded.
    static func isValidNonce(_ nonce: String) -> Bool {
        !nonce.isEmpty && nonce.utf8.count <= Self.maximumNonceLength
            && nonce.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }

    /// A JSON object as a base64url segment (keys sorted, slashes not escaped).
    private static func segment(_ object: [String: Any]) -> String {
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        return Base64URL.encode(Array(data))
    }
}

extension DPoPSigner: CustomReflectable {
    /// What `dump()`, debuggers and `Mirror` see: the key's thumbprint and how many origins it
    /// holds nonces for; never a nonce.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["jkt": self.key.thumbprint, "nonces": self.nonces.withLock { $0.count }],
            displayStyle: .class
        )
    }
}
