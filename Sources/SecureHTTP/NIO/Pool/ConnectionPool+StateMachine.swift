/// The pool's bookkeeping without I/O (AsyncHTTPClient's idea: a state machine that returns
/// actions, tested on its own). Per key it tracks idle and leased HTTP/1.1 connections, HTTP/2
/// connections with their streams in use, connections being opened, and requests waiting for
/// capacity.
///
/// A key that may multiplex (TLS, with `h2` offered) opens one connection at a time until the
/// first one says which protocol the server chose: requests that arrive meanwhile wait for it,
/// so a burst on a new transport costs one handshake, not one per request. An HTTP/2 connection
/// then takes up to the server's `SETTINGS_MAX_CONCURRENT_STREAMS` of them at once; an HTTP/1.1
/// answer lets the waiters open connections up to the per-key cap, as before.
struct ConnectionPoolStateMachine<
    Key: Hashable & Sendable,
    ConnectionID: Hashable & Sendable,
    WaiterID: Hashable & Sendable
>: Sendable {
    enum LeaseAction: Equatable {
        /// Use this idle connection.
        case use(ConnectionID)
        /// Open a new connection (capacity was reserved).
        case connect
        /// Wait: the key is at its cap.
        case wait
        /// The pool is shut down.
        case fail
    }

    enum WakeAction: Equatable {
        /// Nothing to do.
        case none
        /// Hand this connection to the waiter (already marked leased).
        case handOver(ConnectionID, to: WaiterID)
        /// Let the waiter open a connection (capacity reserved for it).
        case connect(for: WaiterID)
    }

    enum ReleaseAction: Equatable {
        /// Keep the connection idle (schedule its idle timeout).
        case park(ConnectionID)
        /// Close the connection.
        case close(ConnectionID, then: WakeAction)
        /// Give the connection to a waiting request.
        case handOver(ConnectionID, to: WaiterID)
    }

    /// Which protocol a key's connections speak, as far as the pool knows.
    enum KnownProtocol: Sendable, Equatable {
        case unknown, http1, http2
    }

    /// What an opened connection turned out to be.
    enum Negotiated: Sendable, Equatable {
        case http1
        /// HTTP/2, with the server's `SETTINGS_MAX_CONCURRENT_STREAMS`.
        case http2(maximumStreams: Int)
    }

    /// An HTTP/2 connection: streams in use, the server's limit, and whether it is going away
    /// (GOAWAY received, or the pool shut down): then it takes no new stream and closes once
    /// its last stream ends.
    struct Multiplexed: Sendable, Equatable {
        var used: Int
        var maximum: Int
        var draining = false

        var hasCapacity: Bool { !self.draining && self.used < self.maximum }
    }

    private struct Entry: Sendable {
        var idle: [ConnectionID] = []
        var leased: Set<ConnectionID> = []
        var connecting = 0
        var waiters: [WaiterID] = []
        /// HTTP/2 connections in the order they were opened (a new stream goes to the oldest
        /// with room, so the newer ones can go idle and close).
        var multiplexed: [(id: ConnectionID, state: Multiplexed)] = []
        var known = KnownProtocol.unknown
        var mayMultiplex = false
        /// The key's connections were verified under requirements that no longer apply (a pin
        /// update changed its pins): none is parked or shared again, each closes once its
        /// request or last stream ends. No request takes one of them afterwards (the pool
        /// sends a request prepared before the change back to resolve its requirements again);
        /// the key is forgotten once empty.
        var retired = false

        var open: Int { self.idle.count + self.leased.count + self.connecting }
        /// Nothing open and nobody waiting: the entry is forgotten, protocol memory included (a
        /// key seen once must not hold state for ever; a later request learns the protocol
        /// again from its first connection).
        var isEmpty: Bool {
            self.open == 0 && self.waiters.isEmpty && self.multiplexed.isEmpty
        }
        var liveMultiplexed: Int { self.multiplexed.count(where: { !$0.state.draining }) }

        /// Takes a stream on the oldest HTTP/2 connection with room.
        mutating func takeStream() -> ConnectionID? {
            guard let index = self.multiplexed.firstIndex(where: { $0.state.hasCapacity }) else { return nil }
            self.multiplexed[index].state.used += 1
            return self.multiplexed[index].id
        }

        /// Whether requests of this key should wait for a connection being opened rather than
        /// open one more: HTTP/2 (or not yet known) with a connection already on its way or
        /// the HTTP/2 cap reached.
        func waitsForMultiplexed(maximumMultiplexed: Int) -> Bool {
            guard self.mayMultiplex, self.known != .http1 else { return false }
            return self.connecting > 0 || (self.known == .http2 && self.liveMultiplexed >= maximumMultiplexed)
        }
    }

    let maximumPerKey: Int
    let maximumMultiplexedPerKey: Int
    private var entries: [Key: Entry] = [:]
    private(set) var isShutDown = false

    init(maximumPerKey: Int, maximumMultiplexedPerKey: Int = 1) {
        self.maximumPerKey = max(1, maximumPerKey)
        self.maximumMultiplexedPerKey = max(1, maximumMultiplexedPerKey)
    }

    /// A request wants a connection for `key`. `mayMultiplex` says whether the key's
    /// connections may turn out to be HTTP/2 (TLS with `h2` offered). Of the idle HTTP/1.1
    /// connections, the most recently parked one that `preferring` accepts is taken (the
    /// caller's own event loop), else the most recently parked one.
    mutating func lease(
        _ key: Key,
        waiter: WaiterID,
        mayMultiplex: Bool = false,
        preferring: (ConnectionID) -> Bool = { _ in false }
    ) -> LeaseAction {
        if self.isShutDown { return .fail }
        let (maximum, maximumMultiplexed) = (self.maximumPerKey, self.maximumMultiplexedPerKey)
        return self.update(key) { entry in
            entry.mayMultiplex = mayMultiplex
            if let id = entry.takeStream() {
                return .use(id)
            }
            if let index = entry.idle.lastIndex(where: preferring) {
                let id = entry.idle.remove(at: index)
                entry.leased.insert(id)
                return .use(id)
            }
            if let id = entry.idle.popLast() {
                entry.leased.insert(id)
                return .use(id)
            }
            if !entry.waitsForMultiplexed(maximumMultiplexed: maximumMultiplexed), entry.open < maximum {
                entry.connecting += 1
                return .connect
            }
            entry.waiters.append(waiter)
            return .wait
        }
    }

    /// An HTTP/1.1 connection opened for a `.connect` action; it is leased by whoever asked.
    mutating func connected(_ key: Key, _ id: ConnectionID) {
        _ = self.connected(key, id, .http1)
    }

    /// A connection opened for a `.connect` action; whoever asked uses it (a stream of it, for
    /// HTTP/2). Returns what to do for the waiters: streams of an HTTP/2 connection handed out
    /// up to the server's limit; after an HTTP/1.1 one, connects up to the per-key cap.
    mutating func connected(_ key: Key, _ id: ConnectionID, _ negotiated: Negotiated) -> [WakeAction] {
        let isShutDown = self.isShutDown
        let limits = self.limits
        return self.update(key) { entry in
            entry.connecting -= 1
            switch negotiated {
            case .http1:
                entry.known = .http1
                entry.leased.insert(id)
            case .http2(let maximumStreams):
                entry.known = .http2
                entry.multiplexed.append(
                    (id, Multiplexed(used: 1, maximum: maximumStreams, draining: isShutDown || entry.retired))
                )
            }
            return Self.wakeAll(&entry, limits)
        }
    }

    /// Opening a connection failed; its capacity goes to the first waiter, if any.
    mutating func connectFailed(_ key: Key) -> WakeAction {
        guard self.entries[key] != nil else { return .none }
        let limits = self.limits
        return self.update(key) { entry in
            entry.connecting -= 1
            return Self.wake(&entry, limits)
        }
    }

    /// A stream of an HTTP/2 connection ended. Returns whether to close the connection (it is
    /// draining and that was its last stream), whether it is now idle (no stream granted, so
    /// its idle timeout starts: this count is the only one of a connection's streams), and
    /// what to do for a waiter (which may take the stream just released: then it is not idle).
    mutating func releaseStream(_ key: Key, _ id: ConnectionID) -> (close: Bool, idle: Bool, then: WakeAction) {
        guard let index = self.entries[key]?.multiplexed.firstIndex(where: { $0.id == id }) else {
            return (false, false, .none)
        }
        let limits = self.limits
        return self.update(key) { entry in
            entry.multiplexed[index].state.used -= 1
            let state = entry.multiplexed[index].state
            if state.draining {
                if state.used == 0 {
                    entry.multiplexed.remove(at: index)
                    return (true, false, Self.wake(&entry, limits))
                }
                return (false, false, .none)
            }
            let wake = Self.wake(&entry, limits)
            return (false, entry.multiplexed[index].state.used == 0, wake)
        }
    }

    /// The server changed `SETTINGS_MAX_CONCURRENT_STREAMS` of an HTTP/2 connection.
    mutating func streamLimitChanged(_ key: Key, _ id: ConnectionID, to maximum: Int) -> [WakeAction] {
        guard let index = self.entries[key]?.multiplexed.firstIndex(where: { $0.id == id }) else { return [] }
        let limits = self.limits
        return self.update(key) { entry in
            entry.multiplexed[index].state.maximum = maximum
            return Self.wakeAll(&entry, limits)
        }
    }

    /// An HTTP/2 connection received GOAWAY: it takes no new stream, and the waiters may open
    /// another connection. Returns whether to close it now (no stream in use).
    mutating func goingAway(_ key: Key, _ id: ConnectionID) -> (close: Bool, then: [WakeAction]) {
        guard let index = self.entries[key]?.multiplexed.firstIndex(where: { $0.id == id }) else { return (false, []) }
        let limits = self.limits
        return self.update(key) { entry in
            entry.multiplexed[index].state.draining = true
            var close = false
            if entry.multiplexed[index].state.used == 0 {
                entry.multiplexed.remove(at: index)
                close = true
            }
            return (close, Self.wakeAll(&entry, limits))
        }
    }

    /// An HTTP/2 connection closed (idle timeout, server, error). Its streams fail on their own
    /// and their releases find nothing; the waiters may open another connection.
    mutating func multiplexedConnectionGone(_ key: Key, _ id: ConnectionID) -> [WakeAction] {
        guard self.entries[key]?.multiplexed.contains(where: { $0.id == id }) == true else { return [] }
        let limits = self.limits
        return self.update(key) { entry in
            entry.multiplexed.removeAll { $0.id == id }
            return Self.wakeAll(&entry, limits)
        }
    }

    /// A leased connection is given back.
    mutating func release(_ key: Key, _ id: ConnectionID, reusable: Bool) -> ReleaseAction {
        let limits = self.limits
        let isShutDown = self.isShutDown
        return self.update(key) { entry in
            guard entry.leased.remove(id) != nil else {
                return .close(id, then: .none)
            }
            if reusable && !isShutDown && !entry.retired {
                if !entry.waiters.isEmpty {
                    let waiter = entry.waiters.removeFirst()
                    entry.leased.insert(id)
                    return .handOver(id, to: waiter)
                }
                entry.idle.append(id)
                return .park(id)
            }
            return .close(id, then: Self.wake(&entry, limits))
        }
    }

    /// An idle connection timed out or was closed by the server. Returns whether it was idle
    /// (and is now forgotten); a leased one is left to its `release`.
    mutating func idleConnectionGone(_ key: Key, _ id: ConnectionID) -> (wasIdle: Bool, then: WakeAction) {
        guard self.entries[key]?.idle.contains(id) == true else { return (false, .none) }
        let limits = self.limits
        return self.update(key) { entry in
            entry.idle.removeAll { $0 == id }
            return (true, Self.wake(&entry, limits))
        }
    }

    /// A waiting request was cancelled. Returns whether it was still waiting.
    mutating func cancelWaiter(_ key: Key, _ waiter: WaiterID) -> Bool {
        guard self.entries[key]?.waiters.contains(waiter) == true else { return false }
        self.update(key) { entry in
            entry.waiters.removeAll { $0 == waiter }
        }
        return true
    }

    /// Shuts the pool: returns the idle connections to close (HTTP/2 ones without a stream in
    /// use among them; the others drain) and the waiters to fail.
    mutating func shutDown() -> (close: [ConnectionID], fail: [WaiterID]) {
        self.isShutDown = true
        var close: [ConnectionID] = []
        var fail: [WaiterID] = []
        for key in Array(self.entries.keys) {
            self.update(key) { entry in
                close += entry.idle
                fail += entry.waiters
                entry.idle = []
                entry.waiters = []
                close += entry.multiplexed.filter { $0.state.used == 0 }.map(\.id)
                entry.multiplexed.removeAll { $0.state.used == 0 }
                for index in entry.multiplexed.indices { entry.multiplexed[index].state.draining = true }
                entry.known = .unknown
            }
        }
        return (close, fail)
    }

    /// Retires the keys `isRetired` picks (their connections were verified under pins that no
    /// longer apply): returns their idle connections and their HTTP/2 connections without a
    /// stream in use, to close now; the HTTP/2 ones with streams drain (no new stream, closed
    /// after the last), and the leased HTTP/1.1 ones close when released. Their waiting
    /// requests leave the queue and are returned as `superseded`: they were prepared under the
    /// old pins, so the pool tells them to resolve their requirements again rather than open a
    /// connection under those pins (issue 51 item 14).
    mutating func retire(where isRetired: (Key) -> Bool) -> (close: [ConnectionID], superseded: [WaiterID]) {
        var close: [ConnectionID] = []
        var superseded: [WaiterID] = []
        for key in Array(self.entries.keys) where isRetired(key) {
            self.update(key) { entry in
                entry.retired = true
                close += entry.idle
                entry.idle = []
                close += entry.multiplexed.filter { $0.state.used == 0 }.map(\.id)
                entry.multiplexed.removeAll { $0.state.used == 0 }
                for index in entry.multiplexed.indices { entry.multiplexed[index].state.draining = true }
                superseded += entry.waiters
                entry.waiters = []
            }
        }
        return (close, superseded)
    }

    /// Whether `key` was retired by a pin update (and still has a connection or a request).
    func isRetired(_ key: Key) -> Bool {
        self.entries[key]?.retired == true
    }

    /// The keys with state: each has a connection open, being opened, or a request waiting.
    var keyCount: Int { self.entries.count }

    /// How many connections are open, leased and being opened for `key`, and how many wait.
    func counts(_ key: Key) -> (idle: Int, leased: Int, connecting: Int, waiting: Int) {
        let entry = self.entries[key] ?? Entry()
        return (entry.idle.count, entry.leased.count, entry.connecting, entry.waiters.count)
    }

    /// The HTTP/2 connections of `key` with their streams in use.
    func multiplexed(_ key: Key) -> [Multiplexed] {
        (self.entries[key]?.multiplexed ?? []).map(\.state)
    }

    /// What waking a waiter depends on, copied out of `self` so that `entries` can be updated
    /// in place meanwhile.
    private struct Limits {
        let isShutDown: Bool
        let maximumPerKey: Int
        let maximumMultiplexedPerKey: Int
    }

    private var limits: Limits {
        Limits(
            isShutDown: self.isShutDown,
            maximumPerKey: self.maximumPerKey,
            maximumMultiplexedPerKey: self.maximumMultiplexedPerKey
        )
    }

    /// Gives capacity to the first waiter: a stream, an idle connection, or a connect slot.
    private static func wake(_ entry: inout Entry, _ limits: Limits) -> WakeAction {
        guard !limits.isShutDown, !entry.waiters.isEmpty else { return .none }
        if let id = entry.takeStream() {
            return .handOver(id, to: entry.waiters.removeFirst())
        }
        if let id = entry.idle.popLast() {
            entry.leased.insert(id)
            return .handOver(id, to: entry.waiters.removeFirst())
        }
        guard !entry.waitsForMultiplexed(maximumMultiplexed: limits.maximumMultiplexedPerKey),
            entry.open < limits.maximumPerKey
        else {
            return .none
        }
        entry.connecting += 1
        return .connect(for: entry.waiters.removeFirst())
    }

    /// Wakes waiters while there is capacity for them.
    private static func wakeAll(_ entry: inout Entry, _ limits: Limits) -> [WakeAction] {
        var actions: [WakeAction] = []
        while true {
            let action = Self.wake(&entry, limits)
            if action == .none { return actions }
            actions.append(action)
        }
    }

    /// Runs `body` on the entry for `key` in place (no copy of its sets), then forgets the
    /// entry if nothing is left in it.
    @discardableResult
    private mutating func update<Result>(_ key: Key, _ body: (inout Entry) -> Result) -> Result {
        var isEmpty = false
        // One lookup for the update; a second only to forget an entry that emptied.
        let result = Self.apply(body, to: &self.entries[key, default: Entry()], isEmpty: &isEmpty)
        if isEmpty { self.entries[key] = nil }
        return result
    }

    private static func apply<Result>(
        _ body: (inout Entry) -> Result,
        to entry: inout Entry,
        isEmpty: inout Bool
    ) -> Result {
        let result = body(&entry)
        isEmpty = entry.isEmpty
        return result
    }
}
