#if TestServers
import Foundation
import SecureNetworking
import SecureNetworkingTesting
import Testing

/// `securenet intercept`, the built binary, between the project's own client and the reference
/// server: a pinned client holds, an unpinned one that trusts the proxy's CA is read, one that
/// does not trust it holds.
@Suite("securenet intercept")
struct InterceptCommandTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func reportsHeldForPinnedAndUntrustingClientsAndInterceptedForAnUnpinnedOne() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("intercept-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let caDirectory = directory.appendingPathComponent("ca")
        try await withAPIFixture { fixture in
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let upstreamCA = directory.appendingPathComponent("upstream-ca.pem")
            try Data(fixture.pki.root.pem.utf8).write(to: upstreamCA)
            let proxy = try InterceptProcess(
                [
                    "--port", "0", "--ca-directory", caDirectory.path, "--upstream-ca", upstreamCA.path, "--json",
                    "--max-connections", "3",
                ]
            )
            defer { proxy.stop() }
            let banner = try await proxy.banner()
            #expect(banner.contains("CA (created): \(caDirectory.path)/securenet-intercept-ca.pem"), "\(banner)")

            // The CA as written: PEM and DER of one certificate, the key readable by its owner only.
            let authority = try InterceptionAuthority(
                certificatePEM: try String(
                    contentsOf: caDirectory.appendingPathComponent("securenet-intercept-ca.pem"),
                    encoding: .utf8
                ),
                privateKeyPEM: try String(
                    contentsOf: caDirectory.appendingPathComponent("securenet-intercept-ca-key.pem"),
                    encoding: .utf8
                )
            )
            #expect(
                try Data(contentsOf: caDirectory.appendingPathComponent("securenet-intercept-ca.cer"))
                    == Data(authority.derBytes)
            )
            let keyMode =
                try FileManager.default.attributesOfItem(
                    atPath: caDirectory.appendingPathComponent("securenet-intercept-ca-key.pem").path
                )[.posixPermissions] as? Int
            #expect(keyMode == 0o600)
            let instructions = try String(
                contentsOf: caDirectory.appendingPathComponent("INSTALL.txt"),
                encoding: .utf8
            )
            #expect(
                instructions.contains(
                    "xcrun simctl keychain booted add-root-cert \(caDirectory.path)/securenet-intercept-ca.pem"
                )
            )
            #expect(banner.contains(authority.pin.description))

            let trustingTheProxy = TransportSecurityPolicy(
                trustAnchors: .only([fixture.pki.root.certificate, authority.certificate])
            )
            let viaProxy = HTTPProxy(host: "127.0.0.1", port: try proxy.port(banner))

            // 1. Pinned to the real server's CA keys: the client aborts the handshake.
            var pinned = trustingTheProxy
            pinned.pinning.pin(
                try HostPattern("localhost"),
                to: try PinSet(pins: [fixture.pki.intermediate.pin, fixture.pki.root.pin])
            )
            var configuration = try fixture.configuration(policy: pinned)
            configuration.transport.proxy = viaProxy
            try await withSecureAPIClient(configuration) { client in
                let error = try #require(await expectAPIError(client, fixture.loginRequest))
                #expect(error.transportError?.serverTrustError?.code == .pinMismatch)
            }
            let held = try await proxy.nextRecord()
            #expect(held["outcome"] as? String == "held")
            #expect(held["host"] as? String == "localhost")
            #expect(held["port"] as? Int == fixture.server.port)
            #expect(
                held["reason"] as? String == "the client aborted the TLS handshake with a certificate_unknown alert"
            )

            // 2. Unpinned, trusting the proxy's CA: signed in and served, through the proxy.
            configuration = try fixture.configuration(policy: trustingTheProxy)
            configuration.transport.proxy = viaProxy
            try await withSecureAPIClient(configuration) { client in
                _ = try await client.signIn(fixture.loginRequest)
                let profile = try await client.send(Request<UserProfile>.get("user/profile"))
                #expect(profile.email == APIFixture.email)
            }
            let intercepted = try await proxy.nextRecord()
            #expect(intercepted["outcome"] as? String == "intercepted")
            #expect(intercepted["request"] as? String == "POST /auth/login HTTP/1.1")
            #expect(intercepted["status"] as? Int == 200)
            #expect(fixture.server.calls(to: "/user/profile") == 1)

            // 3. Not trusting the proxy's CA: the chain is refused.
            configuration = try fixture.configuration()
            configuration.transport.proxy = viaProxy
            try await withSecureAPIClient(configuration) { client in
                let error = try #require(await expectAPIError(client, fixture.loginRequest))
                #expect(error.transportError?.serverTrustError?.code == .untrustedRoot)
            }
            let untrusting = try await proxy.nextRecord()
            #expect(untrusting["outcome"] as? String == "held")

            // --max-connections 3: it stops by itself, and printed nothing secret.
            let (status, rest) = try await proxy.finish()
            #expect(status == 0, "\(proxy.everything)")
            #expect(rest.isEmpty, "\(rest)")
            #expect(!proxy.everything.contains(APIFixture.password))
            #expect(!proxy.everything.contains("eyJ"), "a JWT in the output")
        }

        // A second run reuses the CA it finds.
        let again = try InterceptProcess(["--port", "0", "--ca-directory", caDirectory.path])
        defer { again.stop() }
        #expect(try await again.banner().contains("CA (reused)"))
    }
}

/// A running `securenet intercept`, its standard error (the banner) and output (one JSON line
/// per connection) read on threads of their own, not the cooperative pool's.
private final class InterceptProcess: @unchecked Sendable {
    // SAFETY: `output`, `errors` and `consumed` are only touched under `lock`; `process` is
    // configured in init, before the reader threads start, and only read afterwards.
    private let process = Process()
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()

    init(_ arguments: [String]) throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "securenet"
        )
        let candidates = [binary.path, FileManager.default.currentDirectoryPath + "/.build/debug/securenet"]
        let path = try #require(
            candidates.first(where: FileManager.default.isExecutableFile(atPath:)),
            "securenet was not built"
        )
        self.process.executableURL = URL(fileURLWithPath: path)
        self.process.arguments = ["intercept"] + arguments
        let output = Pipe()
        let errors = Pipe()
        self.process.standardOutput = output
        self.process.standardError = errors
        try self.process.run()
        for (pipe, isOutput) in [(output, true), (errors, false)] {
            let reader = pipe.fileHandleForReading
            Thread.detachNewThread { [self] in
                while true {
                    let chunk = reader.availableData
                    if chunk.isEmpty { break }
                    self.lock.withLock { if isOutput { self.output += chunk } else { self.errors += chunk } }
                }
            }
        }
    }

    var everything: String { self.lock.withLock { String(decoding: self.output + self.errors, as: UTF8.self) } }

    /// Polls for `condition` on what the process wrote; fails after 20 s (a watchdog).
    private func waitFor<T>(_ what: String, _ condition: (Data, Data) throws -> T?) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let value = try self.lock.withLock({ try condition(self.output, self.errors) }) { return value }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "no \(what): \(self.everything)"])
    }

    /// The three banner lines on standard error.
    func banner() async throws -> String {
        try await self.waitFor("banner") { _, errors in
            let text = String(decoding: errors, as: UTF8.self)
            return text.split(separator: "\n").count >= 3 ? text : nil
        }
    }

    func port(_ banner: String) throws -> Int {
        let marker = "listening on 127.0.0.1:"
        let range = try #require(banner.range(of: marker))
        return try #require(Int(banner[range.upperBound...].prefix { $0.isNumber }))
    }

    private var consumed = 0

    /// The next JSON line on standard output.
    func nextRecord() async throws -> [String: Any] {
        let skip = self.lock.withLock { self.consumed }
        let line: Data = try await self.waitFor("record") { output, _ in
            let lines = output.split(separator: 0x0A)
            return lines.count > skip ? Data(lines[skip]) : nil
        }
        self.lock.withLock { self.consumed += 1 }
        return try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
    }

    /// Waits for the process to exit by itself; its status and the output lines not yet read.
    func finish() async throws -> (Int32, [String]) {
        let process = self.process
        _ = try await self.waitFor("exit") { _, _ in process.isRunning ? nil : true }
        let lines = self.lock.withLock {
            self.output.split(separator: 0x0A).dropFirst(self.consumed).map { String(decoding: $0, as: UTF8.self) }
        }
        return (process.terminationStatus, lines)
    }

    func stop() {
        if self.process.isRunning {
            self.process.terminate()
            self.process.waitUntilExit()
        }
    }
}
#endif
