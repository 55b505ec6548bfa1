/// An error that stops an audit before any file is examined.
///
/// Problems with individual files inside the audited tree never throw: they are reported in
/// ``AuditReport/unreadableFiles`` instead.
public struct AuditError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Equatable, Codable {
        /// The path to audit does not exist.
        case pathNotFound
        /// The path exists but cannot be read (for example, missing permissions).
        case pathUnreadable
    }

    /// What went wrong.
    public let code: Code
    /// The path that was given to the auditor.
    public let path: String

    /// Creates an error for `path`.
    public init(code: Code, path: String) {
        self.code = code
        self.path = path
    }

    /// A one-line, human-readable explanation.
    public var description: String {
        switch code {
        case .pathNotFound: "no such file or directory: \(path)"
        case .pathUnreadable: "cannot read: \(path)"
        }
    }
}
