#if Tools
import Foundation
import Testing

/// `securenet serve --json` and `securenet demo --json`, as built binaries; `securenet request`
/// signs in at the served reference server with the files serve wrote.
@Suite("securenet serve and demo")
struct ServeAndDemoCommandTests {
    typealias TemporaryDirectory = CLI.TemporaryDirectory

    @Test func demoJSONListsEveryStepPassed() async throws {
        let result = try await CLI.run(
            try CLI.securenet(),
            ["--json"],
            subcommand: "demo"
        )
        #expect(result.status == 0, "\(result.error)")
        let steps = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        #expect(steps.count == 19)
        #expect(steps.last?["title"] as? String == "session model: the refresh token dies at the server")
        #expect(steps.allSatisfy { $0["passed"] as? Bool == true })
        #expect(steps.first?["title"] as? String == "policy refuses plain http")
    }

    @Test func serveJSONThenASignInThroughRequestWithTokensRedacted() async throws {
        let directory = try TemporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try CLI.securenet())
        process.arguments = ["serve", "--json", "--directory", directory.url.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        // The summary is one line, written before the server waits for Ctrl-C; EOF if it failed.
        // Read on a thread of its own, not one of the cooperative pool's few.
        let reader = output.fileHandleForReading
        let line: Data = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var line = Data()
                while !line.contains(0x0A) {
                    let chunk = reader.availableData
                    if chunk.isEmpty { break }
                    line += chunk
                }
                continuation.resume(returning: line)
            }
        }
        let summary = try #require(
            try JSONSerialization.jsonObject(with: line) as? [String: Any],
            "\(String(decoding: line, as: UTF8.self))"
        )
        let url = try #require(summary["url"] as? String)
        let email = try #require(summary["email"] as? String)
        let password = try #require(summary["password"] as? String)
        #expect(url.hasPrefix("https://localhost:"))
        #expect((summary["pins"] as? [String: String])?.keys.sorted() == ["intermediate", "leaf", "root"])

        let login = try await CLI.run(
            try CLI.securenet(),
            [
                url + "/auth/login", "--policy", try #require(summary["policyFile"] as? String),
                "--ca", try #require(summary["caFile"] as? String), "-H", "Content-Type: application/json",
                "--data", #"{"email":"\#(email)","password":"\#(password)"}"#, "--json",
            ],
            subcommand: "request"
        )
        #expect(login.status == 0, "\(login.error)")
        let exchange = try #require(try JSONSerialization.jsonObject(with: Data(login.output.utf8)) as? [String: Any])
        let response = try #require(exchange["response"] as? [String: Any])
        #expect(response["status"] as? Int == 200)
        let body = try #require(response["body"] as? String)
        #expect(body.contains(#""access_token":"<redacted>""#), "\(body)")
        #expect(body.contains(#""refresh_token":"<redacted>""#))
        #expect(body.contains(#""token_type":"Bearer""#))
        #expect(!login.output.contains(password))
        #expect(!login.output.contains("eyJ"), "a JWT in the output")
        #expect((exchange["trust"] as? [String: Any])?["pins"] as? String == "matched (localhost, 2 pins)")

        // The signed pin-set update serve wrote verifies with the key it wrote, against the
        // policy file's pins; the private key file is 0600.
        let keyFile = try #require(summary["pinUpdateKeyFile"] as? String)
        let mode = try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        #expect((summary["pinSetUpdateURL"] as? String) == url + "/.well-known/securenet-pins.json")
        let verify = try await CLI.run(
            try CLI.securenet(),
            [
                "verify", try #require(summary["pinSetUpdateFile"] as? String),
                "--key", try #require(summary["pinUpdatePublicKeyFile"] as? String),
                "--audience", "securenet-dev",
                "--policy", try #require(summary["policyFile"] as? String),
            ]
        )
        #expect(verify.status == 0, "\(verify.error)")
        #expect(verify.output.contains("verified: version 1"))
        #expect(verify.output.contains("localhost:"))
    }
}
#endif
