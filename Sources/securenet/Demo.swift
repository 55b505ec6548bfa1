#if Tools
import ArgumentParser
import SecureNetworkingDemo

/// `securenet demo`: the whole flow against the reference server, one line per step.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the whole flow against a local reference auth server and check every step.",
        discussion: """
            Starts the reference auth server in-process on a free loopback port with a fresh test PKI, \
            then walks a client through: the policy refusing plain http, sign-in, a profile over pinned \
            TLS, token expiry under 50 concurrent requests (one refresh), a man in the middle (rejected \
            by the pins; accepted without them), mutual TLS with and without a client certificate, \
            refresh-token reuse (the client is signed out), inactivity sign-out, and a sign-in in the \
            browser (authorization code with PKCE, loopback redirect). Exits non-zero if a \
            step does not behave as it should. Needs no network beyond loopback.

            Examples:
              swift run --traits Tools securenet demo
              securenet demo --json

            Exit status: 0 every step behaved as it should, 1 one did not.
            """
    )

    @Flag(help: "Print the steps as JSON (title, passed, detail) instead of text.")
    var json = false

    struct StepOutput: Encodable {
        let title: String
        let passed: Bool
        let detail: String
    }

    func run() async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else {
            throw ValidationError("securenet demo needs macOS 14 or later (the reference server uses Hummingbird 2)")
        }
        let json = self.json
        if !json { print("securenet demo: the reference auth server and a SecureAPIClient, on 127.0.0.1\n") }
        let steps = await SecureNetworkingDemo(report: { _, step in if !json { print(step) } }).run()
        let failed = steps.filter { !$0.1.passed }.count
        let all = DemoStepID.allCases.count
        let passed = failed == 0 && steps.count == all
        if json {
            try printJSON(steps.map { StepOutput(title: $0.1.title, passed: $0.1.passed, detail: $0.1.detail) })
        } else {
            print("")
            if passed {
                print("all \(all) steps behaved as they should")
            } else {
                print("\(failed) of \(steps.count) steps did not behave as they should (expected \(all) steps)")
            }
        }
        if !passed { throw ExitCode(1) }
    }
}
#endif
