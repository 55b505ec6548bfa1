#if TestServers
public import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import HummingbirdTLS
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2
import NIOHTTPTypes
import NIOSSL
import SecureCrypto
import SecureNetworkingInternal
import ServiceLifecycle

/// A local OAuth-style auth server over real TLS on 127.0.0.1, for tests, demos and app
/// development: sign-in, refresh-token rotation with reuse detection, a bearer-protected
/// profile, a mutual-TLS echo of the client certificate, and diagnostic routes that let a
/// client's end-to-end tests provoke each behaviour.
///
/// It speaks HTTP/1.1 with keep-alive over TLS 1.2 or 1.3. Answers are JSON
/// (`application/json`, `Cache-Control: no-store`) with snake_case keys:
///
/// - `POST /auth/login` `{"email","password"}` → 200 `{"access_token","token_type":"Bearer",
///   "expires_in","refresh_token","scope"}`, opening a new refresh-token family; a wrong
///   password and an unknown email both get 401 `invalid_credentials`; a malformed body 400
///   `invalid_request`.
/// - `POST /oauth/token`, form-encoded or JSON, `grant_type=refresh_token&refresh_token=…`
///   (`client_id` optional) → 200 with a new refresh token. Each refresh token works once:
///   presenting a spent one revokes its family (its refresh tokens and the access tokens issued
///   with them) and answers 400 `invalid_grant`, as do unknown and expired ones. Other grants
///   get 400 `unsupported_grant_type`.
/// - `GET`/`PATCH /user/profile` with `Authorization: Bearer …` → `{"email","display_name",
///   "updated_at"}`; `PATCH` takes `{"display_name"}` of 1…64 characters, else 422
///   `validation_failed`. A missing token gets 401 with `WWW-Authenticate: Bearer
///   realm="reference"`; an invalid, expired or revoked one adds `error="invalid_token"` and an
///   `error_description` (RFC 6750).
/// - `GET /mtls/whoami` → `{"subject"}` (RFC 4514) of a client certificate issued by one of
///   ``Configuration/clientCertificateIssuers``, or 403 `client_certificate_required`.
/// - `/echo/**` (GET, POST, PUT, PATCH, DELETE) → `{"method","raw_path","path_segments",
///   "raw_query","query","body","content_type","authorization_present"}`: the path as sent
///   (still percent-encoded), its decoded segments after `/echo/`, the query as sent and as
///   decoded `[name, value]` pairs in order. A `+` in the query is a literal plus, not a space.
///   The `Authorization` value is never echoed.
/// - `/status/{code}` (GET, POST, 200…599) → that status with `{"error":"<reason>",
///   "message":"internal detail: do-not-show-users"}`; 429 and 503 add `Retry-After: 1`, 401 a
///   bearer challenge; 204 and 304 have no body.
/// - `/flaky/{key}?failures=N&status=S&retry_after=R` (GET, POST) → the first N calls for the
///   key (default 1) answer S (default 503), with `Retry-After: R` when given; later calls 200
///   `{"attempts"}`, the calls for the key so far.
/// - `GET /slow?ms=N` → 200 after N milliseconds, at most 10 seconds.
/// - `POST /oauth/revoke`, form-encoded `token` and an optional `token_type_hint` (RFC 7009) →
///   200 whether or not the token was known; a refresh token's family is revoked.
/// - `GET /.well-known/securenet-pins.json` → the signed pin-set update of
///   ``Configuration/pinSetUpdate`` (`application/json`), or 404 `not_found` when none is
///   published.
/// - `GET /.well-known/oauth-authorization-server` → the server's metadata (RFC 8414): `issuer`
///   and the authorization, token and revocation endpoints, on the origin the request reached.
/// - Anything else → 404 `not_found`; a known path with another method → 405 with `Allow`.
///
/// Start it with ``withReferenceAuthServer(_:isolation:_:)`` so it always stops, or pair
/// ``start(_:)`` with ``shutdown()``.
///
/// - Important: A test server. Everything lives in memory, the JWT signing key is generated
///   at start, and the default password hashing is deliberately cheap.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public final class ReferenceAuthServer: Sendable {
    /// The port the server listens on (127.0.0.1).
    public let port: Int
    let state: ReferenceServerState
    private let running: Task<Void, Never>
    /// Runs the application; its graceful shutdown stops the server.
    private let services: ServiceGroup

    /// `https://localhost:PORT` (the default test leaf is for `localhost`).
    public var baseURL: URL {
        URL(string: "https://localhost:\(self.port)")!
    }

    /// What the server has answered so far.
    public var statistics: Statistics { self.state.statistics }

    private init(port: Int, state: ReferenceServerState, running: Task<Void, Never>, services: ServiceGroup) {
        self.port = port
        self.state = state
        self.running = running
        self.services = services
    }

    /// The number of requests to `path` (the path as sent, without the query).
    public func calls(to path: String) -> Int {
        self.state.calls(to: path)
    }

    /// Makes the server behave as one that rotates its DPoP nonce with every answer (nodes
    /// behind a load balancer that share no nonces): the next `count` proofs that carry a live
    /// nonce are still answered `use_dpop_nonce`, each with a fresh nonce (RFC 9449 §8, §9),
    /// at the token endpoint and the API alike. Needs
    /// ``Configuration/requiresDPoPNonce``.
    public func rotateDPoPNonce(onTheNext count: Int) {
        self.state.refuseLiveDPoPNonces(count)
    }

    /// Revokes every refresh-token family: every access and refresh token issued so far stops
    /// working. New sign-ins work as before.
    public func revokeAllTokens() {
        self.state.revokeAll()
    }

    /// HTTP/1.1 over TLS, or HTTP/2 and HTTP/1.1 as ALPN decides; every HTTP/1.1 connection and
    /// HTTP/2 stream is counted as its pipeline is built.
    private static func serverBuilder(
        _ configuration: Configuration,
        tls: TLSConfiguration,
        state: ReferenceServerState
    ) throws -> HTTPServerBuilder {
        let closes = configuration.closesEveryConnection
        let handlers: @Sendable () -> [any RemovableChannelHandler] = {
            closes ? [TrafficCounter(state: state), CloseAfterResponseHandler()] : [TrafficCounter(state: state)]
        }
        if configuration.servesHTTP2 {
            return try .http2Upgrade(
                tlsConfiguration: tls,
                configuration: HTTP2UpgradeChannel.Configuration(
                    streamConfiguration: .init(additionalChannelHandlers: handlers())
                )
            )
        }
        return try .tls(.http1(configuration: .init(additionalChannelHandlers: handlers())), tlsConfiguration: tls)
    }

    /// Starts a server on 127.0.0.1 with an ephemeral port and returns once it accepts
    /// connections.
    ///
    /// - Throws: An NIOSSL error for an unusable chain or client CA, a `SecureCryptoError` for
    ///   an invalid password-hashing configuration, or the bind error.
    public static func start(_ configuration: Configuration) async throws -> ReferenceAuthServer {
        let tls = try Self.tlsConfiguration(configuration)
        let hasher = try PasswordHasher(configuration: configuration.passwordHashing)
        let started = configuration.now()
        var accounts: [String: ReferenceServerState.Account] = [:]
        for user in configuration.users {
            accounts[user.email] = ReferenceServerState.Account(
                passwordHash: try await hasher.hash(user.password),
                displayName: user.displayName,
                updatedAt: started
            )
        }
        let state = ReferenceServerState(accounts: accounts)
        let logger =
            configuration.logger ?? Logger(label: "ReferenceAuthServer", factory: { _ in SwiftLogNoOpLogHandler() })
        let responder = ReferenceResponder(
            state: state,
            issuer: await ReferenceTokenIssuer(configuration: configuration, state: state),
            hasher: hasher,
            dummyPasswordHash: try await hasher.hash(ReferenceTokenIssuer.randomToken()),
            acceptsClientCertificates: !configuration.clientCertificateIssuers.isEmpty,
            refreshGraceWindow: configuration.refreshTokenReuseGraceWindow.timeInterval,
            refreshResponseGate: configuration.refreshResponseGate,
            loginLimits: ReferenceServerState.LoginLimits(
                perAccount: configuration.maximumFailedLoginsPerAccount,
                perAddress: configuration.maximumFailedLoginsPerAddress,
                window: configuration.failedLoginWindow.timeInterval
            ),
            authorizationUser: configuration.authorizationUser ?? configuration.users.first?.email,
            authorizationCodeLifetime: configuration.authorizationCodeLifetime.timeInterval,
            redirectURIs: Set(configuration.redirectURIs),
            pinSetUpdate: configuration.pinSetUpdate,
            dpop: ReferenceDPoPVerifier(
                window: configuration.dpopProofWindow.timeInterval,
                requiresNonce: configuration.requiresDPoPNonce,
                nonceLifetime: configuration.dpopNonceLifetime.timeInterval,
                state: state,
                now: configuration.now
            ),
            requiresDPoP: configuration.requiresDPoP,
            now: configuration.now,
            logger: logger
        )

        let portPromise = PortPromise()
        let application = Application(
            responder: responder,
            server: try Self.serverBuilder(configuration, tls: tls, state: state),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: configuration.port)),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port {
                    portPromise.fulfil(.success(port))
                } else {
                    portPromise.fulfil(.failure(ChannelError.unknownLocalAddress))
                }
            },
            logger: logger
        )
        let services = ServiceGroup(services: [application], logger: logger)
        let running = Task {
            do {
                try await services.run()
                portPromise.fulfil(.failure(CancellationError()))
            } catch {
                portPromise.fulfil(.failure(error))
            }
        }
        let port: Int
        do {
            port = try await portPromise.value
        } catch {
            running.cancel()
            await running.value
            throw error
        }
        logger.info("reference auth server listening on 127.0.0.1:\(port)")
        return ReferenceAuthServer(port: port, state: state, running: running, services: services)
    }

    /// Stops the server: closes the listening socket and every open connection, and returns
    /// when they are closed. Calling it again does nothing more.
    ///
    /// The shutdown is graceful: in-flight requests finish and idle connections close. Cancelling
    /// the serving task instead can drop a connection accepted at that moment before it is
    /// served, which traps in NIO's debug builds ("Deinited NIOAsyncWriter without calling
    /// finish()", swift-nio #2637). A connection still busy after 10 s is cut.
    public func shutdown() async {
        await self.services.triggerGracefulShutdown()
        let running = self.running
        let backstop = Task {
            try? await Task.sleep(for: .seconds(10))
            running.cancel()
        }
        await running.value
        backstop.cancel()
    }

    static func tlsConfiguration(_ configuration: Configuration) throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try configuration.chain.nioCertificateChain(),
            privateKey: try configuration.chain.nioPrivateKey()
        )
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = ["http/1.1"]
        if !configuration.clientCertificateIssuers.isEmpty {
            // Ask for a client certificate without requiring one: a presented certificate must
            // chain to one of the issuers or the handshake fails; none at all is fine.
            tls.certificateVerification = .optionalVerification
            tls.trustRoots = .certificates(try configuration.clientCertificateIssuers.map { try $0.nioCertificate() })
        }
        return tls
    }
}

/// Runs `body` with a started server and shuts it down afterwards, however `body` ends.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public func withReferenceAuthServer<Result>(
    _ configuration: ReferenceAuthServer.Configuration,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (ReferenceAuthServer) async throws -> Result
) async throws -> Result {
    let server = try await ReferenceAuthServer.start(configuration)
    do {
        let result = try await body(server)
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}

/// The listening port, delivered once from the server task to ``ReferenceAuthServer/start(_:)``.
private final class PortPromise: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Int, any Error>])
        case done(Result<Int, any Error>)
    }

    private let state = NIOLockedValueBox(State.waiting([]))

    /// Delivers the result; later calls are ignored.
    func fulfil(_ result: Result<Int, any Error>) {
        let waiters = self.state.withLockedValue { state -> [CheckedContinuation<Int, any Error>] in
            guard case .waiting(let waiters) = state else { return [] }
            state = .done(result)
            return waiters
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    var value: Int {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let result = self.state.withLockedValue { state -> Result<Int, any Error>? in
                    switch state {
                    case .waiting(let waiters):
                        state = .waiting(waiters + [continuation])
                        return nil
                    case .done(let result):
                        return result
                    }
                }
                if let result { continuation.resume(with: result) }
            }
        }
    }
}

/// Counts the pipeline it is added to: an HTTP/1.1 connection, or an HTTP/2 stream with its ID.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
final class TrafficCounter: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = HTTPRequestPart

    let state: ReferenceServerState

    init(state: ReferenceServerState) {
        self.state = state
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // An accepted connection's parent is the listening channel; an HTTP/2 stream's parent is
        // its connection, whose parent is the listening channel. Only a stream has a stream ID
        // (asking any other channel for it is a fatal error).
        let stream =
            context.channel.parent?.parent == nil
            ? nil
            : (try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)).flatMap { $0 }.map {
                Int($0)
            }
        self.state.recordPipeline(stream: stream)
    }
}

/// Marks every response `Connection: close` and closes the connection once its last part is
/// written (RFC 9112 §9.6), for ``ReferenceAuthServer/Configuration/closesEveryConnection``.
final class CloseAfterResponseHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch self.unwrapOutboundIn(data) {
        case .head(var head):
            head.headerFields[.connection] = "close"
            context.write(self.wrapOutboundOut(.head(head)), promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end(let trailers):
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.cascade(to: promise)
            let context = NIOLoopBound(context, eventLoop: context.eventLoop)
            written.futureResult.whenComplete { _ in context.value.close(promise: nil) }
            context.value.writeAndFlush(self.wrapOutboundOut(.end(trailers)), promise: written)
        }
    }
}
#endif
