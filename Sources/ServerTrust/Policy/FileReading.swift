import Foundation
import SecureNetworkingInternal

/// The largest file ``readFile(_:what:limit:)`` reads by default: 8 MiB, far above any policy
/// file, Info.plist or CT log list, while a wrong path to a huge file fails fast.
let maximumInputFileSize = 8 << 20

/// The contents of the regular file at `path`, at most `limit` bytes. A FIFO, a device (such as
/// `/dev/zero`), a socket or a directory is refused before a byte is read, and a FIFO is opened
/// without waiting for a writer (``RegularFileReader``).
/// - Throws: ``ServerTrustError/Code/unreadableFile`` naming `what`, the absolute path and why.
func readFile(_ path: String, what: String, limit: Int = maximumInputFileSize) throws(ServerTrustError) -> Data {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    do {
        return try RegularFileReader.read(url.path, limit: limit)
    } catch {
        throw FileReadFailure.error(what, url, FileReadFailure.reason(error, url))
    }
}

/// Why a file cannot be read, in the words a person fixes it with, and the path as it was
/// resolved (absolute: a relative path starts from the current directory), escaped so that a
/// file name cannot break the line it is printed on.
enum FileReadFailure {
    /// The ``ServerTrustError/Code/unreadableFile`` error for `what` at `url`.
    static func error(_ what: String, _ url: URL, _ reason: String) -> ServerTrustError {
        ServerTrustError(.unreadableFile, "cannot read \(what) \(url.path.quotedForMessage): \(reason)")
    }

    /// Why `url` was not read, from the reader's failure.
    static func reason(_ failure: RegularFileReader.Failure, _ url: URL) -> String {
        switch failure {
        case .notRegularFile(kind: "a directory"): return "it is a directory, not a file"
        case .notRegularFile, .tooLarge, .symbolicLink: return failure.reason
        case .missing, .permissionDenied, .failed: return Self.reason(url)
        }
    }

    /// Why `url` could not be read (after a failed open or read).
    static func reason(_ url: URL) -> String {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            if (try? manager.destinationOfSymbolicLink(atPath: url.path)) != nil {
                return "no such file (a symbolic link to a file that does not exist)"
            }
            var parent = url.deletingLastPathComponent()
            while parent.path != "/", !manager.fileExists(atPath: parent.path) {
                parent = parent.deletingLastPathComponent()
            }
            if manager.fileExists(atPath: parent.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                return "no such file (\(parent.path.quotedForMessage) is a file, not a directory)"
            }
            return "no such file"
        }
        if isDirectory.boolValue { return "it is a directory, not a file" }
        if !manager.isReadableFile(atPath: url.path) { return "permission denied" }
        return "the read failed"
    }
}

extension String {
    /// The text in double quotes, as a Swift string literal writes it, escaped by
    /// ``OutsideText/quoted(_:)``: a file name prints as one honest line.
    var quotedForMessage: String { OutsideText.quoted(self) }
}
