// swift-format-ignore-file
// The README quotes this file's example verbatim (a test compares the two), so the file keeps the
// layout the README shows.
import Foundation
import HTTPTypes
import HTTPTypesFoundation
import SecureHTTP
import SecureNetworkingTesting
import ServerTrust
import Testing
import X509

// The README's transport example, verbatim (the test below checks the README still says exactly this).
/// Fetches the signed-in user's profile over a policy-checked, pinned TLS connection.
func fetchProfile(from api: URL, token: String, policyFile: String, companyRoot: Certificate) async throws -> Data {
    var policy = try TransportSecurityPolicy(contentsOfFile: policyFile)  // ATS-style keys and pinnedDomains
    policy.trustAnchors = .system(adding: [companyRoot])
    return try await withNIOHTTPTransport(configuration: HTTPTransportConfiguration(policy: policy)) { transport in
        var request = HTTPRequest(method: .get, url: api.appendingPathComponent("v1/me"))
        try request.headerFields.appendChecked(name: .authorization, value: "Bearer \(token)")  // CR/LF is refused
        let response = try await transport.send(request)  // SecureHTTPError: .serverTrustFailure (pinMismatch, expired, …), .policyViolation, …
        return response.body
    }
}

// The README's event-loop example, verbatim.
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

@Suite("README: transport example")
struct ReadmeTransportExampleTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md")

    /// The README's first Swift block after `marker`, without its imports, is in this file.
    private func expectREADMEShowsThisFilesCode(after marker: String) throws {
        let readme = try String(contentsOf: Self.readme, encoding: .utf8)
        let found = try #require(readme.range(of: marker))
        let start = try #require(readme.range(of: "```swift\n", range: found.upperBound..<readme.endIndex))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let body = readme[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .drop(while: { $0.hasPrefix("import") || $0.isEmpty })
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        #expect(body.count > 5)
        #expect(source.contains(body.joined(separator: "\n")))
    }

    @Test func theREADMEShowsThisFilesExample() throws {
        try self.expectREADMEShowsThisFilesCode(after: "The transport on its own")
    }

    @Test func theREADMEShowsTheEventLoopExample() throws {
        try self.expectREADMEShowsThisFilesCode(after: "A request loop on the transport's event loops")
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    @Test func theEventLoopExampleFetchesEveryPath() async throws {
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain()), handler: { .text($0.uri) }) { server in
            try await withTransport { transport in
                let paths = (0..<20).map { "/item/\($0)" }
                let sizes = try await fetchAll(paths, authority: "localhost:\(server.port)", with: transport)
                #expect(sizes == Dictionary(uniqueKeysWithValues: paths.map { ($0, $0.utf8.count) }))
            }
        }
    }

    @Test func theExampleFetchesFromThePinnedServerAndRefusesAnImpostor() async throws {
        let policyFile = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: policyFile) }
        let pins = "[\"\(Live.pki.root.pin)\", \"\(Live.pki.intermediate.pin)\"]"
        try Data(#"{"pinnedDomains": {"localhost": {"pins": \#(pins)}}}"#.utf8).write(to: policyFile)
        let handler: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { request in
            request.uri == "/v1/me" && request.header("Authorization") == "Bearer t0ken"
                ? .status(200, headers: [("Content-Type", "application/json")], body: Array(#"{"name":"Ada"}"#.utf8))
                : .status(401)
        }
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.validChain()), handler: handler) { server in
            let body = try await fetchProfile(
                from: server.baseURL, token: "t0ken", policyFile: policyFile.path, companyRoot: Live.pki.root.certificate
            )
            #expect(String(decoding: body, as: UTF8.self) == #"{"name":"Ada"}"#)
        }
        // A server whose chain the device trusts (its CA was added) but which the pins do not name.
        try await withLoopbackHTTPServer(Live.tls(try Live.pki.interceptionChain()), handler: handler) { server in
            await #expect {
                _ = try await fetchProfile(
                    from: server.baseURL, token: "t0ken", policyFile: policyFile.path,
                    companyRoot: Live.pki.interceptionCA.certificate
                )
            } throws: { ($0 as? SecureHTTPError)?.serverTrustError?.code == .pinMismatch }
            #expect(server.statistics.requests.isEmpty)
        }
    }
}
