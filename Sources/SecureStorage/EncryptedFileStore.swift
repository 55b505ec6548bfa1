import Dispatch
public import Foundation
import SecureNetworkingInternal

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// A ``SecureStore`` in one encrypted, authenticated file: the portable default.
///
/// The store lives in its own directory (created 0700) holding `store.sealed` (0600), the
/// sealed items, and `store.lock`, the cross-process lock. Each value is sealed with AES-256-GCM
/// under a key derived from a 256-bit master key (see ``KeySource``), with the item key as
/// authenticated data; the whole file is authenticated with HMAC-SHA256, so an item that is
/// changed, swapped, removed or rolled back on its own is detected. The format is documented
/// on `StoreFile`.
///
/// Errors tell what is wrong without guessing:
/// - ``SecureStoreError/Code/corrupted``: not a store file, truncated, or a damaged header
///   (its checksum fails) — checked before any key is tried;
/// - ``SecureStoreError/Code/wrongKey``: an intact header that was sealed under another key or
///   passphrase;
/// - ``SecureStoreError/Code/tampered``: the right key, but the contents fail authentication.
///
/// A store that cannot be read is never overwritten: `set`, `removeValue` and ``rotateKey(to:)``
/// throw the same error and leave the file byte-for-byte unchanged. ``destroyAll()`` is the
/// explicit way to start over.
///
/// **Writes** take an exclusive `flock` on `store.lock`, re-read and verify the file under the
/// lock, write a new file to a temporary name in the same directory, `fsync` it, `rename` it over
/// `store.sealed` and `fsync` the directory. Writers in other processes (or other instances in
/// this one) are serialised and never lose each other's items; a crash at any moment leaves the
/// old or the new file, and a leftover temporary file is ignored by readers and removed by the
/// next writer.
///
/// **Reads** take no lock: `rename` replaces the file atomically, so a reader always opens one
/// complete version, and readers never wait for writers.
///
/// File work runs on a private serial dispatch queue, never on the caller's executor, because
/// `flock` and `fsync` block.
public final class EncryptedFileStore: SecureStore {
    /// The directory that holds the store file and its lock.
    public let directory: URL
    /// The store file: `directory/store.sealed`.
    public var fileURL: URL { self.directory.appendingPathComponent(Self.storeFileName) }

    static let storeFileName = "store.sealed"
    static let lockFileName = "store.lock"
    /// The cross-process session lock (``lockAcrossProcesses(timeout:)``), apart from the write
    /// lock so that writes made while holding it do not wait for it.
    static let sessionLockFileName = "session.lock"
    static let temporaryPrefix = ".store-"
    static let temporarySuffix = ".tmp"

    private let source: Locked<KeySource>
    let derivedKeys = Locked<DerivedKeyCache?>(nil)
    private let queue = DispatchQueue(label: "SecureStorage.EncryptedFileStore")
    private var directoryPath: String { self.directory.path }
    private var storePath: String { self.directoryPath + "/" + Self.storeFileName }
    private var lockPath: String { self.directoryPath + "/" + Self.lockFileName }

    /// Creates a store in `directory`, sealed under `keySource`. Nothing is read or created until
    /// the first operation; the directory is created (0700) by the first write.
    ///
    /// - Parameters:
    ///   - directory: a directory for this store alone.
    ///   - keySource: where the key comes from: ``KeySource/keyFile(at:)``,
    ///     ``KeySource/passphrase(_:parameters:)`` or ``KeySource/key(_:)``.
    public init(directory: URL, keySource: KeySource) {
        self.directory = directory
        self.source = Locked(keySource)
    }

    /// The bytes stored under `key`, or nil when there is none.
    ///
    /// - Throws: ``SecureStoreError`` with code `corrupted`, `wrongKey`, `tampered`,
    ///   `keyUnavailable` or `ioFailure`.
    public func data(forKey key: String) async throws(SecureStoreError) -> Data? {
        try validateItemKey(key)
        return try await self.perform { () throws(SecureStoreError) in
            guard let snapshot = try self.readSnapshot() else { return nil }
            return try snapshot.file.items[key].map { box throws(SecureStoreError) in
                try StoreFile.open(box, forKey: key, with: snapshot.keys)
            }
        }
    }

    /// Stores `data` under `key`, replacing any previous value, durably and atomically.
    ///
    /// - Throws: ``SecureStoreError``; when the existing file cannot be read (`corrupted`,
    ///   `wrongKey`, `tampered`) nothing is written.
    public func set(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        try validateItemKey(key)
        try await self.perform { () throws(SecureStoreError) in
            try self.modify(creatingIfMissing: true) { file, keys throws(SecureStoreError) in
                file.items[key] = try StoreFile.seal(data, forKey: key, with: keys)
                return true
            }
        }
    }

    /// Removes the item under `key`; a missing item (or store) is not an error.
    ///
    /// - Throws: ``SecureStoreError``; when the existing file cannot be read nothing is written.
    public func removeValue(forKey key: String) async throws(SecureStoreError) {
        try validateItemKey(key)
        try await self.perform { () throws(SecureStoreError) in
            try self.modify(creatingIfMissing: false) { file, _ in
                file.items.removeValue(forKey: key) != nil
            }
        }
    }

    /// Whether an item exists under `key`. The file is verified as for a read.
    public func contains(_ key: String) async throws(SecureStoreError) -> Bool {
        try validateItemKey(key)
        return try await self.perform { () throws(SecureStoreError) in
            try self.readSnapshot()?.file.items[key] != nil
        }
    }

    /// The item keys held, sorted (never the values). The file is verified as for a read.
    public func itemKeys() async throws(SecureStoreError) -> [String] {
        try await self.perform { () throws(SecureStoreError) in
            try self.readSnapshot()?.file.items.keys.sorted() ?? []
        }
    }

    /// Re-seals every item under `newSource` in one atomic write; afterwards this store uses
    /// `newSource` and the old key or passphrase gets ``SecureStoreError/Code/wrongKey``.
    ///
    /// A new key file is created if `newSource` names one that does not exist; a passphrase gets
    /// a fresh salt. The old key file is left in place: delete it once the rotation has returned.
    ///
    /// - Throws: ``SecureStoreError``; when the existing file cannot be read under the current
    ///   source, nothing is written and the store keeps its current source.
    public func rotateKey(to newSource: KeySource) async throws(SecureStoreError) {
        try await self.perform { () throws(SecureStoreError) in
            try POSIXFile.createDirectory(self.directoryPath)
            try POSIXFile.withExclusiveLock(self.lockPath) { () throws(SecureStoreError) in
                self.removeStaleTemporaryFiles()
                let current = try self.readSnapshot()
                self.derivedKeys.withLock { $0 = nil }
                if let snapshot = current {
                    let (derivation, keys) = try self.keysForNewStore(with: newSource)
                    var rotated = StoreFile(derivation: derivation, keyCheck: keys.check)
                    for (key, box) in snapshot.file.items {
                        let value = try StoreFile.open(box, forKey: key, with: snapshot.keys)
                        rotated.items[key] = try StoreFile.seal(value, forKey: key, with: keys)
                    }
                    try self.writeAtomically(rotated.serialized(with: keys))
                }
                self.source.withLock { $0 = newSource }
            }
        }
    }

    /// Deletes every item by removing the store file, whether or not it can be read: the way to
    /// start over after ``SecureStoreError/Code/wrongKey``, ``SecureStoreError/Code/tampered`` or
    /// ``SecureStoreError/Code/corrupted``.
    ///
    /// The key file (if any) is kept; the next write seals a new store under the current source.
    ///
    /// - Important: This cannot be undone.
    public func destroyAll() async throws(SecureStoreError) {
        try await self.perform { () throws(SecureStoreError) in
            guard FileManager.default.fileExists(atPath: self.directoryPath) else { return }
            try POSIXFile.withExclusiveLock(self.lockPath) { () throws(SecureStoreError) in
                self.removeStaleTemporaryFiles()
                try POSIXFile.remove(self.storePath)
                try POSIXFile.synchronizeDirectory(self.directoryPath)
            }
        }
    }

    // MARK: - Reading and writing the file

    /// A verified file and the keys that opened it.
    private struct Snapshot {
        var file: StoreFile
        var keys: StoreKeys
    }

    /// Reads and verifies the current file, or nil when there is none yet.
    private func readSnapshot() throws(SecureStoreError) -> Snapshot? {
        let source = self.source.withLock { $0 }
        guard let bytes = try POSIXFile.readFileIfPresent(self.storePath) else {
            // Nothing to read, but a misconfigured key file is still reported now.
            if case .keyFile(let path) = source.kind { _ = try Self.readKeyFile(path) }
            return nil
        }
        let parsed = try StoreFile.parse(bytes)
        let keys = try self.keys(opening: parsed.file.derivation, with: source)
        try parsed.verify(with: keys)
        return Snapshot(file: parsed.file, keys: keys)
    }

    /// Read-modify-write under the exclusive lock. `change` returns whether it changed anything.
    private func modify(
        creatingIfMissing: Bool,
        _ change: (inout StoreFile, StoreKeys) throws(SecureStoreError) -> Bool
    ) throws(SecureStoreError) {
        if !creatingIfMissing && !FileManager.default.fileExists(atPath: self.storePath) {
            _ = try self.readSnapshot()  // still reports a bad key file
            return
        }
        try POSIXFile.createDirectory(self.directoryPath)
        try POSIXFile.withExclusiveLock(self.lockPath) { () throws(SecureStoreError) in
            self.removeStaleTemporaryFiles()
            var snapshot: Snapshot
            if let existing = try self.readSnapshot() {
                snapshot = existing
            } else if creatingIfMissing {
                let (derivation, keys) = try self.keysForNewStore(with: self.source.withLock { $0 })
                snapshot = Snapshot(file: StoreFile(derivation: derivation, keyCheck: keys.check), keys: keys)
            } else {
                return
            }
            guard try change(&snapshot.file, snapshot.keys) else { return }
            try self.writeAtomically(snapshot.file.serialized(with: snapshot.keys))
        }
    }

    /// Replaces the store file: temporary file (0600), fsync, rename, fsync of the directory.
    private func writeAtomically(_ bytes: Data) throws(SecureStoreError) {
        let name = Self.temporaryPrefix + POSIXFile.uniqueSuffix() + Self.temporarySuffix
        let temporary = self.directoryPath + "/" + name
        guard let fd = try POSIXFile.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600) else {
            throw SecureStoreError(.ioFailure, "cannot create \(temporary)")
        }
        var renamed = false
        defer { if !renamed { try? POSIXFile.remove(temporary) } }
        do {
            defer { POSIXFile.close(fd) }
            try POSIXFile.setMode(fd, 0o600, path: temporary)
            try POSIXFile.writeAll(fd, bytes, path: temporary)
            try POSIXFile.synchronize(fd, path: temporary)
        }
        try POSIXFile.rename(temporary, to: self.storePath)
        renamed = true
        try POSIXFile.synchronizeDirectory(self.directoryPath)
    }

    /// Removes temporary files left by a writer that died; only called under the exclusive lock,
    /// when no other writer can be using one.
    private func removeStaleTemporaryFiles() {
        for name in POSIXFile.contentsOfDirectory(self.directoryPath)
        where name.hasPrefix(Self.temporaryPrefix) && name.hasSuffix(Self.temporarySuffix) {
            try? POSIXFile.remove(self.directoryPath + "/" + name)
        }
    }

    /// An exclusive `flock` on `session.lock` in the store's directory (created 0700 if missing),
    /// tried without blocking every 5 ms until `timeout`, so no thread waits on another process.
    public func lockAcrossProcesses(timeout: Duration) async throws(SecureStoreError) -> CrossProcessLock? {
        let directory = self.directoryPath
        let fd = try await self.perform { () throws(SecureStoreError) -> Int32 in
            try POSIXFile.createDirectory(directory)
            return try CrossProcessLock.open(directory + "/" + Self.sessionLockFileName)
        }
        return try await CrossProcessLock.take(fd, timeout: timeout)
    }

    /// Runs blocking file work on the store's queue.
    private func perform<T: Sendable>(
        _ body: @escaping @Sendable () throws(SecureStoreError) -> T
    ) async throws(SecureStoreError) -> T {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<T, SecureStoreError>, Never>) in
            self.queue.async {
                continuation.resume(returning: Result { () throws(SecureStoreError) -> T in try body() })
            }
        }
        return try result.get()
    }
}
