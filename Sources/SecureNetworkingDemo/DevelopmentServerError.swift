#if Tools
public import Foundation

/// Why ``DevelopmentServer`` (`securenet serve`) did not start on its folder.
///
/// Errors compare equal when their ``code`` is equal; the ``message`` names the files and what
/// to do. A refusal changes nothing in the folder: no key is ever overwritten.
public struct DevelopmentServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier of what went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case incompleteFolder, mismatchedFiles, unreadableFile, unwritableFile
        }

        fileprivate let base: Base

        /// The text form of the code, stable across releases.
        public var description: String { self.base.rawValue }

        /// Some of the files the folder keeps are there and others are missing: a folder written
        /// by an older `securenet serve` (which kept no CA key), or files removed by hand.
        public static let incompleteFolder = Code(base: .incompleteFolder)
        /// Files of the folder do not belong together: a key that is not its certificate's, a
        /// certificate that the folder's CA did not issue, a public update key that is not the
        /// private one's.
        public static let mismatchedFiles = Code(base: .mismatchedFiles)
        /// A file of the folder cannot be read, or does not hold what its name says.
        public static let unreadableFile = Code(base: .unreadableFile)
        /// A file cannot be written (the folder is not writable, or a file is in the way).
        public static let unwritableFile = Code(base: .unwritableFile)
    }

    /// What went wrong, as a stable code.
    public let code: Code
    /// What went wrong and what to do, for people; it holds paths, never a key.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(self.code): \(self.message)" }

    public static func == (lhs: DevelopmentServerError, rhs: DevelopmentServerError) -> Bool {
        lhs.code == rhs.code
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.code)
    }
}
#endif
