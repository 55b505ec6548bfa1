import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
import NIOSSL
import ServerTrust

/// One HTTP/1.1 connection (over TLS unless the policy excepted plain HTTP), after its
/// handshake and ServerTrust evaluation succeeded.
final class HTTP1Connection: Sendable {
    typealias ID = Int

    let id: ID
    let channel: any Channel
    /// Why the connection ended, once it has (set by the handler).
    private let closeReason: NIOLockedValueBox<SecureHTTPError?>

    private init(id: ID, channel: any Channel, closeReason: NIOLockedValueBox<SecureHTTPError?>) {
        self.id = id
        self.channel = channel
        self.closeReason = closeReason
    }

    var isActive: Bool { self.channel.isActive }

    /// Opens a connection and completes the handshake within the timeouts and before the
    /// request's `deadline` (whichever comes first; the error names the one that passed).
    static func connect(
        id: ID,
        origin: Origin,
        requirements: ConnectionRequirements,
        sslContext: NIOSSLContext?,
        makeTrust: @Sendable () -> HandshakeTrust,
        group: any EventLoopGroup,
        timeouts: HTTPTransportConfiguration.Timeouts,
        deadline: ContinuousClock.Instant,
        onClose: @escaping @Sendable () -> Void
    ) async throws(SecureHTTPError) -> HTTP1Connection {
        let host = requirements.host
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else {
            throw SecureHTTPError(.deadlineExceeded, "the request deadline passed before connecting")
        }
        let connectBudget = min(timeouts.connect, remaining)
        let trust: HandshakeTrust? = requirements.usesTLS ? makeTrust() : nil
        let mapError: @Sendable (any Error) -> SecureHTTPError = { error in
            TLSSetup.mapError(error, trust: trust, host: host)
        }
        let handshakeBox = HandshakeBox()
        let closeReason = NIOLockedValueBox<SecureHTTPError?>(nil)
        let loop = group.next()
        let makeBootstrap: @Sendable () -> ClientBootstrap = {
            ClientBootstrap(group: loop)
                .connectTimeout(TimeAmount(connectBudget))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let promise = channel.eventLoop.makePromise(of: Void.self)
                        handshakeBox.future = promise.futureResult
                        if let sslContext, let trust {
                            let serverName = IPAddressLiteral.isIPAddress(host) ? nil : host
                            let tls = try NIOSSLClientHandler(
                                context: sslContext,
                                serverHostname: serverName,
                                customVerificationCallbackWithMetadata: trust.verify
                            )
                            try channel.pipeline.syncOperations.addHandler(tls)
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(
                            HTTP1ClientHandler(
                                handshakePromise: promise,
                                usesTLS: sslContext != nil,
                                closeReason: closeReason,
                                idleTimeout: TimeAmount(timeouts.idle),
                                mapError: mapError
                            )
                        )
                    }
                }
        }

        // The whole setup (connect, handshake timer, completion) runs on the connection's event
        // loop, entered once: each future callback or timer registered from off the loop would
        // cost a hop, and a new connection would pay half a dozen of them.
        let attempt = ConnectAttempt()
        let channel: any Channel
        do {
            channel = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<any Channel, any Error>) in
                    loop.execute {
                        makeBootstrap().connect(host: origin.host, port: origin.port).whenComplete { result in
                            switch result {
                            case .failure(let error):
                                continuation.resume(throwing: Self.connectError(error, origin: origin, budget: connectBudget, timeouts: timeouts))
                            case .success(let channel):
                                Self.awaitHandshake(
                                    channel: channel,
                                    handshake: handshakeBox.future,
                                    attempt: attempt,
                                    origin: origin,
                                    budget: min(timeouts.tlsHandshake, ContinuousClock.now.duration(to: deadline)),
                                    timeouts: timeouts,
                                    mapError: mapError,
                                    onClose: onClose,
                                    continuation: continuation
                                )
                            }
                        }
                    }
                }
            } onCancel: {
                attempt.cancel()
            }
        } catch {
            if Task.isCancelled { throw SecureHTTPError(.cancelled, "the request was cancelled during the handshake") }
            if let error = error as? SecureHTTPError { throw error }
            throw mapError(error)
        }
        return HTTP1Connection(id: id, channel: channel, closeReason: closeReason)
    }

    private static func connectError(
        _ error: any Error,
        origin: Origin,
        budget: Duration,
        timeouts: HTTPTransportConfiguration.Timeouts
    ) -> SecureHTTPError {
        if case ChannelError.connectTimeout = error {
            if budget < timeouts.connect {
                return SecureHTTPError(.deadlineExceeded, "the request deadline passed while connecting to \(origin)")
            }
            return SecureHTTPError(.connectTimeout, "no connection to \(origin) within \(timeouts.connect)")
        }
        return SecureHTTPError(.connectFailed, "could not connect to \(origin): \(error)")
    }

    /// On the event loop, once connected: arms the handshake timer and resumes `continuation`
    /// when the handshake ends. The timer and the handshake's completion run on the same loop,
    /// so exactly one of them decides.
    private static func awaitHandshake(
        channel: any Channel,
        handshake: EventLoopFuture<Void>?,
        attempt: ConnectAttempt,
        origin: Origin,
        budget: Duration,
        timeouts: HTTPTransportConfiguration.Timeouts,
        mapError: @escaping @Sendable (any Error) -> SecureHTTPError,
        onClose: @escaping @Sendable () -> Void,
        continuation: CheckedContinuation<any Channel, any Error>
    ) {
        guard let handshake else {
            channel.close(promise: nil)
            continuation.resume(throwing: SecureHTTPError(.connectFailed, "the connection to \(origin) was not set up"))
            return
        }
        guard attempt.connected(channel) else {
            channel.close(promise: nil)
            continuation.resume(throwing: SecureHTTPError(.cancelled, "the request was cancelled during the handshake"))
            return
        }
        let timer = HandshakeTimer()
        let loop = channel.eventLoop.assumeIsolated()
        let scheduled = loop.scheduleTask(in: TimeAmount(max(budget, .zero))) {
            timer.timedOut = true
            channel.close(promise: nil)
        }
        handshake.assumeIsolated().whenComplete { result in
            scheduled.cancel()
            switch result {
            case .success:
                channel.closeFuture.whenComplete { _ in onClose() }
                continuation.resume(returning: channel)
            case .failure(let error):
                channel.close(promise: nil)
                if timer.timedOut {
                    if budget < timeouts.tlsHandshake {
                        continuation.resume(
                            throwing: SecureHTTPError(.deadlineExceeded, "the request deadline passed during the TLS handshake with \(origin)")
                        )
                    } else {
                        continuation.resume(
                            throwing: SecureHTTPError(.tlsHandshakeTimeout, "the TLS handshake with \(origin) took longer than \(timeouts.tlsHandshake)")
                        )
                    }
                } else {
                    continuation.resume(throwing: mapError(error))
                }
            }
        }
    }

    /// Sends one request and reads the whole response (bounded by `maximumBodySize`), failing
    /// with `deadlineExceeded` (and closing the connection) if `deadline` passes first.
    ///
    /// Cancelling the calling task closes the connection, which fails the exchange at once.
    func execute(
        _ hop: PreparedHop,
        maximumBodySize: Int,
        deadline: ContinuousClock.Instant
    ) async throws(SecureHTTPError) -> (HTTPResponse, Data, reusable: Bool) {
        let head = Self.makeHead(hop.request, body: hop.body)
        var body: ByteBuffer?
        if let data = hop.body { body = self.channel.allocator.buffer(data: data) }
        let promise = self.channel.eventLoop.makePromise(of: HTTP1ClientHandler.Completed.self)
        let exchange = HTTP1ClientHandler.Exchange(
            head: head,
            body: body,
            maximumBodySize: maximumBodySize,
            deadline: NIODeadline.now() + TimeAmount(ContinuousClock.now.duration(to: deadline)),
            promise: promise
        )
        let channel = self.channel
        let closeReason = self.closeReason
        do {
            let completed = try await withTaskCancellationHandler {
                // Resumed exactly once, by the promise's completion (an unsafe continuation saves the
                // checked one's allocation on every exchange).
                try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<HTTP1ClientHandler.Completed, any Error>) in
                    // One hop onto the event loop for the whole exchange: registering on a future
                    // or writing from off the loop would each cost a hop (and a wake-up) of its own.
                    let loop = channel.eventLoop
                    loop.execute {
                        promise.futureResult.whenComplete { continuation.resume(with: $0) }
                        // A write to a channel that already closed never reaches the handler:
                        // fail the exchange from here with the reason the handler recorded.
                        let written = loop.makePromise(of: Void.self)
                        written.futureResult.whenFailure { _ in
                            promise.fail(
                                closeReason.withLockedValue { $0 }
                                    ?? SecureHTTPError(.connectionClosed, "the connection closed before the request was sent")
                            )
                        }
                        channel.writeAndFlush(exchange, promise: written)
                    }
                }
            } onCancel: {
                // Fail at once: closing a TLS channel waits for the peer's close_notify.
                promise.fail(SecureHTTPError(.cancelled, "the request was cancelled"))
                channel.close(promise: nil)
            }
            let response = try Self.makeResponse(completed.head)
            // Copied out of the connection's receive buffer before the connection is released.
            return (response, Data(buffer: completed.body, byteTransferStrategy: .copy), completed.reusable)
        } catch {
            channel.close(promise: nil)
            if Task.isCancelled { throw SecureHTTPError(.cancelled, "the request was cancelled") }
            if let error = error as? SecureHTTPError { throw error }
            throw SecureHTTPError(.connectionClosed, "the exchange failed: \(error)")
        }
    }

    func close() {
        // Closing from off the loop costs a hop; a channel that is already closed needs none.
        if self.channel.isActive { self.channel.close(promise: nil) }
    }

    static func makeHead(_ request: HTTPRequest, body: Data?) -> HTTPRequestHead {
        var headers = HTTPHeaders()
        if !request.headerFields.contains(where: { $0.name.canonicalName == "host" }), let authority = request.authority {
            headers.add(name: "Host", value: authority)
        }
        for field in request.headerFields {
            headers.add(name: field.name.rawName, value: field.value)
        }
        if let body, headers["content-length"].isEmpty, headers["transfer-encoding"].isEmpty {
            headers.add(name: "Content-Length", value: String(body.count))
        } else if body == nil, [.post, .put, .patch].contains(request.method), headers["content-length"].isEmpty {
            headers.add(name: "Content-Length", value: "0")
        }
        return HTTPRequestHead(
            version: .http1_1,
            method: HTTPMethod(rawValue: request.method.rawValue),
            uri: request.path ?? "/",
            headers: headers
        )
    }

    static func makeResponse(_ head: HTTPResponseHead) throws(SecureHTTPError) -> HTTPResponse {
        var fields = HTTPFields()
        for (name, value) in head.headers {
            guard let fieldName = HTTPField.Name(name) else {
                throw SecureHTTPError(.invalidResponse, "the response has an invalid header name")
            }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        guard head.status.code >= 100, head.status.code <= 999 else {
            throw SecureHTTPError(.invalidResponse, "the response status \(head.status.code) is out of range")
        }
        return HTTPResponse(
            status: HTTPResponse.Status(code: Int(head.status.code), reasonPhrase: head.status.reasonPhrase),
            headerFields: fields
        )
    }
}

/// Carries the handshake future out of the channel initializer to the connect callback (both
/// run on the connection's event loop, the initializer first).
// SAFETY: written once in the channel initializer and read in the callback of the connect
// future, which completes after the initializer ran; the lock makes that ordering explicit.
private final class HandshakeBox: @unchecked Sendable {
    private let lock = NIOLock()
    private var _future: EventLoopFuture<Void>?

    var future: EventLoopFuture<Void>? {
        get { self.lock.withLock { self._future } }
        set { self.lock.withLock { self._future = newValue } }
    }
}

enum IPAddressLiteral {
    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// Whether the handshake timer fired; only touched on the connection's event loop.
private final class HandshakeTimer {
    var timedOut = false
}

/// Lets a cancelled task close a connection that is still being set up.
// SAFETY: both fields are read and written only under `lock`.
private final class ConnectAttempt: @unchecked Sendable {
    private let lock = NIOLock()
    private var channel: (any Channel)?
    private var cancelled = false

    /// Records the connected channel; false when the attempt was cancelled first.
    func connected(_ channel: any Channel) -> Bool {
        self.lock.withLock {
            self.channel = channel
            return !self.cancelled
        }
    }

    /// Cancels the attempt: closes the channel if there is one (which fails the handshake).
    func cancel() {
        let channel = self.lock.withLock { () -> (any Channel)? in
            self.cancelled = true
            return self.channel
        }
        channel?.close(promise: nil)
    }
}
