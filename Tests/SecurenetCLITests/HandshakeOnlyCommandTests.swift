#if Tools
import Dispatch
import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing
import X509

/// `securenet pins URL` needs only the TLS handshake: against `openssl s_server`, which speaks
/// no HTTP at all (and with `-www`, answers GET only), it prints the chain as soon as the
/// handshake is over, sends no HTTP, and closes with close_notify.
@Suite("securenet pins URL against any TLS server")
struct HandshakeOnlyCommandTests {
    typealias TemporaryDirectory = CLI.TemporaryDirectory

    /// The binary validates at the real clock: a PKI minted now.
    static let pki: TestPKI = {
        do { return try TestPKI(referenceTime: Date()) } catch { preconditionFailure("TestPKI: \(error)") }
    }()

    /// What one run of the command against one `openssl s_server` gave.
    struct Outcome {
        let status: Int32
        let output: String
        let error: String
        /// How long the command took.
        let elapsed: Duration
        /// Everything s_server printed (its log, and without `-www` the bytes it received).
        let server: String
    }

    /// Starts `openssl s_server -accept 127.0.0.1:0` (the kernel picks the port; s_server prints
    /// it as `ACCEPT 127.0.0.1:N`), serving `chain` for one connection (`-naccept 1`), runs
    /// `securenet SUBCOMMAND https://127.0.0.1:N/` on it, and returns what both printed. On a
    /// thread of its own (child processes are waited for); s_server is terminated on every path
    /// out.
    static func run(
        _ subcommand: String = "pins",
        _ chain: TestPKI.Chain,
        www: Bool,
        arguments: [String] = []
    ) async throws -> Outcome {
        let directory = try TemporaryDirectory()
        let leaf = try directory.write("leaf.pem", Array(chain.leafIdentity.pem.utf8))
        let key = try directory.write("key.pem", Array(chain.leafIdentity.privateKeyPEM.utf8))
        let intermediates = try directory.write(
            "chain.pem",
            Array(
                try chain.certificates.dropFirst().map { try $0.serializeAsPEM().pemString }.joined(separator: "\n")
                    .utf8
            )
        )
        let securenet = try CLI.securenet()
        let openssl = try #require(
            ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"].first(
                where: FileManager.default.isExecutableFile(atPath:)
            ),
            "openssl is not installed"
        )
        var serverArguments = [
            "s_server", "-accept", "127.0.0.1:0", "-cert", leaf, "-key", key, "-cert_chain", intermediates,
        ]
        serverArguments += ["-naccept", "1"]
        if www { serverArguments.append("-www") }
        let server = serverArguments
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        try Self.run(
                            openssl: openssl,
                            server,
                            securenet: securenet,
                            subcommand: subcommand,
                            arguments: arguments
                        )
                    }
                )
            }
        }
    }

    private static func run(
        openssl: String,
        _ serverArguments: [String],
        securenet: String,
        subcommand: String,
        arguments: [String]
    ) throws -> Outcome {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: openssl)
        server.arguments = serverArguments
        // s_server without -www relays its standard input to the client and ends the connection
        // at its end: an open pipe that nobody writes keeps it listening.
        let input = Pipe()
        let output = Pipe()
        server.standardInput = input
        server.standardOutput = output
        server.standardError = output
        let exited = DispatchSemaphore(value: 0)
        server.terminationHandler = { _ in exited.signal() }
        try server.run()
        defer {
            Self.kill(server)
            try? input.fileHandleForWriting.close()
        }
        // Read until s_server names its port (or ends: then the read finds end of file).
        var printed = Data()
        var port: Int?
        while port == nil {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed += chunk
            let text = String(decoding: printed, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT 127.0.0.1:") }) {
                port = Int(line.dropFirst("ACCEPT 127.0.0.1:".count))
            }
        }
        let listening = try #require(port, "s_server did not start: \(String(decoding: printed, as: UTF8.self))")

        let started = ContinuousClock.now
        let result = try CLI.blockingRun(
            securenet,
            ["https://127.0.0.1:\(listening)/"] + arguments,
            subcommand: subcommand
        )
        let elapsed = started.duration(to: .now)
        // With -naccept 1, s_server exits once the one connection is over; the bound only keeps
        // a broken run from hanging the suite.
        let ended = exited.wait(timeout: .now() + 60) == .success
        if !ended { Self.kill(server) }
        printed += output.fileHandleForReading.readDataToEndOfFile()
        #expect(ended, "s_server did not end after the connection")
        return Outcome(
            status: result.status,
            output: result.output,
            error: result.error,
            elapsed: elapsed,
            server: String(decoding: printed, as: UTF8.self)
        )
    }

    /// Ends s_server with SIGKILL: a child inherits the signal mask of the thread that spawned
    /// it, and the test process's threads block SIGTERM (what `Process.terminate()` sends), so
    /// s_server would ignore it and hold its output pipe open.
    private static func kill(_ server: Process) {
        guard server.isRunning else { return }
        _ = Foundation.kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
    }

    func expectTheChainWasPrinted(_ outcome: Outcome, _ chain: TestPKI.Chain) {
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(outcome.output.contains("verdict:    trusted (the certificates of --ca)"), "\(outcome.output)")
        #expect(outcome.output.contains("[0] leaf"))
        #expect(outcome.output.contains("[1] intermediate"))
        #expect(outcome.output.contains("[2] anchor (not sent: from the trust store)"))
        let pins = outcome.output.split(separator: "\n").filter { $0.hasPrefix("    pin:") }.map {
            $0.dropFirst("    pin:".count).trimmingCharacters(in: .whitespaces)
        }
        #expect(
            pins == [chain.pins[0], Self.pki.intermediate.pin, Self.pki.root.pin].map(\.description),
            "\(outcome.output)"
        )
        // The old command waited for an HTTP answer for 15 s; the bound is loose for a busy machine.
        #expect(outcome.elapsed < .seconds(10), "took \(outcome.elapsed)")
    }

    @Test func aServerThatSpeaksNoHTTPGetsTheHandshakeOnly() async throws {
        let directory = try TemporaryDirectory()
        let ca = try directory.write("ca.pem", Array(Self.pki.root.pem.utf8))
        let chain = try Self.pki.validChain()
        let outcome = try await Self.run("pins", chain, www: false, arguments: ["--ca", ca])
        self.expectTheChainWasPrinted(outcome, chain)
        // s_server prints what it receives: no request line, no header.
        #expect(!outcome.server.contains("HEAD"), "\(outcome.server)")
        #expect(!outcome.server.contains("HTTP/1.1"), "\(outcome.server)")
        // The handshake finished on its side too, and the client ended with close_notify
        // (s_server says DONE; a connection dropped without it says ERROR).
        #expect(outcome.server.contains("1 server accepts that finished"), "\(outcome.server)")
        #expect(outcome.server.contains("DONE"), "\(outcome.server)")
        #expect(!outcome.server.contains("ERROR"), "\(outcome.server)")
    }

    @Test func aServerThatAnswersGETOnlyGetsTheHandshakeOnly() async throws {
        let directory = try TemporaryDirectory()
        let ca = try directory.write("ca.pem", Array(Self.pki.root.pem.utf8))
        let chain = try Self.pki.validChain()
        let outcome = try await Self.run("pins", chain, www: true, arguments: ["--ca", ca])
        self.expectTheChainWasPrinted(outcome, chain)
        #expect(outcome.server.contains("1 server accepts that finished"), "\(outcome.server)")
    }

    /// A chain the command does not trust is still printed, as presented, with exit status 2.
    @Test func anUntrustedChainIsPrintedAsPresented() async throws {
        let chain = try Self.pki.validChain()
        // The system roots do not include the test root.
        let outcome = try await Self.run("pins", chain, www: false)
        #expect(outcome.status == 2, "\(outcome.error)")
        #expect(outcome.output.contains("verdict:    NOT trusted: "), "\(outcome.output)")
        #expect(outcome.output.contains("pin:        \(chain.pins[0])"))
        #expect(outcome.output.contains("pin:        \(Self.pki.intermediate.pin)"))
        #expect(!outcome.output.contains("pin:        \(Self.pki.root.pin)"))
        #expect(outcome.elapsed < .seconds(10), "took \(outcome.elapsed)")
        #expect(!outcome.server.contains("HEAD"), "\(outcome.server)")
    }
}
#endif
