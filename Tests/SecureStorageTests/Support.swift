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

/// A fresh directory under the system temporary directory, removed when released.
final class TemporaryDirectory {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("securestorage-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: self.url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: self.url) }

    /// `<root>/store`: the store's own directory (not created: the store creates it).
    var store: URL { self.url.appendingPathComponent("store") }
    /// `<root>/store/store.sealed`.
    var storeFile: URL { self.store.appendingPathComponent("store.sealed") }

    /// `<root>/keys/<name>`: a key file outside the store's directory.
    func keyFile(_ name: String = "store.key") -> URL {
        self.url.appendingPathComponent("keys").appendingPathComponent(name)
    }

    /// A store over `store` sealed with the key file `keyName`.
    func store(keyName: String = "store.key") -> EncryptedFileStore {
        EncryptedFileStore(directory: self.store, keySource: .keyFile(at: self.keyFile(keyName)))
    }

    /// A store over `store` sealed with a passphrase at the cheap test cost.
    func store(passphrase: String) -> EncryptedFileStore {
        EncryptedFileStore(
            directory: self.store,
            keySource: .passphrase(passphrase, parameters: .insecureFastForTestingOnly)
        )
    }

    /// The names in the store's directory.
    var storeDirectoryContents: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: self.store.path)) ?? []).sorted()
    }
}

/// The permission bits of a file.
func posixPermissions(_ url: URL) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    return try #require(attributes[.posixPermissions] as? Int)
}

/// Writes a key file by hand with mode 0600.
func writeKeyFile(_ url: URL, _ bytes: Data) throws {
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try bytes.write(to: url)
    try setPosixPermissions(url, 0o600)
}

func setPosixPermissions(_ url: URL, _ mode: Int) throws {
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
}

/// Runs `body` and returns the code of the ``SecureStoreError`` it throws (nil if it returns).
func errorCode<T>(_ body: () async throws -> T) async -> SecureStoreError.Code? {
    do {
        _ = try await body()
        return nil
    } catch let error as SecureStoreError {
        return error.code
    } catch {
        Issue.record("not a SecureStoreError: \(error)")
        return nil
    }
}

/// The same layout as `stressValue` in `Sources/SecureStorageStress/main.swift`:
/// generation (UInt64) · index (UInt32) · filler · FNV-1a 64 of the bytes before it.
enum StressValue {
    static func make(generation: UInt64, index: Int) -> Data {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: generation.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(index).bigEndian) { bytes.append(contentsOf: $0) }
        let length = Int((generation &* 31 &+ UInt64(index) &* 97) % 4096)
        for position in 0..<length {
            bytes.append(UInt8(truncatingIfNeeded: generation &+ UInt64(position) &* 13))
        }
        withUnsafeBytes(of: self.fnv1a(bytes).bigEndian) { bytes.append(contentsOf: $0) }
        return Data(bytes)
    }

    /// The generation and index of a complete value, or nil when it is torn or garbled.
    static func decode(_ data: Data) -> (generation: UInt64, index: Int)? {
        let bytes = [UInt8](data)
        guard bytes.count >= 20 else { return nil }
        let body = bytes[0..<(bytes.count - 8)]
        let checksum = bytes[(bytes.count - 8)...].reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
        guard checksum == self.fnv1a(Array(body)) else { return nil }
        let generation = bytes[0..<8].reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
        let index = bytes[8..<12].reduce(0) { ($0 << 8) | Int($1) }
        // The checksum holds; also require the exact bytes the generator makes.
        guard self.make(generation: generation, index: index) == data else { return nil }
        return (generation, index)
    }

    private static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}

#if os(macOS) || os(Linux)
/// The `SecureStorageStress` helper, next to the test bundle in the build products directory.
func stressBinaryPath() throws -> String {
    var candidates = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("SecureStorageStress").path
    ]
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        candidates.append(
            bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("SecureStorageStress").path
        )
    }
    let cwd = FileManager.default.currentDirectoryPath
    candidates += [cwd + "/.build-storage/debug/SecureStorageStress", cwd + "/.build/debug/SecureStorageStress"]
    return try #require(
        candidates.first(where: FileManager.default.isExecutableFile(atPath:)),
        "SecureStorageStress was not built (looked in \(candidates))"
    )
}

/// Waits for `process` to exit, and reads what is left in `errors`, on a thread of its own: a
/// cooperative thread blocked in `waitUntilExit()` starves every other test's tasks (the pool
/// has as many threads as cores) for as long as the child runs.
func exited(_ process: Process, errors: Pipe) async -> String {
    let reader = errors.fileHandleForReading
    return await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            let message = reader.readDataToEndOfFile()
            process.waitUntilExit()
            continuation.resume(returning: String(decoding: message, as: UTF8.self))
        }
    }
}

/// Starts the stress helper with `arguments`; its output is discarded, its errors kept.
func launchStress(_ arguments: [String]) throws -> (process: Process, errors: Pipe) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try stressBinaryPath())
    process.arguments = arguments
    let errors = Pipe()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = errors
    try process.run()
    return (process, errors)
}
#endif

/// What changes when a file is replaced or rewritten: inode, size and modification time.
func fingerprint(_ url: URL) -> String? {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
    let date = (attributes[.modificationDate] as? Date)?.timeIntervalSinceReferenceDate ?? 0
    return "\(attributes[.systemFileNumber] ?? 0)/\(attributes[.size] ?? 0)/\(date)"
}

/// Reads a file, flips one bit of the byte at `offset` (negative: from the end), writes it back.
func flipByte(in url: URL, at offset: Int) throws {
    var bytes = [UInt8](try Data(contentsOf: url))
    let index = offset >= 0 ? offset : bytes.count + offset
    bytes[index] ^= 0x01
    try Data(bytes).write(to: url)
}

/// The offset of the first byte of `needle` in `url`'s contents.
func offset(of needle: String, in url: URL) throws -> Int {
    let bytes = [UInt8](try Data(contentsOf: url))
    let target = [UInt8](needle.utf8)
    let found = bytes.indices.first { start in
        start + target.count <= bytes.count && bytes[start..<(start + target.count)].elementsEqual(target)
    }
    return try #require(found, "\(needle) not found in the store file")
}

/// A clock the test moves by hand.
final class ManualClock: @unchecked Sendable {
    // SAFETY: `offset` is only read or written while `lock` is held.
    private let lock = NSLock()
    private let start = ContinuousClock.now
    private var offset = Duration.zero

    var now: ContinuousClock.Instant {
        self.lock.lock()
        defer { self.lock.unlock() }
        return self.start + self.offset
    }

    func advance(by duration: Duration) {
        self.lock.lock()
        defer { self.lock.unlock() }
        self.offset += duration
    }
}
