// A helper for TokenAuth's cross-process tests: a TokenManager in its own process on a shared
// EncryptedFileStore, refreshing at a token endpoint on loopback.
//
//   TokenAuthStress refresh <store-dir> <key-file> <ca.pem> <token-url> <callers> <lock-timeout-ms> [<lease-ms>]
//
// Prints "ready", waits for a line on standard input (the test's gate), then runs <callers>
// concurrent validAccessToken() calls and prints one line per distinct outcome: "token <first 12
// hex digits of its SHA-256>" or "error <code> <storage code>". Exits 0 when every call got a
// token. Nothing secret is printed.

import Crypto
import Foundation
import SecureHTTP
import SecureStorage
import ServerTrust
import TokenAuth

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("TokenAuthStress: \(message)\n".utf8))
    exit(2)
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count == 8 || arguments.count == 9, arguments[1] == "refresh", let callers = Int(arguments[6]),
    callers > 0, let lockTimeout = Int(arguments[7]), let tokenURL = URL(string: arguments[5]),
    let lease = arguments.count == 9 ? Int(arguments[8]) : 6_000
else {
    fail("usage: refresh <store-dir> <key-file> <ca.pem> <token-url> <callers> <lock-timeout-ms> [<lease-ms>]")
}
let store = EncryptedFileStore(
    directory: URL(fileURLWithPath: arguments[2]),
    keySource: .keyFile(at: URL(fileURLWithPath: arguments[3]))
)
let trustAnchors: TrustAnchors
do {
    trustAnchors = .only(try CertificateFile(path: arguments[4]).entries.compactMap(\.certificate))
} catch {
    fail("cannot read the CA file")
}
var configuration = HTTPTransportConfiguration(policy: TransportSecurityPolicy(trustAnchors: trustAnchors))
configuration.timeouts.request = .seconds(60)
let transport: NIOHTTPTransport
do {
    transport = try NIOHTTPTransport(configuration: configuration)
} catch {
    fail("no transport: \(error)")
}
let manager = TokenManager(
    store: store,
    refresher: OAuthTokenEndpoint(url: tokenURL, transport: transport, client: .publicClient(id: "ios-app")),
    configuration: TokenManager.Configuration(
        crossProcessLockTimeout: .milliseconds(lockTimeout),
        refreshLeaseDuration: .milliseconds(lease)
    )
)

say("ready")
_ = readLine()
let outcomes = await withTaskGroup(of: String.self) { group in
    for _ in 0..<callers {
        group.addTask {
            do throws(TokenAuthError) {
                let token = try await manager.validAccessToken()
                let digest = SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
                return "token \(digest.prefix(12))"
            } catch {
                return "error \(error.code) \(error.storageError.map { "\($0.code)" } ?? "-")"
            }
        }
    }
    var outcomes = Set<String>()
    for await outcome in group { outcomes.insert(outcome) }
    return outcomes
}
for outcome in outcomes.sorted() { say(outcome) }
await transport.shutdown()
exit(outcomes.allSatisfy { $0.hasPrefix("token ") } ? 0 : 1)
