import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import NIOHPACK
import NIOHTTP2

/// One HTTP/2 connection over TLS, after its handshake, ServerTrust evaluation and the server's
/// first SETTINGS frame. Each exchange is a stream of its own.
final class HTTP2Connection: Sendable {
    let id: PooledConnection.ID
    let channel: any Channel
    private let multiplexer: NIOHTTP2Handler.StreamMultiplexer
    /// What the connection handler settled (closing, GOAWAY, close reason) and whether the pool
    /// has a stream of it granted.
    private let state: HTTP2ConnectionState
    /// What the streams share on the loop (deadlines, response fields), created with the first.
    private let shared: NIOLoopBoundBox<HTTP2StreamsShared?>

    init(
        id: PooledConnection.ID,
        channel: any Channel,
        multiplexer: NIOHTTP2Handler.StreamMultiplexer,
        state: HTTP2ConnectionState
    ) {
        self.state = state
        self.id = id
        self.channel = channel
        self.multiplexer = multiplexer
        let shared = NIOLoopBoundBox.makeEmptyBox(valueType: HTTP2StreamsShared.self, eventLoop: channel.eventLoop)
        self.shared = shared
        channel.closeFuture.whenComplete { _ in
            shared.value?.deadlines.cancelAll()
            shared.value = nil
        }
    }

    /// Open, not closing and not gone away: it can take a new stream.
    var isActive: Bool { self.channel.isActive && self.state.acceptsStreams }

    /// The pool grants a stream of this connection to a request, if it can take one (the
    /// channel open, neither closing nor gone away): the connection is not idle until the pool
    /// reports its last stream released (so the idle timer cannot close it between the grant
    /// and the stream). False, and nothing changed, when it cannot.
    func beginExchange() -> Bool {
        self.channel.isActive && self.state.beginExchangeIfAccepting()
    }

    /// The pool released a stream of this connection; `idle` when it has none granted any more
    /// (the idle timeout runs from now). Returns whether the connection can still take new
    /// streams.
    func streamReleased(idle: Bool) -> Bool {
        let accepting = self.state.streamReleased(idle: idle)
        return accepting && self.channel.isActive
    }

    func close() {
        self.state.markClosing()
        if self.channel.isActive { self.channel.close(promise: nil) }
    }

    /// Sends one request on a new stream and reads the whole response (bounded by
    /// `maximumBodySize` while DATA frames arrive), failing with `deadlineExceeded` and resetting
    /// the stream if `deadline` passes first. Cancelling the calling task resets the stream
    /// (RST_STREAM with CANCEL); the connection and its other streams carry on.
    ///
    /// A request that never reached the wire (the connection closed or went away before the
    /// stream opened) fails with ``SecureHTTPError/requestWasNotSent`` set.
    nonisolated(nonsending) func execute(
        _ hop: PreparedHop,
        maximumBodySize: Int,
        deadline: ContinuousClock.Instant
    ) async throws(SecureHTTPError) -> (HTTPResponse, Data) {
        let exchange = HTTP2Exchange()
        let stream = StreamRequest(
            request: hop.request,
            body: hop.body,
            onHead: hop.onResponseHead,
            maximumBodySize: maximumBodySize,
            deadline: NIODeadline.now() + TimeAmount(ContinuousClock.now.duration(to: deadline))
        )
        do {
            let completed = try await withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation {
                    (continuation: UnsafeContinuation<HTTP2StreamHandler.Completed, any Error>) in
                    exchange.wait(continuation)
                    // One hop onto the event loop for the whole exchange, none from a task on it.
                    let loop = self.channel.eventLoop
                    if loop.inEventLoop {
                        self.open(stream, for: exchange)
                    } else {
                        loop.execute { self.open(stream, for: exchange) }
                    }
                }
            } onCancel: {
                exchange.cancel()
            }
            return (completed.response, Data(buffer: completed.body, byteTransferStrategy: .noCopy))
        } catch {
            if Task.isCancelled { throw SecureHTTPError(.cancelled, "the request was cancelled") }
            if let error = error as? SecureHTTPError { throw error }
            throw SecureHTTPError(.connectionClosed, "the exchange failed: \(TransportErrorText.sentence(for: error))")
        }
    }

    /// What one stream sends and the limits it reads the response within. The HEADERS are made
    /// on the event loop, when the stream opens: the task hands the request over a little
    /// sooner, often while the loop is still awake from the previous response.
    private struct StreamRequest: Sendable {
        let request: HTTPRequest
        let body: Data?
        let onHead: (@Sendable () -> Void)?
        let maximumBodySize: Int
        let deadline: NIODeadline
    }

    /// Opens the exchange's stream, on the connection's event loop; a request that cannot have
    /// one fails as not sent.
    private func open(_ request: StreamRequest, for exchange: HTTP2Exchange) {
        do {
            // The same refusal as HTTP/1.1's: a Host that is not the authority (HTTP/2 drops it).
            try HostField.check(request.request)
        } catch {
            exchange.fail(error)
            return
        }
        let state = self.state
        let snapshot = state.snapshot
        guard self.channel.isActive, !snapshot.closing else {
            exchange.fail(Self.notSent(ChannelError.ioOnClosedChannel, state))
            return
        }
        guard !snapshot.hasGoneAway else {
            // RFC 9113 §6.8: after GOAWAY no new stream is processed; the request never left,
            // so it is safe to send again on another connection.
            var notProcessed = SecureHTTPError(
                .requestNotProcessed,
                "the server sent GOAWAY before the HTTP/2 stream opened"
            )
            notProcessed.requestWasNotSent = true
            exchange.fail(notProcessed)
            return
        }
        let shared = self.shared
        // No promise for the stream: with the parent active (checked just now, on its loop),
        // configuring the stream fails only if this initializer does, and the initializer fails
        // the exchange itself.
        self.multiplexer.createStreamChannel(promise: nil) { stream in
            stream.eventLoop.makeCompletedFuture {
                var registration: Int?
                do {
                    guard exchange.attach(stream) else {
                        throw SecureHTTPError(.cancelled, "the exchange ended before its stream opened")
                    }
                    // A failure of the whole connection (a PING unanswered, a protocol error)
                    // fails the exchange at once. Registered here, on the loop, where the
                    // connection fails (after the `closing` check above, so no failure falls in
                    // between), and released by the stream's handler when it finishes.
                    let token = state.register(exchange)
                    registration = token
                    var buffer: ByteBuffer?
                    if let body = request.body, !body.isEmpty { buffer = stream.allocator.buffer(data: body) }
                    let streamsShared = shared.value ?? HTTP2StreamsShared(loop: stream.eventLoop)
                    shared.value = streamsShared
                    try stream.pipeline.syncOperations.addHandler(
                        HTTP2StreamHandler(
                            headers: Self.makeHeaders(request.request, body: request.body),
                            body: buffer,
                            maximumBodySize: request.maximumBodySize,
                            deadline: request.deadline,
                            exchange: exchange,
                            connection: state,
                            shared: streamsShared,
                            registration: token,
                            onHead: request.onHead
                        )
                    )
                } catch {
                    if let registration { state.unregister(registration) }
                    exchange.fail(Self.notSent(error, state))
                    throw error
                }
            }
        }
    }

    /// Why a request that never reached the wire failed: the connection's close reason if it
    /// has one, marked not sent (safe to send again on another connection).
    private static func notSent(_ error: any Error, _ state: HTTP2ConnectionState) -> SecureHTTPError {
        var reason =
            state.snapshot.closeReason
            ?? SecureHTTPError(
                .connectionClosed,
                "the HTTP/2 stream could not be opened: \(TransportErrorText.sentence(for: error))"
            )
        reason.requestWasNotSent = true
        return reason
    }

    /// Header fields that are specific to an HTTP/1.1 connection: RFC 9113 §8.2.2 forbids them
    /// in HTTP/2, so they are dropped (as an intermediary must) rather than sent.
    static let connectionSpecificFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host",
    ]

    /// The request's HEADERS: the pseudo-header fields first (RFC 9113 §8.3.1, `:authority`
    /// instead of `Host`, which ``HostField`` checked equals the authority), then the fields with lowercase names (swift-http-types' canonical
    /// names are lowercase), without connection-specific ones; `TE` only as `trailers`.
    static func makeHeaders(_ request: HTTPRequest, body: Data?) -> HPACKHeaders {
        var headers = HPACKHeaders()
        headers.reserveCapacity(request.headerFields.count + 5)
        headers.add(name: ":method", value: request.method.rawValue)
        headers.add(name: ":scheme", value: request.scheme ?? "https")
        let authority = request.authority ?? request.headerFields[HTTPField.Name("host")!] ?? ""
        headers.add(name: ":authority", value: authority)
        headers.add(name: ":path", value: request.path ?? "/")
        var hasLength = false
        for field in request.headerFields {
            let name = field.name.canonicalName
            if Self.connectionSpecificFields.contains(name) { continue }
            if name == "te", field.value.lowercased() != "trailers" { continue }
            if name == "content-length" { hasLength = true }
            headers.add(name: name, value: field.value)
        }
        if !hasLength {
            if let body {
                headers.add(name: "content-length", value: String(body.count))
            } else if [.post, .put, .patch].contains(request.method) {
                headers.add(name: "content-length", value: "0")
            }
        }
        return headers
    }

    /// The response head from the final HEADERS frame (NIOHTTP2 has already checked the block:
    /// lowercase names, pseudo-fields first, no connection-specific fields).
    static func makeResponse(_ head: HPACKHeaders) throws(SecureHTTPError) -> HTTPResponse {
        var list: [HTTPField] = []
        list.reserveCapacity(head.count)
        var status: Int?
        for (name, value, _) in head {
            if name.utf8.first == UInt8(ascii: ":") {
                if name == ":status" { status = Int(value) }
                continue
            }
            guard let fieldName = HTTPField.Name(name) else {
                throw SecureHTTPError(.invalidResponse, "the response has an invalid header name")
            }
            list.append(HTTPField(name: fieldName, value: value))
        }
        guard let status, status >= 100, status <= 999 else {
            throw SecureHTTPError(.invalidResponse, "the response has no valid :status")
        }
        var fields = HTTPFields()
        // One call for all fields (an append per field replaces a range per field).
        fields.replaceSubrange(0..<0, with: list)
        return HTTPResponse(status: HTTPResponse.Status(code: status), headerFields: fields)
    }
}
