public import NIOCore

/// A Swift task executor that runs jobs on one NIO event loop.
///
/// A task that prefers this executor (`withTaskExecutorPreference(_:operation:)`,
/// `Task(executorPreference:)` or `TaskGroup.addTask(executorPreference:)`) runs its
/// nonisolated code on the event loop's thread. When that event loop also carries the task's
/// connection, ``NIOHTTPTransport`` writes the request and resumes the task from the response
/// on the same thread: a keep-alive request then costs no thread wake-up, where a task on the
/// global executor pays two (one to reach the event loop, one to come back).
///
/// Get one from ``NIOHTTPTransport/makeTaskExecutor()``, which picks one of the transport's
/// event loops; the transport opens and reuses connections on the event loop its caller runs
/// on. Work that blocks or computes for long must not run on an event loop: keep such a task's
/// own work short, or move it elsewhere.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
public final class EventLoopTaskExecutor: TaskExecutor {
    /// The event loop the jobs run on.
    public let eventLoop: any EventLoop

    /// An executor for `eventLoop`.
    public init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Runs `job` on the event loop (after what is already queued there).
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        self.eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
