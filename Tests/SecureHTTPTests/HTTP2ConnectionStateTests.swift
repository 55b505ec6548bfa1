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
        state.markIdle()
        let deadline = state.idleDeadline(after: .seconds(30))
        #expect(deadline.map { $0 >= before + .seconds(30) && $0 <= .now() + .seconds(30) } == true)
        // Marked idle again (a second release reported idle): the timeout still runs from
        // the first.
        state.markIdle()
        #expect(state.idleDeadline(after: .seconds(30)) == deadline)
        state.markBusy()
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
}
