@testable import SecureHTTP
import Testing

/// The pool's bookkeeping without I/O.
@Suite("Connection pool state machine")
struct ConnectionPoolStateMachineTests {
    typealias Machine = ConnectionPoolStateMachine<String, Int, Int>

    @Test func connectsUpToTheCapThenQueues() {
        var machine = Machine(maximumPerKey: 2)
        #expect(machine.lease("a", waiter: 1) == .connect)
        #expect(machine.lease("a", waiter: 2) == .connect)
        #expect(machine.lease("a", waiter: 3) == .wait)
        #expect(machine.lease("b", waiter: 4) == .connect)  // the cap is per key
        machine.connected("a", 10)
        machine.connected("a", 11)
        #expect(machine.counts("a") == (idle: 0, leased: 2, connecting: 0, waiting: 1))
    }

    @Test func releaseHandsOverToTheFirstWaiterInOrder() {
        var machine = Machine(maximumPerKey: 1)
        #expect(machine.lease("a", waiter: 1) == .connect)
        machine.connected("a", 10)
        #expect(machine.lease("a", waiter: 2) == .wait)
        #expect(machine.lease("a", waiter: 3) == .wait)
        #expect(machine.release("a", 10, reusable: true) == .handOver(10, to: 2))
        #expect(machine.release("a", 10, reusable: true) == .handOver(10, to: 3))
        #expect(machine.release("a", 10, reusable: true) == .park(10))
        #expect(machine.lease("a", waiter: 4) == .use(10))
    }

    @Test func closingAConnectionLetsAWaiterConnect() {
        var machine = Machine(maximumPerKey: 1)
        _ = machine.lease("a", waiter: 1)
        machine.connected("a", 10)
        #expect(machine.lease("a", waiter: 2) == .wait)
        #expect(machine.release("a", 10, reusable: false) == .close(10, then: .connect(for: 2)))
        #expect(machine.counts("a") == (idle: 0, leased: 0, connecting: 1, waiting: 0))
    }

    @Test func aFailedConnectPassesItsSlotOn() {
        var machine = Machine(maximumPerKey: 1)
        #expect(machine.lease("a", waiter: 1) == .connect)
        #expect(machine.lease("a", waiter: 2) == .wait)
        #expect(machine.connectFailed("a") == .connect(for: 2))
        #expect(machine.connectFailed("a") == .none)
        #expect(machine.counts("a") == (idle: 0, leased: 0, connecting: 0, waiting: 0))
    }

    @Test func aCancelledWaiterLeavesTheQueue() {
        var machine = Machine(maximumPerKey: 1)
        _ = machine.lease("a", waiter: 1)
        machine.connected("a", 10)
        #expect(machine.lease("a", waiter: 2) == .wait)
        #expect(machine.lease("a", waiter: 3) == .wait)
        let removed = machine.cancelWaiter("a", 2)
        let removedAgain = machine.cancelWaiter("a", 2)
        #expect(removed && !removedAgain)
        #expect(machine.release("a", 10, reusable: true) == .handOver(10, to: 3))
    }

    @Test func idleConnectionsExpireAndAreForgotten() {
        var machine = Machine(maximumPerKey: 1)
        _ = machine.lease("a", waiter: 1)
        machine.connected("a", 10)
        #expect(machine.release("a", 10, reusable: true) == .park(10))
        let first = machine.idleConnectionGone("a", 10)
        let second = machine.idleConnectionGone("a", 10)
        #expect(first.wasIdle && !second.wasIdle)
        #expect(machine.lease("a", waiter: 2) == .connect)
    }

    @Test func aLeasedConnectionClosingIsLeftToItsRelease() {
        var machine = Machine(maximumPerKey: 1)
        _ = machine.lease("a", waiter: 1)
        machine.connected("a", 10)
        let gone = machine.idleConnectionGone("a", 10)
        #expect(!gone.wasIdle)
        #expect(machine.counts("a").leased == 1)
    }

    @Test func shutdownClosesIdleFailsWaitersAndRefusesLeases() {
        var machine = Machine(maximumPerKey: 1)
        _ = machine.lease("a", waiter: 1)
        machine.connected("a", 10)
        _ = machine.lease("b", waiter: 2)
        machine.connected("b", 20)
        #expect(machine.release("b", 20, reusable: true) == .park(20))
        #expect(machine.lease("a", waiter: 3) == .wait)
        let (close, fail) = machine.shutDown()
        #expect(close == [20])
        #expect(fail == [3])
        #expect(machine.lease("a", waiter: 4) == .fail)
        #expect(machine.release("a", 10, reusable: true) == .close(10, then: .none))
    }
}
