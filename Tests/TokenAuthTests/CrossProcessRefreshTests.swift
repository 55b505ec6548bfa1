#if TestServers
import Foundation
import HTTPTypes
import SecureHTTP
import SecureNetworkingTesting
import SecureStorage
import Testing

@testable import TokenAuth

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if os(macOS) || os(Linux)
/// Token managers in separate processes (the `TokenAuthStress` helper) on one encrypted store:
/// one refresh serves them all, a process killed mid-refresh leaves the old bundle and no lock,
/// and a lock held too long is a clear error.
@Suite("One refresh across processes", .serialized)
struct CrossProcessRefreshTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static let user = ReferenceAuthServer.User(
        email: "ada@example.com",
        password: "analytical engine",
        displayName: "Ada"
    )
    static let key = "SecureNetworking.tokens"

    /// A child process with its standard input (the gate) and output.
    struct Child {
        let process: Process
        let input: Pipe
        let output: Pipe

        /// Waits until the child printed a whole line; returns it. The pipe is read on a thread of
        /// its own: blocking one of Swift's few cooperative threads would starve other tests.
        func readLine() async -> String {
            let reader = self.output.fileHandleForReading
            return await Self.offThePool {
                var bytes = Data()
                while !bytes.contains(0x0A) {
                    let chunk = reader.availableData
                    if chunk.isEmpty { break }
                    bytes += chunk
                }
                return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .newlines)
            }
        }

        static func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: body()) }
            }
        }

        func go() { self.input.fileHandleForWriting.write(Data("go\n".utf8)) }

        /// Waits for the exit; returns the status and the rest of the output, line by line.
        func finish() async -> (status: Int32, lines: [String]) {
            let (reader, process) = (self.output.fileHandleForReading, self.process)
            return await Self.offThePool {
                let rest = reader.readDataToEndOfFile()
                process.waitUntilExit()
                let lines = String(decoding: rest, as: UTF8.self).split(separator: "\n").map(String.init)
                return (process.terminationStatus, lines)
            }
        }
    }

    /// A folder with the store, its key and the CA file.
    struct Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cross-process-\(UUID().uuidString)")
        var storeURL: URL { self.url.appendingPathComponent("store") }
        var keyURL: URL { self.url.appendingPathComponent("store.key") }
        var caURL: URL { self.url.appendingPathComponent("ca.pem") }

        init() throws {
            try FileManager.default.createDirectory(at: self.url, withIntermediateDirectories: true)
            try Live.pki.root.pem.write(to: self.caURL, atomically: true, encoding: .utf8)
        }

        func store() -> EncryptedFileStore {
            EncryptedFileStore(directory: self.storeURL, keySource: .keyFile(at: self.keyURL))
        }

        func launch(
            tokenURL: URL,
            callers: Int,
            lockTimeoutMilliseconds: Int,
            leaseMilliseconds: Int = 6_000
        ) throws -> Child {
            let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                .appendingPathComponent("TokenAuthStress")
            let candidates = [binary.path, FileManager.default.currentDirectoryPath + "/.build/debug/TokenAuthStress"]
            let path = try #require(
                candidates.first(where: FileManager.default.isExecutableFile(atPath:)),
                "TokenAuthStress was not built"
            )
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = [
                "refresh", self.storeURL.path, self.keyURL.path, self.caURL.path, tokenURL.absoluteString, "\(callers)",
                "\(lockTimeoutMilliseconds)", "\(leaseMilliseconds)",
            ]
            let child = Child(process: process, input: Pipe(), output: Pipe())
            process.standardInput = child.input
            process.standardOutput = child.output
            process.standardError = FileHandle.nullDevice
            try process.run()
            return child
        }

        func remove() { try? FileManager.default.removeItem(at: self.url) }
    }

    /// Signs in at `server` and stores the session in `folder`'s store, already expired.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static func signInExpired(at server: ReferenceAuthServer, into folder: Folder) async throws -> TokenResponse {
        let tokens: TokenResponse = try await withNIOHTTPTransport(configuration: Live.configuration) { transport in
            try await referenceSignIn(server, Self.user, through: transport)
        }
        let expired = TokenBundle(
            accessToken: tokens.accessToken,
            refreshToken: tokens.refreshToken,
            expiresAt: Date().addingTimeInterval(-1)
        )
        try await folder.store().set(expired, forKey: Self.key)
        return tokens
    }

    @Test func eightProcessesTimesFiftyCallersRefreshOnce() async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
        let folder = try Folder()
        defer { folder.remove() }
        var configuration = ReferenceAuthServer.Configuration(chain: try Live.pki.validChain(), users: [Self.user])
        // No grace: any second use of the refresh token would revoke the session.
        configuration.refreshTokenReuseGraceWindow = .zero
        try await withReferenceAuthServer(configuration) { server in
            let tokens = try await Self.signInExpired(at: server, into: folder)
            let tokenURL = server.baseURL.appendingPathComponent("oauth/token")
            let children = try (0..<8).map { _ in
                try folder.launch(tokenURL: tokenURL, callers: 50, lockTimeoutMilliseconds: 30_000)
            }
            for child in children { #expect(await child.readLine() == "ready") }
            // The gate: all start at once.
            for child in children { child.go() }
            var results: [(status: Int32, lines: [String])] = []
            for child in children { results.append(await child.finish()) }
            #expect(results.allSatisfy { $0.status == 0 }, "\(results)")
            let outcomes = Set(results.flatMap(\.lines))
            #expect(outcomes.count == 1 && outcomes.first?.hasPrefix("token ") == true, "\(outcomes)")
            #expect(server.statistics.tokenEndpointCalls == 1)
            #expect(server.statistics.revokedFamilies == 0)
            let stored = try #require(try await folder.store().value(TokenBundle.self, forKey: Self.key))
            #expect(stored.refreshToken != tokens.refreshToken)
        }
    }

    /// What the suspension test sees at the end.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    struct SuspensionOutcome {
        var taker: (status: Int32, lines: [String])
        var owner: (status: Int32, lines: [String])
        var statistics: ReferenceAuthServer.Statistics
        var stored: TokenBundle?
        var leaseLeft: Bool
    }

    /// Process A refreshes; the server redeems A's refresh token and holds the answer (a response
    /// in flight) while A is stopped with SIGSTOP, as iOS suspends an app. A holds no lock: the
    /// test locks, reads and writes the store meanwhile. A's lease lapses (1 s, no renewals from
    /// a stopped process) and process B refreshes in its place, presenting the refresh token A
    /// already spent. Then A is continued and reads its answer.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    func suspendOwnerMidRefresh(graceWindow: Duration) async throws -> SuspensionOutcome {
        let folder = try Folder()
        defer { folder.remove() }
        let gate = LoopbackHTTPServer.Gate()
        var configuration = ReferenceAuthServer.Configuration(chain: try Live.pki.validChain(), users: [Self.user])
        configuration.refreshTokenReuseGraceWindow = graceWindow
        configuration.refreshResponseGate = gate
        return try await withReferenceAuthServer(configuration) { server in
            let tokens = try await Self.signInExpired(at: server, into: folder)
            let tokenURL = server.baseURL.appendingPathComponent("oauth/token")

            let owner = try folder.launch(
                tokenURL: tokenURL,
                callers: 1,
                lockTimeoutMilliseconds: 30_000,
                leaseMilliseconds: 1_000
            )
            #expect(await owner.readLine() == "ready")
            // Whatever happens below, a stopped child must not outlive the test, nor an answer
            // wait at the gate (the server's shutdown would wait for both).
            let ownerID = owner.process.processIdentifier
            defer {
                gate.open()
                if owner.process.isRunning {
                    kill(ownerID, SIGCONT)
                    kill(ownerID, SIGKILL)
                }
            }
            owner.go()
            try await waitFor { server.statistics.tokenEndpointCalls == 1 }
            kill(ownerID, SIGSTOP)

            // Suspended mid-refresh, A holds no lock: another process locks the store at once,
            // finds the old bundle and writes beside it.
            let store = folder.store()
            let lock = try #require(try await store.lockAcrossProcesses(timeout: .milliseconds(500)))
            #expect(try await store.value(TokenBundle.self, forKey: Self.key)?.refreshToken == tokens.refreshToken)
            #expect(try await store.contains(Self.key + ".refreshLease"))
            try await store.set(Data("probe".utf8), forKey: "probe")
            try await store.removeValue(forKey: "probe")
            lock.release()

            // The answer to A's request goes out while A is stopped: it waits in A's socket.
            gate.open()
            let taker = try folder.launch(
                tokenURL: tokenURL,
                callers: 1,
                lockTimeoutMilliseconds: 30_000,
                leaseMilliseconds: 1_000
            )
            #expect(await taker.readLine() == "ready")
            taker.go()
            let taken = await taker.finish()

            kill(ownerID, SIGCONT)
            let woken = await owner.finish()
            return SuspensionOutcome(
                taker: taken,
                owner: woken,
                statistics: server.statistics,
                stored: try await store.value(TokenBundle.self, forKey: Self.key),
                leaseLeft: try await store.contains(Self.key + ".refreshLease")
            )
        }
    }

    /// RFC 9700 §4.14.2: the reference server answers a second presentation of a refresh token
    /// within 10 s with the same successor. B gets it, A on waking finds it stored and uses it:
    /// the session survives, with one redemption and one replay.
    @Test func aSuspendedRefresherHoldsNoLockAndAGraceServerKeepsTheSession() async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
        let outcome = try await self.suspendOwnerMidRefresh(graceWindow: .seconds(10))
        #expect(outcome.taker.status == 0, "\(outcome.taker)")
        #expect(outcome.owner.status == 0, "\(outcome.owner)")
        #expect(outcome.taker.lines.count == 1 && outcome.taker.lines[0].hasPrefix("token "))
        #expect(outcome.owner.lines == outcome.taker.lines)
        #expect(outcome.statistics.tokenEndpointCalls == 2)
        #expect(outcome.statistics.refreshReplays == 1)
        #expect(outcome.statistics.revokedFamilies == 0)
        #expect(outcome.stored != nil)
        #expect(!outcome.leaseLeft)
    }

    /// A server that forgives no reuse revokes the family when B presents the token A spent: B's
    /// refresh is refused (`invalid_grant`) and B ends the session; A, on waking with a successor
    /// the server has revoked, finds the session ended and stores nothing (signed out). Nothing
    /// brings the dead session back.
    @Test func aServerWithoutGraceEndsTheSessionInBothProcesses() async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
        let outcome = try await self.suspendOwnerMidRefresh(graceWindow: .zero)
        #expect(outcome.taker.status == 1, "\(outcome.taker)")
        #expect(outcome.taker.lines == ["error invalidGrant -"])
        #expect(outcome.owner.status == 1, "\(outcome.owner)")
        #expect(outcome.owner.lines == ["error signedOut -"])
        #expect(outcome.statistics.tokenEndpointCalls == 2)
        #expect(outcome.statistics.refreshReplays == 0)
        #expect(outcome.statistics.revokedFamilies == 1)
        #expect(outcome.stored == nil)
        #expect(!outcome.leaseLeft)
    }

    @Test func aProcessKilledMidRefreshLeavesTheOldBundleAndNoLock() async throws {
        let folder = try Folder()
        defer { folder.remove() }
        try await folder.store().set(
            TokenBundle(accessToken: "a0", refreshToken: "r0", expiresAt: Date().addingTimeInterval(-1)),
            forKey: Self.key
        )
        let gate = LoopbackHTTPServer.Gate()
        let json: [(String, String)] = [("Content-Type", "application/json"), ("Cache-Control", "no-store")]
        let answer = Array(#"{"access_token":"a1","token_type":"Bearer","expires_in":300,"refresh_token":"r1"}"#.utf8)
        try await withLoopbackHTTPServer(
            LoopbackHTTPServer.TLS(chain: try Live.pki.validChain()),
            handler: { _ in .after(gate, .status(200, headers: json, body: answer)) }
        ) { server in
            let tokenURL = server.baseURL.appendingPathComponent("oauth/token")
            // A takes the lock and waits on the held-up refresh.
            let first = try folder.launch(tokenURL: tokenURL, callers: 1, lockTimeoutMilliseconds: 30_000)
            #expect(await first.readLine() == "ready")
            first.go()
            try await waitFor { server.statistics.requests.count == 1 }

            // Meanwhile a process that waits only 200 ms for the lock gets a clear error.
            let impatient = try folder.launch(tokenURL: tokenURL, callers: 1, lockTimeoutMilliseconds: 200)
            #expect(await impatient.readLine() == "ready")
            impatient.go()
            let refused = await impatient.finish()
            #expect(refused.status == 1)
            #expect(refused.lines == ["error storageFailure lockTimeout"])

            // A is killed mid-refresh: the old bundle is intact, and its lock died with it.
            kill(first.process.processIdentifier, SIGKILL)
            _ = await first.finish()
            #expect(try await folder.store().value(TokenBundle.self, forKey: Self.key)?.refreshToken == "r0")
            gate.open()
            let second = try folder.launch(tokenURL: tokenURL, callers: 1, lockTimeoutMilliseconds: 30_000)
            #expect(await second.readLine() == "ready")
            second.go()
            let done = await second.finish()
            #expect(done.status == 0, "\(done)")
            #expect(done.lines.count == 1 && done.lines[0].hasPrefix("token "))
            #expect(try await folder.store().value(TokenBundle.self, forKey: Self.key)?.refreshToken == "r1")
            #expect(server.statistics.requests.count == 2)
        }
    }
}
#endif
#endif
