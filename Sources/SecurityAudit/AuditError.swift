#if Tools
/// An error that stops an audit before any file is examined.
///
/// Problems with individual files inside the audited tree never throw: they are reported in
/// ``AuditReport/unreadableFiles`` instead.
public struct AuditError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable identifier of what went wrong (a struct, as every error code of the package is,
    /// so that a code added later does not break an exhaustive `switch`).
    public struct Code: Hashable, Sendable, CustomStringConvertible, Codable {
        fileprivate enum Base: String, Hashable, Sendable, Codable {
            case pathNotFound, pathUnreadable
        }

        fileprivate let base: Base

        /// The text form of the code, stable across releases.
        public var description: String { self.base.rawValue }

        /// The path to audit does not exist.
        public static let pathNotFound = Code(base: .pathNotFound)
        /// The path exists but cannot be read (for example, missing permissions).
        public static let pathUnreadable = Code(base: .pathUnreadable)

        fileprivate init(base: Base) {
            self.base = base
        }

        /// Decodes the code's text form (``description``).
        public init(from decoder: any Decoder) throws {
            self.base = try Base(from: decoder)
        }

        /// Encodes the code's text form (``description``).
        public func encode(to encoder: any Encoder) throws {
            try self.base.encode(to: encoder)
        }
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
        switch code.base {
        case .pathNotFound: "no such file or directory: \(path)"
        case .pathUnreadable: "cannot read: \(path)"
        }
    }
}
#endif
