import ArgumentParser
import Foundation
import SecureNetworkingDemo

/// `securenet serve`: the reference auth server for app development, until interrupted.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the reference auth server on loopback with a fresh test PKI written to a folder.",
        discussion: """
            Prints the URL, the CA file to trust, the pins, a sample policy file and a development \
            account. Routes: POST /auth/login, POST /oauth/token, GET/PATCH /user/profile, \
            GET /mtls/whoami, and the diagnostic /echo, /status/{code}, /flaky/{key}, /slow. \
            Stop it with Ctrl-C. For development only: the PKI and account are made up for this run.
            """
    )

    @Option(help: "The folder for the CA, chain, client identity and policy files.")
    var directory: String = "securenet-dev"

    @Option(help: "Access-token lifetime in seconds.")
    var accessTokenLifetime: Int = 300

    func run() async throws {
        guard self.accessTokenLifetime > 0 else {
            throw ValidationError("--access-token-lifetime must be positive")
        }
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else {
            throw ValidationError("securenet serve needs macOS 14 or later (the reference server uses Hummingbird 2)")
        }
        let directory = URL(fileURLWithPath: self.directory, isDirectory: true).standardizedFileURL
        let development = try await DevelopmentServer.start(directory: directory, accessTokenLifetime: .seconds(self.accessTokenLifetime))
        let summary = development.summary
        print("reference auth server: \(summary.url)")
        print("trust this CA:         \(summary.caFile.path)")
        print("server chain:          \(summary.serverChainFile.path)")
        print("client certificate:    \(summary.clientCertificateFile.path) (key: \(summary.clientKeyFile.path))")
        print("pins:")
        for (name, pin) in summary.pins {
            print("  \(name.padding(toLength: 13, withPad: " ", startingAt: 0)) \(pin)")
        }
        print("policy file:           \(summary.policyFile.path)")
        print((try? String(contentsOf: summary.policyFile, encoding: .utf8)) ?? "")
        print("development account:   \(summary.email) / \(summary.password)")
        print("\nCtrl-C to stop.")
        // Run until the process is interrupted.
        while !Task.isCancelled {
            try await Task.sleep(for: .seconds(3600))
        }
        await development.server.shutdown()
    }
}
