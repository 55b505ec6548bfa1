import HTTPTypes
import Testing

@testable import SecureHTTP

/// The retry decision and the waiters' lifecycle, without I/O.
@Suite("Connection pool decisions")
struct ConnectionPoolDecisionTests {
    typealias Retry = ExchangeRetryDecision
    typealias Machine = ConnectionPoolStateMachine<String, Int, Int>
    /// A grant is a connection id here (0: a slot to open one); the parked continuation a name.
    typealias Waiters = ConnectionPoolWaiters<String, Int, Int, Int, String>

    static let idempotent = Retry.Request(isIdempotent: true)

    static func failure(
        _ code: SecureHTTPError.Code,
        notSent: Bool = false,
        fresh: Bool = false,
        cancelled: Bool = false
    ) -> Retry.Failure {
        Retry.Failure(code: code, requestWasNotSent: notSent, connectionWasFresh: fresh, isCancelled: cancelled)
    }

    // MARK: - The retry decision

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let request: Retry.Request
        let failure: Retry.Failure
        let expected: Retry.Decision
        var testDescription: String { self.name }
    }

    static let firstFailureCases: [Case] = [
        Case(
            name: "not sent, POST",
            request: .init(isIdempotent: false),
            failure: failure(.connectionClosed, notSent: true),
            expected: .retry(.notSent)
        ),
        Case(
            name: "not sent, streamed body",
            request: .init(isIdempotent: true, bodyIsReplayable: false),
            failure: failure(.connectionClosed, notSent: true),
            expected: .retry(.notSent)
        ),
        Case(
            name: "GOAWAY/REFUSED_STREAM, GET",
            request: idempotent,
            failure: failure(.requestNotProcessed),
            expected: .retry(.notProcessed)
        ),
        Case(
            name: "GOAWAY/REFUSED_STREAM, fresh connection, GET",
            request: idempotent,
            failure: failure(.requestNotProcessed, fresh: true),
            expected: .retry(.notProcessed)
        ),
        Case(
            name: "GOAWAY/REFUSED_STREAM, POST",
            request: .init(isIdempotent: false),
            failure: failure(.requestNotProcessed),
            expected: .fail
        ),
        Case(
            name: "stale keep-alive connection, GET",
            request: idempotent,
            failure: failure(.connectionClosed),
            expected: .retry(.staleConnection)
        ),
        Case(
            name: "closed fresh connection, GET",
            request: idempotent,
            failure: failure(.connectionClosed, fresh: true),
            expected: .fail
        ),
        Case(
            name: "stale keep-alive connection, POST",
            request: .init(isIdempotent: false),
            failure: failure(.connectionClosed),
            expected: .fail
        ),
        Case(
            name: "stale keep-alive connection, streamed body",
            request: .init(isIdempotent: true, bodyIsReplayable: false),
            failure: failure(.connectionClosed),
            expected: .fail
        ),
        Case(
            name: "not processed, streamed body",
            request: .init(isIdempotent: true, bodyIsReplayable: false),
            failure: failure(.requestNotProcessed),
            expected: .fail
        ),
        Case(
            name: "cancelled, not sent",
            request: idempotent,
            failure: failure(.cancelled, notSent: true, cancelled: true),
            expected: .fail
        ),
        Case(
            name: "cancelled, stale",
            request: idempotent,
            failure: failure(.connectionClosed, cancelled: true),
            expected: .fail
        ),
        Case(name: "deadline", request: idempotent, failure: failure(.deadlineExceeded), expected: .fail),
        Case(name: "stream reset", request: idempotent, failure: failure(.streamReset), expected: .fail),
        Case(name: "invalid response", request: idempotent, failure: failure(.invalidResponse), expected: .fail),
    ]

    @Test(arguments: firstFailureCases)
    func firstFailure(_ testCase: Case) {
        var retry = Retry(testCase.request)
        #expect(retry.decide(after: testCase.failure) == testCase.expected)
    }

    @Test func aRequestNotSentIsSentAgainThreeTimesAtMost() {
        var retry = Retry(.init(isIdempotent: false))
        let notSent = Self.failure(.connectionClosed, notSent: true)
        let decisions = (0..<4).map { _ in retry.decide(after: notSent) }
        #expect(decisions == [.retry(.notSent), .retry(.notSent), .retry(.notSent), .fail])
        #expect(retry.notSentRetries == Retry.maximumNotSentRetries)
    }

    @Test func aGetNotSentPastTheBudgetStillHasItsOneRetry() {
        var retry = Retry(Self.idempotent)
        let notSent = Self.failure(.requestNotProcessed, notSent: true)
        for _ in 0..<Retry.maximumNotSentRetries { #expect(retry.decide(after: notSent) == .retry(.notSent)) }
        #expect(retry.decide(after: notSent) == .retry(.notProcessed))
        #expect(retry.decide(after: notSent) == .fail)
    }

    @Test func onlyOneRetryForARequestThatMayHaveBeenProcessed() {
        var retry = Retry(Self.idempotent)
        #expect(retry.decide(after: Self.failure(.requestNotProcessed)) == .retry(.notProcessed))
        #expect(retry.decide(after: Self.failure(.connectionClosed)) == .fail)
        var stale = Retry(Self.idempotent)
        #expect(stale.decide(after: Self.failure(.connectionClosed)) == .retry(.staleConnection))
        #expect(stale.decide(after: Self.failure(.requestNotProcessed)) == .fail)
        // A request that never reached the wire is still sent again after the one retry.
        #expect(stale.decide(after: Self.failure(.connectionClosed, notSent: true)) == .retry(.notSent))
    }

    @Test func theFailureReadsTheErrorsFields() {
        var error = SecureHTTPError(.connectionClosed, "closed")
        error.requestWasNotSent = true
        let failure = Retry.Failure(error, connectionWasFresh: true, isCancelled: false)
        #expect(failure == Self.failure(.connectionClosed, notSent: true, fresh: true))
    }

    @Test func theIdempotentMethodsAreThoseOfRFC9110() {
        let idempotent: [HTTPRequest.Method] = [.get, .head, .put, .delete, .options, .trace]
        let other: [HTTPRequest.Method] = [.post, .patch, .connect]
        #expect(idempotent.allSatisfy { $0.isIdempotent })
        #expect(!other.contains { $0.isIdempotent })
    }

    // MARK: - The waiters' lifecycle

    /// One connection leased for "a", so that the next requests wait.
    static func busyMachine() -> Machine {
        var machine = Machine(maximumPerKey: 1)
        _ = machine.lease("a", waiter: 1)
        machine.connected("a", 10)
        return machine
    }

    @Test func aWaiterParksThenIsHandedTheReleasedConnection() {
        var machine = Self.busyMachine()
        var waiters = Waiters()
        #expect(machine.lease("a", waiter: 2) == .wait)
        waiters.register(2)
        #expect(waiters.arrive(2, key: "a", "continuation 2", cancelled: false, machine: &machine).isParked)
        guard case .handOver(10, to: 2) = machine.release("a", 10, reusable: true) else {
            Issue.record("the connection was not handed over")
            return
        }
        let delivery = waiters.grant(2, 10)
        #expect(delivery.resumed == "continuation 2")
        #expect(delivery.result == .success(10))
        #expect(waiters.count == 0)
    }

    @Test func aGrantBeforeTheContinuationIsKeptForIt() {
        var machine = Self.busyMachine()
        var waiters = Waiters()
        _ = machine.lease("a", waiter: 2)
        waiters.register(2)
        #expect(waiters.grant(2, 10).isKept)
        #expect(waiters.arrive(2, key: "a", "c", cancelled: false, machine: &machine).immediate == .success(10))
        #expect(waiters.count == 0)
    }

    @Test func theOldestWaiterGetsTheConnectionFirst() {
        var machine = Self.busyMachine()
        var waiters = Waiters()
        for waiter in 2...4 {
            #expect(machine.lease("a", waiter: waiter) == .wait)
            waiters.register(waiter)
            _ = waiters.arrive(waiter, key: "a", "c\(waiter)", cancelled: false, machine: &machine)
        }
        var served: [String] = []
        for _ in 2...4 {
            guard case .handOver(10, let waiter) = machine.release("a", 10, reusable: true) else { break }
            if let parked = waiters.grant(waiter, 10).resumed { served.append(parked) }
        }
        #expect(served == ["c2", "c3", "c4"])
        #expect(machine.release("a", 10, reusable: true) == .park(10))
    }

    @Test func aWaiterTimesOutAndLeavesTheQueue() {
        var machine = Self.busyMachine()
        var waiters = Waiters()
        _ = machine.lease("a", waiter: 2)
        _ = machine.lease("a", waiter: 3)
        waiters.register(2)
        waiters.register(3)
        _ = waiters.arrive(2, key: "a", "c2", cancelled: false, machine: &machine)
        let timeout = SecureHTTPError(.deadlineExceeded, "no connection")
        let delivery = waiters.drop(2, key: "a", timeout, machine: &machine)
        #expect(delivery.resumed == "c2")
        #expect(delivery.result == .failure(timeout))
        #expect(machine.counts("a").waiting == 1)
        // The connection goes to the next waiter, not to the one that timed out.
        #expect(machine.release("a", 10, reusable: true) == .handOver(10, to: 3))
        // A timer that fires after the grant finds nothing to do.
        #expect(waiters.grant(3, 10).isKept)
        #expect(waiters.drop(3, key: "a", timeout, machine: &machine).isGone)
    }

    @Test func aWaiterCancelledBeforeItsContinuationFailsAtOnce() {
        var machine = Self.busyMachine()
        var waiters = Waiters()
        _ = machine.lease("a", waiter: 2)
        waiters.register(2)
        let arrival = waiters.arrive(2, key: "a", "c2", cancelled: true, machine: &machine)
        #expect(arrival.immediate?.failureCode == .cancelled)
        #expect(machine.counts("a").waiting == 0)
        #expect(machine.release("a", 10, reusable: true) == .park(10))
    }

    @Test func aWaiterCancelledWhileParkedIsResumedWithItsError() {
        var machine = Self.busyMachine()
        var waiters = Waiters()
        _ = machine.lease("a", waiter: 2)
        waiters.register(2)
        _ = waiters.arrive(2, key: "a", "c2", cancelled: false, machine: &machine)
        let cancelled = SecureHTTPError(.cancelled, "cancelled while waiting")
        #expect(waiters.drop(2, key: "a", cancelled, machine: &machine).result == .failure(cancelled))
        // The grant that comes later finds the waiter gone: the pool takes the capacity back.
        #expect(waiters.grant(2, 10).isGone)
        #expect(waiters.count == 0)
    }

    @Test func aCancelledWaiterThatWasAlreadyGrantedKeepsItsGrant() {
        var machine = Self.busyMachine()
        var waiters = Waiters()
        _ = machine.lease("a", waiter: 2)
        waiters.register(2)
        #expect(machine.release("a", 10, reusable: true) == .handOver(10, to: 2))
        #expect(waiters.grant(2, 10).isKept)
        #expect(waiters.arrive(2, key: "a", "c2", cancelled: true, machine: &machine).immediate == .success(10))
    }

    @Test func aFailedConnectionLetsTheFirstWaiterConnect() {
        var machine = Machine(maximumPerKey: 1)
        var waiters = Waiters()
        #expect(machine.lease("a", waiter: 1) == .connect)
        for waiter in 2...3 {
            _ = machine.lease("a", waiter: waiter)
            waiters.register(waiter)
            _ = waiters.arrive(waiter, key: "a", "c\(waiter)", cancelled: false, machine: &machine)
        }
        guard case .connect(let waiter) = machine.connectFailed("a") else {
            Issue.record("the waiter was not re-planned")
            return
        }
        #expect(waiter == 2)
        #expect(waiters.grant(waiter, 0).resumed == "c2")
        // If that connection fails too, the slot goes on to the next waiter.
        #expect(machine.connectFailed("a") == .connect(for: 3))
    }

    @Test func shutDownFailsEveryWaiter() {
        var machine = Self.busyMachine()
        var waiters = Waiters()
        for waiter in 2...3 {
            _ = machine.lease("a", waiter: waiter)
            waiters.register(waiter)
        }
        _ = waiters.arrive(2, key: "a", "c2", cancelled: false, machine: &machine)
        let (_, fail) = machine.shutDown()
        #expect(fail == [2, 3])
        let error = SecureHTTPError(.shutDown, "shut down")
        #expect(waiters.fail(2, error).result == .failure(error))
        #expect(waiters.fail(3, error).isKept)
        #expect(waiters.arrive(3, key: "a", "c3", cancelled: false, machine: &machine).immediate == .failure(error))
        #expect(waiters.count == 0)
    }
}

extension ConnectionPoolWaiters.Delivery {
    var resumed: Parked? {
        if case .resume(let parked, _) = self { return parked }
        return nil
    }
    var result: Result<Grant, SecureHTTPError>? {
        if case .resume(_, let result) = self { return result }
        return nil
    }
    var isKept: Bool {
        if case .kept = self { return true }
        return false
    }
    var isGone: Bool {
        if case .gone = self { return true }
        return false
    }
}

extension ConnectionPoolWaiters.Arrival {
    var isParked: Bool {
        if case .parked = self { return true }
        return false
    }
    var immediate: Result<Grant, SecureHTTPError>? {
        if case .resumeNow(let result) = self { return result }
        return nil
    }
}

extension Result where Failure == SecureHTTPError {
    var failureCode: SecureHTTPError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
