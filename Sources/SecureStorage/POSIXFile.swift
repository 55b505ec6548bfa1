import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// The few POSIX file calls the encrypted file store needs, with `EINTR` retried and failures
/// turned into ``SecureStoreError/Code/ioFailure`` naming the path (paths are not secrets).
///
/// Foundation's `FileManager` cannot `fsync`, `flock` or set a mode independent of the umask,
/// so these are plain system calls.
enum POSIXFile {
    /// The text of the current `errno`.
    static func lastError() -> String {
        String(cString: strerror(errno))
    }

    /// Calls `body` until it does not fail with `EINTR`.
    static func retryingInterrupts(_ body: () -> Int32) -> Int32 {
        while true {
            let result = body()
            if result == -1 && errno == EINTR { continue }
            return result
        }
    }

    /// Opens `path`; returns nil when it does not exist and `missingIsNil` is set.
    static func open(
        _ path: String,
        _ flags: Int32,
        mode: mode_t = 0o600,
        missingIsNil: Bool = false
    ) throws(SecureStoreError) -> Int32? {
        let fd = self.retryingInterrupts { Self.systemOpen(path, flags | O_CLOEXEC, mode) }
        if fd >= 0 { return fd }
        if missingIsNil && errno == ENOENT { return nil }
        throw SecureStoreError(.ioFailure, "cannot open \(path): \(self.lastError())")
    }

    private static func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
        #if canImport(Darwin)
        Darwin.open(path, flags, mode)
        #elseif canImport(Glibc)
        Glibc.open(path, flags, mode)
        #elseif canImport(Musl)
        Musl.open(path, flags, mode)
        #else
        Android.open(path, flags, mode)
        #endif
    }

    static func close(_ fd: Int32) {
        #if canImport(Darwin)
        _ = Darwin.close(fd)
        #elseif canImport(Glibc)
        _ = Glibc.close(fd)
        #elseif canImport(Musl)
        _ = Musl.close(fd)
        #else
        _ = Android.close(fd)
        #endif
    }

    /// The `stat` of an open file.
    static func status(_ fd: Int32, path: String) throws(SecureStoreError) -> stat {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw SecureStoreError(.ioFailure, "cannot stat \(path): \(self.lastError())")
        }
        return info
    }

    /// Whether `info` describes a regular file.
    static func isRegularFile(_ info: stat) -> Bool {
        (info.st_mode & mode_t(0o170000)) == mode_t(0o100000)
    }

    /// Reads an open file to its end.
    static func readAll(_ fd: Int32, path: String) throws(SecureStoreError) -> Data {
        var result = Data()
        let info = try self.status(fd, path: path)
        result.reserveCapacity(Int(info.st_size))
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                Self.retryingRead(fd, raw.baseAddress, raw.count)
            }
            if count < 0 { throw SecureStoreError(.ioFailure, "cannot read \(path): \(self.lastError())") }
            if count == 0 { return result }
            result.append(contentsOf: buffer[0..<count])
        }
    }

    private static func retryingRead(_ fd: Int32, _ pointer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        while true {
            let result = read(fd, pointer, count)
            if result == -1 && errno == EINTR { continue }
            return result
        }
    }

    /// Reads the whole file at `path`, or nil when there is none.
    static func readFileIfPresent(_ path: String) throws(SecureStoreError) -> Data? {
        guard let fd = try self.open(path, O_RDONLY, missingIsNil: true) else { return nil }
        defer { self.close(fd) }
        return try self.readAll(fd, path: path)
    }

    /// Writes all of `data` to an open file.
    static func writeAll(_ fd: Int32, _ data: Data, path: String) throws(SecureStoreError) {
        let failed: Bool = data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset)
                if written == -1 && errno == EINTR { continue }
                if written <= 0 { return true }
                offset += written
            }
            return false
        }
        if failed { throw SecureStoreError(.ioFailure, "cannot write \(path): \(self.lastError())") }
    }

    /// Flushes an open file (or directory) to stable storage.
    ///
    /// On Darwin `fsync` only reaches the drive's cache; `F_FULLFSYNC` reaches the medium.
    static func synchronize(_ fd: Int32, path: String) throws(SecureStoreError) {
        #if canImport(Darwin)
        if fcntl(fd, F_FULLFSYNC) == 0 { return }
        #endif
        guard self.retryingInterrupts({ fsync(fd) }) == 0 else {
            throw SecureStoreError(.ioFailure, "cannot sync \(path): \(self.lastError())")
        }
    }

    /// Sets the mode of an open file, whatever the umask was when it was created.
    static func setMode(_ fd: Int32, _ mode: mode_t, path: String) throws(SecureStoreError) {
        guard fchmod(fd, mode) == 0 else {
            throw SecureStoreError(.ioFailure, "cannot set the mode of \(path): \(self.lastError())")
        }
    }

    /// Flushes a directory, so a `rename` or `link` into it survives a power cut.
    static func synchronizeDirectory(_ path: String) throws(SecureStoreError) {
        guard let fd = try self.open(path, O_RDONLY | O_DIRECTORY) else { return }
        defer { self.close(fd) }
        try self.synchronize(fd, path: path)
    }

    /// Renames atomically, replacing `destination`.
    static func rename(_ source: String, to destination: String) throws(SecureStoreError) {
        #if canImport(Darwin)
        let result = Darwin.rename(source, destination)
        #elseif canImport(Glibc)
        let result = Glibc.rename(source, destination)
        #elseif canImport(Musl)
        let result = Musl.rename(source, destination)
        #else
        let result = Android.rename(source, destination)
        #endif
        guard result == 0 else {
            throw SecureStoreError(.ioFailure, "cannot rename a file to \(destination): \(self.lastError())")
        }
    }

    /// Links `source` at `destination` if nothing is there yet; false when `destination` exists.
    static func linkIfAbsent(_ source: String, at destination: String) throws(SecureStoreError) -> Bool {
        if link(source, destination) == 0 { return true }
        if errno == EEXIST { return false }
        throw SecureStoreError(.ioFailure, "cannot create \(destination): \(self.lastError())")
    }

    /// Removes a file; a missing file is not an error.
    static func remove(_ path: String) throws(SecureStoreError) {
        if unlink(path) == 0 || errno == ENOENT { return }
        throw SecureStoreError(.ioFailure, "cannot remove \(path): \(self.lastError())")
    }

    /// Creates `path` as a directory with mode 0700 (parents as needed, also 0700) unless it
    /// exists; an existing directory keeps its mode.
    static func createDirectory(_ path: String) throws(SecureStoreError) {
        if mkdir(path, 0o700) == 0 {
            // mkdir applies the umask; the store's directory is 0700 whatever it is.
            guard chmod(path, 0o700) == 0 else {
                throw SecureStoreError(.ioFailure, "cannot set the mode of \(path): \(self.lastError())")
            }
            return
        }
        switch errno {
        case EEXIST:
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & mode_t(0o170000)) == mode_t(0o040000) else {
                throw SecureStoreError(.ioFailure, "\(path) exists and is not a directory")
            }
        case ENOENT:
            let parent = (path as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != path else {
                throw SecureStoreError(.ioFailure, "cannot create \(path): \(self.lastError())")
            }
            try self.createDirectory(parent)
            try self.createDirectory(path)
        default:
            throw SecureStoreError(.ioFailure, "cannot create \(path): \(self.lastError())")
        }
    }

    /// The names in a directory (empty when it does not exist).
    static func contentsOfDirectory(_ path: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }

    /// Runs `body` holding an exclusive `flock` on `lockPath` (created 0600 if needed).
    ///
    /// `flock` locks belong to the open file description, so two store instances in one process
    /// exclude each other like two processes do; the lock is released when the descriptor is
    /// closed, including when the process dies.
    static func withExclusiveLock<Result>(
        _ lockPath: String,
        _ body: () throws(SecureStoreError) -> Result
    ) throws(SecureStoreError) -> Result {
        guard let fd = try self.open(lockPath, O_RDWR | O_CREAT, mode: 0o600) else {
            throw SecureStoreError(.ioFailure, "cannot open \(lockPath)")
        }
        defer { self.close(fd) }
        guard self.retryingInterrupts({ flock(fd, LOCK_EX) }) == 0 else {
            throw SecureStoreError(.ioFailure, "cannot lock \(lockPath): \(self.lastError())")
        }
        return try body()
    }

    /// A name no other writer uses at the same time: the process id and random bits.
    static func uniqueSuffix() -> String {
        "\(getpid())-\(String(UInt64.random(in: 0 ... .max), radix: 36))"
    }
}
