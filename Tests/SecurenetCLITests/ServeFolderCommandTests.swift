#if Tools
import Foundation
import ServerTrust
import Testing

/// `securenet serve` on a folder it has served from before: the same CA, keys and pins, a signed
/// update published by writing the file, and a folder it cannot reuse refused and left alone.
@Suite("securenet serve: its folder")
struct ServeFolderCommandTests {
    typealias TemporaryDirectory = CLI.TemporaryDirectory

    /// Every file a run writes to a new folder.
    static let files = [
        "ca.pem", "client-ca-key.pem", "client-ca.pem", "client-key.pem", "client.pem", "intermediate-ca-key.pem",
        "intermediate-ca.pem", "pin-update-key.pem", "pin-update-key.pub.pem", "pins.signed.json", "policy.json",
        "server-chain.pem", "server-key.pem",
    ]
    static let keys = [
        "client-ca-key.pem", "client-key.pem", "intermediate-ca-key.pem", "pin-update-key.pem", "server-key.pem",
    ]

    /// The folder's files and their bytes.
    static func contents(_ directory: TemporaryDirectory) throws -> [String: Data] {
        var contents: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.url.path) {
            contents[name] = try Data(contentsOf: directory.url.appendingPathComponent(name))
        }
        return contents
    }

    @Test func twoRunsOnOneFolderKeepTheCAThePinsAndTheUpdateKey() async throws {
        let directory = try TemporaryDirectory()
        let first = try await ServeProcess.start(directory)
        let before = try Self.contents(directory)
        await first.stop()
        #expect(first.summary["reused"] as? Bool == false)
        #expect(Set(before.keys) == Set(Self.files))
        #expect((first.summary["writtenFiles"] as? [String])?.count == Self.files.count)
        for key in Self.keys {
            let path = directory.url.appendingPathComponent(key).path
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "\(key)")
        }

        let second = try await ServeProcess.start(directory)
        let after = try Self.contents(directory)
        await second.stop()
        #expect(second.summary["reused"] as? Bool == true)
        #expect(second.summary["writtenFiles"] as? [String] == [])
        #expect(second.pins == first.pins)
        #expect(after == before, "a reused folder is left as it is")

        // A leaf certificate that is gone is issued again for the same key: the pins stay. A
        // removed signed update stays removed: nothing is published.
        for name in ["server-chain.pem", "client.pem", "pins.signed.json"] {
            try FileManager.default.removeItem(at: directory.url.appendingPathComponent(name))
        }
        let third = try await ServeProcess.start(directory)
        let renewed = try Self.contents(directory)
        await third.stop()
        #expect(
            (third.summary["writtenFiles"] as? [String])?.map { URL(fileURLWithPath: $0).lastPathComponent }
                == ["server-chain.pem", "client.pem"]
        )
        #expect(third.pins == first.pins)
        #expect(renewed["server-chain.pem"] != before["server-chain.pem"])
        #expect(renewed["pins.signed.json"] == nil)
        #expect((third.summary["pinSetUpdate"] as? [String: Any])?["servedVersion"] is NSNull)
        for name in Self.files where !["server-chain.pem", "client.pem", "pins.signed.json"].contains(name) {
            #expect(renewed[name] == before[name], "\(name)")
        }
        // The client certificate issued again is for the kept key, by the kept client CA.
        let client = try #require(
            try CertificateFile(path: directory.url.appendingPathComponent("client.pem").path).entries.first
        )
        let oldBytes = try #require(before["client.pem"])
        let oldClient = try #require(try CertificateFile(bytes: Array(oldBytes)).entries.first)
        #expect(client.pin == oldClient.pin)
        #expect(client.certificate?.issuer == oldClient.certificate?.issuer)
        #expect(client.der != oldClient.der)
    }

    @Test func aVersion2SignedIntoTheFolderIsServedWhileAndAfterServing() async throws {
        let path = try CLI.securenet()
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("pins.signed.json")
        let served = try await ServeProcess.start(directory)
        do {
            let start = try #require(served.summary["pinSetUpdate"] as? [String: Any])
            #expect(start["servedVersion"] as? Int == 1)
            #expect(
                try await served.get(".well-known/securenet-pins.json") == String(contentsOf: file, encoding: .utf8)
            )

            let pins = try #require(served.pins)
            let sign = try await CLI.run(
                path,
                [
                    "sign", "--key", directory.url.appendingPathComponent("pin-update-key.pem").path, "--version", "2",
                    "--audience", "securenet-dev", "--ca-pins", "localhost=\(pins["intermediate"]!),\(pins["root"]!)",
                    "--out", file.path,
                ]
            )
            #expect(sign.status == 0, "\(sign.error)")
            // The server says when it serves the new file (a half-written one is not published).
            let event = try await served.nextEvent { $0["servedVersion"] as? Int == 2 }
            #expect(event["published"] as? Bool == true)
            #expect(event["problem"] is NSNull, "\(event)")
            #expect(
                try await served.get(".well-known/securenet-pins.json") == String(contentsOf: file, encoding: .utf8)
            )
        } catch {
            await served.stop()
            throw error
        }
        await served.stop()

        let again = try await ServeProcess.start(directory)
        do {
            let start = try #require(again.summary["pinSetUpdate"] as? [String: Any])
            #expect(start["servedVersion"] as? Int == 2)
            let body = try await again.get(".well-known/securenet-pins.json")
            #expect(body == (try String(contentsOf: file, encoding: .utf8)))
            let verify = try await CLI.run(
                path,
                [
                    "verify", file.path, "--key", directory.url.appendingPathComponent("pin-update-key.pub.pem").path,
                    "--audience", "securenet-dev", "--policy", directory.url.appendingPathComponent("policy.json").path,
                ]
            )
            #expect(verify.output.contains("verified: version 2"), "\(verify.error)")
        } catch {
            await again.stop()
            throw error
        }
        await again.stop()
    }

    @Test func aFolderOfAnOlderServeIsRefusedAndLeftAsItIs() async throws {
        // What securenet serve wrote before it kept its CA keys.
        let directory = try TemporaryDirectory()
        for name in [
            "ca.pem", "server-chain.pem", "client.pem", "client-key.pem", "policy.json", "pin-update-key.pem",
            "pin-update-key.pub.pem", "pins.signed.json",
        ] {
            try directory.write(name, Array("old \(name)\n".utf8))
        }
        let before = try Self.contents(directory)
        let result = try await CLI.run(
            try CLI.securenet(),
            ["--directory", directory.url.path, "--json"],
            subcommand: "serve"
        )
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.error.hasPrefix("securenet serve: incompleteFolder: "), "\(result.error)")
        #expect(
            result.error.contains(
                "intermediate-ca.pem, intermediate-ca-key.pem, server-key.pem, client-ca.pem, client-ca-key.pem are missing"
            ),
            "\(result.error)"
        )
        #expect(result.error.contains("older securenet serve"))
        #expect(try Self.contents(directory) == before)
    }

    @Test func filesThatDoNotBelongTogetherAreRefusedAndLeftAsTheyAre() async throws {
        let path = try CLI.securenet()
        let directory = try TemporaryDirectory()
        await (try await ServeProcess.start(directory)).stop()

        // Another update key's public half in place of the folder's.
        let other = try TemporaryDirectory()
        #expect(
            try await CLI.run(path, ["keygen", "--out", other.url.appendingPathComponent("k.pem").path]).status == 0
        )
        let publicKey = directory.url.appendingPathComponent("pin-update-key.pub.pem")
        try FileManager.default.removeItem(at: publicKey)
        try FileManager.default.copyItem(at: other.url.appendingPathComponent("k.pub.pem"), to: publicKey)
        let swapped = try Self.contents(directory)
        let refused = try await CLI.run(path, ["--directory", directory.url.path], subcommand: "serve")
        #expect(refused.status == 1)
        #expect(
            refused.error.contains(
                "mismatchedFiles: in \(directory.url.path), pin-update-key.pub.pem is not the public half of pin-update-key.pem"
            ),
            "\(refused.error)"
        )
        #expect(try Self.contents(directory) == swapped)

        // The client's key in place of the server's: the server's certificate is not for it.
        try FileManager.default.removeItem(at: publicKey)
        let serverKey = directory.url.appendingPathComponent("server-key.pem")
        try FileManager.default.removeItem(at: serverKey)
        try FileManager.default.copyItem(at: directory.url.appendingPathComponent("client-key.pem"), to: serverKey)
        let mixed = try Self.contents(directory)
        let refusedAgain = try await CLI.run(path, ["--directory", directory.url.path], subcommand: "serve")
        #expect(refusedAgain.status == 1)
        #expect(
            refusedAgain.error.contains("the certificate in server-chain.pem is not for the key in server-key.pem"),
            "\(refusedAgain.error)"
        )
        #expect(try Self.contents(directory) == mixed)
    }
}

/// A `securenet serve --json` child process: its summary, and the lines it prints after.
final class ServeProcess {
    let process: Process
    let directory: URL
    /// The first line: the summary.
    let summary: [String: Any]
    /// The later lines, one JSON object each.
    private var lines: AsyncStream<String>.Iterator

    var pins: [String: String]? { self.summary["pins"] as? [String: String] }

    private init(process: Process, directory: URL, summary: [String: Any], lines: AsyncStream<String>.Iterator) {
        self.process = process
        self.directory = directory
        self.summary = summary
        self.lines = lines
    }

    /// Starts serve on `directory` and waits for its summary.
    static func start(_ directory: CLI.TemporaryDirectory) async throws -> ServeProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try CLI.securenet())
        process.arguments = ["serve", "--json", "--directory", directory.url.path]
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Read on threads of their own, not the cooperative pool's few; the stream ends when
        // the process does.
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        let reader = output.fileHandleForReading
        Thread.detachNewThread {
            var buffer = Data()
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                buffer += chunk
                while let newline = buffer.firstIndex(of: 0x0A) {
                    continuation.yield(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer = Data(buffer[buffer.index(after: newline)...])
                }
            }
            continuation.finish()
        }
        var iterator = lines.makeAsyncIterator()
        guard let first = await iterator.next(),
            let summary = try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any]
        else {
            let errorReader = error.fileHandleForReading
            let message: Data = await withCheckedContinuation { finished in
                Thread.detachNewThread {
                    process.terminate()
                    finished.resume(returning: errorReader.readDataToEndOfFile())
                }
            }
            throw ServeFailure(
                description: "securenet serve printed no summary: \(String(decoding: message, as: UTF8.self))"
            )
        }
        return ServeProcess(process: process, directory: directory.url, summary: summary, lines: iterator)
    }

    /// The next printed object that `matches` accepts (the others are skipped).
    func nextEvent(_ matches: ([String: Any]) -> Bool) async throws -> [String: Any] {
        while let line = await self.lines.next() {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                continue
            }
            if matches(object) { return object }
        }
        throw ServeFailure(description: "securenet serve ended before the event")
    }

    /// The body of `GET path` through `securenet request`, as served, with the folder's policy
    /// and CA.
    func get(_ path: String) async throws -> String {
        let url = try #require(self.summary["url"] as? String)
        let result = try await CLI.run(
            try CLI.securenet(),
            [
                url + "/" + path, "--policy", self.directory.appendingPathComponent("policy.json").path, "--ca",
                self.directory.appendingPathComponent("ca.pem").path,
            ],
            subcommand: "request"
        )
        #expect(result.status == 0, "\(result.error)")
        return result.output
    }

    /// Stops the process (SIGTERM) and waits for it, off the cooperative pool.
    func stop() async {
        let process = self.process
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                process.terminate()
                process.waitUntilExit()
                continuation.resume()
            }
        }
    }

    struct ServeFailure: Error, CustomStringConvertible {
        let description: String
    }
}
#endif
