import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2

/// What an HTTP/2 connection's handler has settled, in one place for the readers off its loop
/// (the connection, its streams, the pool): whether it is closing, the server's GOAWAY and its
/// last stream id, why it closed, and since when the pool has granted none of its streams.
///
/// The connection handler writes it (its nested ``HTTP2ConnectionHandler/StateMachine`` makes
/// the decisions); the pool only marks the connection busy or idle, from its own count of the
/// streams it granted (`ConnectionPool.StateMachine.Multiplexed.used`, the one count). Made by
/// the HTTP/2 setup, handed to the connection with the negotiated multiplexer.
final class HTTP2ConnectionState: Sendable {
    /// A copy of the state at one instant.
    struct Snapshot: Sendable {
        /// The connection has begun to close (a TLS channel stays active until the peer's
        /// close_notify, but takes no new stream from then on).
        var closing = false
        /// The lowest last stream id of the server's GOAWAY frames, once one arrived: no new
        /// stream may be opened (RFC 9113 §6.8), and those above it were not processed.
        var goAwayLastStream: HTTP2StreamID?
        /// Why the connection failed, once it has; the first reason wins.
        var closeReason: SecureHTTPError?

        var hasGoneAway: Bool { self.goAwayLastStream != nil }
    }

    private struct State {
        var snapshot = Snapshot()
        /// Since when the pool has had none of the connection's streams granted; nil while it
        /// has. Busy from the start: the request that opened the connection holds a stream
        /// until its release, so the idle timer cannot close it between the handshake and that
        /// request's stream, however long its task takes to resume.
        var idleSince: NIODeadline?
        /// The exchanges in flight, failed at once when the connection fails.
        var exchanges: [Int: HTTP2Exchange] = [:]
        var nextExchange = 0
    }

    private let state = NIOLockedValueBox(State())

    var snapshot: Snapshot { self.state.withLockedValue { $0.snapshot } }

    /// Open for new streams as far as this state knows (neither closing nor gone away).
    var acceptsStreams: Bool {
        self.state.withLockedValue { !$0.snapshot.closing && !$0.snapshot.hasGoneAway }
    }

    func markClosing() {
        self.state.withLockedValue { $0.snapshot.closing = true }
    }

    /// The server sent GOAWAY with `lastStreamID`; a later GOAWAY may only lower it.
    func goneAway(lastStreamID: HTTP2StreamID) {
        self.state.withLockedValue { state in
            state.snapshot.goAwayLastStream = min(state.snapshot.goAwayLastStream ?? lastStreamID, lastStreamID)
        }
    }

    /// Grants the pool a stream if the connection still accepts one (marking it busy); false,
    /// and nothing changed, when it is closing or gone away. One step, so that the check and
    /// the mark cannot be told apart by a GOAWAY in between.
    func beginExchangeIfAccepting() -> Bool {
        self.state.withLockedValue { state in
            guard !state.snapshot.closing, !state.snapshot.hasGoneAway else { return false }
            state.idleSince = nil
            return true
        }
    }

    /// The pool released a stream: marks the connection idle when it was the last granted
    /// (`idle`), and tells whether the connection still accepts new streams.
    func streamReleased(idle: Bool) -> Bool {
        self.state.withLockedValue { state in
            if idle, state.idleSince == nil { state.idleSince = .now() }
            return !state.snapshot.closing && !state.snapshot.hasGoneAway
        }
    }

    /// When the connection has been idle long enough to close, or nil while it is busy.
    func idleDeadline(after timeout: TimeAmount) -> NIODeadline? {
        self.state.withLockedValue { $0.idleSince.map { $0 + timeout } }
    }

    /// Registers an exchange, so that ``fail(_:)`` fails it without waiting for the
    /// connection to finish closing; returns the token for ``unregister(_:)``. Called on the
    /// connection's event loop, where ``fail(_:)`` is (the stream's initializer registers, its
    /// handler unregisters): the task that awaits the exchange takes no lock for it.
    func register(_ exchange: HTTP2Exchange) -> Int {
        self.state.withLockedValue { state in
            state.nextExchange += 1
            state.exchanges[state.nextExchange] = exchange
            return state.nextExchange
        }
    }

    func unregister(_ token: Int) {
        self.state.withLockedValue { _ = $0.exchanges.removeValue(forKey: token) }
    }

    /// The connection failed: `error` is its reason unless one was recorded first, no new
    /// stream opens, and every exchange in flight fails now with the reason. Closing a TLS
    /// connection waits for the peer's close_notify (seconds, from a server that stopped
    /// answering), and the streams would otherwise only end with it.
    func fail(_ error: SecureHTTPError) {
        let (exchanges, reason) = self.state.withLockedValue { state in
            state.snapshot.closing = true
            if state.snapshot.closeReason == nil { state.snapshot.closeReason = error }
            defer { state.exchanges.removeAll() }
            return (Array(state.exchanges.values), state.snapshot.closeReason ?? error)
        }
        for exchange in exchanges { exchange.fail(reason) }
    }
}
