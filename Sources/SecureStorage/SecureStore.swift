public import Foundation
import SecureNetworkingInternal

/// A store of secrets: item key → bytes.
///
/// Item keys are names (`"tokens"`, `"signing-key"`), not secrets; values are the secrets.
/// Implementations are safe to share between tasks.
public protocol SecureStore: Sendable {
    /// The bytes stored under `key`, or nil when there is none.
    ///
    /// - Throws: ``SecureStoreError``; an item that exists but cannot be read now (a locked
    ///   device, a failed user-presence check, a wrong key) is an error, never nil.
    func data(forKey key: String) async throws(SecureStoreError) -> Data?

    /// Stores `data` under `key`, replacing any previous value.
    func set(_ data: Data, forKey key: String) async throws(SecureStoreError)

    /// Removes the item under `key`; removing a missing item is not an error.
    func removeValue(forKey key: String) async throws(SecureStoreError)

    /// Whether an item exists under `key` (without releasing its value).
    func contains(_ key: String) async throws(SecureStoreError) -> Bool

    /// Takes the lock that every process sharing this store honours (an app and its extensions,
    /// two processes on one store directory), for a read-check-write that must not interleave
    /// with another process's: a token refresh. Release it with ``CrossProcessLock/release()``.
    ///
    /// - Returns: the lock, or nil for a store that only one process uses (the default).
    /// - Throws: ``SecureStoreError/Code/lockTimeout`` when another process held it for longer
    ///   than `timeout`, or ``SecureStoreError/Code/cancelled`` as soon as the waiting task is
    ///   cancelled. A process that dies holding it releases it (the system drops its locks).
    func lockAcrossProcesses(timeout: Duration) async throws(SecureStoreError) -> CrossProcessLock?

    /// The bytes of an item that coordinates the processes sharing this store and holds no
    /// secret (a token manager's refresh lease: an owner, a process, a deadline), or nil.
    ///
    /// Unlike ``data(forKey:)``, a wrapper that guards values behind a user-presence check lets
    /// it through, so coordinating a refresh never shows a prompt. Default: ``data(forKey:)``.
    func coordinationData(forKey key: String) async throws(SecureStoreError) -> Data?

    /// Stores an item that coordinates processes and holds no secret (see
    /// ``coordinationData(forKey:)``), without the access control the store gives secrets.
    /// Default: ``set(_:forKey:)``.
    func setCoordinationData(_ data: Data, forKey key: String) async throws(SecureStoreError)
}

extension SecureStore {
    /// No cross-process lock: this store is used by one process only.
    public func lockAcrossProcesses(timeout: Duration) async throws(SecureStoreError) -> CrossProcessLock? { nil }

    /// The item, read as any other (this store guards no value behind a prompt).
    public func coordinationData(forKey key: String) async throws(SecureStoreError) -> Data? {
        try await self.data(forKey: key)
    }

    /// The item, stored as any other.
    public func setCoordinationData(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        try await self.set(data, forKey: key)
    }
}

/// A held cross-process lock (an exclusive `flock` on a file beside the store); released by
/// ``release()``, or when the value goes away.
public final class CrossProcessLock: Sendable {
    private let releaser: Locked<(@Sendable () -> Void)?>

    /// A lock whose `release` closure lets it go.
    public init(release: @escaping @Sendable () -> Void) {
        self.releaser = Locked(release)
    }

    /// Lets the lock go; later calls do nothing.
    public func release() {
        let body = self.releaser.withLock { current -> (@Sendable () -> Void)? in
            defer { current = nil }
            return current
        }
        body?()
    }

    deinit { self.release() }

    /// Opens (creating it 0600) the lock file at `path`.
    static func open(_ path: String) throws(SecureStoreError) -> Int32 {
        guard let fd = try POSIXFile.open(path, O_RDWR | O_CREAT, mode: 0o600) else {
            throw SecureStoreError(.ioFailure, "cannot open the lock file")
        }
        return fd
    }

    /// Takes an exclusive `flock` on `fd`, trying without blocking every 5 ms until `timeout`
    /// (no thread waits on another process); closes `fd` when it fails. A cancelled task stops
    /// waiting at once (`Task.sleep` returns at once then, so the loop would otherwise spin a
    /// core until the timeout).
    ///
    /// - Parameter attempted: told the number of each `flock` try before it is made (for tests).
    static func take(
        _ fd: Int32,
        timeout: Duration,
        attempted: (@Sendable (Int) -> Void)? = nil
    ) async throws(SecureStoreError) -> CrossProcessLock {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var attempt = 0
        while true {
            attempt += 1
            attempted?(attempt)
            if POSIXFile.retryingInterrupts({ flock(fd, LOCK_EX | LOCK_NB) }) == 0 {
                return CrossProcessLock {
                    _ = flock(fd, LOCK_UN)
                    POSIXFile.close(fd)
                }
            }
            let failure = errno
            guard failure == EWOULDBLOCK || failure == EAGAIN else {
                POSIXFile.close(fd)
                throw SecureStoreError(.ioFailure, "cannot lock the lock file")
            }
            guard ContinuousClock.now < deadline else {
                POSIXFile.close(fd)
                throw SecureStoreError(
                    .lockTimeout,
                    "another process held the store's session lock for longer than \(timeout)"
                )
            }
            do {
                try await Task.sleep(for: .milliseconds(5))
            } catch {
                POSIXFile.close(fd)
                throw SecureStoreError(.cancelled, "the wait for the store's session lock was cancelled")
            }
        }
    }
}

extension SecureStore {
    /// Decodes the JSON value stored under `key`, or nil when there is none.
    ///
    /// - Throws: ``SecureStoreError/Code/decodingFailed`` when the stored bytes are not a `T`.
    public func value<T: Decodable>(_ type: T.Type, forKey key: String) async throws(SecureStoreError) -> T? {
        guard let data = try await self.data(forKey: key) else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw SecureStoreError(.decodingFailed, "the item '\(key)' is not a \(T.self)")
        }
    }

    /// Stores `value` as JSON under `key`.
    ///
    /// - Throws: ``SecureStoreError/Code/encodingFailed`` when `value` cannot be encoded.
    public func set<T: Encodable>(_ value: T, forKey key: String) async throws(SecureStoreError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(value)
        } catch {
            throw SecureStoreError(.encodingFailed, "a \(T.self) could not be encoded for '\(key)'")
        }
        try await self.set(data, forKey: key)
    }
}

/// Checks an item key: not empty, at most 256 UTF-8 bytes, no NUL.
func validateItemKey(_ key: String) throws(SecureStoreError) {
    guard !key.isEmpty, key.utf8.count <= 256, !key.utf8.contains(0) else {
        throw SecureStoreError(.invalidKey, "item keys are 1 to 256 bytes without NUL")
    }
}
