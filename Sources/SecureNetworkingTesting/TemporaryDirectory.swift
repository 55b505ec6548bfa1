public import Foundation

/// A fresh directory under the system temporary directory, removed with everything in it when
/// the last reference goes away.
///
/// ```swift
/// let directory = try TemporaryDirectory()
/// let path = try directory.write("chain.pem", Array(pem.utf8))
/// ```
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates the directory, named `prefix-` and a UUID.
    public init(prefix: String = "securenet") throws {
        self.url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: self.url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: self.url) }

    /// Writes `bytes` to the file `name` in the directory and returns its path.
    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = self.url.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file.path
    }
}
