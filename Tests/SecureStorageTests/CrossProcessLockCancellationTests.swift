import Foundation
import SecureNetworkingInternal
import Testing

@testable import SecureStorage

/// A task that waits for the cross-process lock and is cancelled stops waiting at once: the
/// retry loop's `Task.sleep` returns at once for a cancelled task, so the loop must end there
/// instead of trying `flock` without pause until the timeout.
@Suite("Cross-process lock: a cancelled waiter stops waiting")
struct CrossProcessLockCancellationTests {
    @Test func aCancelledWaiterStopsWellBeforeItsTimeout() async throws {
        let directory = try TemporaryDirectory()
        let holder = try #require(try await directory.store().lockAcrossProcesses(timeout: .seconds(10)))
        defer { holder.release() }
        let other = directory.store()
        let waiter = Task { () async throws(SecureStoreError) -> CrossProcessLock? in
            try await other.lockAcrossProcesses(timeout: .seconds(30))
        }
        waiter.cancel()
        let code: SecureStoreError.Code?
        do {
            _ = try await waiter.value
            code = nil
        } catch {
            code = (error as? SecureStoreError)?.code
        }
        // A loop that went on trying after the cancellation would end only at the 30 s timeout,
        // with lockTimeout: the code tells the two apart. (No bound on the time: a loaded
        // machine, the suite beside a parallel build, once took 37 s to resume this task.)
        #expect(code == .cancelled)
    }

    @Test func theLoopEndsAtTheFirstTryAfterTheCancellation() async throws {
        let directory = try TemporaryDirectory()
        let holder = try #require(try await directory.store().lockAcrossProcesses(timeout: .seconds(10)))
        defer { holder.release() }
        try FileManager.default.createDirectory(at: directory.store, withIntermediateDirectories: true)
        let fd = try CrossProcessLock.open(directory.store.appendingPathComponent("session.lock").path)
        // The gate: the test cancels the waiter once it has tried (and failed) to take the lock.
        let (tried, triedContinuation) = AsyncStream<Int>.makeStream()
        let attempts = Locked(0)
        let waiter = Task { () async throws(SecureStoreError) -> CrossProcessLock in
            try await CrossProcessLock.take(fd, timeout: .seconds(30)) { attempt in
                attempts.withLock { $0 = attempt }
                if attempt == 2 { triedContinuation.yield(attempt) }
            }
        }
        for await _ in tried { break }
        // The waiter goes on trying until the cancellation: on a loaded machine this task may be
        // resumed several tries after the second.
        let triesBeforeTheCancellation = attempts.withLock { $0 }
        waiter.cancel()
        let code: SecureStoreError.Code?
        do {
            _ = try await waiter.value
            code = nil
        } catch {
            code = (error as? SecureStoreError)?.code
        }
        #expect(code == .cancelled)
        // At most the try under way when the cancellation came and none after it.
        #expect(attempts.withLock { $0 } <= triesBeforeTheCancellation + 1)
    }
}
