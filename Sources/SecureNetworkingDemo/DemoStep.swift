#if Tools
/// One step of the demo: what it shows, whether it behaved as it should, and why.
public struct DemoStep: Sendable, CustomStringConvertible {
    /// A short title ("pinned TLS: profile fetched").
    public let title: String
    /// Whether the step behaved as it should.
    public let passed: Bool
    /// A one-line explanation of what happened.
    public let detail: String

    /// Creates a step result.
    public init(title: String, passed: Bool, detail: String) {
        self.title = title
        self.passed = passed
        self.detail = detail
    }

    /// `✓ title — detail` or `✗ title — detail`.
    public var description: String {
        "\(self.passed ? "✓" : "✗") \(self.title) — \(self.detail)"
    }
}
#endif
