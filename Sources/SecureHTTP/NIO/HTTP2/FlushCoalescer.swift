import NIOCore

/// Sits under a connection's HTTP/2 handler and lets the flushes asked for during one turn of
/// the event loop leave in a few writes instead of one write each.
///
/// When the loop resumes many tasks in a row (the responses of a burst of streams arrived
/// together), each opens a stream and flushes its HEADERS: without this handler, every one of
/// them is its own TLS record and its own write to the socket, and a write costs far more than
/// the frames it carries (the system call, the TCP segment, and on a local peer the peer's
/// wake-up). Here, the first flush of a turn goes out at once, so a lone request waits for
/// nothing; the flushes after it go out in groups of ``groupSize``, and what is left when the
/// loop has run the work queued before the turn ended goes out then. A group is small enough
/// that the server starts on the first requests of a burst while the client prepares the rest
/// (one write for a whole burst would make client and server take turns instead of working
/// side by side).
///
/// No flush is delayed past the event loop's next run of queued work, and every flush covers
/// all that was written before it, in order.
final class FlushCoalescer: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// How many held flushes go out as one write.
    static let groupSize = 8

    /// A turn is under way: its first flush went out and the task that ends it is queued.
    private var turnStarted = false
    /// Flushes asked for since the last one passed on.
    private var held = 0

    func flush(context: ChannelHandlerContext) {
        guard self.turnStarted else {
            self.turnStarted = true
            context.flush()
            // Queued behind the work the loop has already queued (the tasks it is resuming),
            // so it runs once they have written their requests.
            context.eventLoop.assumeIsolated().execute {
                self.turnStarted = false
                if self.held > 0 {
                    self.held = 0
                    context.flush()
                }
            }
            return
        }
        self.held += 1
        if self.held >= Self.groupSize {
            self.held = 0
            context.flush()
        }
    }
}
