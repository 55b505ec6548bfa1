import NIOCore
import Testing

@testable import SecureHTTP

/// The HTTP/2 connection's own state (settings, GOAWAY, PING, idle) without I/O.
@Suite("HTTP/2 connection state machine")
struct HTTP2ConnectionStateMachineTests {
    typealias Machine = HTTP2ConnectionHandler.StateMachine

    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    static func machine(ping: TimeAmount? = nil) -> Machine {
        Machine(idleTimeout: .seconds(60), pingInterval: ping, pingTimeout: .seconds(5), now: start)
    }

    @Test func theFirstSettingsMakeTheConnectionReadyWithTheServersLimit() {
        var machine = Self.machine()
        #expect(machine.settingsReceived(maximumConcurrentStreams: 7) == .ready(maximumStreams: 7))
        #expect(machine.phase == .open)
        #expect(machine.settingsReceived(maximumConcurrentStreams: 7) == .none)
        #expect(machine.settingsReceived(maximumConcurrentStreams: nil) == .none)
        #expect(machine.settingsReceived(maximumConcurrentStreams: 3) == .streamLimitChanged(3))
        #expect(machine.streamLimit == 3)
    }

    @Test func withoutTheSettingTheLimitIsTheAssumedOne() {
        var machine = Self.machine()
        let action = machine.settingsReceived(maximumConcurrentStreams: nil)
        #expect(action == .ready(maximumStreams: HTTP2ConnectionHandler.assumedStreamLimit))
    }

    @Test func goAwayBeforeTheSettingsFailsTheSetup() {
        var machine = Self.machine()
        #expect(machine.goAwayReceived() == .failSetup)
        #expect(machine.phase == .awaitingSettings)
    }

    @Test func theFirstGoAwayTellsThePoolOnce() {
        var machine = Self.machine()
        _ = machine.settingsReceived(maximumConcurrentStreams: 10)
        #expect(machine.goAwayReceived() == .notifyPool)
        #expect(machine.phase == .goingAway)
        // A graceful shutdown sends a second GOAWAY with the final last stream id.
        #expect(machine.goAwayReceived() == .none)
        // Settings still apply to the streams in flight.
        #expect(machine.settingsReceived(maximumConcurrentStreams: 2) == .streamLimitChanged(2))
    }

    @Test func anIdleConnectionClosesAtItsDeadline() {
        var machine = Self.machine()
        let idle = Self.start + .seconds(60)
        #expect(machine.nextDue(now: Self.start, idleDeadline: idle) == idle)
        #expect(machine.timerFired(now: idle - .seconds(1), idleDeadline: idle) == .none)
        #expect(machine.timerFired(now: idle, idleDeadline: idle) == .closeIdle)
        // While exchanges run the check comes back an idle timeout later, and does not close.
        #expect(machine.nextDue(now: idle, idleDeadline: nil) == idle + .seconds(60))
        #expect(machine.timerFired(now: idle + .seconds(600), idleDeadline: nil) == .none)
    }

    @Test func aPingIsSentAfterAQuietIntervalAndItsAcknowledgementRestartsTheSchedule() {
        var machine = Self.machine(ping: .seconds(10))
        #expect(machine.nextDue(now: Self.start, idleDeadline: nil) == Self.start + .seconds(10))
        #expect(machine.timerFired(now: Self.start + .seconds(9), idleDeadline: nil) == .none)
        let sent = Self.start + .seconds(10)
        #expect(machine.timerFired(now: sent, idleDeadline: nil) == .sendPing)
        #expect(machine.nextDue(now: sent, idleDeadline: nil) == sent + .seconds(5))
        machine.pingAcknowledged(at: sent + .seconds(1))
        #expect(machine.pingSentAt == nil)
        #expect(machine.nextDue(now: sent + .seconds(1), idleDeadline: nil) == sent + .seconds(11))
    }

    @Test func anUnansweredPingFailsTheConnection() {
        var machine = Self.machine(ping: .seconds(10))
        let sent = Self.start + .seconds(10)
        #expect(machine.timerFired(now: sent, idleDeadline: nil) == .sendPing)
        #expect(machine.timerFired(now: sent + .seconds(4), idleDeadline: nil) == .none)
        #expect(machine.timerFired(now: sent + .seconds(5), idleDeadline: nil) == .failPingTimeout)
    }

    @Test func anyFrameAfterThePingCountsAsAnAnswer() {
        var machine = Self.machine(ping: .seconds(10))
        let sent = Self.start + .seconds(10)
        _ = machine.timerFired(now: sent, idleDeadline: nil)
        machine.readComplete(at: sent + .seconds(2))
        #expect(machine.timerFired(now: sent + .seconds(5), idleDeadline: nil) == .none)
        #expect(machine.pingSentAt == nil)
    }

    @Test func idlenessWinsOverThePingSchedule() {
        var machine = Self.machine(ping: .seconds(10))
        let idle = Self.start + .seconds(10)
        #expect(machine.timerFired(now: idle, idleDeadline: idle) == .closeIdle)
    }
}
