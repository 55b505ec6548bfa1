public import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import SecureNetworkingInternal

/// The loopback redirect of RFC 8252 §7.3 for command-line and desktop apps: a plain-HTTP
/// listener on `127.0.0.1` with a port the system picks, that takes the one authorization
/// redirect sent to ``redirectURI`` with the request's `state`, answers it with a short page, and
/// closes.
///
/// ```swift
/// let receiver = try await LoopbackRedirectReceiver.start()
/// let request = AuthorizationRequest(
///     authorizationEndpoint: authorize, clientID: "cli", redirectURI: receiver.redirectURI, scopes: ["profile"]
/// )
/// async let redirected = receiver.redirect(for: request, within: .seconds(300))
/// openInBrowser(request.url)
/// let response = try request.response(from: try await redirected)
/// ```
///
/// It listens on the loopback interface only (RFC 8252 §8.3: an IP literal, not `localhost`),
/// answers requests to other paths (a browser's `/favicon.ico`) with 404 and a GET to the path
/// with another `state` (any local process can send one) with 400, and keeps waiting; it stops
/// listening after the redirect, the timeout, ``close()``, or when the receiver goes away.
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

    /// Waits for the redirect that answers `request` and returns the URL it was sent to (query
    /// included), for ``AuthorizationRequest/response(from:)``; the listener is closed afterwards.
    ///
    /// Only a GET to the path whose `state` is the request's ends the wait: any local process can
    /// reach the listener, so one with a wrong or missing `state` is answered 400 and the
    /// receiver keeps waiting. A GET that came before this call was answered as a redirect and
    /// kept, the first of each `state` (those of the 16 latest `state`s), and is judged here
    /// like the others (so the browser may open the app's page before the app waits). GETs
    /// without a `state`, or repeating one, take no room: they never push the browser's redirect
    /// out.
    /// - Throws: ``TokenAuthError/Code/invalidAuthorizationResponse`` when no redirect with the
    ///   request's `state` came in time (the listener is closed then too) or the receiver was
    ///   closed.
    public func redirect(
        for request: AuthorizationRequest,
        within timeout: Duration
    ) async throws(TokenAuthError) -> URL {
        try await self.redirect(expecting: .state(request.state), within: timeout)
    }

    /// Waits for the first GET to the path, whatever its `state`, and returns its URL.
    ///
    /// - Important: any process on the machine can send that GET and so end the sign-in; use
    ///   ``redirect(for:within:)``, which waits for the request's own `state`.
    /// - Throws: as ``redirect(for:within:)``.
    @available(*, deprecated, message: "any local process can end the wait; use redirect(for:within:)")
    public func redirect(within timeout: Duration) async throws(TokenAuthError) -> URL {
        try await self.redirect(expecting: .anyState, within: timeout)
    }

    private func redirect(
        expecting expectation: Waiter.Expectation,
        within timeout: Duration
    ) async throws(TokenAuthError) -> URL {
        let timer = self.channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            self.waiter.finish(
                .failure(TokenAuthError(.invalidAuthorizationResponse, "no authorization redirect within \(timeout)"))
            )
        }
        defer { timer.cancel() }
        self.waiter.expect(expectation)
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

    /// Stops listening; a waiting ``redirect(for:within:)`` throws.
    public func close() async {
        self.waiter.finish(.failure(TokenAuthError(.invalidAuthorizationResponse, "the redirect receiver was closed")))
        try? await self.channel.closeFuture.get()
    }

    /// A receiver that goes away stops listening: the port is not left open for the process's
    /// lifetime.
    deinit {
        self.waiter.finish(.failure(TokenAuthError(.invalidAuthorizationResponse, "the redirect receiver was closed")))
        self.channel.close(promise: nil)
    }

    /// Whether a wait has begun, so that each GET to the path is judged at once (for tests).
    var isWaitingForRedirect: Bool { self.waiter.isExpecting }

    /// How many GETs that came before the wait are kept for it to judge (for tests).
    var keptRedirects: Int { self.waiter.pendingCount }

    /// When the listening socket has closed (for tests).
    var listenerClosed: EventLoopFuture<Void> { self.channel.closeFuture }

    /// The one outcome: the redirect's request target, or why there is none; and the judgement
    /// of each GET to the path.
    final class Waiter: Sendable {
        /// Which GET to the path ends the wait.
        enum Expectation: Sendable {
            /// One whose `state` is this (compared in constant time).
            case state(String)
            /// The first one (``LoopbackRedirectReceiver/redirect(within:)``).
            case anyState

            func accepts(_ target: String) -> Bool {
                switch self {
                case .anyState:
                    return true
                case .state(let expected):
                    guard let state = Waiter.state(in: target) else { return false }
                    return constantTimeEquals(Array(state.utf8), Array(expected.utf8))
                }
            }
        }

        /// The `state` query parameter of a request target, if it has one.
        static func state(in target: String) -> String? {
            let query = target.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
            return FormEncoding.decode(query)["state"]
        }

        /// A GET kept before the expected `state` is known.
        private struct Pending: Sendable {
            var state: String
            var target: String
        }

        /// How a GET to the path is answered.
        enum Verdict: Sendable {
            /// The redirect: 200, and the wait ends.
            case accepted
            /// Kept, to be judged when the app waits: 200 (the app's page), so that a browser
            /// that redirects before the app waits gets its page and does not wait itself.
            case kept
            /// Another `state` (or none): 400, and the wait goes on.
            case rejected
            /// The wait is over: 404.
            case notWaiting
        }

        /// The most `state`s whose GET is kept before the expected `state` is known; a GET with
        /// a new `state` beyond them forgets the oldest.
        static let maximumPending = 16

        private struct State {
            var result: Result<String, TokenAuthError>?
            var continuations: [CheckedContinuation<Result<String, TokenAuthError>, Never>] = []
            var onDone: (@Sendable () -> Void)?
            var expectation: Expectation?
            /// The first GET of each `state`, oldest first, at most ``maximumPending``.
            var pending: [Pending] = []
            /// The first GET of all, whatever its `state` (for ``Expectation/anyState``).
            var first: String?
        }

        private let state = NIOLockedValueBox(State())

        var onDone: (@Sendable () -> Void)? {
            get { self.state.withLockedValue { $0.onDone } }
            set { self.state.withLockedValue { $0.onDone = newValue } }
        }

        /// What to do once the outcome is settled: wake the waiters, close the listener.
        private struct Wake {
            var result: Result<String, TokenAuthError>
            var continuations: [CheckedContinuation<Result<String, TokenAuthError>, Never>]
            var onDone: (@Sendable () -> Void)?

            func run() {
                for continuation in self.continuations { continuation.resume(returning: self.result) }
                self.onDone?()
            }
        }

        /// Settles the outcome under the lock, if it is not settled yet.
        private static func settle(_ state: inout State, _ result: Result<String, TokenAuthError>) -> Wake? {
            guard state.result == nil else { return nil }
            state.result = result
            defer {
                state.continuations = []
                state.pending = []
                state.first = nil
            }
            return Wake(result: result, continuations: state.continuations, onDone: state.onDone)
        }

        /// The first outcome wins; the listener closes.
        func finish(_ result: Result<String, TokenAuthError>) {
            self.state.withLockedValue { Self.settle(&$0, result) }?.run()
        }

        var isDone: Bool { self.state.withLockedValue { $0.result != nil } }

        /// Whether the app is waiting, so a GET is judged at once (for tests).
        var isExpecting: Bool { self.state.withLockedValue { $0.expectation != nil } }

        /// How many GETs are kept for the wait to judge (for tests).
        var pendingCount: Int { self.state.withLockedValue { $0.pending.count } }

        /// Sets which GET ends the wait, and judges those kept until now, in order: the first
        /// that matches is the redirect.
        func expect(_ expectation: Expectation) {
            let wake = self.state.withLockedValue { state -> Wake? in
                state.expectation = expectation
                let target: String?
                switch expectation {
                case .anyState: target = state.first
                case .state: target = state.pending.first { expectation.accepts($0.target) }?.target
                }
                guard let target else {
                    state.pending = []
                    state.first = nil
                    return nil
                }
                return Self.settle(&state, .success(target))
            }
            wake?.run()
        }

        /// Judges a GET to the path: before the expected `state` is known it is answered as
        /// kept, and kept if it is the first with its `state` (forgetting the oldest `state`
        /// beyond ``maximumPending``); after that it is the redirect or rejected.
        func judge(_ target: String) -> Verdict {
            let (verdict, wake) = self.state.withLockedValue { state -> (Verdict, Wake?) in
                guard state.result == nil else { return (.notWaiting, nil) }
                guard let expectation = state.expectation else {
                    if state.first == nil { state.first = target }
                    // Keyed by `state`, so GETs without one, or repeating one, take no room. The
                    // states compared here are the senders', not the secret one.
                    if let key = Self.state(in: target), !state.pending.contains(where: { $0.state == key }) {
                        if state.pending.count == Self.maximumPending { state.pending.removeFirst() }
                        state.pending.append(Pending(state: key, target: target))
                    }
                    return (.kept, nil)
                }
                guard expectation.accepts(target) else { return (.rejected, nil) }
                return (.accepted, Self.settle(&state, .success(target)))
            }
            wake?.run()
            return verdict
        }

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

    /// Answers one HTTP/1.1 request per connection: a GET to the path as the waiter judges it
    /// (the redirect with a page that says the app has it, another `state` with 400), anything
    /// else with 404.
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
                let targetPath = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first
                    .map(String.init)
                guard head.method == .GET, targetPath == self.path else {
                    self.respond(.notWaiting, version: head.version, context: context)
                    return
                }
                self.respond(self.waiter.judge(head.uri), version: head.version, context: context)
            }
        }

        private func respond(_ verdict: Waiter.Verdict, version: HTTPVersion, context: ChannelHandlerContext) {
            let status: HTTPResponseStatus
            let body: String
            switch verdict {
            case .accepted, .kept:
                status = .ok
                body =
                    "<!doctype html><title>Signed in</title><p>The app has your sign-in. You can close this window.</p>"
            case .rejected:
                status = .badRequest
                body =
                    "<!doctype html><title>Not this sign-in</title><p>This is not the sign-in the app is waiting for.</p>"
            case .notWaiting:
                status = .notFound
                body = "<!doctype html><title>Not found</title><p>Not found.</p>"
            }
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
            headers.add(name: "Content-Length", value: String(body.utf8.count))
            headers.add(name: "Cache-Control", value: "no-store")
            headers.add(name: "Connection", value: "close")
            context.write(
                self.wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))),
                promise: nil
            )
            context.write(
                self.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))),
                promise: nil
            )
            context.writeAndFlush(self.wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        }
    }
}
