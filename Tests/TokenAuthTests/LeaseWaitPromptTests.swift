#if TestServers
import Foundation
import NIOConcurrencyHelpers
import SecureStorage
import Testing

@testable import TokenAuth

/// Issue 51 item 19: a process that waits for another process's refresh lease through a
/// `UserPresenceProtectedStore` polls the lease only (a coordination item, no prompt), and reads
/// the protected bundle once, when the lease is let go.
@Suite("Waiting for another process's lease")
struct LeaseWaitPromptTests {
    /// A store that counts the coordination reads (the lease polls) made of the store it wraps.
    final class CountingCoordinationStore: SecureStore {
        let base: any SecureStore
        let coordinationReads = NIOLockedValueBox(0)

        init(_ base: any SecureStore) {
            self.base = base
        }

        func data(forKey key: String) async throws(SecureStoreError) -> Data? {
            try await self.base.data(forKey: key)
        }

        func set(_ data: Data, forKey key: String) async throws(SecureStoreError) {
            try await self.base.set(data, forKey: key)
        }

        func removeValue(forKey key: String) async throws(SecureStoreError) {
            try await self.base.removeValue(forKey: key)
        }

        func contains(_ key: String) async throws(SecureStoreError) -> Bool {
            try await self.base.contains(key)
        }

        func lockAcrossProcesses(timeout: Duration) async throws(SecureStoreError) -> CrossProcessLock? {
            try await self.base.lockAcrossProcesses(timeout: timeout)
        }

        func coordinationData(forKey key: String) async throws(SecureStoreError) -> Data? {
            self.coordinationReads.withLockedValue { $0 += 1 }
            return try await self.base.coordinationData(forKey: key)
        }

        func setCoordinationData(_ data: Data, forKey key: String) async throws(SecureStoreError) {
            try await self.base.setCoordinationData(data, forKey: key)
        }
    }

    @Test func aWaitForAnotherProcesssLeaseAsksForUserPresenceOnlyWhenItEnds() async throws {
        let folder = RefreshLeaseTests.Folder()
        defer { folder.remove() }
        let (first, second) = (folder.store(), folder.store())
        try await first.set(RefreshLeaseTests.expired(), forKey: RefreshLeaseTests.key)
        let configuration = TokenManager.Configuration(
            crossProcessLockTimeout: .seconds(30),
            refreshLeaseDuration: .seconds(2)
        )
        // The other process, behind the same kind of store, holds the lease while its endpoint
        // is held.
        let slow = ScriptedRefresher([RefreshLeaseTests.answer("a1", "r1")], gated: true)
        let owner = TokenManager(
            store: UserPresenceProtectedStore(wrapping: first, gate: RefreshLeaseTests.CountingGate()),
            refresher: slow,
            configuration: configuration
        )
        let owned = Task { try await owner.validAccessToken() }
        await slow.started.wait()

        // This process asks on every protected read (the default).
        let gate = RefreshLeaseTests.CountingGate()
        let counted = CountingCoordinationStore(second)
        let waiting = ScriptedRefresher([])
        let waiter = TokenManager(
            store: UserPresenceProtectedStore(wrapping: counted, gate: gate),
            refresher: waiting,
            configuration: configuration
        )
        let waited = Task { try await waiter.validAccessToken() }
        // It has read the lease at least ten times (every 20 ms) while the lease stayed live.
        try await waitFor { counted.coordinationReads.withLockedValue { $0 } >= 10 }
        // One check, to load the session; none for the polls. (Each poll read the bundle too,
        // and asked, before the fix.)
        #expect(gate.checks.withLockedValue { $0 } == 1)
        #expect(waiting.calls.isEmpty)

        await slow.release?.open()
        #expect(try await owned.value == "a1")
        #expect(try await waited.value == "a1")
        // One more, to read the bundle the other process stored once it let the lease go.
        #expect(gate.checks.withLockedValue { $0 } == 2)
        #expect(waiting.calls.isEmpty)
        #expect(slow.calls == ["r0"])
    }
}
#endif
