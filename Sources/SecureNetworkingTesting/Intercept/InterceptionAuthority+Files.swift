#if TestServers
import Foundation
import SecureNetworkingInternal
import ServerTrust

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The intercept CA's folder and key must be private: the checks of EncryptedFileStore's key
/// file (owned by this user, no access for group or others, a regular file), applied to the
/// folder and the key, and files created without a moment in which others could read them.
enum PrivateFile {
    /// The most bytes read from the CA's files (a PEM certificate or key is a few kilobytes).
    static let maximumSize = 1 << 20

    static func failure(_ message: String) -> ServerTrustError { ServerTrustError(.unreadableFile, message) }

    /// Refuses `info` unless it belongs to `owner` and gives group and others no access.
    static func checkPrivate(_ info: stat, _ what: String, owner: uid_t, private mode: String) throws(ServerTrustError)
    {
        guard info.st_uid == owner else {
            throw Self.failure("\(what) belongs to another user; use a folder of your own")
        }
        let permissions = info.st_mode & mode_t(0o777)
        guard permissions & mode_t(0o077) == 0 else {
            throw Self.failure(
                "\(what) has mode 0\(String(permissions, radix: 8)); group and others must have no access (chmod \(mode))"
            )
        }
    }

    /// Refuses the folder at `path` unless it is a directory owned by `owner` with mode 0700 or
    /// stricter.
    static func checkDirectory(_ path: String, owner: uid_t = geteuid()) throws(ServerTrustError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw Self.failure("the intercept CA folder \(path) cannot be read") }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw Self.failure("the intercept CA folder \(path) is not a folder")
        }
        try Self.checkPrivate(info, "the intercept CA folder \(path)", owner: owner, private: "700")
    }

    /// The CA's key: a regular file, not reached through a symbolic link, owned by `owner`,
    /// mode 0600 or stricter.
    static func readKey(_ path: String, owner: uid_t = geteuid()) throws(ServerTrustError) -> Data {
        try Self.read(path, what: "the intercept CA key \(path)", privateTo: owner)
    }

    /// A file of the CA's folder, not reached through a symbolic link; when `owner` is given it
    /// must also be private to that user.
    static func read(_ path: String, what: String, privateTo owner: uid_t? = nil) throws(ServerTrustError) -> Data {
        let fd = Self.retrying { open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) }
        guard fd >= 0 else {
            throw Self.failure(errno == ELOOP ? "\(what) is a symbolic link" : "\(what) cannot be read")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw Self.failure("\(what) is not a regular file")
        }
        if let owner { try Self.checkPrivate(info, what, owner: owner, private: "600") }
        guard info.st_size <= Self.maximumSize else { throw Self.failure("\(what) is too large") }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while data.count <= Self.maximumSize {
            let count = buffer.withUnsafeMutableBytes { raw in
                Self.retrying { Int32(clamping: systemRead(fd, raw.baseAddress, raw.count)) }
            }
            guard count >= 0 else { throw Self.failure("\(what) cannot be read") }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<Int(count)])
        }
        guard data.count <= Self.maximumSize else { throw Self.failure("\(what) is too large") }
        return data
    }

    /// Creates the folder at `path` with mode 0700 (its missing parents as `mkdir -p` would); an
    /// existing folder is left as it is, for ``checkDirectory(_:owner:)`` to judge.
    static func createDirectory(_ path: String) throws(ServerTrustError) {
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) {
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw Self.failure("the folder \(parent) cannot be created")
            }
        }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw Self.failure("the intercept CA folder \(path) cannot be created")
        }
    }

    /// Creates `path` with `mode` from its first byte and writes `contents`. A private file
    /// (mode 0600) must be new: ``PrivateFileWriter``, the package's one way to create a file
    /// that holds a secret. A public one may replace a regular file. Neither is written through
    /// a symbolic link.
    static func create(_ path: String, _ contents: Data, mode: mode_t) throws(ServerTrustError) {
        let isPrivate = mode & mode_t(0o077) == 0
        if isPrivate {
            do {
                return try PrivateFileWriter.create(path, contents: contents, mode: Int(mode))
            } catch {
                switch error {
                case .exists, .symbolicLink:
                    throw Self.failure("\(path) already exists; remove it or choose another folder")
                case .cannotCreate: throw Self.failure("\(path) cannot be created")
                case .cannotWrite: throw Self.failure("\(path) cannot be written")
                }
            }
        }
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_TRUNC
        let fd = Self.retrying { open(path, flags, mode) }
        guard fd >= 0 else {
            switch errno {
            case EEXIST: throw Self.failure("\(path) already exists; remove it or choose another folder")
            case ELOOP: throw Self.failure("\(path) is a symbolic link")
            default: throw Self.failure("\(path) cannot be created")
            }
        }
        defer { close(fd) }
        // The umask may only have taken bits away; set the mode exactly.
        guard fchmod(fd, mode) == 0 else { throw Self.failure("\(path) cannot be created") }
        let written = contents.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let count = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        guard written else { throw Self.failure("\(path) cannot be written") }
    }

    private static func retrying(_ body: () -> Int32) -> Int32 {
        while true {
            let result = body()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}

/// `read(2)`, named apart from ``PrivateFile/read(_:what:privateTo:)``.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
#endif
