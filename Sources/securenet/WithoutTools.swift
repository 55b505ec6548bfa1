#if !Tools
import Foundation

/// What `securenet` says when it was built without the `Tools` trait: the commands and their
/// dependencies (swift-argument-parser, swift-syntax, Hummingbird) are only compiled with it.
@main
enum SecurenetWithoutTools {
    static func main() {
        FileHandle.standardError.write(
            Data("securenet was built without its tools: run it as `swift run --traits Tools securenet`\n".utf8)
        )
        exit(64)
    }
}
#endif
