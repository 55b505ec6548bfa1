import Foundation
import Testing

/// The SwiftUI example that the README and the SecureSession article show is the file the Apple
/// type-check compiles (AppleInterfaceStubs/Checks/SecureSession/SessionScreens.swift).
@Suite("The session model's SwiftUI example")
struct SessionSwiftUIExampleTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func lines(_ text: some StringProtocol) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// The Swift code blocks of `file` (relative to the package root).
    static func codeBlocks(in file: String) throws -> [[String]] {
        let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
        var blocks: [[String]] = []
        var rest = text[...]
        while let start = rest.range(of: "```swift\n") {
            let end = try #require(rest.range(of: "```", range: start.upperBound..<rest.endIndex))
            blocks.append(Self.lines(rest[start.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return blocks
    }

    static var checked: [String] {
        get throws {
            let file = Self.root.appendingPathComponent("AppleInterfaceStubs/Checks/SecureSession/SessionScreens.swift")
            return Self.lines(try String(contentsOf: file, encoding: .utf8))
        }
    }

    static func contains(_ source: [String], _ block: [String]) -> Bool {
        source.joined(separator: "\n").contains(block.joined(separator: "\n"))
    }

    @Test func theREADMEShowsTheTypeCheckedScreens() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "### A session screen in SwiftUI"))
        let start = try #require(readme.range(of: "```swift\n", range: section.upperBound..<readme.endIndex))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let block = Self.lines(readme[start.upperBound..<end.lowerBound])
        #expect(block.count > 60)
        #expect(block.contains("struct LockedView: View {"))
        #expect(Self.contains(try Self.checked, block))
    }

    @Test func theArticleShowsTheTypeCheckedSetUpAndScreens() throws {
        let blocks = try Self.codeBlocks(in: "Sources/SecureSession/SecureSession.docc/TheSessionInSwiftUI.md")
        #expect(blocks.count == 2)
        for block in blocks {
            #expect(block.count > 20)
            #expect(Self.contains(try Self.checked, block), "\(block.first ?? "")")
        }
    }
}
