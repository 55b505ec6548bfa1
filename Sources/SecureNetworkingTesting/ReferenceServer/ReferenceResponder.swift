#if TestServers
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SecureCrypto

/// Answers the reference server's routes. It is a plain `HTTPResponder` rather than a
/// Hummingbird router so it sees the request target exactly as sent (percent-encoding and all)
/// and answers unknown routes with JSON.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
struct ReferenceResponder: HTTPResponder {
    typealias Context = ReferenceRequestContext

    /// The largest request body read; larger bodies are answered 413.
    static let maximumBodySize = 1 << 20

    let state: ReferenceServerState
    let issuer: ReferenceTokenIssuer
    let hasher: PasswordHasher
    /// A hash of a random password, verified for unknown users so they cost as much as known ones.
    let dummyPasswordHash: String
    let acceptsClientCertificates: Bool
    /// ``ReferenceAuthServer/Configuration/refreshTokenReuseGraceWindow``, in seconds.
    let refreshGraceWindow: TimeInterval
    /// ``ReferenceAuthServer/Configuration/refreshResponseGate``.
    let refreshResponseGate: LoopbackHTTPServer.Gate?
    let loginLimits: ReferenceServerState.LoginLimits
    /// `/oauth/authorize`: the account it approves, the code lifetime (seconds), the exact
    /// redirect URIs it accepts besides loopback ones.
    let authorizationUser: String?
    let authorizationCodeLifetime: TimeInterval
    let redirectURIs: Set<String>
    /// ``ReferenceAuthServer/Configuration/pinSetUpdate``.
    let pinSetUpdate: (@Sendable () -> Data?)?
    /// Checks DPoP proofs (RFC 9449).
    let dpop: ReferenceDPoPVerifier
    /// ``ReferenceAuthServer/Configuration/requiresDPoP``.
    let requiresDPoP: Bool
    let now: @Sendable () -> Date
    let logger: Logger

    /// A request with its body read and its target split.
    struct Exchange {
        let method: HTTPRequest.Method
        /// The request's scheme and authority (`Host`), for the URI a DPoP proof signs.
        let scheme: String
        let authority: String
        let headers: HTTPFields
        let rawPath: String
        let rawQuery: String?
        let body: Data
        let context: ReferenceRequestContext

        /// Query parameters, decoded, in order (`+` is a literal plus).
        var query: [(String, String)] { self.rawQuery.map { ReferenceHTTP.pairs($0, plusIsSpace: false) } ?? [] }

        func queryValue(_ name: String) -> String? { self.query.first { $0.0 == name }?.1 }

        /// The request's URI without its query: what a DPoP proof's `htu` must name.
        var uri: String { "\(self.scheme)://\(self.authority)\(self.rawPath)" }
    }

    func respond(to request: Request, context: ReferenceRequestContext) async throws -> Response {
        let (rawPath, rawQuery) = ReferenceHTTP.splitTarget(request.head.path ?? "/")
        self.state.record(path: rawPath)
        var request = request
        let body: Data
        do {
            body = Data(buffer: try await request.collectBody(upTo: Self.maximumBodySize))
        } catch is NIOTooManyBytesError {
            return ReferenceHTTP.error(.contentTooLarge, "request_too_large")
        }
        let exchange = Exchange(
            method: request.method,
            // The server only speaks TLS (its HTTP/1.1 requests say `http`: the codec is not
            // told about the TLS handler in front of it).
            scheme: "https",
            authority: request.head.authority ?? "",
            headers: request.headers,
            rawPath: rawPath,
            rawQuery: rawQuery,
            body: body,
            context: context
        )
        let response = await self.route(exchange)
        // The method and path only: query strings and bodies may hold secrets.
        self.logger.debug("\(exchange.method) \(rawPath) → \(response.status.code)")
        return response
    }

    private func route(_ exchange: Exchange) async -> Response {
        let path = exchange.rawPath
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let head = segments.first.map(String.init) ?? ""
        switch (head, segments.count) {
        case ("auth", 2) where segments.last == "login":
            return await self.only([.post], exchange) { await self.login($0) }
        case ("oauth", 2) where segments.last == "token":
            return await self.only([.post], exchange) { await self.token($0) }
        case ("oauth", 2) where segments.last == "authorize":
            return await self.only([.get], exchange) { self.authorize($0) }
        case ("oauth", 2) where segments.last == "revoke":
            return await self.only([.post], exchange) { await self.revoke($0) }
        case ("user", 2) where segments.last == "profile":
            return await self.only([.get, .patch], exchange) { await self.profile($0) }
        case ("mtls", 2) where segments.last == "whoami":
            return await self.only([.get], exchange) { await self.whoami($0) }
        case ("echo", _):
            return await self.only([.get, .post, .put, .patch, .delete], exchange) { self.echo($0) }
        case ("status", 2):
            return await self.only([.get, .post], exchange) { self.status($0, code: String(segments.last!)) }
        case ("flaky", 2) where segments.last?.isEmpty == false:
            return await self.only([.get, .post], exchange) {
                self.flaky($0, key: ReferenceHTTP.percentDecode(segments.last!, plusIsSpace: false))
            }
        case ("slow", 1):
            return await self.only([.get], exchange) { await self.slow($0) }
        case (".well-known", 2) where segments.last == "oauth-authorization-server":
            return await self.only([.get], exchange) { self.metadata($0) }
        case (".well-known", 2) where segments.last == "securenet-pins.json":
            return await self.only([.get], exchange) { _ in
                guard let envelope = self.pinSetUpdate?() else { return ReferenceHTTP.error(.notFound, "not_found") }
                return ReferenceHTTP.bytes(.ok, envelope, contentType: "application/json")
            }
        default:
            return ReferenceHTTP.error(.notFound, "not_found")
        }
    }

    /// `GET /.well-known/oauth-authorization-server`: the server's metadata (RFC 8414 §3.2), with
    /// the issuer and endpoints on the origin the request was sent to.
    private func metadata(_ exchange: Exchange) -> Response {
        let issuer = "https://\(exchange.authority)"
        return ReferenceHTTP.json(
            .ok,
            [
                "issuer": issuer,
                "authorization_endpoint": issuer + "/oauth/authorize",
                "token_endpoint": issuer + "/oauth/token",
                "revocation_endpoint": issuer + "/oauth/revoke",
                "grant_types_supported": ["authorization_code", "refresh_token", "password"],
                "code_challenge_methods_supported": ["S256"],
            ]
        )
    }

    /// Runs `handler` when the method is one of `methods`; 405 with `Allow` otherwise.
    private func only(
        _ methods: [HTTPRequest.Method],
        _ exchange: Exchange,
        _ handler: (Exchange) async -> Response
    ) async -> Response {
        guard methods.contains(exchange.method) else {
            let allow = methods.map(\.rawValue).joined(separator: ", ")
            return ReferenceHTTP.error(.methodNotAllowed, "method_not_allowed", headers: [.allow: allow])
        }
        return await handler(exchange)
    }
}
#endif
