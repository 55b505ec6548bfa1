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

/// Creates a file that holds a secret (a signing key, a CA key, a store key), the one way every
/// module does it: `open(O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC)` with the mode
/// from its first byte, the mode set exactly whatever the umask, the contents written in full and
/// synced.
///
/// Nothing already at the path is ever replaced or written through: a file, a folder or a
/// symbolic link (dangling or not) there is refused. There is no moment in which the file exists
/// with a wider mode, so no other user can open it and keep the descriptor (as they could a file
/// that `FileManager.createFile` writes 0666 and only then `chmod`s).
package enum PrivateFileWriter {
    /// Why a file was not created.
    package enum Failure: Error, Equatable, Sendable {
        /// Something is at the path already; it was left as it was.
        case exists
        /// A symbolic link is at the path; it was not followed, and left as it was.
        case symbolicLink
        /// The file could not be created (`errno`: a missing folder, no permission, …).
        case cannotCreate(errno: Int32)
        /// The file was created but could not be written or synced in full; it was removed.
        case cannotWrite(errno: Int32)

        /// The failure in a few words, for a message that names the path itself.
        package var reason: String {
            switch self {
            case .exists: "it exists; not overwritten"
            case .symbolicLink: "a symbolic link is there; not followed, not overwritten"
            case .cannotCreate(let code): "it cannot be created (\(String(cString: strerror(code))))"
            case .cannotWrite(let code): "it cannot be written (\(String(cString: strerror(code))))"
            }
        }
    }

    /// Creates `path` with `mode` (0600 unless told otherwise: a public companion, such as a
    /// public key, may ask for 0644) and writes `contents` to it.
    /// - Throws: ``Failure``; on ``Failure/cannotWrite(errno:)`` the partial file is removed.
    package static func create(_ path: String, contents: Data, mode: Int = 0o600) throws(Failure) {
        let mode = mode_t(mode & 0o777)
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
        let fd = Self.retrying { systemOpen(path, flags, mode) }
        guard fd >= 0 else {
            let code = errno
            if code == EEXIST || code == ELOOP {
                var info = stat()
                if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK { throw .symbolicLink }
                throw .exists
            }
            throw .cannotCreate(errno: code)
        }
        // The umask may only have taken bits away; set the mode exactly.
        var failure: Int32? = fchmod(fd, mode) == 0 ? nil : errno
        if failure == nil {
            failure = contents.withUnsafeBytes { raw -> Int32? in
                var offset = 0
                while offset < raw.count {
                    let count = write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if count < 0, errno == EINTR { continue }
                    guard count > 0 else { return count < 0 ? errno : EIO }
                    offset += count
                }
                return nil
            }
        }
        if failure == nil, Self.retrying({ fsync(fd) }) != 0 { failure = errno }
        close(fd)
        if let failure {
            unlink(path)
            throw .cannotWrite(errno: failure)
        }
    }

    private static func retrying(_ body: () -> Int32) -> Int32 {
        while true {
            let result = body()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}

/// `open(2)` with a mode, named apart from any member called `open`.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}
