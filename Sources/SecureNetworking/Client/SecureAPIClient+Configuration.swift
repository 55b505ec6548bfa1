public import Foundation
public import Logging
public import SecureHTTP
public import SecureStorage
public import TokenAuth

extension SecureAPIClient {
    /// Everything a client needs: where the API is, how the transport is secured, how it
    /// authenticates, how bodies are coded and when to retry.
    public struct Configuration: Sendable {
        /// The API's base URL (`https://api.example.com/v1/`); request paths are appended to it.
        public var baseURL: URL
        /// The transport: its policy (HTTPS only, TLS version, pins, trust anchors), client
        /// identity for mutual TLS, timeouts, redirect rules and response size limit.
        public var transport: HTTPTransportConfiguration
        /// Which transport ``SecureAPIClient/init(configuration:)`` builds from ``transport``.
        /// Default ``Engine/platformDefault``: `Engine.urlSession` on Apple platforms,
        /// ``Engine/nio`` elsewhere.
        public var engine: Engine
        /// How requests that need authentication get their token; nil for an API without sessions.
        public var authentication: Authentication?
        /// How JSON keys are read. Default `.convertFromSnakeCase` (`display_name` → `displayName`).
        public var keyDecodingStrategy: JSONDecoder.KeyDecodingStrategy
        /// How JSON keys are written. Default `.convertToSnakeCase`.
        public var keyEncodingStrategy: JSONEncoder.KeyEncodingStrategy
        /// How dates are read. Default ISO 8601.
        public var dateDecodingStrategy: JSONDecoder.DateDecodingStrategy
        /// How dates are written. Default ISO 8601.
        public var dateEncodingStrategy: JSONEncoder.DateEncodingStrategy
        /// When to retry. Default ``RetryPolicy/standard``.
        public var retry: RetryPolicy
        /// App-specific steps around each attempt, run in order.
        public var interceptors: [any RequestInterceptor]
        /// Where the client logs (method, path, status, attempt; never headers, bodies or
        /// queries). Nil, the default, is silent.
        public var logger: Logger?
        /// The clock for `Retry-After` dates.
        public var now: @Sendable () -> Date

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - baseURL: the API's base URL.
        ///   - policy: the transport security policy (pins included).
        ///   - clientIdentity: a client certificate for mutual TLS.
        ///   - authentication: how to obtain tokens.
        ///   - logger: where to log; nil is silent.
        public init(
            baseURL: URL,
            policy: TransportSecurityPolicy = TransportSecurityPolicy(),
            clientIdentity: ClientIdentity? = nil,
            authentication: Authentication? = nil,
            logger: Logger? = nil
        ) {
            var transport = HTTPTransportConfiguration(policy: policy)
            transport.clientIdentity = clientIdentity
            transport.logger = logger
            self.init(baseURL: baseURL, transport: transport, authentication: authentication, logger: logger)
        }

        /// Creates a configuration around a full transport configuration.
        public init(
            baseURL: URL,
            transport: HTTPTransportConfiguration,
            authentication: Authentication? = nil,
            logger: Logger? = nil
        ) {
            self.baseURL = baseURL
            self.transport = transport
            self.engine = .platformDefault
            self.authentication = authentication
            self.keyDecodingStrategy = .convertFromSnakeCase
            self.keyEncodingStrategy = .convertToSnakeCase
            self.dateDecodingStrategy = .iso8601
            self.dateEncodingStrategy = .iso8601
            self.retry = .standard
            self.interceptors = []
            self.logger = logger
            self.now = { Date() }
        }
    }

    /// The transport a client builds for itself.
    ///
    /// Both enforce the same `HTTPTransportConfiguration` through the same portable request
    /// driver (policy before any byte is sent, header checks, redirect rules, deadline, size
    /// limit, pins); they differ in who validates the certificate path and in what the device's
    /// network settings do to them. The default is ``platformDefault``; the choice is one line:
    /// `configuration.engine = .nio`.
    public struct Engine: Sendable, Hashable, CustomStringConvertible {
        enum Kind: Sendable, Hashable {
            case nio
            case urlSession(maximumSessions: Int)
        }

        let kind: Kind

        /// `NIOHTTPTransport` (SwiftNIO + NIOSSL): ServerTrust's own path validation and Web
        /// PKI rules inside the handshake, identical on every platform and the transport every
        /// live test exercises. On Apple platforms a policy that trusts the system roots has
        /// Security.framework validate the path inside the handshake (only it can read those
        /// roots there), then ServerTrust's key rules and pins. A BSD socket does not bring up
        /// the cellular radio or VPN On Demand and ignores the system proxy: see
        /// ``platformDefault``.
        public static let nio = Engine(kind: .nio)

        #if canImport(Security)
        /// `URLSessionTransport`: Security.framework validates the path (system roots, revocation
        /// as the system does it), then ServerTrust's key rules and pins; system proxy settings,
        /// Wi-Fi Assist and cellular policies apply.
        public static let urlSession = Engine(
            kind: .urlSession(maximumSessions: URLSessionTransport.defaultMaximumSessions)
        )

        /// `URLSessionTransport` keeping at most `maximumSessions` URLSessions (one per origin).
        public static func urlSession(maximumSessions: Int) -> Engine {
            Engine(kind: .urlSession(maximumSessions: maximumSessions))
        }
        #endif

        public var description: String {
            switch self.kind {
            case .nio: "nio"
            case .urlSession: "urlSession"
            }
        }

        /// The engine a configuration starts with on this platform: `Engine.urlSession` on Apple
        /// platforms, ``nio`` elsewhere.
        ///
        /// On an iPhone, URLSession is the networking Apple supports for apps: it brings up the
        /// cellular radio and VPN On Demand, follows the device's proxy and PAC settings, and
        /// honours Low Data Mode and the app's cellular-data switch, none of which a BSD socket
        /// (SwiftNIO's) does; on watchOS, URLSession is the only HTTP networking most apps may
        /// use. ``nio`` remains a choice there (the transport every live test runs, with the
        /// system roots validated by Security.framework inside its handshake).
        public static var platformDefault: Engine {
            Engine(kind: Self.defaultKind(on: .current))
        }

        /// The platform families the engine choice distinguishes.
        enum Platform: Sendable, CaseIterable {
            case macOS, iOS, tvOS, watchOS, visionOS, linux, other

            /// The platform this code was built for.
            static var current: Platform {
                #if os(macOS)
                .macOS
                #elseif os(iOS)
                .iOS
                #elseif os(tvOS)
                .tvOS
                #elseif os(watchOS)
                .watchOS
                #elseif os(visionOS)
                .visionOS
                #elseif os(Linux)
                .linux
                #else
                .other
                #endif
            }
        }

        /// The default engine on `platform` (a decision in portable code, tested on Linux for
        /// every platform).
        static func defaultKind(on platform: Platform) -> Kind {
            switch platform {
            case .macOS, .iOS, .tvOS, .watchOS, .visionOS:
                .urlSession(maximumSessions: URLSessionTransportDefaults.maximumSessions)
            case .linux, .other:
                .nio
            }
        }
    }

    /// Where a client's tokens come from.
    public struct Authentication: Sendable {
        enum Source: Sendable {
            case manager(TokenManager)
            case oauth(
                tokenPath: String,
                revocation: Revocation,
                client: OAuthTokenEndpoint.ClientAuthentication,
                encoding: OAuthTokenEndpoint.BodyEncoding,
                store: any SecureStore,
                configuration: TokenManager.Configuration,
                now: @Sendable () -> Date
            )
        }

        let source: Source
        /// The DPoP signer of the session's requests, when its tokens are DPoP-bound.
        let dpop: DPoPSigner?

        /// Where ``SecureAPIClient/signOut()`` revokes the refresh token (RFC 7009), after the
        /// local sign-out, within `TokenManager.Configuration.revocationTimeout`.
        public struct Revocation: Sendable {
            enum Kind: Sendable {
                case none
                case path(String)
                case advertised
            }

            let kind: Kind

            /// The revocation endpoint the server advertises (RFC 8414 metadata at
            /// `/.well-known/oauth-authorization-server` on the base URL's origin), used only
            /// when it is on that origin. A server without metadata is not revoked at. The
            /// default.
            public static let advertised = Revocation(kind: .advertised)

            /// The revocation endpoint at `path` under the base URL.
            ///
            /// - Parameter path: the endpoint's path, e.g. `oauth/revoke`.
            public static func path(_ path: String) -> Revocation { Revocation(kind: .path(path)) }

            /// No revocation: signing out forgets the tokens on the device only. The refresh
            /// token stays valid at the server until it expires, so anyone who copied it (a
            /// backup, a compromised device) can still refresh with it; so does the access
            /// token, until its own expiry.
            public static let none = Revocation(kind: .none)
        }

        /// A token manager the app built itself.
        ///
        /// - Parameters:
        ///   - manager: the manager.
        ///   - dpop: the signer the manager's `OAuthTokenEndpoint` proves its key with, when
        ///     the tokens are DPoP-bound (RFC 9449): requests then carry `Authorization: DPoP`
        ///     and a proof. Default nil (bearer tokens).
        public static func tokenManager(_ manager: TokenManager, dpop: DPoPSigner? = nil) -> Authentication {
            Authentication(source: .manager(manager), dpop: dpop)
        }

        /// An OAuth 2.0 token endpoint on the same API, reached through the client's own
        /// transport (same policy and pins); the client builds the `TokenManager`.
        ///
        /// - Parameters:
        ///   - tokenPath: the endpoint's path under the base URL. Default `oauth/token`.
        ///   - revocation: where ``SecureAPIClient/signOut()`` revokes the refresh token
        ///     (RFC 7009; best effort, after the local sign-out): ``Revocation/path(_:)`` for
        ///     an endpoint you know, ``Revocation/advertised`` (the default) for the one the
        ///     server's metadata names, or ``Revocation/none``.
        ///   - client: how the app identifies itself (a public client for a mobile app).
        ///   - encoding: form (RFC 6749) or JSON bodies.
        ///   - store: where the tokens live (Keychain, `EncryptedFileStore`).
        ///   - configuration: refresh timing, loop guard, inactivity timeout.
        ///   - dpop: a signer to bind the tokens to its key (RFC 9449): the token endpoint gets a
        ///     proof with every grant and must answer `token_type: DPoP`; API requests carry
        ///     `Authorization: DPoP <token>` and a proof of their own; `use_dpop_nonce`
        ///     challenges are answered with the newest nonce, at most three times per request
        ///     and never by a refresh (`DPoPNonceRetry`). Default nil (bearer tokens). See TokenAuth's
        ///     "Bearer or DPoP" article.
        ///   - now: the token manager's clock.
        public static func oauth(
            tokenPath: String = "oauth/token",
            revocation: Revocation = .advertised,
            client: OAuthTokenEndpoint.ClientAuthentication,
            encoding: OAuthTokenEndpoint.BodyEncoding = .form,
            store: any SecureStore,
            configuration: TokenManager.Configuration = TokenManager.Configuration(),
            dpop: DPoPSigner? = nil,
            now: @escaping @Sendable () -> Date = { Date() }
        ) -> Authentication {
            Authentication(
                source: .oauth(
                    tokenPath: tokenPath,
                    revocation: revocation,
                    client: client,
                    encoding: encoding,
                    store: store,
                    configuration: configuration,
                    now: now
                ),
                dpop: dpop
            )
        }
    }
}
