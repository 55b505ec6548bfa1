import NIOCore

extension HTTP2ConnectionHandler {
    /// The connection's own state without I/O (AsyncHTTPClient's `HTTP2IdleHandler` nests the
    /// same kind of machine): the server's settings, GOAWAY, the PING schedule and the idle
    /// timeout. The handler feeds it frames and timer ticks and performs what it returns.
    ///
    /// The handler publishes what it decided in ``HTTP2ConnectionState`` (the snapshot the
    /// connection and its streams read). Whether streams are granted is counted once, by the
    /// pool, which marks the connection busy or idle there; the machine takes the resulting
    /// idle deadline as an input.
    struct StateMachine: Sendable {
        enum Phase: Sendable, Equatable {
            /// Until the server's first SETTINGS frame (its preface, RFC 9113 §3.4).
            case awaitingSettings
            case open
            /// GOAWAY received: no new stream; the open ones may complete.
            case goingAway
        }

        enum SettingsAction: Sendable, Equatable {
            /// The connection is ready, with the server's `SETTINGS_MAX_CONCURRENT_STREAMS`.
            case ready(maximumStreams: Int)
            /// The server changed its stream limit: tell the pool.
            case streamLimitChanged(Int)
            case none
        }

        enum GoAwayAction: Sendable, Equatable {
            /// GOAWAY before the settings: the connection never became usable.
            case failSetup
            /// The first GOAWAY: tell the pool, which sends no new stream here.
            case notifyPool
            /// A later GOAWAY (a graceful shutdown sends two): nothing new.
            case none
        }

        enum TimerAction: Sendable, Equatable {
            /// No exchange for the idle timeout: close.
            case closeIdle
            /// The server did not acknowledge the PING in time: fail the connection.
            case failPingTimeout
            /// Send a PING now (then rearm).
            case sendPing
            /// Nothing due yet (rearm).
            case none
        }

        let idleTimeout: TimeAmount
        let pingInterval: TimeAmount?
        let pingTimeout: TimeAmount
        private(set) var phase = Phase.awaitingSettings
        private(set) var streamLimit = HTTP2ConnectionHandler.assumedStreamLimit
        /// When a frame last arrived.
        private(set) var lastInbound: NIODeadline
        /// When the unacknowledged PING was sent, if one is.
        private(set) var pingSentAt: NIODeadline?

        init(idleTimeout: TimeAmount, pingInterval: TimeAmount?, pingTimeout: TimeAmount, now: NIODeadline) {
            self.idleTimeout = idleTimeout
            self.pingInterval = pingInterval
            self.pingTimeout = pingTimeout
            self.lastInbound = now
        }

        /// A SETTINGS frame (not an acknowledgement) with this `SETTINGS_MAX_CONCURRENT_STREAMS`,
        /// if it has one (RFC 9113 §6.5.2: without it the limit is unchanged, or unlimited at
        /// first, which is planned as ``HTTP2ConnectionHandler/assumedStreamLimit``).
        mutating func settingsReceived(maximumConcurrentStreams limit: Int?) -> SettingsAction {
            switch self.phase {
            case .awaitingSettings:
                self.phase = .open
                self.streamLimit = limit ?? HTTP2ConnectionHandler.assumedStreamLimit
                return .ready(maximumStreams: self.streamLimit)
            case .open, .goingAway:
                guard let limit, limit != self.streamLimit else { return .none }
                self.streamLimit = limit
                return .streamLimitChanged(limit)
            }
        }

        /// A GOAWAY frame.
        mutating func goAwayReceived() -> GoAwayAction {
            switch self.phase {
            case .awaitingSettings:
                return .failSetup
            case .open:
                self.phase = .goingAway
                return .notifyPool
            case .goingAway:
                return .none
            }
        }

        /// Frames arrived (the end of a read).
        mutating func readComplete(at now: NIODeadline) {
            self.lastInbound = now
        }

        /// The server acknowledged the PING: alive, and the next PING is due an interval from
        /// now, not at the timeout.
        mutating func pingAcknowledged(at now: NIODeadline) {
            self.pingSentAt = nil
            self.lastInbound = now
        }

        /// When the timer should fire next: the idle deadline (or an idle timeout from now while
        /// exchanges run), the next PING or its acknowledgement's deadline.
        func nextDue(now: NIODeadline, idleDeadline: NIODeadline?) -> NIODeadline {
            var due = idleDeadline ?? (now + self.idleTimeout)
            if let interval = self.pingInterval {
                due = min(due, self.pingSentAt.map { $0 + self.pingTimeout } ?? (self.lastInbound + interval))
            }
            return due
        }

        /// The timer fired at `now`; `idleDeadline` is when the connection may close for idleness
        /// (nil while exchanges run).
        mutating func timerFired(now: NIODeadline, idleDeadline: NIODeadline?) -> TimerAction {
            if let idleDeadline, idleDeadline <= now { return .closeIdle }
            guard let interval = self.pingInterval else { return .none }
            if let sent = self.pingSentAt {
                if sent + self.pingTimeout <= now, self.lastInbound < sent { return .failPingTimeout }
                if self.lastInbound >= sent { self.pingSentAt = nil }
                return .none
            }
            if self.lastInbound + interval <= now {
                self.pingSentAt = now
                return .sendPing
            }
            return .none
        }
    }
}
