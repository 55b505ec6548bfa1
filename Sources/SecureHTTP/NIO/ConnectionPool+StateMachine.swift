/// The pool's bookkeeping without I/O (AsyncHTTPClient's idea: a state machine that returns
/// actions, tested on its own). Per key it tracks idle and leased connections, connections
/// being opened, and requests waiting for capacity.
struct ConnectionPoolStateMachine<Key: Hashable & Sendable, ConnectionID: Hashable & Sendable, WaiterID: Hashable & Sendable>: Sendable {
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

    private struct Entry: Sendable {
        var idle: [ConnectionID] = []
        var leased: Set<ConnectionID> = []
        var connecting = 0
        var waiters: [WaiterID] = []

        var open: Int { self.idle.count + self.leased.count + self.connecting }
        var isEmpty: Bool { self.open == 0 && self.waiters.isEmpty }
    }

    let maximumPerKey: Int
    private var entries: [Key: Entry] = [:]
    private(set) var isShutDown = false

    init(maximumPerKey: Int) {
        self.maximumPerKey = max(1, maximumPerKey)
    }

    /// A request wants a connection for `key`.
    mutating func lease(_ key: Key, waiter: WaiterID) -> LeaseAction {
        if self.isShutDown { return .fail }
        let maximum = self.maximumPerKey
        return self.update(key) { entry in
            if let id = entry.idle.popLast() {
                entry.leased.insert(id)
                return .use(id)
            }
            if entry.open < maximum {
                entry.connecting += 1
                return .connect
            }
            entry.waiters.append(waiter)
            return .wait
        }
    }

    /// A connection opened for a `.connect` action; it is leased by whoever asked.
    mutating func connected(_ key: Key, _ id: ConnectionID) {
        self.update(key) { entry in
            entry.connecting -= 1
            entry.leased.insert(id)
        }
    }

    /// Opening a connection failed; its capacity goes to the first waiter, if any.
    mutating func connectFailed(_ key: Key) -> WakeAction {
        guard self.entries[key] != nil else { return .none }
        let (isShutDown, maximum) = (self.isShutDown, self.maximumPerKey)
        return self.update(key) { entry in
            entry.connecting -= 1
            return Self.wake(&entry, isShutDown: isShutDown, maximumPerKey: maximum)
        }
    }

    /// A leased connection is given back.
    mutating func release(_ key: Key, _ id: ConnectionID, reusable: Bool) -> ReleaseAction {
        guard self.entries[key]?.leased.contains(id) == true else {
            return .close(id, then: .none)
        }
        let (isShutDown, maximum) = (self.isShutDown, self.maximumPerKey)
        return self.update(key) { entry in
            entry.leased.remove(id)
            if reusable && !isShutDown {
                if !entry.waiters.isEmpty {
                    let waiter = entry.waiters.removeFirst()
                    entry.leased.insert(id)
                    return .handOver(id, to: waiter)
                }
                entry.idle.append(id)
                return .park(id)
            }
            return .close(id, then: Self.wake(&entry, isShutDown: isShutDown, maximumPerKey: maximum))
        }
    }

    /// An idle connection timed out or was closed by the server. Returns whether it was idle
    /// (and is now forgotten); a leased one is left to its `release`.
    mutating func idleConnectionGone(_ key: Key, _ id: ConnectionID) -> (wasIdle: Bool, then: WakeAction) {
        guard self.entries[key]?.idle.contains(id) == true else { return (false, .none) }
        let (isShutDown, maximum) = (self.isShutDown, self.maximumPerKey)
        return self.update(key) { entry in
            entry.idle.removeAll { $0 == id }
            return (true, Self.wake(&entry, isShutDown: isShutDown, maximumPerKey: maximum))
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

    /// Shuts the pool: returns the idle connections to close and the waiters to fail.
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
            }
        }
        return (close, fail)
    }

    /// How many connections are open, leased and being opened for `key`, and how many wait.
    func counts(_ key: Key) -> (idle: Int, leased: Int, connecting: Int, waiting: Int) {
        let entry = self.entries[key] ?? Entry()
        return (entry.idle.count, entry.leased.count, entry.connecting, entry.waiters.count)
    }

    private static func wake(_ entry: inout Entry, isShutDown: Bool, maximumPerKey: Int) -> WakeAction {
        guard !isShutDown, !entry.waiters.isEmpty else { return .none }
        if let id = entry.idle.popLast() {
            entry.leased.insert(id)
            return .handOver(id, to: entry.waiters.removeFirst())
        }
        guard entry.open < maximumPerKey else { return .none }
        entry.connecting += 1
        return .connect(for: entry.waiters.removeFirst())
    }

    /// Runs `body` on the entry for `key` in place (no copy of its sets), then forgets the
    /// entry if nothing is left in it.
    @discardableResult
    private mutating func update<Result>(_ key: Key, _ body: (inout Entry) -> Result) -> Result {
        let result = body(&self.entries[key, default: Entry()])
        if self.entries[key]?.isEmpty == true { self.entries[key] = nil }
        return result
    }
}

