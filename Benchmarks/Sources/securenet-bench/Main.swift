import ArgumentParser
import Foundation

@main
struct SecureNetBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "securenet-bench",
        abstract:
            "Benchmarks SecureNetworking against AsyncHTTPClient and two bare-NIO limits (async and wire); writes Benchmarks/RESULTS.md.",
        subcommands: [
            RunAll.self, ServerCommand.self, ClientCommand.self, PKICommand.self, DPoPCommand.self, AuditCommand.self,
        ],
        defaultSubcommand: RunAll.self
    )
}

struct ServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract: "The benchmark server (started by `run`)."
    )

    @Option(help: "Folder holding server-chain.pem and server-key.pem.")
    var pki: String

    func run() async throws {
        try await BenchServer.run(pkiDirectory: URL(fileURLWithPath: self.pki))
    }
}

struct ClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client",
        abstract: "One client process running one workload (started by `run`)."
    )

    @Option(help: "project, project-pool, ahc, limit, limit-pool or wire (keep-alive workloads only).")
    var kind: String
    @Option(help: "keepalive, newconn, large, tokens-expired, tokens-rejected, trust or store.")
    var workload: String
    @Option var concurrency: Int = 1
    @Option(help: "Requests (or items, or evaluations); the workload's default when absent.")
    var requests: Int?
    @Option var port: Int = 0
    @Option(help: "Folder holding root.pem, server-chain.pem and pins.txt.")
    var pki: String
    @Flag(help: "Offer HTTP/2 (the project's default; AsyncHTTPClient's .automatic): use with the server's h2 port.")
    var http2 = false

    func run() async throws {
        guard let kind = ClientKind(rawValue: self.kind) else { throw ValidationError("unknown client \(self.kind)") }
        let directory = URL(fileURLWithPath: self.pki)
        let rootPEM = try String(contentsOf: directory.appendingPathComponent("root.pem"), encoding: .utf8)
        let pins = try String(contentsOf: directory.appendingPathComponent("pins.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let endpoint = ServerEndpoint(port: self.port, rootPEM: rootPEM, pins: pins)
        let result: RunResult
        switch self.workload {
        case "keepalive", "newconn", "large":
            let workload = try NetworkWorkload.named(
                self.workload,
                concurrency: self.concurrency,
                requests: self.requests
            )
            result = try await runNetworkWorkload(workload, kind: kind, endpoint: endpoint, http2: self.http2)
        case "tokens-expired", "tokens-rejected":
            result = try await runTokenStorm(
                endpoint: endpoint,
                requests: self.requests ?? 1_000,
                variant: String(self.workload.dropFirst("tokens-".count))
            )
        case "trust":
            let chainPEM = try String(contentsOf: directory.appendingPathComponent("server-chain.pem"), encoding: .utf8)
            result = try await runTrustEvaluation(
                endpoint: endpoint,
                chainPEM: chainPEM,
                iterations: self.requests ?? 20_000
            )
        case "store":
            result = try await runStore(items: self.requests ?? 1_000)
        default:
            throw ValidationError("unknown workload \(self.workload)")
        }
        var final = result
        let split = residentSplitKiB()
        final.extra["rssAnonKiB"] = Double(split.anonymous)
        final.extra["rssFileKiB"] = Double(split.file)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        print(String(decoding: try encoder.encode(final), as: UTF8.self))
    }
}

struct PKICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pki",
        abstract: "Write a fresh TestPKI folder (for running the server and a client by hand, e.g. under a profiler)."
    )

    func run() throws {
        print(try PKIFolder.make().path)
    }
}
