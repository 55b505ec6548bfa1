#if TestServers
import Foundation
import Testing

/// The DocC "Getting started" articles show the README's code, which the README tests compile
/// and run: an article that drifts from it fails here.
@Suite("Documentation")
struct DocumentationTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources").standardizedFileURL

    @Test(arguments: [
        ("## Quick start", "SecureNetworking/SecureNetworking.docc/GettingStarted.md"),
        ("ServerTrust can also be used on its own", "ServerTrust/ServerTrust.docc/GettingStarted.md"),
    ])
    func gettingStartedShowsTheREADMEsCode(heading: String, article: String) throws {
        try ReadmeQuickStartTests.expectREADMEExample(
            under: heading,
            in: Self.sources.appendingPathComponent(article).path
        )
    }
}
#endif
