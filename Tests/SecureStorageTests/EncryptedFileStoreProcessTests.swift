import Foundation
import SecureStorage
import Testing

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Child processes exist only on macOS and Linux.
#if os(macOS) || os(Linux)
/// Other processes writing the store: killed mid-write, and racing each other. Uses the
/// `SecureStorageStress` helper built next to the tests.
@Suite("EncryptedFileStore: crashes and other processes", .serialized)
struct EncryptedFileStoreProcessTests {
    @Test func aWriterKilledAtRandomMomentsNeverLeavesATornOrLostItem() async throws {
        let directory = try TemporaryDirectory()
        let count = 6
        let store = directory.store()
        for index in 0..<count {
            try await store.set(StressValue.make(generation: 0, index: index), forKey: "item-\(index)")
        }
        var lastSeen = [UInt64](repeating: 0, count: count)
        var killsMidWrite = 0
        var generator = SystemRandomNumberGenerator()
        let rounds = 24
        for round in 1...rounds {
            let before = fingerprint(directory.storeFile)
            let first = UInt64(round) * 1_000_000
            let (process, _) = try launchStress([
                "write-loop", directory.store.path, directory.keyFile().path, "\(count)", "\(first)",
            ])
            // Wait until the writer has written the file once, then kill it a little later.
            let deadline = ContinuousClock.now + .seconds(10)
            while fingerprint(directory.storeFile) == before, process.isRunning, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
            try #require(process.isRunning, "the writer exited early (status \(process.terminationStatus))")
            try await Task.sleep(for: .microseconds(Int.random(in: 0...25_000, using: &generator)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            #expect(process.terminationStatus == SIGKILL)

            if directory.storeDirectoryContents.contains(where: { $0.hasSuffix(".tmp") }) { killsMidWrite += 1 }
            // What a restarted process sees: every item complete, never older than before.
            let reader = directory.store()
            var generations: [UInt64] = []
            for index in 0..<count {
                let data = try #require(
                    try await reader.data(forKey: "item-\(index)"),
                    "round \(round): item-\(index) lost"
                )
                let value = try #require(StressValue.decode(data), "round \(round): item-\(index) is torn")
                #expect(value.index == index)
                #expect(value.generation >= lastSeen[index], "round \(round): item-\(index) went back")
                #expect(value.generation == 0 || value.generation >= 1_000_000)
                lastSeen[index] = value.generation
                generations.append(value.generation)
            }
            // The kill came after a write had completed (the file changed): that write survived it.
            // (How many more writes a round gets depends on the machine's load, so only this one
            // is asserted.)
            #expect(generations.contains { $0 >= first }, "round \(round): the write completed before the kill is lost")
        }
        // How many kills caught a write between creating its temporary file and renaming it.
        print("SecureStorage crash test: \(rounds) kills, \(killsMidWrite) left a temporary file behind")
        #expect(directory.storeDirectoryContents.filter { !$0.hasSuffix(".tmp") } == ["store.lock", "store.sealed"])
    }

    /// The session lock of ``EncryptedFileStore/lockAcrossProcesses(timeout:)`` against another
    /// process: held there, a taker here times out with lockTimeout; the holder killed, the
    /// system drops its lock and the taker gets it (no deadlock after a crash).
    @Test func theSessionLockIsSharedWithOtherProcessesAndDiesWithThem() async throws {
        let directory = try TemporaryDirectory()
        let marker = directory.url.appendingPathComponent("locked").path
        let (process, _) = try launchStress(["hold-lock", directory.store.path, directory.keyFile().path, marker, "-"])
        let deadline = ContinuousClock.now + .seconds(20)
        while !FileManager.default.fileExists(atPath: marker), process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        try #require(FileManager.default.fileExists(atPath: marker), "the holder did not take the lock")
        let store = directory.store()
        #expect(await errorCode { try await store.lockAcrossProcesses(timeout: .milliseconds(100)) } == .lockTimeout)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let lock = try #require(try await store.lockAcrossProcesses(timeout: .seconds(10)))
        // Held here now: a second taker in this process (another handle) waits too.
        #expect(
            await errorCode { try await directory.store().lockAcrossProcesses(timeout: .milliseconds(50)) }
                == .lockTimeout
        )
        lock.release()
        #expect(try await directory.store().lockAcrossProcesses(timeout: .seconds(10)) != nil)
    }

    @Test func twoProcessesWritingAtOnceLoseNothing() async throws {
        let directory = try TemporaryDirectory()
        let perWriter = 40
        let writers = try ["left", "right"].map { prefix in
            try launchStress(["writer", directory.store.path, directory.keyFile().path, prefix, "\(perWriter)"])
        }
        for (process, errors) in writers {
            let message = await exited(process, errors: errors)
            #expect(process.terminationStatus == 0, "writer failed: \(message)")
        }
        let store = directory.store()
        let keys = try await store.itemKeys()
        #expect(keys.count == 2 * perWriter)
        for prefix in ["left", "right"] {
            for index in 0..<perWriter {
                #expect(
                    try await store.data(forKey: "\(prefix)-\(index)") == StressValue.make(generation: 1, index: index)
                )
            }
        }
        #expect(try posixPermissions(directory.keyFile()) == 0o600)
    }
}
#endif
