import ArgumentParser
import Foundation
import SecureNetworkingDemo

/// `securenet serve`: the reference auth server for app development, until interrupted.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the reference auth server on loopback with a fresh test PKI written to a folder.",
        discussion: """
            Prints the URL, the CA file to trust, the pins, a policy file that already trusts the \
            CA (load it with TransportSecurityPolicy(contentsOfFile:)) and a development account. \
            The folder (default ./securenet-dev) holds the client certificate's private key: keep \
            it out of version control.

            Routes: POST /auth/login, POST /oauth/token, POST /oauth/revoke, \
            GET /.well-known/oauth-authorization-server (RFC 8414 metadata), \
            GET /.well-known/securenet-pins.json (a signed pin-set update, also written to the \
            folder with the key that signed it), \
            GET/PATCH /user/profile, GET /mtls/whoami, and the diagnostic /echo/**, \
            /status/{code}, /flaky/{key}?failures=N&status=S&retry_after=R, /slow?ms=N. \
            Stop it with Ctrl-C. For development only: the PKI and account are made up for this run.

            Examples:
              securenet serve
              securenet serve --directory /tmp/dev --port 8443 --access-token-lifetime 30
              securenet serve --json

            Exit status: 0 stopped, 1 it could not start (the port is taken, the folder cannot be \
            written), 64 a usage error.
            """
    )

    @Flag(help: "Print the startup summary as one JSON object (url, files, pins, policy, account) instead of text.")
    var json = false

    struct SummaryOutput: Encodable {
        let url: String
        let directory: String
        let note: String
        let caFile: String
        let serverChainFile: String
        let clientCertificateFile: String
        let clientKeyFile: String
        let policyFile: String
        let pins: [String: String]
        let pinUpdateKeyFile: String
        let pinUpdatePublicKeyFile: String
        let pinSetUpdateFile: String
        let pinSetUpdateURL: String
        let email: String
        let password: String
    }

    @Option(
        help:
            "The folder for the CA, chain, client identity and policy files (it holds a private key: keep it out of version control)."
    )
    var directory: String = "securenet-dev"

    @Option(help: "The port on 127.0.0.1 (0 picks a free one).")
    var port: Int = 0

    @Option(help: "Access-token lifetime in seconds.")
    var accessTokenLifetime: Int = 300

    func run() async throws {
        guard self.accessTokenLifetime > 0 else {
            throw ValidationError("--access-token-lifetime must be positive")
        }
        guard (0...65535).contains(self.port) else {
            throw ValidationError("--port must be between 0 and 65535")
        }
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else {
            throw ValidationError("securenet serve needs macOS 14 or later (the reference server uses Hummingbird 2)")
        }
        let directory = URL(fileURLWithPath: self.directory, isDirectory: true).standardizedFileURL
        let development = try await DevelopmentServer.start(
            directory: directory,
            port: self.port,
            accessTokenLifetime: .seconds(self.accessTokenLifetime)
        )
        let summary = development.summary
        // Written unbuffered, so the lines are there even when stdout is a pipe and the
        // process ends with Ctrl-C.
        func say(_ line: String = "") { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        if self.json {
            let output = SummaryOutput(
                url: summary.url.absoluteString,
                directory: summary.policyFile.deletingLastPathComponent().path,
                note: Self.privateKeyNote,
                caFile: summary.caFile.path,
                serverChainFile: summary.serverChainFile.path,
                clientCertificateFile: summary.clientCertificateFile.path,
                clientKeyFile: summary.clientKeyFile.path,
                policyFile: summary.policyFile.path,
                pins: Dictionary(
                    summary.pins.map { ($0.name, $0.pin.description) },
                    uniquingKeysWith: { first, _ in first }
                ),
                pinUpdateKeyFile: summary.pinUpdateKeyFile.path,
                pinUpdatePublicKeyFile: summary.pinUpdatePublicKeyFile.path,
                pinSetUpdateFile: summary.pinSetUpdateFile.path,
                pinSetUpdateURL: summary.pinSetUpdateURL.absoluteString,
                email: summary.email,
                password: summary.password
            )
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            say(String(decoding: try encoder.encode(output), as: UTF8.self))
        } else {
            self.printSummary(summary, say)
        }
        // Run until the process is interrupted.
        while !Task.isCancelled {
            try await Task.sleep(for: .seconds(3600))
        }
        await development.server.shutdown()
    }

    static let privateKeyNote = "the folder holds a private key: keep it out of version control"

    private func printSummary(_ summary: DevelopmentServer.Summary, _ say: (String) -> Void) {
        say("reference auth server: \(summary.url)")
        say("files in:              \(summary.policyFile.deletingLastPathComponent().path)")
        say("                       (\(Self.privateKeyNote))")
        say("trust this CA:         \(summary.caFile.path)")
        say("server chain:          \(summary.serverChainFile.path)")
        say("client certificate:    \(summary.clientCertificateFile.path) (key: \(summary.clientKeyFile.path))")
        say("pins:")
        for (name, pin) in summary.pins {
            say("  \(name.padding(toLength: 13, withPad: " ", startingAt: 0)) \(pin)")
        }
        say("signed pin update:     \(summary.pinSetUpdateFile.path), served at \(summary.pinSetUpdateURL)")
        say("pin update key:        \(summary.pinUpdateKeyFile.path) (public: \(summary.pinUpdatePublicKeyFile.path))")
        say("policy file:           \(summary.policyFile.path) (trusts the CA: load it with")
        say("                       TransportSecurityPolicy(contentsOfFile:))")
        say((try? String(contentsOf: summary.policyFile, encoding: .utf8)) ?? "")
        say("development account:   \(summary.email) / \(summary.password)")
        say("\nCtrl-C to stop.")
    }
}
