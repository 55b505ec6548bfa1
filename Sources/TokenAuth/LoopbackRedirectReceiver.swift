public import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// The loopback redirect of RFC 8252 §7.3 for command-line and desktop apps: a plain-HTTP
/// listener on `127.0.0.1` with a port the system picks, that takes the one authorization
/// redirect sent to ``redirectURI``, answers it with a short page, and closes.
///
/// ```swift
/// let receiver = try await LoopbackRedirectReceiver.start()
/// let request = AuthorizationRequest(
///     authorizationEndpoint: authorize, clientID: "cli", redirectURI: receiver.redirectURI, scopes: ["profile"]
/// )
/// openInBrowser(request.url)
/// let response = try request.response(from: try await receiver.redirect(within: .seconds(300)))
/// ```
///
/// It listens on the loopback interface only (RFC 8252 §8.3: an IP literal, not `localhost`),
/// answers requests to other paths (a browser's `/favicon.ico`) with 404 and keeps waiting,
/// and stops listening after the redirect, the timeout or ``close()``.
public final class LoopbackRedirectReceiver: Sendable {
    /// `http://127.0.0.1:PORT/PATH`: the `redirect_uri` to put in the authorization request.
    public let redirectURI: URL

    private let channel: any Channel
    private let waiter: Waiter

    private init(channel: any Channel, redirectURI: URL, waiter: Waiter) {
        self.channel = channel
        self.redirectURI = redirectURI
        self.waiter = waiter
    }

    /// Starts listening on `127.0.0.1`, a free port, for `path`.
    /// - Throws: ``TokenAuthError/Code/transportFailure`` when no port can be bound.
    public static func start(path: String = "/callback") async throws(TokenAuthError) -> LoopbackRedirectReceiver {
        let waiter = Waiter()
        let path = path.hasPrefix("/") ? path : "/" + path
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { child in
                    child.pipeline.configureHTTPServerPipeline(withErrorHandling: true).flatMapThrowing {
                        try child.pipeline.syncOperations.addHandler(RedirectHandler(path: path, waiter: waiter))
                    }
                }
                .bind(host: "127.0.0.1", port: 0)
                .get()
        } catch {
            throw TokenAuthError(.transportFailure, "no loopback port for the redirect could be opened")
        }
        guard let port = channel.localAddress?.port, let url = URL(string: "http://127.0.0.1:\(port)\(path)") else {
            try? await channel.close()
            throw TokenAuthError(.transportFailure, "the loopback listener has no port")
        }
        let receiver = LoopbackRedirectReceiver(channel: channel, redirectURI: url, waiter: waiter)
        waiter.onDone = { channel.close(promise: nil) }
        // A redirect that came before the line above found no listener to close.
        if waiter.isDone { channel.close(promise: nil) }
        return receiver
    }

    /// Waits for the redirect and returns the URL it was sent to (query included), for
    /// ``AuthorizationRequest/response(from:)``; the listener is closed afterwards.
    /// - Throws: ``TokenAuthError/Code/invalidAuthorizationResponse`` when no redirect came in
    ///   time (the listener is closed then too) or the receiver was closed.
    public func redirect(within timeout: Duration) async throws(TokenAuthError) -> URL {
        let timer = self.channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            self.waiter.finish(
                .failure(TokenAuthError(.invalidAuthorizationResponse, "no authorization redirect within \(timeout)"))
            )
        }
        defer { timer.cancel() }
        let outcome: Result<String, TokenAuthError>
        do {
            outcome = .success(try await self.waiter.value())
        } catch {
            outcome = .failure(error)
        }
        // Returns once nothing listens any more.
        try? await self.channel.closeFuture.get()
        let target = try outcome.get()
        guard let url = URL(string: "http://127.0.0.1:\(self.redirectURI.port ?? 0)\(target)") else {
            throw TokenAuthError(.invalidAuthorizationResponse, "the redirect's target is not a URL")
        }
        return url
    }

    /// Whether the listening socket is still open (false once a redirect arrived, the wait
    /// timed out, or ``close()`` was called).
    public var isListening: Bool { self.channel.isActive }

    /// Stops listening; a waiting ``redirect(within:)`` throws.
    public func close() async {
        self.waiter.finish(.failure(TokenAuthError(.invalidAuthorizationResponse, "the redirect receiver was closed")))
        try? await self.channel.closeFuture.get()
    }

    /// The one outcome: the redirect's request target, or why there is none.
    final class Waiter: Sendable {
        private struct State {
            var result: Result<String, TokenAuthError>?
            var continuations: [CheckedContinuation<Result<String, TokenAuthError>, Never>] = []
            var onDone: (@Sendable () -> Void)?
        }

        private let state = NIOLockedValueBox(State())

        var onDone: (@Sendable () -> Void)? {
            get { self.state.withLockedValue { $0.onDone } }
            set { self.state.withLockedValue { $0.onDone = newValue } }
        }

        /// The first outcome wins; the listener closes.
        func finish(_ result: Result<String, TokenAuthError>) {
            let (waiting, onDone) = self.state.withLockedValue {
                state -> ([CheckedContinuation<Result<String, TokenAuthError>, Never>], (@Sendable () -> Void)?) in
                guard state.result == nil else { return ([], nil) }
                state.result = result
                defer { state.continuations = [] }
                return (state.continuations, state.onDone)
            }
            for continuation in waiting { continuation.resume(returning: result) }
            onDone?()
        }

        var isDone: Bool { self.state.withLockedValue { $0.result != nil } }

        func value() async throws(TokenAuthError) -> String {
            let result = await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<String, TokenAuthError>, Never>) in
                let now = self.state.withLockedValue { state -> Result<String, TokenAuthError>? in
                    if let result = state.result { return result }
                    state.continuations.append(continuation)
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
            return try result.get()
        }
    }

    /// Answers one HTTP/1.1 request per connection: the redirect (GET to the path) with a page
    /// that says the app has it, anything else with 404.
    private final class RedirectHandler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let path: String
        let waiter: Waiter
        private var head: HTTPRequestHead?

        init(path: String, waiter: Waiter) {
            self.path = path
            self.waiter = waiter
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch self.unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
            case .body:
                break
            case .end:
                guard let head = self.head else { return }
                self.head = nil
                let target = head.uri
                let targetPath = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(
                    String.init
                )
                let isRedirect = head.method == .GET && targetPath == self.path && !self.waiter.isDone
                let body =
                    isRedirect
                    ? "<!doctype html><title>Signed in</title><p>The app has your sign-in. You can close this window.</p>"
                    : "<!doctype html><title>Not found</title><p>Not found.</p>"
                var headers = HTTPHeaders()
                headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
                headers.add(name: "Content-Length", value: String(body.utf8.count))
                headers.add(name: "Cache-Control", value: "no-store")
                headers.add(name: "Connection", value: "close")
                let status: HTTPResponseStatus = isRedirect ? .ok : .notFound
                context.write(
                    self.wrapOutboundOut(
                        .head(HTTPResponseHead(version: head.version, status: status, headers: headers))
                    ),
                    promise: nil
                )
                context.write(
                    self.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))),
                    promise: nil
                )
                let waiter = self.waiter
                context.writeAndFlush(self.wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                    context.close(promise: nil)
                    if isRedirect { waiter.finish(.success(target)) }
                }
            }
        }
    }
}
