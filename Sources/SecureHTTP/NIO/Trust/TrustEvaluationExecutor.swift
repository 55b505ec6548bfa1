import NIOPosix

/// Runs trust evaluations on two threads of their own, so a TLS handshake never waits for Swift's
/// global cooperative pool.
///
/// NIOSSL calls the verification callback on the event loop, and ServerTrust's evaluation is
/// `async` (swift-certificates' `Verifier` is). Run from an ordinary task, every handshake of the
/// app would wait for a free cooperative thread: an app whose cooperative pool is busy with
/// CPU-bound work, or with code that blocks a thread, would stall all its TLS handshakes behind
/// it. As a task executor preference (SE-0417) it keeps every job of the evaluation here instead.
/// A cached decision completes on the event loop without it.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
final class TrustEvaluationExecutor: TaskExecutor {
    /// The process's executor for trust evaluations (two threads, started on first use, never stopped).
    static let shared = TrustEvaluationExecutor(numberOfThreads: 2)

    private let pool: NIOThreadPool

    init(numberOfThreads: Int) {
        self.pool = NIOThreadPool(numberOfThreads: numberOfThreads)
        self.pool._start(threadNamePrefix: "SecureHTTP-trust-")
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = self.asUnownedTaskExecutor()
        self.pool.submit { _ in
            // Run even if the pool is shutting down: a dropped job would leave a handshake hanging.
            job.runSynchronously(on: executor)
        }
    }
}
