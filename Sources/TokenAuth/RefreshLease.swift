import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Which process is refreshing a session that several processes share through one store, and
/// until when: the record that lets a refresh run without holding the store's cross-process lock
/// while it waits on the network.
///
/// iOS terminates a suspended app that holds a file lock in a shared container (termination
/// reason `0xdead10cc`), and an app can be suspended mid-refresh. So the lock is only ever held
/// for a read-check-write of the store; the refresh itself runs under a lease kept beside the
/// tokens (item `<storageKey>.refreshLease`):
///
/// 1. under the lock, the stored bundle is read again: a bundle another process refreshed is used
///    as it is; a live lease of another process means wait and read again; otherwise this
///    process records its lease (owner, deadline) and lets the lock go;
/// 2. it refreshes, renewing the lease every third of its ``duration`` while it waits, so a
///    slow token endpoint never lets the lease run out under a process that is alive;
/// 3. under the lock again, it stores the result only if the store still holds the refresh token
///    it spent (``completion(stored:spent:)``), and clears its lease.
///
/// A process that is suspended or dies stops renewing: its lease expires after ``duration`` (at
/// once, when the owner's process is gone) and the next process takes over.
struct RefreshLease: Codable, Sendable, Equatable {
    /// The token manager that holds it (one identifier per `TokenManager`).
    var owner: String
    /// The owner's process, to notice a lease whose process has died.
    var processID: Int32
    /// When it lapses unless renewed.
    var expires: Date

    /// What a refresh does once it has read the store under the lock.
    enum Step: Equatable, Sendable {
        /// Another process refreshed the session: use its bundle.
        case adopt(TokenBundle)
        /// The store holds no session: another process signed out.
        case endedElsewhere
        /// Another process is refreshing and its lease is live: wait, then read again.
        case wait
        /// Waited longer than the patience allows for a lease that stays live.
        case giveUp
        /// Record this process's lease and refresh, spending this refresh token (the stored
        /// one: the latest any process saved).
        case take(spending: String)
    }

    /// The step for a refresh of `stale` by `owner`, given what the store holds.
    ///
    /// - Parameters:
    ///   - stored: the stored bundle.
    ///   - lease: the stored lease.
    ///   - stale: the bundle this process wants to refresh.
    ///   - owner: this token manager's lease owner.
    ///   - needsRefresh: whether a bundle is due (expired or inside its leeway).
    ///   - ownerIsAlive: whether a lease owner's process still runs.
    ///   - now: the wall-clock time (leases are compared across processes).
    ///   - waitingSince: when this refresh first found a live lease, if it did.
    ///   - patience: how long to wait for a lease that stays live.
    static func step(
        stored: TokenBundle?,
        lease: RefreshLease?,
        stale: TokenBundle,
        owner: String,
        needsRefresh: (TokenBundle) -> Bool,
        ownerIsAlive: (Int32) -> Bool,
        now: Date,
        waitingSince: Date?,
        patience: TimeInterval
    ) -> Step {
        guard let stored else { return .endedElsewhere }
        let changed = stored.accessToken != stale.accessToken || stored.refreshToken != stale.refreshToken
        if changed, !needsRefresh(stored) {
            return .adopt(stored)
        }
        if let lease, lease.isHeld(against: owner, now: now, ownerIsAlive: ownerIsAlive) {
            if let waitingSince, now.timeIntervalSince(waitingSince) >= patience {
                return .giveUp
            }
            return .wait
        }
        guard let spending = stored.refreshToken ?? stale.refreshToken else { return .endedElsewhere }
        return .take(spending: spending)
    }

    /// Whether the lease keeps `owner` waiting: another owner's, not lapsed at `now`, of a
    /// process that still runs.
    func isHeld(against owner: String, now: Date, ownerIsAlive: (Int32) -> Bool) -> Bool {
        self.owner != owner && self.expires > now && ownerIsAlive(self.processID)
    }

    /// Whether a refresh that has waited since `waitingSince` may go on waiting for a lease
    /// that still ``isHeld(against:now:ownerIsAlive:)``, reading only the lease: the stored
    /// bundle (behind a user-presence prompt, perhaps) is read once the lease is let go, or
    /// when the patience has run out (to adopt a bundle stored meanwhile rather than give up).
    static func keepsWaiting(
        for lease: RefreshLease?,
        owner: String,
        ownerIsAlive: (Int32) -> Bool,
        now: Date,
        waitingSince: Date?,
        patience: TimeInterval
    ) -> Bool {
        guard let lease, lease.isHeld(against: owner, now: now, ownerIsAlive: ownerIsAlive) else { return false }
        guard let waitingSince else { return true }
        return now.timeIntervalSince(waitingSince) < patience
    }

    /// What a refresh that spent `spent` does with its outcome, given what the store holds now.
    enum Completion: Equatable, Sendable {
        /// The store still holds the spent token: nobody else refreshed; store the result (or,
        /// after a refusal, end the session).
        case own
        /// Another process replaced the bundle meanwhile (it took the lease over): use its
        /// bundle, whatever this refresh got.
        case adopt(TokenBundle)
        /// The store holds no session: another process signed out (or its refresh was refused
        /// and it ended the session); storing this result would bring a dead session back.
        case endedElsewhere
    }

    /// The completion for a refresh that spent `spent`.
    static func completion(stored: TokenBundle?, spent: String) -> Completion {
        guard let stored else { return .endedElsewhere }
        guard stored.refreshToken == spent else { return .adopt(stored) }
        return .own
    }

    /// Whether process `pid` still runs: false only when the system says there is no such
    /// process (`kill(pid, 0)` fails with `ESRCH`); a process this one may not signal (another
    /// app's extension, under the sandbox) counts as alive, so its lease runs its course.
    static func processIsAlive(_ pid: Int32) -> Bool {
        guard pid > 0, pid != getpid() else { return true }
        return kill(pid, 0) == 0 || errno != ESRCH
    }

    /// This process's identifier.
    static var currentProcessID: Int32 { getpid() }
}
