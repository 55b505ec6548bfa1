/// The lifecycle of the requests waiting for a connection, without I/O (AsyncHTTPClient keeps
/// its waiters in the pool's state machine too, `HTTPConnectionPool+RequestQueue.swift`).
///
/// ``ConnectionPoolStateMachine`` keeps the queue order per key; this keeps each waiter's slot:
/// a request is registered in the same critical section as its `.wait`, and its continuation
/// (`Parked`: a continuation and its deadline timer, in the pool) arrives a moment later, so a
/// grant or a failure that comes first is kept until then. Every method returns what the
/// caller performs once its lock is released.
struct ConnectionPoolWaiters<
    Key: Hashable & Sendable,
    ConnectionID: Hashable & Sendable,
    WaiterID: Hashable & Sendable,
    Grant,
    Parked
> {
    typealias Machine = ConnectionPoolStateMachine<Key, ConnectionID, WaiterID>

    fileprivate enum Slot {
        /// Queued; its continuation has not arrived yet.
        case registered
        /// Queued, its continuation parked.
        case parked(Parked)
        /// Granted before its continuation arrived.
        case granted(Grant)
        /// Failed before its continuation arrived.
        case failed(SecureHTTPError)
    }

    /// What to do for a waiter that was granted capacity or failed.
    enum Delivery {
        /// Resume its parked continuation with this (and cancel its timer).
        case resume(Parked, Result<Grant, SecureHTTPError>)
        /// Kept for its continuation, which has not arrived yet.
        case kept
        /// The waiter is gone (cancelled, timed out, or already served): nothing to deliver. A
        /// grant then goes back to the pool, so capacity never leaks.
        case gone
    }

    /// What to do when a waiter's continuation arrives.
    enum Arrival {
        /// Resume it at once with this (and cancel its timer).
        case resumeNow(Result<Grant, SecureHTTPError>)
        /// Parked until a grant, a failure, its deadline or its cancellation.
        case parked
    }

    private var slots: [WaiterID: Slot] = [:]

    /// Requests registered as waiting, with or without their continuation.
    var count: Int { self.slots.count }

    /// A request got `.wait` from the state machine.
    mutating func register(_ waiter: WaiterID) {
        self.slots[waiter] = .registered
    }

    /// Capacity for `waiter` (a connection, or a slot to open one).
    mutating func grant(_ waiter: WaiterID, _ grant: Grant) -> Delivery {
        self.deliver(waiter, .success(grant))
    }

    /// `waiter` fails (the pool shut down).
    mutating func fail(_ waiter: WaiterID, _ error: SecureHTTPError) -> Delivery {
        self.deliver(waiter, .failure(error))
    }

    /// `waiter`'s deadline passed, or its task was cancelled: it leaves the queue with `error`,
    /// unless it was already served (a waiter granted keeps its grant).
    mutating func drop(_ waiter: WaiterID, key: Key, _ error: SecureHTTPError, machine: inout Machine) -> Delivery {
        guard machine.cancelWaiter(key, waiter) else { return .gone }
        return self.deliver(waiter, .failure(error))
    }

    /// `waiter`'s continuation arrived (`cancelled`: its task was cancelled before it did).
    mutating func arrive(
        _ waiter: WaiterID,
        key: Key,
        _ parked: Parked,
        cancelled: Bool,
        machine: inout Machine
    ) -> Arrival {
        switch self.slots[waiter] {
        case .granted(let grant):
            self.slots[waiter] = nil
            return .resumeNow(.success(grant))
        case .failed(let error):
            self.slots[waiter] = nil
            return .resumeNow(.failure(error))
        case .registered:
            if cancelled, machine.cancelWaiter(key, waiter) {
                self.slots[waiter] = nil
                return .resumeNow(.failure(SecureHTTPError(.cancelled, "the request was cancelled")))
            }
            self.slots[waiter] = .parked(parked)
            return .parked
        case .parked, nil:
            return .resumeNow(.failure(SecureHTTPError(.cancelled, "the request was cancelled")))
        }
    }

    private mutating func deliver(_ waiter: WaiterID, _ result: Result<Grant, SecureHTTPError>) -> Delivery {
        switch self.slots[waiter] {
        case .registered:
            switch result {
            case .success(let grant): self.slots[waiter] = .granted(grant)
            case .failure(let error): self.slots[waiter] = .failed(error)
            }
            return .kept
        case .parked(let parked):
            self.slots[waiter] = nil
            return .resume(parked, result)
        case .granted, .failed, nil:
            return .gone
        }
    }
}

extension ConnectionPoolWaiters: Sendable where Grant: Sendable, Parked: Sendable {}
extension ConnectionPoolWaiters.Slot: Sendable where Grant: Sendable, Parked: Sendable {}
