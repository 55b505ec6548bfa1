#if Tools
public import Foundation

/// Writes synthetic Swift projects for benchmarks and tests.
public enum SyntheticProject {
    /// The cleartext URL planted in every other file.
    public static let plantedURL =
        "http://api.shop-backend.io"  // securenet:ignore SN005 planted in synthetic trees, never requested

    /// Writes `files` small Swift files below `directory` (100 per subdirectory `ModuleN/`), creating
    /// directories as needed. Files with an even index contain exactly one cleartext URL literal
    /// (``plantedURL``, rule SN005); the others contain only clean code. So an audit of the tree finds
    /// exactly `(files + 1) / 2` SN005 findings and nothing else.
    ///
    /// - Returns: The number of files that contain the planted URL.
    @discardableResult
    public static func write(files: Int, to directory: URL) throws -> Int {
        let manager = FileManager.default
        var planted = 0
        for index in 0..<files {
            let module = directory.appendingPathComponent("Module\(index / 100)", isDirectory: true)
            if index % 100 == 0 { try manager.createDirectory(at: module, withIntermediateDirectories: true) }
            let hasURL = index % 2 == 0
            if hasURL { planted += 1 }
            let endpoint = hasURL ? plantedURL : "https://api.example.com"
            let source = """
                import Foundation

                /// Synthetic type number \(index).
                struct Model\(index): Codable, Equatable {
                    var identifier: Int
                    var title: String
                    var tags: [String] = []

                    static let endpoint = URL(string: "\(endpoint)/items/\(index)")!

                    func describe() -> String {
                        let joined = tags.joined(separator: ", ")
                        return "\\(identifier): \\(title) [\\(joined)]"
                    }

                    mutating func rename(to newTitle: String) {
                        guard !newTitle.isEmpty else { return }
                        title = newTitle
                    }
                }

                enum Helper\(index) {
                    static func total(_ values: [Int]) -> Int {
                        values.reduce(0, +) * \(index % 7 + 1)
                    }
                }

                """
            let file = module.appendingPathComponent("Model\(index).swift")
            try Data(source.utf8).write(to: file)
        }
        return planted
    }
}
#endif
