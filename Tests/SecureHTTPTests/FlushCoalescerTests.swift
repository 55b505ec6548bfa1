import NIOCore
import NIOEmbedded
import Testing

@testable import SecureHTTP

/// The flush coalescer under a connection's HTTP/2 handler: a lone flush goes out at once, a
/// burst leaves in groups, and nothing written is held past the loop's next run of queued work.
@Suite("FlushCoalescer")
struct FlushCoalescerTests {
    /// Counts the flushes that reach the socket side of the pipeline.
    final class FlushCounter: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        var flushes = 0
        func flush(context: ChannelHandlerContext) {
            self.flushes += 1
            context.flush()
        }
    }

    private func send(_ text: String, on channel: EmbeddedChannel) {
        channel.writeAndFlush(ByteBuffer(string: text), promise: nil)
    }

    private func flushed(_ channel: EmbeddedChannel) throws -> [String] {
        var out: [String] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            out.append(String(buffer: buffer))
        }
        return out
    }

    @Test func aLoneFlushGoesOutAtOnce() throws {
        let counter = FlushCounter()
        let channel = EmbeddedChannel(handlers: [counter, FlushCoalescer()])
        self.send("first", on: channel)
        #expect(try self.flushed(channel) == ["first"])
        #expect(counter.flushes == 1)
        // Once the loop has run its queued work, the next flush starts a new turn: at once again.
        channel.embeddedEventLoop.run()
        self.send("second", on: channel)
        #expect(try self.flushed(channel) == ["second"])
        #expect(counter.flushes == 2)
        _ = try channel.finish()
    }

    @Test func aBurstLeavesInGroupsAndTheRestAtTheEndOfTheTurn() throws {
        let counter = FlushCounter()
        let channel = EmbeddedChannel(handlers: [counter, FlushCoalescer()])
        let burst = (0..<12).map { "request \($0)" }
        for text in burst { self.send(text, on: channel) }
        let group = FlushCoalescer.groupSize
        // The first at once, then one group; the remaining three wait for the end of the turn.
        #expect(try self.flushed(channel) == Array(burst[0...group]))
        #expect(counter.flushes == 2)
        channel.embeddedEventLoop.run()
        #expect(try self.flushed(channel) == Array(burst[(group + 1)...]))
        #expect(counter.flushes == 3)
        // Nothing is left behind, and an empty turn end flushes nothing.
        channel.embeddedEventLoop.run()
        #expect(try self.flushed(channel) == [])
        #expect(counter.flushes == 3)
        _ = try channel.finish()
    }
}
