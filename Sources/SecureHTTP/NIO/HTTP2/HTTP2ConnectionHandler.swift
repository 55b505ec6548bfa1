import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2
import NIOSSL

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
    /// The connection's settings, GOAWAY, PING and idle state; this handler performs its actions.
    private var machine: StateMachine
    /// What the connection and its streams read of this handler's decisions.
    private let state: HTTP2ConnectionState
    private let mapError: @Sendable (any Error) -> SecureHTTPError
    /// One timer serves the idle timeout and the PING schedule.
    private let timer = CoalescingTimer()

    init(
        ready: EventLoopPromise<ConnectionSetup.Negotiated>,
        multiplexer: NIOHTTP2Handler.StreamMultiplexer,
        events: HTTP2ConnectionEvents,
        state: HTTP2ConnectionState,
        mapError: @escaping @Sendable (any Error) -> SecureHTTPError,
        idleTimeout: TimeAmount,
        pingInterval: TimeAmount?,
        pingTimeout: TimeAmount
    ) {
        self.state = state
        self.mapError = mapError
        self.ready = ready
        self.multiplexer = multiplexer
        self.events = events
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
                    ready.succeed(.http2(self.multiplexer, self.state, maximumStreams: maximumStreams))
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
            self.state.goneAway(lastStreamID: lastStreamID)
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
        if Self.isStreamScoped(error) {
            // A response that broke the rules of its own stream (RFC 9113 §8.1.1, §8.2, §8.3):
            // NIOHTTP2 has reset that stream, whose handler reports it as an invalid response,
            // and passes the bare error on. The connection and its other streams carry on
            // (§5.4.2); closing it here failed the siblings as a protocol violation.
            return
        }
        let hasGoneAway = self.state.snapshot.hasGoneAway
        if hasGoneAway, error is NIOHTTP2Errors.CreatedStreamAfterGoaway {
            // This side's HEADERS crossed the server's GOAWAY: no fault of the server's, and the
            // connection's other streams carry on. The write of that HEADERS failed too, and
            // its stream fails as not sent.
            return
        } else if hasGoneAway, error is NIOHTTP2Errors.IOOnClosedConnection {
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
        self.state.markClosing()
        self.failReady(
            SecureHTTPError(.connectionClosed, "the server closed the connection before its HTTP/2 settings")
        )
        self.timer.cancel()
        context.fireChannelInactive()
    }

    /// The errors NIOHTTP2's stream state machine raises only as stream errors: the header
    /// block's validation and the Content-Length checks. (Others, such as a bad stream state
    /// transition, can be either; they still close the connection.)
    static func isStreamScoped(_ error: any Error) -> Bool {
        error is NIOHTTP2Errors.ContentLengthViolated
            || error is NIOHTTP2Errors.ContentLengthHeadersMismatch
            || error is NIOHTTP2Errors.ContentLengthHeaderNegative
            || error is NIOHTTP2Errors.ContentLengthHeaderMalformedValue
            || error is NIOHTTP2Errors.InvalidHTTP2HeaderFieldName
            || error is NIOHTTP2Errors.InvalidHTTP2HeaderFieldValue
            || error is NIOHTTP2Errors.ForbiddenHeaderField
            || error is NIOHTTP2Errors.PseudoHeaderAfterRegularHeader
            || error is NIOHTTP2Errors.UnknownPseudoHeader
            || error is NIOHTTP2Errors.UnsupportedPseudoHeader
            || error is NIOHTTP2Errors.DuplicatePseudoHeader
            || error is NIOHTTP2Errors.InvalidPseudoHeaders
            || error is NIOHTTP2Errors.InvalidPseudoHeaderValue
            || error is NIOHTTP2Errors.EmptyPathHeader
    }

    private func fail(context: ChannelHandlerContext, _ error: SecureHTTPError) {
        self.failReady(error)
        self.state.fail(error)
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
        let idleDeadline = self.state.idleDeadline(after: self.machine.idleTimeout)
        let due = self.machine.nextDue(now: .now(), idleDeadline: idleDeadline)
        self.timer.ensure(firesBy: due, on: context.eventLoop) { self.timerFired(context: context) }
    }

    private func timerFired(context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        let now = NIODeadline.now()
        let idleDeadline = self.state.idleDeadline(after: self.machine.idleTimeout)
        switch self.machine.timerFired(now: now, idleDeadline: idleDeadline) {
        case .closeIdle:
            self.state.markClosing()
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
