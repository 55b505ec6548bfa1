import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import SecureHTTP

/// The per-connection deadline queue of HTTP/2 streams: one timer, expired entries told in
/// time, removed ones never, later ones kept.
@Suite("DeadlineQueue")
struct DeadlineQueueTests {
    @Test func expiredEntriesAreToldRemovedOnesNeverAndLaterOnesWait() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let fired = NIOLockedValueBox<[String]>([])
        let last = loop.makePromise(of: Void.self)
        try await loop.submit {
            let queue = DeadlineQueue(loop: loop)
            let now = NIODeadline.now()
            // Added out of order: the late one first, so the timer must move earlier. (An hour:
            // a loaded machine can hold this test's task for seconds after the last fire.)
            _ = queue.add(now + .hours(1)) { fired.withLockedValue { $0.append("late") } }
            _ = queue.add(now + .milliseconds(20)) { fired.withLockedValue { $0.append("first") } }
            let removed = queue.add(now + .milliseconds(30)) { fired.withLockedValue { $0.append("removed") } }
            _ = queue.add(now + .milliseconds(60)) {
                fired.withLockedValue { $0.append("second") }
                last.succeed(())
            }
            queue.remove(removed)
        }.get()
        try await last.futureResult.get()
        #expect(fired.withLockedValue { $0 } == ["first", "second"])
        try await group.shutdownGracefully()
    }

    @Test func cancelAllForgetsEverything() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let fired = NIOLockedValueBox(0)
        let after = loop.makePromise(of: Void.self)
        try await loop.submit {
            let queue = DeadlineQueue(loop: loop)
            _ = queue.add(.now() + .milliseconds(10)) { fired.withLockedValue { $0 += 1 } }
            queue.cancelAll()
            // A plain task well after the cancelled deadline: had it fired, it would have by now.
            loop.scheduleTask(in: .milliseconds(50)) { after.succeed(()) }
        }.get()
        try await after.futureResult.get()
        #expect(fired.withLockedValue { $0 } == 0)
        try await group.shutdownGracefully()
    }
}
