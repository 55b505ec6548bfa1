import Foundation

/// The contents of the file at `path`.
/// - Throws: ``ServerTrustError/Code/unreadableFile`` naming `what`, the absolute path and why.
func readFile(_ path: String, what: String) throws(ServerTrustError) -> Data {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    if let reason = FileReadFailure.reasonBeforeReading(url) {
        throw FileReadFailure.error(what, url, reason)
    }
    do {
        return try Data(contentsOf: url)
    } catch {
        throw FileReadFailure.error(what, url, FileReadFailure.reason(url))
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

    /// A reason to refuse `url` before reading it: a directory (which some platforms read as
    /// empty data, so that the error would be about its contents instead).
    static func reasonBeforeReading(_ url: URL) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return nil }
        return isDirectory.boolValue ? "it is a directory, not a file" : nil
    }

    /// Why `url` could not be read (after a failed read).
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
    /// The text in double quotes, as a Swift string literal writes it: `"`, `\` and whatever
    /// could end the line, move the cursor or reorder what the reader sees (control characters,
    /// C1 controls, the line and paragraph separators, bidirectional overrides and isolates) are
    /// escaped (`\n`, `\u{1B}`, `\u{202E}`), so a file name prints as one honest line.
    var quotedForMessage: String {
        var quoted = "\""
        for scalar in self.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            default:
                switch scalar.value {
                case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
                    quoted += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                default:
                    quoted.unicodeScalars.append(scalar)
                }
            }
        }
        return quoted + "\""
    }
}
