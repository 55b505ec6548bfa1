#if Tools
import Foundation
import SecureNetworkingInternal

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

    /// Reads `path`; `followingLinks` only for the file the user named. The reading is
    /// ``RegularFileReader``'s, the rule every input of the package is read by.
    static func read(_ path: String, followingLinks: Bool, limit: Int = Self.maximumSize) -> Outcome {
        do {
            return .contents(try RegularFileReader.read(path, followingLinks: followingLinks, limit: limit))
        } catch {
            switch error {
            case .tooLarge: return .tooLarge
            case .symbolicLink: return .unreadable(reason: "a symbolic link, not followed")
            case .notRegularFile: return .unreadable(reason: "not a regular file")
            case .missing, .permissionDenied, .failed: return .unreadable(reason: "cannot read file")
            }
        }
    }
}
#endif
