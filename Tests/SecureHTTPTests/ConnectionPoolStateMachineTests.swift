import Testing

@testable import SecureHTTP

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

    /// A pin update retires the keys whose pins changed: idle connections close at once,
    /// leased HTTP/1.1 ones when released (not parked, not handed over), HTTP/2 ones after their
    /// last stream; other keys are untouched.
    @Test func retiringAKeyClosesItsIdleConnectionsNowAndTheOthersWhenTheirRequestsEnd() {
        var machine = Machine(maximumPerKey: 2)
        _ = machine.lease("a", waiter: 1)
        machine.connected("a", 10)
        _ = machine.lease("a", waiter: 2)
        machine.connected("a", 11)
        #expect(machine.release("a", 11, reusable: true) == .park(11))
        #expect(machine.lease("h2", waiter: 3, mayMultiplex: true) == .connect)
        #expect(machine.connected("h2", 20, .http2(maximumStreams: 10)) == [])
        #expect(machine.lease("h2", waiter: 4, mayMultiplex: true) == .use(20))
        #expect(machine.lease("h2", waiter: 5, mayMultiplex: true) == .use(20))
        #expect(machine.releaseStream("h2", 20) == (close: false, idle: false, then: .none))
        _ = machine.lease("b", waiter: 6)
        machine.connected("b", 30)
        #expect(machine.release("b", 30, reusable: true) == .park(30))

        let retired = machine.retire(where: { $0 != "b" })
        #expect(retired.close == [11])
        #expect(retired.superseded.isEmpty)
        // A request on the key (the machine does not know pin generations; the pool sends back
        // those prepared before the update): a new connection.
        #expect(machine.lease("a", waiter: 7) == .connect)
        #expect(machine.lease("a", waiter: 8) == .wait)
        // The leased connection closes when released, and its slot goes to the waiter.
        #expect(machine.release("a", 10, reusable: true) == .close(10, then: .connect(for: 8)))
        // A second update retiring the key sends its waiting requests back (issue 51 item 14).
        #expect(machine.lease("a", waiter: 12) == .wait)
        let again = machine.retire(where: { $0 == "a" })
        #expect(again.superseded == [12])
        #expect(machine.counts("a").waiting == 0)
        // The HTTP/2 connection takes no new stream and closes after its last one.
        #expect(machine.multiplexed("h2") == [.init(used: 2, maximum: 10, draining: true)])
        #expect(machine.releaseStream("h2", 20) == (close: false, idle: false, then: .none))
        #expect(machine.releaseStream("h2", 20) == (close: true, idle: false, then: .none))
        // Another key keeps its idle connection.
        #expect(machine.lease("b", waiter: 9) == .use(30))
    }

    // MARK: HTTP/2

    @Test func aMultiplexingKeyOpensOneConnectionAndItsWaitersShareItsStreams() {
        var machine = Machine(maximumPerKey: 6)
        #expect(machine.lease("a", waiter: 1, mayMultiplex: true) == .connect)
        // The protocol is not known yet: the others wait for that connection.
        #expect(machine.lease("a", waiter: 2, mayMultiplex: true) == .wait)
        #expect(machine.lease("a", waiter: 3, mayMultiplex: true) == .wait)
        #expect(machine.lease("a", waiter: 4, mayMultiplex: true) == .wait)
        // HTTP/2 with a limit of 3: two waiters get streams, the third waits for one.
        #expect(machine.connected("a", 10, .http2(maximumStreams: 3)) == [.handOver(10, to: 2), .handOver(10, to: 3)])
        #expect(machine.multiplexed("a") == [.init(used: 3, maximum: 3)])
        #expect(machine.releaseStream("a", 10) == (close: false, idle: false, then: .handOver(10, to: 4)))
        #expect(machine.releaseStream("a", 10) == (close: false, idle: false, then: .none))
        #expect(machine.lease("a", waiter: 5, mayMultiplex: true) == .use(10))
        #expect(machine.counts("a").connecting == 0)
    }

    @Test func anHTTP1AnswerLetsTheWaitersConnectUpToTheCap() {
        var machine = Machine(maximumPerKey: 3)
        #expect(machine.lease("a", waiter: 1, mayMultiplex: true) == .connect)
        #expect(machine.lease("a", waiter: 2, mayMultiplex: true) == .wait)
        #expect(machine.lease("a", waiter: 3, mayMultiplex: true) == .wait)
        #expect(machine.lease("a", waiter: 4, mayMultiplex: true) == .wait)
        #expect(machine.connected("a", 10, .http1) == [.connect(for: 2), .connect(for: 3)])
        // Known HTTP/1.1 now: no more waiting for a first connection.
        #expect(machine.counts("a") == (idle: 0, leased: 1, connecting: 2, waiting: 1))
    }

    @Test func whenStreamsRunOutASecondConnectionOpensOnlyUpToTheHTTP2Cap() {
        var machine = Machine(maximumPerKey: 6, maximumMultiplexedPerKey: 2)
        #expect(machine.lease("a", waiter: 1, mayMultiplex: true) == .connect)
        #expect(machine.connected("a", 10, .http2(maximumStreams: 1)) == [])
        #expect(machine.lease("a", waiter: 2, mayMultiplex: true) == .connect)
        #expect(machine.lease("a", waiter: 3, mayMultiplex: true) == .wait)
        #expect(machine.connected("a", 11, .http2(maximumStreams: 1)) == [])
        #expect(machine.lease("a", waiter: 4, mayMultiplex: true) == .wait)
        // The server raises its limit: the waiters get streams in order.
        #expect(machine.streamLimitChanged("a", 10, to: 3) == [.handOver(10, to: 3), .handOver(10, to: 4)])
    }

    @Test func goAwayDrainsAConnectionAndTheWaitersMoveOn() {
        var machine = Machine(maximumPerKey: 6)
        #expect(machine.lease("a", waiter: 1, mayMultiplex: true) == .connect)
        #expect(machine.connected("a", 10, .http2(maximumStreams: 1)) == [])
        #expect(machine.lease("a", waiter: 2, mayMultiplex: true) == .wait)
        // GOAWAY: no new stream there, and the waiter may open the next connection.
        let (close, wakes) = machine.goingAway("a", 10)
        #expect(!close)
        #expect(wakes == [.connect(for: 2)])
        #expect(machine.multiplexed("a") == [.init(used: 1, maximum: 1, draining: true)])
        // Its last stream ends: close it.
        #expect(machine.releaseStream("a", 10) == (close: true, idle: false, then: .none))
        #expect(machine.multiplexed("a") == [])
    }

    @Test func aClosedHTTP2ConnectionIsForgottenAndShutdownDrainsBusyOnes() {
        var machine = Machine(maximumPerKey: 6, maximumMultiplexedPerKey: 2)
        #expect(machine.lease("a", waiter: 1, mayMultiplex: true) == .connect)
        #expect(machine.connected("a", 10, .http2(maximumStreams: 5)) == [])
        #expect(machine.releaseStream("a", 10) == (close: false, idle: true, then: .none))
        #expect(machine.lease("a", waiter: 2, mayMultiplex: true) == .use(10))
        #expect(machine.multiplexedConnectionGone("a", 10) == [])
        #expect(machine.lease("a", waiter: 3, mayMultiplex: true) == .connect)
        #expect(machine.connected("a", 11, .http2(maximumStreams: 5)) == [])
        #expect(machine.lease("a", waiter: 4, mayMultiplex: true) == .use(11))
        #expect(machine.releaseStream("a", 11) == (close: false, idle: false, then: .none))
        let (close, fail) = machine.shutDown()
        #expect(close == [])
        #expect(fail == [])
        #expect(machine.releaseStream("a", 11) == (close: true, idle: false, then: .none))
        #expect(machine.lease("a", waiter: 5, mayMultiplex: true) == .fail)
    }
}
