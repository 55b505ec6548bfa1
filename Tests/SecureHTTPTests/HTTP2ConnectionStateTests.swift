import NIOCore
import NIOHTTP2
import Testing

@testable import SecureHTTP

/// The one snapshot of an HTTP/2 connection that its handler writes and the connection, its
/// streams and the pool read.
@Suite("HTTP/2 connection state")
struct HTTP2ConnectionStateTests {
    @Test func aNewConnectionIsBusyUntilThePoolSaysItIsIdle() {
        let state = HTTP2ConnectionState()
        // The request that opened it holds a stream: no idle deadline yet.
        #expect(state.idleDeadline(after: .seconds(30)) == nil)
        let before = NIODeadline.now()
        _ = state.streamReleased(idle: true)
        let deadline = state.idleDeadline(after: .seconds(30))
        #expect(deadline.map { $0 >= before + .seconds(30) && $0 <= .now() + .seconds(30) } == true)
        // Marked idle again (a second release reported idle): the timeout still runs from
        // the first.
        _ = state.streamReleased(idle: true)
        #expect(state.idleDeadline(after: .seconds(30)) == deadline)
        _ = state.beginExchangeIfAccepting()
        #expect(state.idleDeadline(after: .seconds(30)) == nil)
    }

    @Test func goAwayTakesNoNewStreamAndKeepsTheLowestLastStream() {
        let state = HTTP2ConnectionState()
        #expect(state.acceptsStreams)
        state.goneAway(lastStreamID: 7)
        state.goneAway(lastStreamID: 9)
        #expect(!state.acceptsStreams)
        #expect(state.snapshot.goAwayLastStream == 7)
        state.goneAway(lastStreamID: 3)
        #expect(state.snapshot.goAwayLastStream == 3)
        #expect(!state.snapshot.closing)
    }

    @Test func theFirstCloseReasonWins() {
        let state = HTTP2ConnectionState()
        state.fail(SecureHTTPError(.invalidResponse, "the server broke the HTTP/2 protocol"))
        state.fail(SecureHTTPError(.connectionClosed, "later"))
        #expect(state.snapshot.closeReason?.code == .invalidResponse)
        #expect(state.snapshot.closing)
        #expect(!state.acceptsStreams)
    }

    @Test func aStreamIsGrantedOnlyWhileTheConnectionAcceptsOne() {
        let state = HTTP2ConnectionState()
        _ = state.streamReleased(idle: true)
        #expect(state.beginExchangeIfAccepting())
        #expect(state.idleDeadline(after: .seconds(30)) == nil)
        // The last stream released: idle from now, and still open for streams.
        #expect(state.streamReleased(idle: true))
        let idle = state.idleDeadline(after: .seconds(30))
        #expect(idle != nil)
        // A release that was not the last leaves the idle mark as it was.
        #expect(state.streamReleased(idle: false))
        #expect(state.idleDeadline(after: .seconds(30)) == idle)
        state.goneAway(lastStreamID: 1)
        // Gone away: no grant, and the refused grant does not mark the connection busy.
        #expect(!state.beginExchangeIfAccepting())
        #expect(state.idleDeadline(after: .seconds(30)) == idle)
        #expect(!state.streamReleased(idle: true))
    }

    @Test func aClosingConnectionGrantsNoStream() {
        let state = HTTP2ConnectionState()
        state.markClosing()
        #expect(!state.beginExchangeIfAccepting())
        #expect(!state.streamReleased(idle: false))
    }
}
