import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import ServerTrust

/// Counters a transport keeps for tests and benchmarks.
final class TransportCounters: Sendable {
    private let box = NIOLockedValueBox(NIOHTTPTransport.Statistics())

    func increment(_ field: WritableKeyPath<NIOHTTPTransport.Statistics, Int>) {
        self.box.withLockedValue { $0[keyPath: field] += 1 }
    }

    var snapshot: NIOHTTPTransport.Statistics { self.box.withLockedValue { $0 } }
}

/// Live connections by origin and requirements: keep-alive reuse, a per-key cap with a FIFO
/// queue, idle timeouts and shutdown. The bookkeeping is ``ConnectionPoolStateMachine``; this
/// actor performs its actions.
actor ConnectionPool {
    struct Key: Hashable, Sendable {
        let origin: Origin
        let requirements: ConnectionRequirements
    }

    private enum Grant: Sendable {
        case connection(HTTP1Connection)
        case connect
    }

    private typealias Machine = ConnectionPoolStateMachine<Key, HTTP1Connection.ID, Int>

    private var machine: Machine
    private var connections: [HTTP1Connection.ID: HTTP1Connection] = [:]
    private var waiters: [Int: CheckedContinuation<Grant, any Error>] = [:]
    private var idleTimers: [HTTP1Connection.ID: Task<Void, Never>] = [:]
    private var sslContexts: [ConnectionRequirements: NIOSSLContext] = [:]
    private var nextID = 0

    private let group: any EventLoopGroup
    private let configuration: HTTPTransportConfiguration
    private let identity: LoadedClientIdentity?
    private let evaluator: ServerTrust
    private let cache: TrustDecisionCache
    private let counters: TransportCounters

    init(
        group: any EventLoopGroup,
        configuration: HTTPTransportConfiguration,
        identity: LoadedClientIdentity?,
        cache: TrustDecisionCache,
        counters: TransportCounters
    ) {
        self.group = group
        self.configuration = configuration
        self.identity = identity
        self.evaluator = ServerTrust(configuration: configuration.serverTrust)
        self.cache = cache
        self.counters = counters
        self.machine = Machine(maximumPerKey: configuration.maximumConnectionsPerHost)
    }

    /// A connection for `key`: an idle one, a new one, or one handed over after waiting.
    /// `isFresh` tells whether it was opened for this request.
    func lease(_ key: Key) async throws(SecureHTTPError) -> (connection: HTTP1Connection, isFresh: Bool) {
        while true {
            let waiter = self.makeID()
            switch self.machine.lease(key, waiter: waiter) {
            case .use(let id):
                self.idleTimers.removeValue(forKey: id)?.cancel()
                guard let connection = self.connections[id], connection.isActive else {
                    self.release(id: id, key: key, reusable: false)
                    continue
                }
                return (connection, false)
            case .connect:
                return (try await self.open(key), true)
            case .wait:
                switch try await self.wait(waiter, key: key) {
                case .connection(let connection):
                    guard connection.isActive else {
                        self.release(id: connection.id, key: key, reusable: false)
                        continue
                    }
                    return (connection, false)
                case .connect:
                    return (try await self.open(key), true)
                }
            case .fail:
                throw SecureHTTPError(.shutDown, "the transport has been shut down")
            }
        }
    }

    /// Gives a connection back; a reusable one is parked or handed to a waiting request.
    func release(_ connection: HTTP1Connection, key: Key, reusable: Bool) {
        self.release(id: connection.id, key: key, reusable: reusable && connection.isActive)
    }

    /// Closes idle connections and fails waiting requests; leased connections close when
    /// they are released.
    func shutdown() {
        let (close, fail) = self.machine.shutDown()
        for id in close {
            self.idleTimers.removeValue(forKey: id)?.cancel()
            self.connections.removeValue(forKey: id)?.close()
        }
        for waiter in fail {
            self.waiters.removeValue(forKey: waiter)?.resume(
                throwing: SecureHTTPError(.shutDown, "the transport has been shut down")
            )
        }
    }

    private func release(id: HTTP1Connection.ID, key: Key, reusable: Bool) {
        switch self.machine.release(key, id, reusable: reusable) {
        case .park(let id):
            let idle = self.configuration.timeouts.idle
            self.idleTimers[id] = Task {
                try? await Task.sleep(for: idle)
                if !Task.isCancelled { self.idleConnectionGone(id, key: key) }
            }
        case .close(let id, let wake):
            self.connections.removeValue(forKey: id)?.close()
            self.perform(wake, key: key)
        case .handOver(let id, let waiter):
            self.perform(.handOver(id, to: waiter), key: key)
        }
    }

    private func idleConnectionGone(_ id: HTTP1Connection.ID, key: Key) {
        let (wasIdle, wake) = self.machine.idleConnectionGone(key, id)
        if wasIdle {
            self.idleTimers.removeValue(forKey: id)?.cancel()
            self.connections.removeValue(forKey: id)?.close()
        }
        self.perform(wake, key: key)
    }

    /// Hands a connection or a connect slot to a waiter. A waiter that is gone (it cannot be,
    /// as waiters leave the machine and the table together, but a slot must never leak) gives
    /// the slot back.
    private func perform(_ action: Machine.WakeAction, key: Key) {
        switch action {
        case .none:
            break
        case .handOver(let id, let waiter):
            self.idleTimers.removeValue(forKey: id)?.cancel()
            guard let connection = self.connections[id], let continuation = self.waiters.removeValue(forKey: waiter) else {
                self.release(id: id, key: key, reusable: false)
                return
            }
            continuation.resume(returning: .connection(connection))
        case .connect(let waiter):
            guard let continuation = self.waiters.removeValue(forKey: waiter) else {
                self.perform(self.machine.connectFailed(key), key: key)
                return
            }
            continuation.resume(returning: .connect)
        }
    }

    private func wait(_ waiter: Int, key: Key) async throws(SecureHTTPError) -> Grant {
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Grant, any Error>) in
                    if Task.isCancelled {
                        _ = self.machine.cancelWaiter(key, waiter)
                        continuation.resume(throwing: SecureHTTPError(.cancelled, "the request was cancelled"))
                    } else {
                        self.waiters[waiter] = continuation
                    }
                }
            } onCancel: {
                Task { await self.cancelWaiter(waiter, key: key) }
            }
        } catch let error as SecureHTTPError {
            throw error
        } catch {
            throw SecureHTTPError(.cancelled, "the request was cancelled")
        }
    }

    private func cancelWaiter(_ waiter: Int, key: Key) {
        if self.machine.cancelWaiter(key, waiter) {
            self.waiters.removeValue(forKey: waiter)?.resume(
                throwing: SecureHTTPError(.cancelled, "the request was cancelled while waiting for a connection")
            )
        }
    }

    private func open(_ key: Key) async throws(SecureHTTPError) -> HTTP1Connection {
        let id = self.makeID()
        let connection: HTTP1Connection
        do {
            let context = try self.sslContext(for: key.requirements)
            let (evaluator, cache, counters, reporter) = (
                self.evaluator, self.cache, self.counters, self.configuration.pinValidationReporter
            )
            let requirements = key.requirements
            let now = self.configuration.now
            connection = try await HTTP1Connection.connect(
                id: id,
                origin: key.origin,
                requirements: requirements,
                sslContext: context,
                makeTrust: {
                    HandshakeTrust(
                        requirements: requirements,
                        evaluator: evaluator,
                        cache: cache,
                        counters: counters,
                        reporter: reporter,
                        now: now
                    )
                },
                group: self.group,
                timeouts: self.configuration.timeouts
            )
        } catch {
            self.perform(self.machine.connectFailed(key), key: key)
            throw error
        }
        self.counters.increment(\.connectionsOpened)
        self.machine.connected(key, id)
        self.connections[id] = connection
        connection.channel.closeFuture.whenComplete { _ in
            Task { await self.idleConnectionGone(id, key: key) }
        }
        if self.machine.isShutDown {
            self.release(id: id, key: key, reusable: false)
            throw SecureHTTPError(.shutDown, "the transport has been shut down")
        }
        return connection
    }

    private func sslContext(for requirements: ConnectionRequirements) throws(SecureHTTPError) -> NIOSSLContext? {
        guard requirements.usesTLS else { return nil }
        if let context = self.sslContexts[requirements] { return context }
        do {
            let context = try NIOSSLContext(
                configuration: TLSSetup.configuration(for: requirements, identity: self.identity)
            )
            self.sslContexts[requirements] = context
            return context
        } catch {
            if self.identity != nil {
                throw SecureHTTPError(.invalidClientIdentity, "the client certificate and key do not form a usable identity")
            }
            throw SecureHTTPError(.tlsFailure, "the TLS context could not be created: \(error)")
        }
    }

    private func makeID() -> Int {
        self.nextID += 1
        return self.nextID
    }
}
