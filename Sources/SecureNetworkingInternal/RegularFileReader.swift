package import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// Reads a file that came from outside (a policy file, a key, a document, an audited source
/// file), the one way every module does it: opened with `O_NONBLOCK` (a FIFO returns at once
/// instead of waiting for a writer), required to be a regular file by `fstat` before a byte is
/// read (a FIFO, a device such as `/dev/zero`, a socket or a folder is refused), and never read
/// past a limit (a file that grows while it is read is cut off one byte past it and refused).
package enum RegularFileReader {
    /// Why a file was not read.
    package enum Failure: Error, Equatable, Sendable {
        /// No such file (`ENOENT`, `ENOTDIR`).
        case missing
        /// A symbolic link, and links were not to be followed.
        case symbolicLink
        /// No permission to open it.
        case permissionDenied
        /// Not a regular file: `kind` says what it is ("a directory", "a FIFO", "a character
        /// device", "a block device", "a socket").
        case notRegularFile(kind: String)
        /// Larger than the limit; not read past it.
        case tooLarge(limit: Int)
        /// Another failure of `open`, `fstat` or `read`.
        case failed(errno: Int32)

        /// The failure in a few words, for a message that names the file itself:
        /// `it is a FIFO, not a regular file`.
        package var reason: String {
            switch self {
            case .missing: "no such file"
            case .symbolicLink: "it is a symbolic link, not followed"
            case .permissionDenied: "permission denied"
            case .notRegularFile(let kind): "it is \(kind), not a regular file"
            case .tooLarge(let limit): "it is larger than \(limit) bytes; at most \(limit) are read"
            case .failed(let code): "the read failed (\(String(cString: strerror(code))))"
            }
        }
    }

    /// The contents of `path`, at most `limit` bytes.
    /// - Parameter followingLinks: false refuses a symbolic link as the last component
    ///   (`O_NOFOLLOW`).
    /// - Throws: ``Failure``.
    package static func read(_ path: String, followingLinks: Bool = true, limit: Int) throws(Failure) -> Data {
        // O_NONBLOCK: opening a FIFO must not wait for a writer (the fstat below refuses it).
        var flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK
        if !followingLinks { flags |= O_NOFOLLOW }
        let fd = Self.retrying { open(path, flags) }
        guard fd >= 0 else {
            switch errno {
            case ENOENT, ENOTDIR: throw .missing
            case ELOOP where !followingLinks: throw .symbolicLink
            case EACCES, EPERM: throw .permissionDenied
            case let code: throw .failed(errno: code)
            }
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw .failed(errno: errno) }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw .notRegularFile(kind: "a directory")
        case S_IFIFO: throw .notRegularFile(kind: "a FIFO")
        case S_IFCHR: throw .notRegularFile(kind: "a character device")
        case S_IFBLK: throw .notRegularFile(kind: "a block device")
        case S_IFSOCK: throw .notRegularFile(kind: "a socket")
        default: throw .notRegularFile(kind: "a file of another kind")
        }
        guard status.st_size <= limit else { throw .tooLarge(limit: limit) }
        // The size can change after fstat: read at most one byte past the limit.
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while data.count <= limit {
            let wanted = min(buffer.count, limit + 1 - data.count)
            let count = buffer.withUnsafeMutableBytes { raw in
                Self.retrying { Int32(clamping: systemRead(fd, raw.baseAddress, wanted)) }
            }
            guard count >= 0 else { throw .failed(errno: errno) }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<Int(count)])
        }
        guard data.count <= limit else { throw .tooLarge(limit: limit) }
        return data
    }

    private static func retrying(_ body: () -> Int32) -> Int32 {
        while true {
            let result = body()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}

/// `read(2)`, named apart from ``RegularFileReader/read(_:followingLinks:limit:)``.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
