import Foundation
import SecureNetworkingInternal
import SecureStorage

/// How a refresh of a session starts, for a store shared across processes or not.
enum RefreshClaim: Sendable {
    /// The store has no cross-process lock: one process uses it, no lease is needed.
    case unshared
    /// Another process refreshed the session: use its bundle.
    case adopt(TokenBundle)
    /// This process holds the lease: refresh, spending this refresh token.
    case leased(spending: String)
    /// The store holds no session: another process ended it.
    case endedElsewhere
}

/// Renews this process's refresh lease while its request is in flight.
final class RefreshLeaseHolder: Sendable {
    private let renewal: Task<Void, Never>

    init(manager: TokenManager, duration: Duration) {
        self.renewal = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: duration / 3)
                guard !Task.isCancelled, await manager.renewLease() else { return }
            }
        }
    }

    /// Stops renewing (the refresh ended); the lease itself is cleared under the lock.
    func stopRenewing() { self.renewal.cancel() }
}

extension TokenManager {
    /// The store item of the session's refresh lease.
    var leaseKey: String { self.configuration.storageKey + ".refreshLease" }

    /// Under the store's cross-process lock, reads the stored bundle and lease and decides
    /// (``RefreshLease/step(stored:lease:stale:owner:needsRefresh:ownerIsAlive:now:waitingSince:patience:)``);
    /// records this manager's lease when it is to refresh. Waits, re-reading every 20 ms, while
    /// another process holds a live lease; while it waits only the lease (a coordination item) is
    /// read, and the bundle (which a user-presence gate may guard) once the lease is let go
    /// (``RefreshLease/keepsWaiting(for:owner:ownerIsAlive:now:waitingSince:patience:)``). The
    /// lock is held for the read and the write only.
    ///
    /// - Throws: ``TokenAuthError/Code/storageFailure``: the lock could not be taken, the store
    ///   could not be read or written, or another process's lease stayed live for longer than
    ///   ``Configuration/crossProcessLockTimeout`` (`lockTimeout`).
    func claimRefresh(of stale: TokenBundle) async throws(TokenAuthError) -> RefreshClaim {
        let patience = self.configuration.crossProcessLockTimeout.timeInterval
        var waitingSince: Date?
        while true {
            let lock: CrossProcessLock?
            do {
                lock = try await self.store.lockAcrossProcesses(timeout: self.configuration.crossProcessLockTimeout)
            } catch {
                throw .storage(
                    error,
                    "the session's cross-process lock could not be taken; the tokens were not refreshed"
                )
            }
            guard let lock else { return .unshared }
            let step: RefreshLease.Step
            do {
                defer { lock.release() }
                // A lease that cannot be read (a torn write by an older version) counts as none.
                let lease = await self.storedLease()
                let now = Date()
                if RefreshLease.keepsWaiting(
                    for: lease,
                    owner: self.leaseOwner,
                    ownerIsAlive: RefreshLease.processIsAlive,
                    now: now,
                    waitingSince: waitingSince,
                    patience: patience
                ) {
                    // Another process is refreshing: its outcome is read when it lets the lease
                    // go, not every 20 ms (each read of the bundle may ask for Face ID).
                    step = .wait
                } else {
                    let stored = try await self.store.value(TokenBundle.self, forKey: self.configuration.storageKey)
                    step = RefreshLease.step(
                        stored: stored,
                        lease: lease,
                        stale: stale,
                        owner: self.leaseOwner,
                        needsRefresh: { self.needsRefresh($0) },
                        ownerIsAlive: RefreshLease.processIsAlive,
                        now: now,
                        waitingSince: waitingSince,
                        patience: patience
                    )
                    if case .take = step {
                        try await self.record(self.lease(from: now))
                    }
                }
            } catch {
                throw .storage(error, "the session could not be read or its refresh lease recorded under the lock")
            }
            switch step {
            case .wait:
                waitingSince = waitingSince ?? Date()
                try? await Task.sleep(for: .milliseconds(20))
            case .giveUp:
                throw .storage(
                    SecureStoreError(
                        .lockTimeout,
                        "another process's refresh lease stayed live for longer than \(self.configuration.crossProcessLockTimeout)"
                    ),
                    "another process was refreshing the session; the tokens were not refreshed"
                )
            case .adopt(let adopted):
                return .adopt(adopted)
            case .take(let spending):
                return .leased(spending: spending)
            case .endedElsewhere:
                return .endedElsewhere
            }
        }
    }

    /// This manager's lease, lasting ``Configuration/refreshLeaseDuration`` from `now`.
    private func lease(from now: Date) -> RefreshLease {
        RefreshLease(
            owner: self.leaseOwner,
            processID: RefreshLease.currentProcessID,
            expires: now.addingTimeInterval(self.configuration.refreshLeaseDuration.timeInterval)
        )
    }

    /// Extends this manager's lease, if it still holds it; returns whether it does (false ends
    /// the renewals: the lease was taken over or cleared).
    func renewLease() async -> Bool {
        let timeout = self.configuration.refreshLeaseDuration / 3
        guard let lock = try? await self.store.lockAcrossProcesses(timeout: timeout) else {
            // Busy: try again at the next renewal.
            return true
        }
        defer { lock.release() }
        guard let held = await self.storedLease(), held.owner == self.leaseOwner else { return false }
        try? await self.record(self.lease(from: Date()))
        return true
    }

    /// Stops renewing and clears this manager's lease, if it still holds it (best effort: a
    /// lease left behind lapses by itself).
    func releaseLease(_ holder: RefreshLeaseHolder) async {
        holder.stopRenewing()
        guard let lock = try? await self.store.lockAcrossProcesses(timeout: self.configuration.crossProcessLockTimeout)
        else { return }
        defer { lock.release() }
        await self.clearOwnLease()
    }

    /// Removes the stored lease if it is this manager's; call under the lock.
    private func clearOwnLease() async {
        if let held = await self.storedLease(), held.owner == self.leaseOwner {
            try? await self.store.removeValue(forKey: self.leaseKey)
        }
    }

    /// The stored lease, read as a coordination item (never behind a user-presence prompt); nil
    /// when there is none or it cannot be read. A lease a `UserPresenceProtectedStore` marked as
    /// a coordination item is read through a store without that wrapper too.
    func storedLease() async -> RefreshLease? {
        guard let data = try? await self.store.coordinationData(forKey: self.leaseKey) else { return nil }
        return try? JSONDecoder().decode(RefreshLease.self, from: UserPresenceProtectedStore.unmarked(data))
    }

    /// Stores `lease` as a coordination item.
    private func record(_ lease: RefreshLease) async throws(SecureStoreError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(lease)
        } catch {
            throw SecureStoreError(.encodingFailed, "the refresh lease could not be encoded")
        }
        try await self.store.setCoordinationData(data, forKey: self.leaseKey)
    }

    /// What the store holds now, under the lock, for a refresh that spent `spent`; nil when the
    /// lock or the store cannot be read (the caller keeps what it has: nothing is lost).
    ///
    /// While this manager's lease is still in the store, nobody else replaced the bundle: another
    /// refresh takes the lease first, and a sign-in or sign-out clears it. Only when the lease is
    /// gone or someone else's is the bundle read (so a user-presence gate asks no more often
    /// than before leases).
    private func completion(spent: String) async -> (RefreshLease.Completion, CrossProcessLock)? {
        guard let lock = try? await self.store.lockAcrossProcesses(timeout: self.configuration.crossProcessLockTimeout)
        else { return nil }
        if let held = await self.storedLease(), held.owner == self.leaseOwner {
            return (.own, lock)
        }
        guard let stored = try? await self.store.value(TokenBundle.self, forKey: self.configuration.storageKey) else {
            // Unreadable (not absent): keep the result rather than lose the rotated token.
            if (try? await self.store.contains(self.configuration.storageKey)) == false {
                return (.endedElsewhere, lock)
            }
            lock.release()
            return nil
        }
        return (RefreshLease.completion(stored: stored, spent: spent), lock)
    }

    /// Settles a successful refresh that spent `spent` under `holder`'s lease: stores `bundle`
    /// if the store still holds the spent token, uses the bundle another process stored
    /// meanwhile if it does not, and stores nothing if the session ended elsewhere.
    func settleRefresh(
        _ bundle: TokenBundle,
        spent: String,
        lease holder: RefreshLeaseHolder,
        generation: Int
    ) async throws(TokenAuthError) -> TokenBundle {
        holder.stopRenewing()
        guard let (completion, lock) = await self.completion(spent: spent) else {
            let kept = try await self.keep(bundle)
            await self.releaseLease(holder)
            return kept
        }
        switch completion {
        case .own:
            defer { lock.release() }
            let kept: TokenBundle
            do {
                kept = try await self.keep(bundle)
            } catch {
                await self.clearOwnLease()
                throw error
            }
            await self.clearOwnLease()
            return kept
        case .adopt(let adopted):
            await self.clearOwnLease()
            lock.release()
            return try self.adopt(adopted, generation: generation)
        case .endedElsewhere:
            await self.clearOwnLease()
            lock.release()
            if self.generation == generation { await self.endSession(.endedElsewhere) }
            throw TokenAuthError(.signedOut, "another process sharing the store ended the session")
        }
    }

    /// Settles a refresh that spent `spent` under `holder`'s lease and failed with `error`. A
    /// transient failure keeps the tokens. A refusal ends the session only if the store still
    /// holds the refused token; a bundle another process stored meanwhile stands.
    func settleRefusal(
        _ error: TokenAuthError,
        spent: String,
        lease holder: RefreshLeaseHolder,
        generation: Int,
        reason: SignOutReason
    ) async throws(TokenAuthError) -> TokenBundle {
        guard error.isTerminal, let (completion, lock) = await self.completion(spent: spent) else {
            await self.releaseLease(holder)
            if error.isTerminal, self.generation == generation { await self.endSession(reason) }
            throw self.noteRetryAfter(error, generation: generation)
        }
        await self.clearOwnLease()
        lock.release()
        switch completion {
        case .own:
            if self.generation == generation { await self.endSession(reason) }
            throw error
        case .adopt(let adopted):
            return try self.adopt(adopted, generation: generation)
        case .endedElsewhere:
            if self.generation == generation { await self.endSession(.endedElsewhere) }
            throw error
        }
    }
}
