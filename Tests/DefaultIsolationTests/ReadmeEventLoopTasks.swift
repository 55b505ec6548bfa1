// swift-format-ignore-file
// The README's example under "The layers underneath", verbatim: DefaultIsolationTests compares the two.
import HTTPTypes
import SecureHTTP

/// Fetches every path concurrently, each task on one of the transport's event loops.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
func fetchAll(_ paths: [String], authority: String, with transport: NIOHTTPTransport) async throws -> [String: Int] {
    try await withThrowingTaskGroup(of: (String, Int).self) { group in
        for path in paths {
            group.addTask(executorPreference: transport.makeTaskExecutor()) {
                let response = try await transport.send(HTTPRequest(method: .get, scheme: "https", authority: authority, path: path))
                return (path, response.body.count)  // keep work here short: it runs on the event loop
            }
        }
        var sizes: [String: Int] = [:]
        for try await (path, size) in group { sizes[path] = size }
        return sizes
    }
}
