import Atomics
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServerTrust

/// Counters a transport keeps for tests and benchmarks.
///
/// Atomic, not behind a lock: every exchange bumps one or two of them, from whichever thread
/// its task runs on, and a lock shared by all requests was contended there. A snapshot reads
/// each counter on its own (a statistic, not a transaction).
final class TransportCounters: Sendable {
    /// One counter of ``NIOHTTPTransport/Statistics``.
    enum Field: Int, CaseIterable {
        case connectionsOpened, trustEvaluations, exchanges, staleConnectionRetries
        case http2ConnectionsOpened, http2Streams, notProcessedRetries
    }

    private let values: [ManagedAtomic<Int>] = Field.allCases.map { _ in ManagedAtomic(0) }
    /// The same events, and more, for swift-metrics.
    let metrics: TransportMetrics

    init(metrics: TransportMetrics = TransportMetrics(factory: nil)) {
        self.metrics = metrics
    }

    func increment(_ field: Field) {
        self.values[field.rawValue].wrappingIncrement(ordering: .relaxed)
    }

    var snapshot: NIOHTTPTransport.Statistics {
        func value(_ field: Field) -> Int { self.values[field.rawValue].load(ordering: .relaxed) }
        var statistics = NIOHTTPTransport.Statistics()
        statistics.connectionsOpened = value(.connectionsOpened)
        statistics.trustEvaluations = value(.trustEvaluations)
        statistics.exchanges = value(.exchanges)
        statistics.staleConnectionRetries = value(.staleConnectionRetries)
        statistics.http2ConnectionsOpened = value(.http2ConnectionsOpened)
        statistics.http2Streams = value(.http2Streams)
        statistics.notProcessedRetries = value(.notProcessedRetries)
        return statistics
    }
}

/// Live connections by origin and requirements: keep-alive reuse, a per-key cap with a FIFO
/// queue and shutdown. The bookkeeping is ``ConnectionPoolStateMachine``; this class performs
/// its actions.
///
/// The state sits behind one lock rather than in an actor: taking an idle connection and giving
/// it back are short synchronous steps, and an actor hop on each of them costs a thread wake-up
/// per request. Continuations are resumed and channels closed only after the lock is released.
/// Idle timeouts are kept by each connection on its event loop (no timer per request): an idle
/// connection closes itself, and its close future tells the pool.
final class ConnectionPool: Sendable {
    struct Key: Hashable, Sendable {
        /// The origin and requirements; interned by the driver, so usually compared by identity.
        let target: ConnectionTarget
        /// The lane: the token endpoint's requests have connections (and a queue) of their own.
        let lane: HTTPRequestOptions.Lane

        var origin: Origin { self.target.origin }
        var requirements: ConnectionRequirements { self.target.requirements }

        init(target: ConnectionTarget, lane: HTTPRequestOptions.Lane = .standard) {
            self.target = target
            self.lane = lane
        }

        init(origin: Origin, requirements: ConnectionRequirements, lane: HTTPRequestOptions.Lane = .standard) {
            self.init(target: ConnectionTarget(origin: origin, requirements: requirements), lane: lane)
        }
    }

    private enum Grant: Sendable {
        case connection(PooledConnection)
        case connect
        /// A pin update retired the waiter's key: it resolves its requirements again.
        case superseded
    }

    /// A waiting request's continuation and the timer of its deadline.
    private typealias Parked = (continuation: CheckedContinuation<Grant, any Error>, deadlineTimer: Task<Void, Never>)

    private typealias Machine = ConnectionPoolStateMachine<Key, PooledConnection.ID, Int>
    private typealias Waiters = ConnectionPoolWaiters<Key, PooledConnection.ID, Int, Grant, Parked>

    /// The most TLS contexts kept (distinct TLS shapes; a policy rarely has more than a few).
    static let maximumTLSContexts = ConnectionFactory.maximumTLSContexts

    private struct State: Sendable {
        var machine: Machine
        var connections: [PooledConnection.ID: PooledConnection] = [:]
        var waiters = Waiters()
        var nextID = 0
        /// The pin generation of the last pin update applied (``retire(where:generation:)``):
        /// a key resolved under an older one was prepared before it.
        var pinGeneration = 0

        mutating func makeID() -> Int {
            self.nextID += 1
            return self.nextID
        }

        /// Whether a pin update since `key` was resolved changed its pins (the key retired):
        /// its connection was verified under pins that no longer apply.
        func isSuperseded(_ key: Key) -> Bool {
            key.target.pinGeneration < self.pinGeneration && self.machine.isRetired(key)
        }
    }

    /// What to do once the lock is released.
    private struct Effects {
        var resume: [(CheckedContinuation<Grant, any Error>, Result<Grant, SecureHTTPError>)] = []
        var cancelTimers: [Task<Void, Never>] = []
        var close: [PooledConnection] = []

        /// Resumes a waiter later, if the delivery says so; false when the waiter is gone.
        @discardableResult
        mutating func deliver(_ delivery: Waiters.Delivery) -> Bool {
            switch delivery {
            case .resume(let parked, let result):
                self.cancelTimers.append(parked.deadlineTimer)
                self.resume.append((parked.continuation, result))
                return true
            case .kept:
                return true
            case .gone:
                return false
            }
        }

        func run() {
            for timer in self.cancelTimers { timer.cancel() }
            for connection in self.close { connection.close() }
            for (continuation, result) in self.resume {
                continuation.resume(with: result.mapError { $0 as any Error })
            }
        }
    }

    private enum LeaseStep {
        case use(PooledConnection)
        case retry(Effects)
        case connect
        case wait(Int)
        case fail
        case superseded
    }

    private let state: NIOLockedValueBox<State>
    /// Opens the connections.
    let factory: ConnectionFactory
    private let counters: TransportCounters

    /// A pool whose connections `factory` opens, within `configuration`'s per-host limits.
    init(factory: ConnectionFactory, configuration: HTTPTransportConfiguration, counters: TransportCounters) {
        self.factory = factory
        self.counters = counters
        self.state = NIOLockedValueBox(
            State(
                machine: Machine(
                    maximumPerKey: configuration.maximumConnectionsPerHost,
                    maximumMultiplexedPerKey: configuration.http2.maximumConnectionsPerHost
                )
            )
        )
    }

    /// A pool with a factory of its own.
    convenience init(
        group: any EventLoopGroup,
        configuration: HTTPTransportConfiguration,
        identity: LoadedClientIdentity?,
        platformTrust: PlatformTrust = .current,
        cache: TrustDecisionCache,
        counters: TransportCounters
    ) {
        self.init(
            factory: ConnectionFactory(
                group: group,
                configuration: configuration,
                identity: identity,
                platformTrust: platformTrust,
                cache: cache,
                counters: counters
            ),
            configuration: configuration,
            counters: counters
        )
    }

    /// Requests registered as waiting for a connection (for tests that must know a request has
    /// queued before they act on it).
    var waitingRequests: Int { self.state.withLockedValue { $0.waiters.count } }

    /// The TLS contexts kept, and the keys the pool holds state for (for tests that its
    /// bookkeeping stays bounded).
    var footprint: (tlsContexts: Int, keys: Int, connections: Int) {
        let tlsContexts = self.factory.tlsContextCount
        return self.state.withLockedValue { (tlsContexts, $0.machine.keyCount, $0.connections.count) }
    }

    /// The event loops of the pooled connections (for tests of the loop affinity).
    var connectionEventLoops: [any EventLoop] { self.state.withLockedValue { $0.connections.values.map(\.eventLoop) } }

    /// ``leaseUnlessSuperseded(_:deadline:)``, for a key no pin update can supersede (one made
    /// for a single connection, on a transport of its own); a superseded one fails as not sent.
    nonisolated(nonsending) func lease(
        _ key: Key,
        deadline: ContinuousClock.Instant
    ) async throws(SecureHTTPError) -> (connection: PooledConnection, isFresh: Bool) {
        guard let leased = try await self.leaseUnlessSuperseded(key, deadline: deadline) else {
            throw SecureHTTPError(
                .requestNotProcessed,
                "the pins changed before the request had a connection; it was not sent"
            )
        }
        return leased
    }

    /// A connection for `key`: an idle one, a new one, or one handed over after waiting, by
    /// `deadline` at the latest. `isFresh` tells whether it was opened for this request.
    ///
    /// Nil when a pin update superseded `key` (issue 51 item 14): the key was resolved under
    /// an older pin generation than the pool's, or, after a wait or a connect, its pins
    /// changed meanwhile (the key was retired). The caller resolves the request's
    /// requirements again (``RequestDriver/current(_:)``) and leases under the new key; no
    /// request prepared before an update opens or takes a connection under the old pins.
    nonisolated(nonsending) func leaseUnlessSuperseded(
        _ key: Key,
        deadline: ContinuousClock.Instant
    ) async throws(SecureHTTPError) -> (connection: PooledConnection, isFresh: Bool)? {
        let mayMultiplex = self.factory.offersHTTP2(key.requirements)
        // A caller on one of the event loops (a task preferring an `EventLoopTaskExecutor`)
        // gets an idle connection of that loop if there is one: its exchange then needs no hop.
        let callerLoop = MultiThreadedEventLoopGroup.currentEventLoop
        while true {
            let step = self.state.withLockedValue { state -> LeaseStep in
                if key.target.pinGeneration < state.pinGeneration { return .superseded }
                let waiter = state.makeID()
                let action: Machine.LeaseAction
                if let callerLoop {
                    let connections = state.connections
                    action = state.machine.lease(key, waiter: waiter, mayMultiplex: mayMultiplex) { id in
                        connections[id]?.eventLoop === callerLoop
                    }
                } else {
                    // Not on an event loop: no preference to look up.
                    action = state.machine.lease(key, waiter: waiter, mayMultiplex: mayMultiplex)
                }
                switch action {
                case .use(let id):
                    if let connection = state.connections[id], connection.beginExchange() {
                        return .use(connection)
                    }
                    var effects = Effects()
                    Self.release(&state, id: id, key: key, reusable: false, &effects)
                    return .retry(effects)
                case .connect:
                    return .connect
                case .wait:
                    state.waiters.register(waiter)
                    return .wait(waiter)
                case .fail:
                    return .fail
                }
            }
            switch step {
            case .use(let connection):
                return (connection, false)
            case .retry(let effects):
                effects.run()
                continue
            case .connect:
                guard let connection = try await self.open(key, deadline: deadline) else { return nil }
                return (connection, true)
            case .wait(let waiter):
                switch try await self.wait(waiter, key: key, deadline: deadline) {
                case .connection(let connection):
                    guard connection.isActive else {
                        self.release(connection, key: key, reusable: false)
                        continue
                    }
                    // Handed over just before a pin update retired the key: not used.
                    if self.state.withLockedValue({ $0.isSuperseded(key) }) {
                        self.release(connection, key: key, reusable: false)
                        return nil
                    }
                    return (connection, false)
                case .connect:
                    guard let connection = try await self.open(key, deadline: deadline) else { return nil }
                    return (connection, true)
                case .superseded:
                    return nil
                }
            case .fail:
                throw SecureHTTPError(.shutDown, "the transport has been shut down")
            case .superseded:
                return nil
            }
        }
    }

    /// Gives a connection back (for HTTP/2, the stream's share of it); a reusable HTTP/1.1
    /// connection is parked or handed to a waiting request, an HTTP/2 stream slot goes to a
    /// waiting request.
    func release(_ connection: PooledConnection, key: Key, reusable: Bool) {
        // An HTTP/2 stream's release does not depend on it (its connection is asked once, under
        // the lock).
        let reusable = reusable && (connection.isHTTP2 || connection.isActive)
        let effects = self.state.withLockedValue { state in
            var effects = Effects()
            Self.release(&state, id: connection.id, key: key, reusable: reusable, &effects)
            return effects
        }
        effects.run()
    }

    /// Closes idle connections and fails waiting requests; leased connections close when
    /// they are released. Returns once the idle connections are closed.
    func shutdown() async {
        let (effects, closing) = self.state.withLockedValue { state in
            var effects = Effects()
            let (close, fail) = state.machine.shutDown()
            for id in close {
                if let connection = state.connections.removeValue(forKey: id) { effects.close.append(connection) }
            }
            for waiter in fail {
                effects.deliver(
                    state.waiters.fail(waiter, SecureHTTPError(.shutDown, "the transport has been shut down"))
                )
            }
            return (effects, effects.close.map(\.closeFuture))
        }
        effects.run()
        for future in closing {
            try? await future.get()
        }
    }

    /// Retires the keys `isRetired` picks (see ``ConnectionPoolStateMachine/retire(where:)``):
    /// closes their idle connections now, and the others as their requests end; their waiting
    /// requests, and any request whose key is of a pin generation before `generation`, are
    /// sent back to resolve their requirements again.
    func retire(where isRetired: (Key) -> Bool, generation: Int = 0) {
        let effects = self.state.withLockedValue { state in
            var effects = Effects()
            state.pinGeneration = max(state.pinGeneration, generation)
            let (close, superseded) = state.machine.retire(where: isRetired)
            for id in close {
                if let connection = state.connections.removeValue(forKey: id) { effects.close.append(connection) }
            }
            for waiter in superseded {
                effects.deliver(state.waiters.grant(waiter, .superseded))
            }
            return effects
        }
        effects.run()
    }

    private static func release(
        _ state: inout State,
        id: PooledConnection.ID,
        key: Key,
        reusable: Bool,
        _ effects: inout Effects
    ) {
        if let pooled = state.connections[id], case .http2(let connection, _) = pooled {
            let (close, idle, wake) = state.machine.releaseStream(key, id)
            if close, let connection = state.connections.removeValue(forKey: id) { effects.close.append(connection) }
            // Under the pool's lock, so that a grant of the next stream (which marks it busy)
            // cannot come first.
            let accepting = connection.streamReleased(idle: idle)
            Self.perform(&state, wake, key: key, &effects)
            if !close, !accepting {
                // Closing, or gone away before the pool heard of it: no new stream goes to it,
                // and it closes once its streams end (now, if none is granted).
                state.connections[id] = nil
                if idle { effects.close.append(pooled) }
                for wake in state.machine.multiplexedConnectionGone(key, id) {
                    Self.perform(&state, wake, key: key, &effects)
                }
            }
            return
        }
        switch state.machine.release(key, id, reusable: reusable) {
        case .park:
            break  // the connection keeps its own idle timer
        case .close(let id, let wake):
            if let connection = state.connections.removeValue(forKey: id) { effects.close.append(connection) }
            Self.perform(&state, wake, key: key, &effects)
        case .handOver(let id, let waiter):
            Self.perform(&state, .handOver(id, to: waiter), key: key, &effects)
        }
    }

    private func idleConnectionGone(_ id: PooledConnection.ID, key: Key) {
        let effects = self.state.withLockedValue { state in
            var effects = Effects()
            if case .http2 = state.connections[id] {
                // Its streams fail on their own; new requests go elsewhere.
                state.connections[id] = nil
                for wake in state.machine.multiplexedConnectionGone(key, id) {
                    Self.perform(&state, wake, key: key, &effects)
                }
                return effects
            }
            let (wasIdle, wake) = state.machine.idleConnectionGone(key, id)
            if wasIdle, let connection = state.connections.removeValue(forKey: id) {
                effects.close.append(connection)
            }
            Self.perform(&state, wake, key: key, &effects)
            return effects
        }
        effects.run()
    }

    /// The server changed an HTTP/2 connection's stream limit.
    private func streamLimitChanged(_ id: PooledConnection.ID, key: Key, to maximum: Int) {
        let effects = self.state.withLockedValue { state in
            var effects = Effects()
            for wake in state.machine.streamLimitChanged(key, id, to: maximum) {
                Self.perform(&state, wake, key: key, &effects)
            }
            return effects
        }
        effects.run()
    }

    /// An HTTP/2 connection received GOAWAY: no new streams on it; closed now if none is open.
    private func goingAway(_ id: PooledConnection.ID, key: Key) {
        let effects = self.state.withLockedValue { state in
            var effects = Effects()
            let (close, wakes) = state.machine.goingAway(key, id)
            if close, let connection = state.connections.removeValue(forKey: id) { effects.close.append(connection) }
            for wake in wakes { Self.perform(&state, wake, key: key, &effects) }
            return effects
        }
        effects.run()
    }

    /// Hands a connection or a connect slot to a waiter. A waiter that is gone (cancelled or
    /// expired) gives the slot back, so a slot never leaks.
    private static func perform(_ state: inout State, _ action: Machine.WakeAction, key: Key, _ effects: inout Effects)
    {
        switch action {
        case .none:
            break
        case .handOver(let id, let waiter):
            // A connection that can no longer take the exchange (closed, closing, gone away)
            // is released as the waiter would release it.
            guard let connection = state.connections[id], connection.beginExchange(),
                Self.grant(&state, waiter: waiter, .connection(connection), &effects)
            else {
                Self.release(&state, id: id, key: key, reusable: false, &effects)
                return
            }
        case .connect(let waiter):
            guard Self.grant(&state, waiter: waiter, .connect, &effects) else {
                Self.perform(&state, state.machine.connectFailed(key), key: key, &effects)
                return
            }
        }
    }

    /// Delivers `grant` to a waiter; false when the waiter is gone.
    private static func grant(_ state: inout State, waiter: Int, _ grant: Grant, _ effects: inout Effects) -> Bool {
        effects.deliver(state.waiters.grant(waiter, grant))
    }

    /// Waits for a connection or a connect slot. Only this slow path (the per-key cap reached)
    /// arms a timer task for the deadline.
    private func wait(_ waiter: Int, key: Key, deadline: ContinuousClock.Instant) async throws(SecureHTTPError) -> Grant
    {
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Grant, any Error>) in
                    let timer = Task {
                        try? await Task.sleep(until: deadline, clock: .continuous)
                        if !Task.isCancelled {
                            self.dropWaiter(
                                waiter,
                                key: key,
                                SecureHTTPError(.deadlineExceeded, "no connection became available before the deadline")
                            )
                        }
                    }
                    let cancelled = Task.isCancelled
                    let arrival = self.state.withLockedValue { state in
                        state.waiters.arrive(
                            waiter,
                            key: key,
                            (continuation, timer),
                            cancelled: cancelled,
                            machine: &state.machine
                        )
                    }
                    if case .resumeNow(let now) = arrival {
                        timer.cancel()
                        continuation.resume(with: now.mapError { $0 as any Error })
                    }
                }
            } onCancel: {
                self.dropWaiter(
                    waiter,
                    key: key,
                    SecureHTTPError(.cancelled, "the request was cancelled while waiting for a connection")
                )
            }
        } catch let error as SecureHTTPError {
            throw error
        } catch {
            throw SecureHTTPError(.cancelled, "the request was cancelled")
        }
    }

    /// Takes a waiter out of the queue with `error` (cancelled, or its deadline passed), if it
    /// is still waiting; a waiter already granted keeps its grant.
    private func dropWaiter(_ waiter: Int, key: Key, _ error: SecureHTTPError) {
        let effects = self.state.withLockedValue { state in
            var effects = Effects()
            effects.deliver(state.waiters.drop(waiter, key: key, error, machine: &state.machine))
            return effects
        }
        effects.run()
    }

    /// Opens a connection for `key`; nil (the connection released) when a pin update retired
    /// the key while it was being opened for a request prepared before the update.
    private func open(_ key: Key, deadline: ContinuousClock.Instant) async throws(SecureHTTPError) -> PooledConnection?
    {
        let id = self.state.withLockedValue { $0.makeID() }
        let started = ContinuousClock.now
        let connection: PooledConnection
        do {
            connection = try await self.factory.makeConnection(
                id: id,
                to: key.target,
                deadline: deadline,
                events: HTTP2ConnectionEvents(
                    streamLimitChanged: { [weak self] maximum in self?.streamLimitChanged(id, key: key, to: maximum) },
                    goingAway: { [weak self] in self?.goingAway(id, key: key) }
                ),
                onClose: { [weak self] in self?.idleConnectionGone(id, key: key) }
            )
        } catch {
            self.counters.metrics.connectionFailed(error)
            let effects = self.state.withLockedValue { state in
                var effects = Effects()
                Self.perform(&state, state.machine.connectFailed(key), key: key, &effects)
                return effects
            }
            effects.run()
            throw error
        }
        self.counters.increment(.connectionsOpened)
        self.counters.metrics.connectionOpened(
            http2: connection.isHTTP2,
            tls: key.requirements.usesTLS,
            setup: started.duration(to: .now)
        )
        let negotiated: Machine.Negotiated
        switch connection {
        case .http1:
            negotiated = .http1
        case .http2(_, let maximumStreams):
            self.counters.increment(.http2ConnectionsOpened)
            negotiated = .http2(maximumStreams: maximumStreams)
        }
        let (isShutDown, superseded, effects) = self.state.withLockedValue { state in
            var effects = Effects()
            // The opener's exchange is already counted by the connection (from its setup).
            state.connections[id] = connection
            for wake in state.machine.connected(key, id, negotiated) {
                Self.perform(&state, wake, key: key, &effects)
            }
            return (state.machine.isShutDown, state.isSuperseded(key), effects)
        }
        effects.run()
        if isShutDown {
            self.release(connection, key: key, reusable: false)
            throw SecureHTTPError(.shutDown, "the transport has been shut down")
        }
        if superseded {
            self.release(connection, key: key, reusable: false)
            return nil
        }
        return connection
    }
}
