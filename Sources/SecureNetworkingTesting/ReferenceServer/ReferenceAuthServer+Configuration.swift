#if TestServers
public import Foundation
public import Logging
public import SecureCrypto

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension ReferenceAuthServer {
    /// How a ``ReferenceAuthServer`` is set up: its TLS identity, the CAs it accepts client
    /// certificates from, token lifetimes and format, its users and its clock.
    ///
    /// - Important: This is a server for tests and demos. Its defaults favour speed over
    ///   strength (cheap password hashing, keys that live only as long as the process) and
    ///   every token and user lives in memory.
    public struct Configuration: Sendable {
        /// The certificate chain the server presents (leaf first) with the leaf's key.
        public var chain: TestPKI.Chain
        /// The CAs whose client certificates are accepted for mutual TLS. Default: none, so
        /// no client certificate is requested and `/mtls/whoami` always answers 403.
        public var clientCertificateIssuers: [TestPKI.Identity]
        /// How long an access token is valid. Default 300 seconds.
        public var accessTokenLifetime: Duration
        /// How long a refresh token is valid. Default 30 days.
        public var refreshTokenLifetime: Duration
        /// What access tokens look like. Default ``TokenFormat/jwt``.
        public var tokenFormat: TokenFormat
        /// The accounts that can sign in. Their passwords are hashed when the server starts.
        public var users: [User]
        /// How passwords are hashed at start and verified at sign-in.
        ///
        /// Default: PBKDF2-HMAC-SHA256 with 1,000 iterations (see
        /// ``ReferenceAuthServer/Configuration/testPasswordHashing``).
        ///
        /// - Important: 1,000 iterations is far too cheap for real passwords; it keeps debug
        ///   test runs fast. Never use this server's defaults for real accounts.
        public var passwordHashing: PasswordHasher.Configuration
        /// The clock token issue and expiry are measured against. Default: `Date()`. Tests
        /// inject their own to move time forward without sleeping.
        public var now: @Sendable () -> Date
        /// Where the server logs; nil (the default) is silent. Passwords and tokens are never
        /// logged.
        public var logger: Logger?
        /// The port on 127.0.0.1; 0 (the default) picks a free one. The server only ever
        /// listens on loopback.
        public var port: Int = 0
        /// Whether the server closes the connection after every response (each answer carries
        /// `Connection: close`), so every request of a client costs a new TCP connection and TLS
        /// handshake, as with servers and proxies that do not keep connections alive. Default
        /// false (keep-alive).
        public var closesEveryConnection = false
        /// Whether the server offers HTTP/2 in ALPN (`h2`, then `http/1.1`), so a client that
        /// offers `h2` gets one connection with many streams. Default false (HTTP/1.1 only; ALPN
        /// offers `http/1.1`). ``closesEveryConnection`` applies to HTTP/1.1 connections only.
        public var servesHTTP2 = false
        /// How long after a refresh token was redeemed a second presentation of it returns the
        /// *same* successor instead of revoking the family: the client that lost the response
        /// in transit and retries is recognised (RFC 9700 §4.14.2). Only while the successor
        /// has not been used itself; past the window, or once the successor was redeemed, reuse
        /// revokes the family as before. The successor's tokens are kept in memory for the
        /// window only. The price: a thief who redeems a stolen refresh token moments before the
        /// app does is not caught then (both hold the successor; the next reuse after a window
        /// revokes), so the window stays short. Default 10 seconds; zero turns the grace off.
        public var refreshTokenReuseGraceWindow: Duration = .seconds(10)
        /// When set, the answer to each refresh-token grant that redeems a token waits for this
        /// gate, after the token was redeemed and its successor issued: a response in flight, for
        /// tests of a client that is suspended (or loses the answer) mid-refresh. Nil (the
        /// default): answered at once.
        public var refreshResponseGate: LoopbackHTTPServer.Gate?
        /// Failed sign-ins per account within ``failedLoginWindow`` after which `/auth/login`
        /// answers 429 with `Retry-After` (a correct password included) until the oldest failure
        /// leaves the window. A successful sign-in clears the account's count. Default 5.
        public var maximumFailedLoginsPerAccount = 5
        /// Failed sign-ins per client address within ``failedLoginWindow``, whatever the
        /// account, after which `/auth/login` answers 429 (against password spraying). Default 20.
        public var maximumFailedLoginsPerAddress = 20
        /// The window of the sign-in limits. Default 5 minutes.
        public var failedLoginWindow: Duration = .seconds(300)
        /// The account `GET /oauth/authorize` approves without asking (the server has no login
        /// page: it stands for a user who signs in and consents). Default: the first of
        /// ``users``.
        public var authorizationUser: String?
        /// How long an authorization code may be exchanged. Default 60 seconds (RFC 6749
        /// §4.1.2 asks for at most 10 minutes).
        public var authorizationCodeLifetime: Duration = .seconds(60)
        /// Redirect URIs `/oauth/authorize` accepts, compared exactly, besides loopback ones
        /// (`http://127.0.0.1:PORT/…` or `http://[::1]:PORT/…`, any port, RFC 8252 §7.3).
        /// Default: `securenet-demo:/callback`.
        public var redirectURIs: [String] = ["securenet-demo:/callback"]
        /// DPoP (RFC 9449): a token request with a valid proof gets tokens bound to the proof's
        /// key (`token_type: DPoP`, `cnf.jkt`; the refresh tokens of the sign-in too), which are
        /// then accepted only with `Authorization: DPoP` and a proof by that key. How far in the
        /// past a proof's `iat` may lie, and how long its `jti` is remembered against replay.
        /// Default 60 seconds.
        public var dpopProofWindow: Duration = .seconds(60)
        /// Whether proofs must carry a nonce the server supplied (RFC 9449 §8, §9): a proof
        /// without a live one is answered `use_dpop_nonce` with a fresh `DPoP-Nonce`. Default
        /// false.
        public var requiresDPoPNonce = false
        /// How long a nonce stays live. Default 5 minutes.
        public var dpopNonceLifetime: Duration = .seconds(300)
        /// Whether token requests must carry a DPoP proof (no bearer tokens are issued).
        /// Default false.
        public var requiresDPoP = false

        /// The signed pin-set update `GET /.well-known/securenet-pins.json` serves (the
        /// envelope of `SignedPinSetUpdate`), read on every request so that a test or demo can
        /// publish a new one while the server runs; nil, or a nil answer, is 404. Default nil.
        public var pinSetUpdate: (@Sendable () -> Data?)?

        /// PBKDF2-HMAC-SHA256 with 1,000 iterations: cheap enough for debug builds.
        ///
        /// - Important: For tests only; real password storage needs the
        ///   `PasswordHasher.Configuration.pbkdf2SHA256` or `PasswordHasher.Configuration.scrypt`
        ///   presets.
        public static let testPasswordHashing = PasswordHasher.Configuration(
            algorithm: .pbkdf2SHA256,
            pbkdf2Iterations: 1_000
        )

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - chain: The server's certificate chain and key, for example `TestPKI.validChain()`.
        ///   - clientCertificateIssuers: CAs accepted for client certificates; empty means no
        ///     client certificate is asked for.
        ///   - accessTokenLifetime: Access-token lifetime. Default 300 seconds.
        ///   - refreshTokenLifetime: Refresh-token lifetime. Default 30 days.
        ///   - tokenFormat: Signed JWTs (default) or opaque random tokens.
        ///   - users: The accounts. Default: none.
        ///   - passwordHashing: Password hashing. Default ``testPasswordHashing``.
        ///   - now: The clock for token issue and expiry. Default `Date()`.
        ///   - logger: Where to log; nil is silent.
        public init(
            chain: TestPKI.Chain,
            clientCertificateIssuers: [TestPKI.Identity] = [],
            accessTokenLifetime: Duration = .seconds(300),
            refreshTokenLifetime: Duration = .seconds(30 * 86_400),
            tokenFormat: TokenFormat = .jwt,
            users: [User] = [],
            passwordHashing: PasswordHasher.Configuration = ReferenceAuthServer.Configuration.testPasswordHashing,
            now: @escaping @Sendable () -> Date = { Date() },
            logger: Logger? = nil
        ) {
            self.chain = chain
            self.clientCertificateIssuers = clientCertificateIssuers
            self.accessTokenLifetime = accessTokenLifetime
            self.refreshTokenLifetime = refreshTokenLifetime
            self.tokenFormat = tokenFormat
            self.users = users
            self.passwordHashing = passwordHashing
            self.now = now
            self.logger = logger
        }
    }

    /// An account of the reference server.
    public struct User: Sendable, CustomStringConvertible {
        /// The sign-in name, compared exactly.
        public var email: String
        /// The password; hashed when the server starts, never logged or described.
        public var password: String
        /// The display name `/user/profile` starts with.
        public var displayName: String

        /// Creates an account.
        public init(email: String, password: String, displayName: String) {
            self.email = email
            self.password = password
            self.displayName = displayName
        }

        /// The email and display name; the password is redacted.
        public var description: String {
            "User(\(self.email), \(self.displayName), password redacted)"
        }
    }

    /// What access tokens look like.
    public struct TokenFormat: Hashable, Sendable, CustomStringConvertible {
        enum Kind: Hashable, Sendable {
            case jwt
            case opaque
        }

        let kind: Kind

        /// A JWT signed with ES256 by a key generated when the server starts, with claims
        /// `sub` (the email), `iat`, `exp`, `jti` and `fam` (the refresh-token family).
        public static let jwt = TokenFormat(kind: .jwt)
        /// 32 random bytes, base64url without padding, looked up on the server.
        public static let opaque = TokenFormat(kind: .opaque)

        /// `jwt` or `opaque`.
        public var description: String {
            switch self.kind {
            case .jwt: "jwt"
            case .opaque: "opaque"
            }
        }
    }
}
#endif
