import ServerTrust

/// The sessions of `URLSessionTransport`: one per distinct ``ConnectionRequirements`` (host,
/// port, TLS floor, trust anchors, pins, …), created on first use, at most ``limit`` of them.
///
/// URLSession never shares a connection between sessions, and raises a server-trust challenge
/// only when it opens a connection. With one session per requirements, a request can only travel
/// on a connection that was opened, and evaluated by this transport, for exactly its
/// requirements: HTTP/2 connection coalescing, which sends a request for one host over a
/// connection opened for another whose certificate covers both, cannot carry a pinned host's
/// request (with its `Authorization` header and body) over a connection checked for another host.
///
/// When a new session would pass the limit, the least recently used one is retired: it takes no
/// new task and its connections close once the tasks in flight finish
/// (`finishTasksAndInvalidate`).
///
/// Generic over the session so that the rule is tested on every platform; not thread-safe (the
/// transport holds it under a lock).
struct URLSessionPool<Session> {
    /// The most sessions kept at once.
    let limit: Int
    private var sessions: [ConnectionRequirements: Entry] = [:]
    private var clock: UInt64 = 0
    private(set) var isClosed = false

    private struct Entry {
        let session: Session
        var lastUse: UInt64
    }

    /// What ``session(for:make:)`` returns.
    enum Lease {
        /// The session for the requirements, and the session retired to stay within the limit.
        case session(Session, retired: Session?)
        /// The pool is closed.
        case closed
    }

    /// Creates an empty pool.
    ///
    /// - Parameter limit: the most sessions kept at once; at least 1.
    init(limit: Int) {
        precondition(limit >= 1, "a session pool needs room for one session")
        self.limit = limit
    }

    /// The number of sessions.
    var count: Int { self.sessions.count }

    /// The session for `requirements`, made with `make` when there is none.
    mutating func session<Failure: Error>(
        for requirements: ConnectionRequirements,
        make: (ConnectionRequirements) throws(Failure) -> Session
    ) throws(Failure) -> Lease {
        guard !self.isClosed else { return .closed }
        self.clock &+= 1
        if let existing = self.sessions[requirements] {
            self.sessions[requirements]?.lastUse = self.clock
            return .session(existing.session, retired: nil)
        }
        let session = try make(requirements)
        var retired: Session?
        if self.sessions.count >= self.limit,
            let oldest = self.sessions.min(by: { $0.value.lastUse < $1.value.lastUse })
        {
            retired = oldest.value.session
            self.sessions[oldest.key] = nil
        }
        self.sessions[requirements] = Entry(session: session, lastUse: self.clock)
        return .session(session, retired: retired)
    }

    /// Removes the sessions whose requirements `isRetired` picks (a pin update changed their
    /// pins) and returns them, to retire: a later request with the same requirements gets a
    /// new session, so new connections are verified afresh.
    mutating func retire(where isRetired: (ConnectionRequirements) -> Bool) -> [Session] {
        let picked = self.sessions.filter { isRetired($0.key) }
        for key in picked.keys { self.sessions[key] = nil }
        return picked.values.map(\.session)
    }

    /// Closes the pool and returns every session, for invalidation.
    mutating func close() -> [Session] {
        self.isClosed = true
        let all = self.sessions.values.map(\.session)
        self.sessions = [:]
        return all
    }
}

/// `URLSessionTransport`'s defaults, known on every platform (the engine choice is tested on Linux).
public enum URLSessionTransportDefaults {
    /// The default number of URLSessions a transport keeps (one per origin and requirements).
    public static let maximumSessions = 16
}
