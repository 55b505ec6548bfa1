import NIOCore
import NIOEmbedded
import Testing

@testable import SecureHTTP

/// An HTTP/2 exchange is settled once, whoever gets there first, and a failed connection
/// settles the exchanges registered with it at once, without waiting for the connection to
/// finish closing (a frozen peer never answers close_notify).
@Suite("HTTP/2 exchanges")
struct HTTP2ExchangeTests {
    private func outcome(_ exchange: HTTP2Exchange) async -> SecureHTTPError? {
        do {
            _ = try await withUnsafeThrowingContinuation { exchange.wait($0) }
            return nil
        } catch {
            return error as? SecureHTTPError
        }
    }

    @Test func aFailedConnectionFailsItsRegisteredExchangesAtOnceAndNoOthers() async {
        let state = HTTP2ConnectionState()
        let inFlight = HTTP2Exchange()
        _ = state.register(inFlight)
        let ended = HTTP2Exchange()
        state.unregister(state.register(ended))
        state.fail(SecureHTTPError(.connectionClosed, "the server did not acknowledge a PING within 1 s"))
        #expect(state.snapshot.closing)
        #expect(state.snapshot.closeReason?.code == .connectionClosed)
        // Settled already (the first outcome wins, so a later one does not replace it): the
        // task waiting now resumes at once, with the connection's error.
        inFlight.fail(SecureHTTPError(.streamReset, "reset"))
        let failed = await self.outcome(inFlight)
        #expect(failed?.code == .connectionClosed)
        #expect(failed.map { String(describing: $0).contains("PING") } == true)
        // The unregistered exchange was left alone: its own outcome is the one it gets.
        ended.fail(SecureHTTPError(.streamReset, "reset"))
        #expect(await self.outcome(ended)?.code == .streamReset)
    }

    @Test func theFirstOutcomeWins() async {
        let exchange = HTTP2Exchange()
        exchange.fail(SecureHTTPError(.cancelled, "the request was cancelled"))
        exchange.fail(SecureHTTPError(.connectionClosed, "later"))
        #expect(await self.outcome(exchange)?.code == .cancelled)
    }

    @Test func cancellingFailsTheExchangeAndClosesItsStream() async throws {
        let exchange = HTTP2Exchange()
        let stream = EmbeddedChannel()
        try await stream.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
        #expect(exchange.attach(stream))
        exchange.cancel()
        #expect(!stream.isActive)
        #expect(await self.outcome(exchange)?.code == .cancelled)
    }

    @Test func aSettledExchangeTakesNoStreamAndLetsGoOfItsOwn() async throws {
        let exchange = HTTP2Exchange()
        let stream = EmbeddedChannel()
        try await stream.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
        #expect(exchange.attach(stream))
        exchange.fail(SecureHTTPError(.streamReset, "reset"))
        // The stream is no longer the exchange's: a late cancellation leaves it alone (its
        // handler settled the exchange and ends the stream itself).
        exchange.cancel()
        #expect(stream.isActive)
        #expect(await self.outcome(exchange)?.code == .streamReset)
        // A stream set up after the exchange settled (cancelled before the stream opened) is
        // refused, and its initializer closes it.
        let cancelled = HTTP2Exchange()
        cancelled.cancel()
        #expect(!cancelled.attach(EmbeddedChannel()))
        #expect(await self.outcome(cancelled)?.code == .cancelled)
    }
}
