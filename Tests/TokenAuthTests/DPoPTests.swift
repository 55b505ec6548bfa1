#if TestServers
import Crypto
import Foundation
import HTTPTypes
import HTTPTypesFoundation
import SecureHTTP
import SecureNetworkingInternal
import SecureNetworkingTesting
import SecureStorage
import Testing

@testable import TokenAuth

/// DPoP (RFC 9449): the proofs' shape, the key's storage, and tokens bound to a key at the
/// reference server: refused without the key, a proof used once, nonce challenges answered with their nonce.
@Suite("DPoP")
struct DPoPTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static let user = ReferenceAuthServer.User(email: "ada@example.com", password: "correct horse", displayName: "Ada")

    /// A proof's header and claims, decoded (the signature checked against `key`).
    static func decode(_ proof: String, key: DPoPKey) throws -> (header: [String: Any], claims: [String: Any]) {
        let parts = proof.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        func data(_ segment: String) throws -> Data {
            var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while base64.count % 4 != 0 { base64 += "=" }
            return try #require(Data(base64Encoded: base64))
        }
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try data(parts[2]))
        #expect(key.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
        let header = try #require(try JSONSerialization.jsonObject(with: try data(parts[0])) as? [String: Any])
        let claims = try #require(try JSONSerialization.jsonObject(with: try data(parts[1])) as? [String: Any])
        return (header, claims)
    }

    /// RFC 9449 §4.2: `typ`, `alg`, a public `jwk`; `htm`, `htu` without query and fragment,
    /// `iat`, a fresh `jti`; `ath` only with an access token; the nonce of the same origin only.
    @Test func theProofHasTheShapeOfRFC9449() throws {
        let key = DPoPKey()
        let clock = TestClock()
        let signer = DPoPSigner(key: key, now: { clock.now })
        var request = HTTPRequest(method: .get, url: URL(string: "HTTPS://API.Example.com:443/v1/items?page=2")!)
        let first = try Self.decode(try signer.proof(for: request, accessToken: "token-1"), key: key)
        #expect(first.header["typ"] as? String == "dpop+jwt")
        #expect(first.header["alg"] as? String == "ES256")
        let jwk = try #require(first.header["jwk"] as? [String: String])
        #expect(jwk == key.jwk && jwk["d"] == nil && Set(jwk.keys) == ["kty", "crv", "x", "y"])
        #expect(first.claims["htm"] as? String == "GET")
        #expect(first.claims["htu"] as? String == "https://api.example.com/v1/items")
        #expect((first.claims["iat"] as? NSNumber)?.intValue == Int(clock.now.timeIntervalSince1970))
        let ath = Base64URL.encode(Array(SHA256.hash(data: Data("token-1".utf8))))
        #expect(first.claims["ath"] as? String == ath)
        #expect(first.claims["nonce"] == nil)

        // The token endpoint's proofs carry no ath; every proof has its own jti.
        request.method = .post
        request.path = "/token#frag"
        let second = try Self.decode(try signer.proof(for: request), key: key)
        #expect(second.claims["htm"] as? String == "POST")
        #expect(second.claims["htu"] as? String == "https://api.example.com/token")
        #expect(second.claims["ath"] == nil)
        #expect((second.claims["jti"] as? String)?.utf8.count == 22)
        #expect(second.claims["jti"] as? String != first.claims["jti"] as? String)

        // A nonce is kept per origin and sent only there; a malformed one is ignored.
        var challenge = HTTPResponse(status: .unauthorized)
        challenge.headerFields[DPoPSigner.nonceHeaderName] = "n-1"
        #expect(signer.noteNonce(in: challenge, to: request))
        challenge.headerFields[DPoPSigner.nonceHeaderName] = "bad nonce\""
        #expect(!signer.noteNonce(in: challenge, to: request))
        #expect(try Self.decode(try signer.proof(for: request), key: key).claims["nonce"] as? String == "n-1")
        let elsewhere = HTTPRequest(method: .get, url: URL(string: "https://api.example.com:8443/v1")!)
        #expect(try Self.decode(try signer.proof(for: elsewhere), key: key).claims["nonce"] == nil)
        #expect(!String(describing: signer).contains("n-1"))
    }

    /// Token types compare case-insensitively (RFC 6749 §7.1); the scheme is spelled canonically.
    @Test func theAuthorizationSchemeFollowsTheTokenType() {
        #expect(TokenBundle.authorizationValue(tokenType: "dpop", accessToken: "t") == "DPoP t")
        #expect(TokenBundle.authorizationValue(tokenType: "bearer", accessToken: "t") == "Bearer t")
        #expect(TokenBundle.authorizationValue(tokenType: "MAC", accessToken: "t") == "MAC t")
        let bundle = TokenBundle(accessToken: "t", refreshToken: nil, expiresAt: Date(), tokenType: "DPoP")
        #expect(bundle.isDPoPBound && bundle.authorizationValue == "DPoP t")
        #expect(!TokenResponse(accessToken: "t", tokenType: "Bearer", expiresIn: nil).isDPoPBound)
    }

    /// The hand-written encoders behind each proof agree with Foundation's.
    @Test func theProofsEncodersAgreeWithFoundation() throws {
        for length in 0..<70 {
            let bytes = DPoPSigner.randomBytes(length)
            #expect(bytes.count == length)
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == expected, "\(length) bytes")
        }
        for text in ["plain", #"a"quote"#, #"back\slash"#, "tab\tnew\nline\u{1}", "ü/ß"] {
            let json = Data("[\(DPoPSigner.jsonString(text))]".utf8)
            #expect(try JSONSerialization.jsonObject(with: json) as? [String] == [text])
        }
    }

    /// RFC 7638 §3 over the JWK of RFC 9449 §4.2's example proof gives the `jkt` of its §6.1
    /// example.
    @Test func theThumbprintIsRFC7638() throws {
        let x = try #require(Data(base64Encoded: "l8tFrhx+34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs="))
        let y = try #require(Data(base64Encoded: "9VE4jf/Ok/o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA="))
        let key = DPoPKey(publicKey: try P256.Signing.PublicKey(rawRepresentation: x + y)) { _ in
            throw CancellationError()
        }
        #expect(key.thumbprint == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
        // A key that cannot sign makes no proof.
        let signer = DPoPSigner(key: key)
        #expect(throws: TokenAuthError(.proofOfPossessionFailed, "")) {
            try signer.proof(for: HTTPRequest(method: .get, url: URL(string: "https://a.example/")!))
        }
    }

    @Test func theKeyIsKeptInTheStoreAndNeverShown() async throws {
        let store = InMemoryStore()
        let first = try await DPoPKey.stored(in: store)
        let again = try await DPoPKey.stored(in: store)
        #expect(first.thumbprint == again.thumbprint)
        let raw = try #require(try await store.data(forKey: "SecureNetworking.dpopKey"))
        #expect(raw.count == 32)
        let hex = raw.map { String(format: "%02x", $0) }.joined()
        #expect(!"\(first)".contains(hex) && "\(first)".contains(first.thumbprint))
        var dumped = ""
        dump(first, to: &dumped)
        #expect(!dumped.contains(hex))
        // Something that is not a P-256 key is an error, never silently replaced.
        try await store.set(Data([1, 2, 3]), forKey: "other")
        await #expect(throws: TokenAuthError(.storageFailure, "")) { try await DPoPKey.stored(in: store, key: "other") }
        #expect(try await store.data(forKey: "other") == Data([1, 2, 3]))
    }

    // MARK: - Against the reference server

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    struct World {
        let server: ReferenceAuthServer
        let transport: NIOHTTPTransport
        var profileURL: URL { self.server.baseURL.appendingPathComponent("user/profile") }

        func endpoint(_ signer: DPoPSigner?) -> OAuthTokenEndpoint {
            OAuthTokenEndpoint(
                url: self.server.baseURL.appendingPathComponent("oauth/token"),
                transport: self.transport,
                client: .publicClient(id: "ios-app"),
                dpop: signer
            )
        }

        /// `POST /auth/login` with a proof by `signer` (answering one nonce challenge).
        func signIn(_ signer: DPoPSigner) async throws -> TokenResponse {
            var login = HTTPRequest(method: .post, url: self.server.baseURL.appendingPathComponent("auth/login"))
            login.headerFields[.contentType] = "application/json"
            let body = try JSONSerialization.data(withJSONObject: ["email": user.email, "password": user.password])
            for _ in 0..<2 {
                login.headerFields[DPoPSigner.headerName] = try signer.proof(for: login)
                let response = try await self.transport.send(login, body: body)
                signer.noteNonce(in: response.response, to: login)
                if DPoPSigner.isNonceChallenge(response.response, body: response.body) { continue }
                #expect(response.response.status == .ok, "\(String(decoding: response.body, as: UTF8.self))")
                return try JSONDecoder().decode(TokenResponse.self, from: response.body)
            }
            throw TokenAuthError(.proofOfPossessionFailed, "challenged twice")
        }

        /// `GET /user/profile` with `authorization` and, when given, `proof` as the DPoP field.
        func profile(authorization: String, proof: String?) async throws -> HTTPTransportResponse {
            var request = HTTPRequest(method: .get, url: self.profileURL)
            request.headerFields[.authorization] = authorization
            if let proof { request.headerFields[DPoPSigner.headerName] = proof }
            return try await self.transport.send(request)
        }

        func proof(
            _ signer: DPoPSigner,
            token: String,
            method: HTTPRequest.Method = .get,
            url: URL? = nil
        ) throws -> String {
            try signer.proof(for: HTTPRequest(method: method, url: url ?? self.profileURL), accessToken: token)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    func withWorld(
        _ configure: (inout ReferenceAuthServer.Configuration) -> Void = { _ in },
        _ body: (World) async throws -> Void
    ) async throws {
        var configuration = ReferenceAuthServer.Configuration(chain: try Live.pki.validChain(), users: [Self.user])
        configure(&configuration)
        try await withReferenceAuthServer(configuration) { server in
            try await withNIOHTTPTransport(configuration: Live.configuration) { transport in
                try await body(World(server: server, transport: transport))
            }
        }
    }

    static func challenge(_ response: HTTPTransportResponse) -> BearerChallenge? {
        response.response.headerFields[.wwwAuthenticate].flatMap { BearerChallenge(parsing: $0, scheme: "DPoP") }
    }

    /// A token bound at sign-in works with its key's proof, and is refused as a bearer token,
    /// without a proof, and with another key's proof: a copied token is useless without the key.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test(arguments: [ReferenceAuthServer.TokenFormat.jwt, .opaque])
    func aStolenTokenIsRefusedWithoutTheKey(format: ReferenceAuthServer.TokenFormat) async throws {
        try await withWorld({ $0.tokenFormat = format }) { world in
            let signer = DPoPSigner(key: DPoPKey())
            let tokens = try await world.signIn(signer)
            #expect(tokens.tokenType == "DPoP")
            let token = tokens.accessToken
            let ok = try await world.profile(
                authorization: "DPoP \(token)",
                proof: try world.proof(signer, token: token)
            )
            #expect(ok.response.status == .ok)

            let asBearer = try await world.profile(authorization: "Bearer \(token)", proof: nil)
            #expect(asBearer.response.status == .unauthorized)
            #expect(Self.challenge(asBearer)?.error == "invalid_token")
            let withoutProof = try await world.profile(authorization: "DPoP \(token)", proof: nil)
            #expect(Self.challenge(withoutProof)?.error == "invalid_dpop_proof")
            let thief = DPoPSigner(key: DPoPKey())
            let otherKey = try await world.profile(
                authorization: "DPoP \(token)",
                proof: try world.proof(thief, token: token)
            )
            #expect(otherKey.response.status == .unauthorized)
            #expect(Self.challenge(otherKey)?.error == "invalid_dpop_proof")
            #expect(world.server.statistics.boundTokenMisuses == 3)
            // Sign-in, the request, the thief's (valid, wrong key).
            #expect(world.server.statistics.dpopProofsAccepted == 3)

            // The refresh token is bound too: the thief's proof is refused before the token is
            // spent, so the owner's refresh still works.
            let refreshToken = try #require(tokens.refreshToken)
            await #expect(throws: TokenAuthError(.invalidGrant, "")) {
                try await world.endpoint(thief).refresh(using: refreshToken)
            }
            await #expect(throws: TokenAuthError(.proofOfPossessionFailed, "")) {
                try await world.endpoint(nil).refresh(using: refreshToken)
            }
            let refreshed = try await world.endpoint(signer).refresh(using: refreshToken)
            #expect(refreshed.tokenType == "DPoP")
            #expect(world.server.statistics.revokedFamilies == 0)
            let again = try await world.profile(
                authorization: "DPoP \(refreshed.accessToken)",
                proof: try world.proof(signer, token: refreshed.accessToken)
            )
            #expect(again.response.status == .ok)
        }
    }

    /// A proof is accepted once (§11.1, `jti`), and only for its method, URI, token and time.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aReplayedOrMisdirectedProofIsRefused() async throws {
        try await withWorld { world in
            let signer = DPoPSigner(key: DPoPKey())
            let token = try await world.signIn(signer).accessToken
            let proof = try world.proof(signer, token: token)
            let first = try await world.profile(authorization: "DPoP \(token)", proof: proof)
            #expect(first.response.status == .ok)
            let replay = try await world.profile(authorization: "DPoP \(token)", proof: proof)
            #expect(replay.response.status == .unauthorized)
            #expect(Self.challenge(replay)?.errorDescription == "the DPoP proof was used before")
            #expect(world.server.statistics.dpopReplays == 1)

            let wrongMethod = try world.proof(signer, token: token, method: .patch)
            let wrongURI = try world.proof(
                signer,
                token: token,
                url: world.server.baseURL.appendingPathComponent("echo")
            )
            let wrongToken = try world.proof(signer, token: token + "x")
            let stale = try DPoPSigner(key: signer.key, now: { Date().addingTimeInterval(-61) })
                .proof(for: HTTPRequest(method: .get, url: world.profileURL), accessToken: token)
            let future = try DPoPSigner(key: signer.key, now: { Date().addingTimeInterval(30) })
                .proof(for: HTTPRequest(method: .get, url: world.profileURL), accessToken: token)
            for (proof, reason) in [
                (wrongMethod, "htm is not the request's method"), (wrongURI, "htu is not the request's URI"),
                (wrongToken, "ath is not the access token's hash"), (stale, "iat is outside the accepted window"),
                (future, "iat is outside the accepted window"),
            ] {
                let refused = try await world.profile(authorization: "DPoP \(token)", proof: proof)
                #expect(refused.response.status == .unauthorized, "\(reason)")
                #expect(Self.challenge(refused)?.errorDescription == reason)
            }
            // The other side of the window: a proof made 50 s ago still counts.
            let recent = try DPoPSigner(key: signer.key, now: { Date().addingTimeInterval(-50) })
                .proof(for: HTTPRequest(method: .get, url: world.profileURL), accessToken: token)
            #expect(try await world.profile(authorization: "DPoP \(token)", proof: recent).response.status == .ok)
            // A proof whose signature was tampered with.
            var parts = try world.proof(signer, token: token).split(separator: ".").map(String.init)
            parts[2] = String(parts[2].reversed())
            let tampered = try await world.profile(authorization: "DPoP \(token)", proof: parts.joined(separator: "."))
            #expect(Self.challenge(tampered)?.error == "invalid_dpop_proof")
        }
    }

    /// §8: the token endpoint's `use_dpop_nonce` is answered with the nonce it supplied; later
    /// requests carry it unasked; a server that never accepts one gets
    /// `DPoPNonceRetry.maximumRetries` retries, then a typed error that names the nonce problem.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aNonceChallengeIsAnsweredWithItsNonce() async throws {
        try await withWorld({ $0.requiresDPoPNonce = true }) { world in
            let signer = DPoPSigner(key: DPoPKey())
            let tokens = try await world.signIn(signer)
            #expect(world.server.statistics.dpopNonceChallenges == 1)

            // A client that has no nonce yet: challenged, retried once, served.
            let fresh = DPoPSigner(key: signer.key)
            let endpoint = world.endpoint(fresh)
            let refreshed = try await endpoint.refresh(using: try #require(tokens.refreshToken))
            #expect(world.server.statistics.dpopNonceChallenges == 2)
            #expect(world.server.statistics.tokenEndpointCalls == 2)
            // It keeps the nonce: no challenge the next time.
            _ = try await endpoint.refresh(using: try #require(refreshed.refreshToken))
            #expect(world.server.statistics.dpopNonceChallenges == 2)
            #expect(world.server.statistics.tokenEndpointCalls == 3)
        }
        try await withWorld({
            $0.requiresDPoPNonce = true
            $0.dpopNonceLifetime = .zero  // every nonce is dead on arrival
        }) { world in
            let endpoint = world.endpoint(DPoPSigner(key: DPoPKey()))
            await #expect(throws: TokenAuthError(.dpopNonceRejected, "")) {
                try await endpoint.refresh(using: "anything")
            }
            #expect(world.server.statistics.tokenEndpointCalls == 1 + DPoPNonceRetry.maximumRetries)
            #expect(world.server.statistics.dpopNonceChallenges == 1 + DPoPNonceRetry.maximumRetries)
        }
    }

    /// RFC 9449 §5: a client that proved its key discards a Bearer token.
    @Test func aBearerTokenForADPoPRequestIsRefused() async throws {
        let body = Array(#"{"access_token":"a","token_type":"Bearer","expires_in":300}"#.utf8)
        try await withLoopbackHTTPServer(
            LoopbackHTTPServer.TLS(chain: try Live.pki.validChain()),
            handler: { _ in .status(200, headers: [("Content-Type", "application/json")], body: body) }
        ) { server in
            try await withNIOHTTPTransport(configuration: Live.configuration) { transport in
                let url = server.baseURL.appendingPathComponent("oauth/token")
                let signer = DPoPSigner(key: DPoPKey())
                let bound = OAuthTokenEndpoint(
                    url: url,
                    transport: transport,
                    client: .publicClient(id: "a"),
                    dpop: signer
                )
                await #expect(throws: TokenAuthError(.invalidResponse, "")) { try await bound.refresh(using: "r") }
                // The proof went with the request; without a signer the same answer is fine.
                let sent = try #require(server.statistics.requests.first)
                #expect(sent.headers.contains { $0.0.lowercased() == "dpop" })
                let plain = OAuthTokenEndpoint(url: url, transport: transport, client: .publicClient(id: "a"))
                #expect(try await plain.refresh(using: "r").tokenType == "Bearer")
            }
        }
    }
}
#endif
