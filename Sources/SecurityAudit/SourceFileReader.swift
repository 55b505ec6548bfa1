#if Tools
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads one audited file: a regular file, never through a symbolic link planted in the tree,
/// and never more than ``maximumSize`` bytes (a hostile tree may hold a huge or endless file).
enum SourceFileReader {
    /// The largest file audited: 8 MiB, far above any source file, property list or policy.
    static let maximumSize = 8 << 20

    enum Outcome: Equatable {
        case contents(Data)
        /// Larger than the limit: not read past it, reported as not audited.
        case tooLarge
        case unreadable(reason: String)
    }

    /// The reason given for a file over the limit.
    static let tooLargeReason = "larger than 8 MiB, not audited"

    /// Reads `path`; `followingLinks` only for the file the user named.
    static func read(_ path: String, followingLinks: Bool, limit: Int = Self.maximumSize) -> Outcome {
        // O_NONBLOCK: a FIFO swapped in after the walk must not block the audit.
        var flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK
        if !followingLinks { flags |= O_NOFOLLOW }
        let fd = Self.retrying { open(path, flags) }
        guard fd >= 0 else {
            return .unreadable(reason: errno == ELOOP ? "a symbolic link, not followed" : "cannot read file")
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return .unreadable(reason: "cannot read file") }
        guard status.st_mode & S_IFMT == S_IFREG else { return .unreadable(reason: "not a regular file") }
        guard status.st_size <= limit else { return .tooLarge }
        // The size can change after fstat: read at most one byte past the limit.
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while data.count <= limit {
            let count = buffer.withUnsafeMutableBytes { raw in
                Self.retrying {
                    Int32(clamping: systemRead(fd, raw.baseAddress, min(raw.count, limit + 1 - data.count)))
                }
            }
            guard count >= 0 else { return .unreadable(reason: "cannot read file") }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<Int(count)])
        }
        return data.count > limit ? .tooLarge : .contents(data)
    }

    private static func retrying(_ body: () -> Int32) -> Int32 {
        while true {
            let result = body()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}

/// `read(2)`, named apart from ``SourceFileReader/read(_:followingLinks:limit:)``.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
#endif
