import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2
import NIOSSL

/// How many exchanges hold a stream of an HTTP/2 connection, and since when none has: counted
/// by the pool from the grant to the release (not from NIOHTTP2's stream events, which also
/// report streams that never opened, and come too late to keep a granted connection open), read
/// by the connection's idle timer.
final class HTTP2StreamActivity: Sendable {
    private struct State {
        /// One exchange from the start: the request that opened the connection holds it until
        /// its release, so the idle timer cannot close it between the handshake and that
        /// request's stream, however long its task takes to resume.
        var active = 1
        var idleSince = NIODeadline.now()
        var closing = false
        /// The server sent GOAWAY: no new stream may be opened (RFC 9113 §6.8).
        var goneAway = false
        /// The exchanges in flight, failed at once when the connection fails.
        var streams: [Int: HTTP2Exchange] = [:]
        var nextStream = 0
    }

    private let state = NIOLockedValueBox(State())

    /// Whether the connection has begun to close (a TLS channel stays active until the peer's
    /// close_notify, but takes no new stream from then on).
    var isClosing: Bool { self.state.withLockedValue { $0.closing } }

    func markClosing() {
        self.state.withLockedValue { $0.closing = true }
    }

    /// Whether the server sent GOAWAY: a stream opened now would not be processed.
    var hasGoneAway: Bool { self.state.withLockedValue { $0.goneAway } }

    func markGoneAway() {
        self.state.withLockedValue { $0.goneAway = true }
    }

    func begin() {
        self.state.withLockedValue { $0.active += 1 }
    }

    func end() {
        self.state.withLockedValue { state in
            state.active -= 1
            if state.active == 0 { state.idleSince = .now() }
        }
    }

    /// When the connection has been idle long enough to close, or nil while exchanges run.
    func idleDeadline(after timeout: TimeAmount) -> NIODeadline? {
        self.state.withLockedValue { $0.active == 0 ? $0.idleSince + timeout : nil }
    }

    /// Registers an exchange, so that ``fail(_:)`` fails it without waiting for the
    /// connection to finish closing; returns the token for ``unregister(_:)``.
    func register(_ exchange: HTTP2Exchange) -> Int {
        self.state.withLockedValue { state in
            state.nextStream += 1
            state.streams[state.nextStream] = exchange
            return state.nextStream
        }
    }

    func unregister(_ token: Int) {
        self.state.withLockedValue { _ = $0.streams.removeValue(forKey: token) }
    }

    /// The connection failed: no new stream, and every exchange in flight fails now with
    /// `error`. Closing a TLS connection waits for the peer's close_notify (seconds, from a
    /// server that stopped answering), and the streams would otherwise only end with it.
    func fail(_ error: SecureHTTPError) {
        let streams = self.state.withLockedValue { state in
            state.closing = true
            defer { state.streams.removeAll() }
            return Array(state.streams.values)
        }
        for exchange in streams { exchange.fail(error) }
    }
}

/// What an HTTP/2 connection tells its pool, from its event loop.
struct HTTP2ConnectionEvents: Sendable {
    /// The server changed `SETTINGS_MAX_CONCURRENT_STREAMS` after the first SETTINGS frame.
    var streamLimitChanged: @Sendable (Int) -> Void
    /// The server sent GOAWAY: no new stream on this connection.
    var goingAway: @Sendable () -> Void
}

/// The connection-level side of an HTTP/2 client connection, after `NIOHTTP2Handler` (which
/// passes it the frames of stream 0 and the stream events).
///
/// It completes connection setup when the server's first SETTINGS frame arrives (RFC 9113
/// §3.4: the server's preface), with its `SETTINGS_MAX_CONCURRENT_STREAMS`; reports later
/// changes and GOAWAY to the pool (which closes a connection going away once its last stream
/// ends); closes the connection once it has had no exchange for the idle timeout; and, when
/// configured, checks liveness with PING. An error on the connection records its reason (read by the
/// streams it fails) and closes it.
final class HTTP2ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// RFC 9113 §6.5.2: without the setting, the number of streams is unlimited; a client
    /// still needs a number to plan with (AsyncHTTPClient uses the same).
    static let assumedStreamLimit = 100

    private var ready: EventLoopPromise<ConnectionSetup.Negotiated>?
    private let multiplexer: NIOHTTP2Handler.StreamMultiplexer
    private let events: HTTP2ConnectionEvents
    private let closeReason: NIOLockedValueBox<SecureHTTPError?>
    /// The last stream id of the server's GOAWAY, read by the streams it closes.
    private let goAwayLastStream: NIOLockedValueBox<HTTP2StreamID?>
    /// The connection's settings, GOAWAY, PING and idle state; this handler performs its actions.
    private var machine: StateMachine
    private let activity: HTTP2StreamActivity
    private let mapError: @Sendable (any Error) -> SecureHTTPError
    /// One timer serves the idle timeout and the PING schedule.
    private let timer = CoalescingTimer()

    init(
        ready: EventLoopPromise<ConnectionSetup.Negotiated>,
        multiplexer: NIOHTTP2Handler.StreamMultiplexer,
        events: HTTP2ConnectionEvents,
        closeReason: NIOLockedValueBox<SecureHTTPError?>,
        goAwayLastStream: NIOLockedValueBox<HTTP2StreamID?>,
        activity: HTTP2StreamActivity,
        mapError: @escaping @Sendable (any Error) -> SecureHTTPError,
        idleTimeout: TimeAmount,
        pingInterval: TimeAmount?,
        pingTimeout: TimeAmount
    ) {
        self.goAwayLastStream = goAwayLastStream
        self.activity = activity
        self.mapError = mapError
        self.ready = ready
        self.multiplexer = multiplexer
        self.events = events
        self.closeReason = closeReason
        self.machine = StateMachine(
            idleTimeout: idleTimeout,
            pingInterval: pingInterval,
            pingTimeout: pingTimeout,
            now: .now()
        )
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.machine.readComplete(at: .now())
        self.rearm(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.failReady(SecureHTTPError(.connectionClosed, "the HTTP/2 connection closed during setup"))
        self.timer.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = self.unwrapInboundIn(data)
        switch frame.payload {
        case .settings(.settings(let settings)):
            let limit = settings.last(where: { $0.parameter == .maxConcurrentStreams }).map { Int($0.value) }
            switch self.machine.settingsReceived(maximumConcurrentStreams: limit) {
            case .ready(let maximumStreams):
                if let ready = self.ready {
                    self.ready = nil
                    ready.succeed(.http2(self.multiplexer, maximumStreams: maximumStreams))
                }
            case .streamLimitChanged(let limit):
                self.events.streamLimitChanged(limit)
            case .none:
                break
            }
        case .goAway(let lastStreamID, let code, _):
            // NIOHTTP2 closes the streams above the last stream id just after passing this
            // frame on (with CANCEL, whatever its documentation says); recorded first, so
            // that those streams know they were not processed. The others may still complete.
            self.goAwayLastStream.withLockedValue { last in last = min(last ?? lastStreamID, lastStreamID) }
            self.activity.markGoneAway()
            switch self.machine.goAwayReceived() {
            case .failSetup:
                self.fail(
                    context: context,
                    SecureHTTPError(.connectionClosed, "the server sent GOAWAY (\(code)) before its settings")
                )
                return
            case .notifyPool:
                self.events.goingAway()
            case .none:
                break
            }
        case .ping(_, ack: true):
            // Alive: the next PING is due an interval from now, not at the timeout.
            self.machine.pingAcknowledged(at: .now())
            self.rearm(context: context)
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        self.machine.readComplete(at: .now())
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A TLS alert after the handshake (TLS 1.3 reports a refused client certificate that
        // way) keeps the name the HTTP/1.1 path gives it; an HTTP/2 error closes the connection.
        let mapped: SecureHTTPError
        if self.activity.hasGoneAway, error is NIOHTTP2Errors.CreatedStreamAfterGoaway {
            // This side's HEADERS crossed the server's GOAWAY: no fault of the server's, and the
            // connection's other streams carry on. The write of that HEADERS failed too, and
            // its stream fails as not sent.
            return
        } else if self.activity.hasGoneAway, error is NIOHTTP2Errors.IOOnClosedConnection {
            // After a GOAWAY and its last stream, NIOHTTP2 refuses any further frame (a late
            // WINDOW_UPDATE from the server, which RFC 9113 §6.8 allows): the connection is
            // done, and nothing still waiting on it was processed.
            var notProcessed = SecureHTTPError(
                .requestNotProcessed,
                "the server sent GOAWAY before the HTTP/2 stream opened"
            )
            notProcessed.requestWasNotSent = true
            mapped = notProcessed
        } else if let error = error as? SecureHTTPError {
            mapped = error
        } else if error is NIOSSLError || error is BoringSSLError {
            mapped = self.mapError(error)
        } else if error is any NIOHTTP2Error {
            // A frame from the server that breaks RFC 9113 or exceeds what this client announced
            // (a header list over SETTINGS_MAX_HEADER_LIST_SIZE, a frame that does not parse):
            // a connection error (§5.4.1), and a response this client refuses.
            mapped = SecureHTTPError(
                .invalidResponse,
                "the server broke the HTTP/2 protocol (\(TransportErrorText.typeName(of: error)))"
            )
        } else {
            mapped = SecureHTTPError(
                .connectionClosed,
                "the HTTP/2 connection failed: \(TransportErrorText.sentence(for: error))"
            )
        }
        self.fail(context: context, mapped)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.activity.markClosing()
        self.failReady(
            SecureHTTPError(.connectionClosed, "the server closed the connection before its HTTP/2 settings")
        )
        self.timer.cancel()
        context.fireChannelInactive()
    }

    private func fail(context: ChannelHandlerContext, _ error: SecureHTTPError) {
        self.closeReason.withLockedValue { if $0 == nil { $0 = error } }
        self.failReady(error)
        self.activity.fail(error)
        context.close(promise: nil)
    }

    private func failReady(_ error: SecureHTTPError) {
        if let ready = self.ready {
            self.ready = nil
            ready.fail(error)
        }
    }

    /// Arms the timer for the next thing due: the idle timeout while no stream is open, the
    /// next PING or its acknowledgement's deadline.
    private func rearm(context: ChannelHandlerContext) {
        let idleDeadline = self.activity.idleDeadline(after: self.machine.idleTimeout)
        let due = self.machine.nextDue(now: .now(), idleDeadline: idleDeadline)
        self.timer.ensure(firesBy: due, on: context.eventLoop) { self.timerFired(context: context) }
    }

    private func timerFired(context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        let now = NIODeadline.now()
        let idleDeadline = self.activity.idleDeadline(after: self.machine.idleTimeout)
        switch self.machine.timerFired(now: now, idleDeadline: idleDeadline) {
        case .closeIdle:
            self.activity.markClosing()
            context.close(promise: nil)
            return
        case .failPingTimeout:
            self.fail(
                context: context,
                SecureHTTPError(
                    .connectionClosed,
                    "the server did not acknowledge a PING within \(self.machine.pingTimeout)"
                )
            )
            return
        case .sendPing:
            let ping = HTTP2Frame(
                streamID: .rootStream,
                payload: .ping(HTTP2PingData(withInteger: UInt64(now.uptimeNanoseconds)), ack: false)
            )
            context.writeAndFlush(self.wrapOutboundOut(ping), promise: nil)
        case .none:
            break
        }
        self.rearm(context: context)
    }
}
