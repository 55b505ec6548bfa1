import ArgumentParser
import Foundation
import SecureNetworkingTesting

/// One command: writes a TestPKI, starts the server process, runs every workload for every
/// client in rotated order for `rounds` rounds (one client process per run), and writes RESULTS.md.
struct RunAll: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run every workload and write RESULTS.md."
    )

    @Option(help: "Rounds per workload (the median is reported).")
    var rounds: Int = 5
    @Option(help: "Where to write the results.")
    var output: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("RESULTS.md").path
    @Option(help: "Scale every request count by this factor (for a quick look; RESULTS.md says so).")
    var scale: Double = 1
    @Option(help: "Only the workloads whose id contains this text.")
    var only: String?

    func run() async throws {
        let pki = try PKIFolder.make()
        defer { try? FileManager.default.removeItem(at: pki) }
        let server = try ServerProcess(pki: pki)
        defer { server.stop() }
        log("server on 127.0.0.1:\(server.port), \(self.rounds) rounds")

        var specs = RunSpec.all(scale: self.scale)
        if let only { specs = specs.filter { $0.id.contains(only) } }
        var results: [String: [Measured]] = [:]
        for round in 0..<self.rounds {
            for spec in specs {
                let order = spec.clients.rotated(by: round)
                for kind in order {
                    if spec.resetsTokens { try server.command("tokens access-0 refresh-0") }
                    let before = try server.stats()
                    let result = try runClient(
                        kind: kind,
                        spec: spec,
                        port: spec.http2 ? server.http2Port : server.port,
                        pki: pki
                    )
                    let after = try server.stats()
                    let measured = Measured(
                        result: result,
                        handshakes: after.handshakes - before.handshakes,
                        tokenCalls: after.tokenCalls - before.tokenCalls
                    )
                    results[spec.id + "/" + kind.rawValue, default: []].append(measured)
                    log(
                        "round \(round + 1) \(spec.id) \(kind.rawValue): \(String(format: "%.0f", result.requestsPerSecond)) req/s, "
                            + "\(String(format: "%.1f", result.cpuMicrosecondsPerRequest)) µs CPU/req, \(measured.handshakes) handshakes"
                            + (result.failures > 0 ? ", \(result.failures) FAILURES" : "")
                    )
                }
            }
        }
        let report = Report(specs: specs, results: results, rounds: self.rounds, scale: self.scale)
        try report.markdown().write(toFile: self.output, atomically: true, encoding: .utf8)
        log("wrote \(self.output)")
    }
}

func log(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

extension Array {
    func rotated(by count: Int) -> [Element] {
        guard !self.isEmpty else { return self }
        let shift = count % self.count
        return Array(self[shift...] + self[..<shift])
    }
}

/// One row of the results: a workload at a concurrency, for some clients.
struct RunSpec: Sendable {
    let id: String
    let title: String
    let workload: String
    let concurrency: Int
    let requests: Int?
    let clients: [ClientKind]
    var resetsTokens = false
    /// Against the server's `h2` port, AsyncHTTPClient with HTTP/2 enabled.
    var http2 = false

    static func all(scale: Double) -> [RunSpec] {
        func n(_ value: Int) -> Int { max(1, Int(Double(value) * scale)) }
        let everyone = ClientKind.allCases
        // The wire limit keeps its connections alive; a new connection per request has no wire row.
        let keepAlive = everyone
        // A new connection per request: the handshake dominates; where the task runs does not.
        let fresh = everyone.filter { $0 != .wire && $0 != .limitOnPool }
        return [
            RunSpec(
                id: "keepalive-c1",
                title: "Keep-alive, 10,000 GETs of 1 KiB, concurrency 1",
                workload: "keepalive",
                concurrency: 1,
                requests: n(10_000),
                clients: keepAlive
            ),
            RunSpec(
                id: "keepalive-c32",
                title: "Keep-alive, 10,000 GETs of 1 KiB, concurrency 32",
                workload: "keepalive",
                concurrency: 32,
                requests: n(10_000),
                clients: keepAlive
            ),
            RunSpec(
                id: "newconn-c1",
                title: "New connection per request, 500 GETs, concurrency 1",
                workload: "newconn",
                concurrency: 1,
                requests: n(500),
                clients: fresh
            ),
            RunSpec(
                id: "newconn-c8",
                title: "New connection per request, 500 GETs, concurrency 8",
                workload: "newconn",
                concurrency: 8,
                requests: n(500),
                clients: fresh
            ),
            RunSpec(
                id: "large-c8",
                title: "Large bodies, 1,000 GETs of 100 KiB, concurrency 8",
                workload: "large",
                concurrency: 8,
                requests: n(1_000),
                clients: keepAlive
            ),
            RunSpec(
                id: "h2-keepalive-c1",
                title: "HTTP/2, 10,000 GETs of 1 KiB over one connection, concurrency 1",
                workload: "keepalive",
                concurrency: 1,
                requests: n(10_000),
                clients: [.project, .projectOnPool, .asyncHTTPClient, .limit, .limitOnPool],
                http2: true
            ),
            RunSpec(
                id: "h2-keepalive-c32",
                title: "HTTP/2, 10,000 GETs of 1 KiB over one connection, concurrency 32",
                workload: "keepalive",
                concurrency: 32,
                requests: n(10_000),
                clients: [.project, .projectOnPool, .asyncHTTPClient, .limit, .limitOnPool],
                http2: true
            ),
            RunSpec(
                id: "h2-keepalive-c128",
                title: "HTTP/2, 10,000 GETs of 1 KiB over one connection, concurrency 128",
                workload: "keepalive",
                concurrency: 128,
                requests: n(10_000),
                clients: [.project, .projectOnPool, .asyncHTTPClient, .limit, .limitOnPool],
                http2: true
            ),
            RunSpec(
                id: "h2-large-c8",
                title: "HTTP/2, 1,000 GETs of 100 KiB over one connection, concurrency 8",
                workload: "large",
                concurrency: 8,
                requests: n(1_000),
                clients: [.project, .projectOnPool, .asyncHTTPClient, .limit, .limitOnPool],
                http2: true
            ),
            RunSpec(
                id: "tokens-expired",
                title: "Token storm: 1,000 concurrent requests, access token expired locally",
                workload: "tokens-expired",
                concurrency: 1_000,
                requests: n(1_000),
                clients: [.project],
                resetsTokens: true
            ),
            RunSpec(
                id: "tokens-rejected",
                title: "Token storm: 1,000 concurrent requests, access token rejected by the server (401)",
                workload: "tokens-rejected",
                concurrency: 1_000,
                requests: n(1_000),
                clients: [.project],
                resetsTokens: true
            ),
            RunSpec(
                id: "trust",
                title: "ServerTrust evaluation in process",
                workload: "trust",
                concurrency: 1,
                requests: n(20_000),
                clients: [.project]
            ),
            RunSpec(
                id: "store",
                title: "EncryptedFileStore, 1,000 items",
                workload: "store",
                concurrency: 1,
                requests: n(1_000),
                clients: [.project]
            ),
        ]
    }
}

struct Measured: Sendable {
    let result: RunResult
    let handshakes: Int
    let tokenCalls: Int
}

enum PKIFolder {
    /// A fresh TestPKI (valid now): server chain and key for the server, root and pins
    /// (intermediate, root as backup) for the clients.
    static func make() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "securenet-bench-pki-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let pki = try TestPKI(referenceTime: Date())
        let chain = try pki.validChain()
        try chain.pem.write(to: directory.appendingPathComponent("server-chain.pem"), atomically: true, encoding: .utf8)
        try chain.leafIdentity.privateKeyPEM.write(
            to: directory.appendingPathComponent("server-key.pem"),
            atomically: true,
            encoding: .utf8
        )
        try pki.root.pem.write(to: directory.appendingPathComponent("root.pem"), atomically: true, encoding: .utf8)
        let pins = [pki.intermediate.pin, pki.root.pin].map { "\($0)" }.joined(separator: "\n")
        try pins.write(to: directory.appendingPathComponent("pins.txt"), atomically: true, encoding: .utf8)
        return directory
    }
}

var selfExecutable: URL {
    Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
}

func runClient(kind: ClientKind, spec: RunSpec, port: Int, pki: URL) throws -> RunResult {
    let process = Process()
    process.executableURL = selfExecutable
    var arguments = [
        "client", "--kind", kind.rawValue, "--workload", spec.workload, "--concurrency", String(spec.concurrency),
        "--port", String(port), "--pki", pki.path,
    ]
    if let requests = spec.requests { arguments += ["--requests", String(requests)] }
    if spec.http2 { arguments.append("--http2") }
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw BenchError("client \(kind.rawValue) \(spec.id) exited with \(process.terminationStatus)")
    }
    guard let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last else {
        throw BenchError("client \(kind.rawValue) \(spec.id) printed nothing")
    }
    return try JSONDecoder().decode(RunResult.self, from: Data(line.utf8))
}

/// The server process, driven over its stdin and stdout.
final class ServerProcess {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()
    private(set) var port = 0
    private(set) var http2Port = 0

    init(pki: URL) throws {
        self.process.executableURL = selfExecutable
        self.process.arguments = ["server", "--pki", pki.path]
        self.process.standardInput = self.input
        self.process.standardOutput = self.output
        try self.process.run()
        let words = self.readLine()?.split(separator: " ") ?? []
        guard words.count == 3, words[0] == "READY", let port = Int(words[1]), let http2Port = Int(words[2]) else {
            throw BenchError("the server did not start")
        }
        self.port = port
        self.http2Port = http2Port
    }

    private func readLine() -> String? {
        while true {
            if let newline = self.buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: self.buffer[..<newline], as: UTF8.self)
                self.buffer.removeSubrange(...newline)
                return line
            }
            let more = self.output.fileHandleForReading.availableData
            if more.isEmpty { return nil }
            self.buffer.append(more)
        }
    }

    @discardableResult
    func command(_ text: String) throws -> String {
        self.input.fileHandleForWriting.write(Data((text + "\n").utf8))
        guard let answer = self.readLine() else { throw BenchError("the server stopped") }
        if answer.hasPrefix("ERROR") { throw BenchError("server: \(answer)") }
        return answer
    }

    func stats() throws -> ServerCounters {
        try JSONDecoder().decode(ServerCounters.self, from: Data(try self.command("stats").utf8))
    }

    func stop() {
        try? self.input.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
        try? self.input.fileHandleForWriting.close()
        self.process.waitUntilExit()
    }
}
