#if Tools
import ArgumentParser
import Foundation
import SecureNetworkingDemo

/// `securenet serve`: the reference auth server for app development, until interrupted.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Run the reference auth server on loopback with a development PKI and pin-update key kept in a folder.",
        discussion: """
            Prints the URL, the CA file to trust, the pins, a policy file that already trusts the \
            CA (load it with TransportSecurityPolicy(contentsOfFile:)) and a development account. \
            The folder (default ./securenet-dev) holds private keys (the intermediate CA's, the \
            client's, the pin-update key): keep it out of version control.

            The first run on a folder makes the CA, keys and pins; every later run reuses them, \
            so an app that trusts ca.pem, pins the printed pins or compiled in \
            pin-update-key.pub.pem keeps working. A leaf certificate that is missing or expires \
            within a week is issued again for the same key (the pins stay). A folder holding only \
            some of the files (one written by an older securenet serve keeps no CA key) or files \
            that do not belong together is refused and left as it is: no key is ever overwritten.

            GET /.well-known/securenet-pins.json serves the signed pin-set update in \
            pins.signed.json (version 1 at first; 404 while the file is removed). To publish \
            another, sign it into that file while the server runs (or before the next run): \
            securenet pins sign --key DIR/pin-update-key.pem --audience securenet-dev --version 2 \
            --ca-pins 'localhost=PIN,PIN' --out DIR/pins.signed.json (the folder's updates are for \
            the audience securenet-dev). The file is read every \
            second; each change is printed (with --json, as one JSON object a line), with the \
            reason an app that trusts the folder's update key and policy would refuse it, if any.

            Routes: POST /auth/login, POST /oauth/token, POST /oauth/revoke, \
            GET /.well-known/oauth-authorization-server (RFC 8414 metadata), \
            GET /.well-known/securenet-pins.json, \
            GET/PATCH /user/profile, GET /mtls/whoami, and the diagnostic /echo/**, \
            /status/{code}, /flaky/{key}?failures=N&status=S&retry_after=R, /slow?ms=N. \
            Stop it with Ctrl-C. For development only: the account's password is made up for \
            each run.

            Examples:
              securenet serve
              securenet serve --directory /tmp/dev --port 8443 --access-token-lifetime 30
              securenet serve --json

            Exit status: 0 stopped, 1 it could not start (the port is taken, the folder cannot be \
            written, or its files are incomplete or do not belong together), 64 a usage error.
            """
    )

    @Flag(
        help:
            "Print the startup summary as one JSON object (url, files, pins, policy, account), then one a line for each change of the pin-set update it publishes, instead of text."
    )
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
        let pinSetUpdate: PublicationOutput
        let reused: Bool
        let writtenFiles: [String]
        let email: String
        let password: String
    }

    /// What is published, at the start and after each change of the file.
    struct PublicationOutput: Encodable {
        let event = "pinSetUpdate"
        let servedVersion: UInt64?
        let published: Bool
        let problem: String?
        let message: String

        @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
        init(_ publication: DevelopmentServer.Publication) {
            self.servedVersion = publication.servedVersion
            self.published = publication.published
            self.problem = publication.problem
            self.message = publication.description
        }

        enum CodingKeys: String, CodingKey {
            case event, servedVersion, published, problem, message
        }

        /// Every key, `null` included, so that a reader finds the same keys on every line.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.event, forKey: .event)
            try container.encode(self.servedVersion, forKey: .servedVersion)
            try container.encode(self.published, forKey: .published)
            try container.encode(self.problem, forKey: .problem)
            try container.encode(self.message, forKey: .message)
        }
    }

    @Option(
        help:
            "The folder the CA, keys, pins, policy file and signed pin-set update are kept in: made at the first run, reused after (it holds private keys: keep it out of version control)."
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
        let development: DevelopmentServer
        do {
            development = try await DevelopmentServer.start(
                directory: directory,
                port: self.port,
                accessTokenLifetime: .seconds(self.accessTokenLifetime)
            )
        } catch let error as DevelopmentServerError {
            var standardError = StandardError()
            printEscaped("securenet serve: \(error.code): \(error.message)", to: &standardError)
            throw ExitCode(1)
        }
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
                pinSetUpdate: PublicationOutput(summary.pinSetUpdate),
                reused: summary.reused,
                writtenFiles: summary.writtenFiles.map(\.path),
                email: summary.email,
                password: summary.password
            )
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            say(String(decoding: try encoder.encode(output), as: UTF8.self))
        } else {
            self.printSummary(summary, say)
        }
        // Run until the process is interrupted, publishing what is signed into the update file.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        while !Task.isCancelled {
            try await Task.sleep(for: .seconds(1))
            guard let publication = await development.publishPinSetUpdateFile() else { continue }
            if self.json {
                say(String(decoding: try encoder.encode(PublicationOutput(publication)), as: UTF8.self))
            } else {
                say(publication.description)
            }
        }
        await development.server.shutdown()
    }

    static let privateKeyNote = "the folder holds private keys: keep it out of version control"

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    private func printSummary(_ summary: DevelopmentServer.Summary, _ say: (String) -> Void) {
        say("reference auth server: \(summary.url)")
        let folder = summary.policyFile.deletingLastPathComponent().path
        say("files in:              \(folder)")
        say("                       (\(Self.privateKeyNote))")
        if summary.reused {
            say("                       reused: the same CA, keys and pins as before")
            for file in summary.writtenFiles {
                say("                       written again: \(file.lastPathComponent)")
            }
        } else {
            say("                       new: a CA, keys and pins made now, kept for the next runs")
        }
        say("trust this CA:         \(summary.caFile.path)")
        say("server chain:          \(summary.serverChainFile.path)")
        say("client certificate:    \(summary.clientCertificateFile.path) (key: \(summary.clientKeyFile.path))")
        say("pins:")
        for (name, pin) in summary.pins {
            say("  \(name.padding(toLength: 13, withPad: " ", startingAt: 0)) \(pin)")
        }
        say("signed pin update:     \(summary.pinSetUpdateFile.path), served at \(summary.pinSetUpdateURL)")
        say("                       now: \(summary.pinSetUpdate); sign a new version into the file to publish it")
        say("pin update key:        \(summary.pinUpdateKeyFile.path) (public: \(summary.pinUpdatePublicKeyFile.path))")
        say("policy file:           \(summary.policyFile.path) (trusts the CA: load it with")
        say("                       TransportSecurityPolicy(contentsOfFile:))")
        say((try? String(contentsOf: summary.policyFile, encoding: .utf8)) ?? "")
        say("development account:   \(summary.email) / \(summary.password)")
        say("\nCtrl-C to stop.")
    }
}
#endif
