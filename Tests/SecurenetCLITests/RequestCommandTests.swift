#if Tools
import Foundation
import NIOSSL
import SecureNetworkingTesting
import ServerTrust
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `securenet request URL`: the built binary against loopback servers, with policies, pins,
/// client certificates, and the bad inputs.
@Suite("securenet request")
struct RequestCommandTests {
    typealias TemporaryDirectory = CLI.TemporaryDirectory

    static var pki: TestPKI { PinsURLCommandTests.pki }

    func run(
        _ arguments: [String],
        environment: [String: String] = [:]
    ) async throws -> (status: Int32, output: String, error: String) {
        try await CLI.run(
            try CLI.securenet(),
            arguments,
            subcommand: "request",
            environment: environment
        )
    }

    /// A directory holding the test root as `ca.pem`; removed when the value goes.
    struct CAFile {
        let directory: TemporaryDirectory
        let path: String

        init() throws {
            self.directory = try TemporaryDirectory()
            self.path = try self.directory.write("ca.pem", Array(RequestCommandTests.pki.root.pem.utf8))
        }
    }

    static let echo: @Sendable (LoopbackHTTPServer.RecordedRequest) -> LoopbackHTTPServer.Response = { request in
        .status(
            200,
            headers: [("Content-Type", "text/plain"), ("Set-Cookie", "session=cookie-secret")],
            body: Array("hello \(request.method)".utf8)
        )
    }

    @Test func aGetPrintsTheBody() async throws {
        let caFile = try CAFile()
        let ca = caFile.path
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: try Self.pki.validChain()), handler: Self.echo) {
            server in
            let result = try await run(["https://localhost:\(server.port)/items?page=2", "--ca", ca])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output == "hello GET")
            #expect(result.error.isEmpty)
            #expect(server.statistics.requests.map(\.uri) == ["/items?page=2"])
        }
    }

    /// Issue 51 item 12: a body or identity file that is not a regular file (a FIFO would
    /// block, `/dev/zero` would never end) is refused before anything is sent.
    @Test func bodyAndIdentityFilesThatAreNotFilesAreRefusedAtOnce() async throws {
        let caFile = try CAFile()
        let (directory, ca) = (caFile.directory, caFile.path)
        let fifo = directory.url.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: try Self.pki.validChain()), handler: Self.echo) {
            server in
            let url = "https://localhost:\(server.port)/items"
            let zeroBody = try await run([url, "--ca", ca, "--data-file", "/dev/zero"])
            #expect(zeroBody.status == 1)
            #expect(
                zeroBody.error.contains("cannot read the request body: it is a character device, not a regular file"),
                "\(zeroBody.error)"
            )
            let pipedKey = try await run([url, "--ca", ca, "--cert", ca, "--key", fifo])
            #expect(pipedKey.status == 1)
            #expect(
                pipedKey.error.contains("cannot read the client key: it is a FIFO, not a regular file"),
                "\(pipedKey.error)"
            )
            #expect(server.statistics.requests.isEmpty)
        }
    }

    @Test func methodHeadersBodyAndOutputFile() async throws {
        let caFile = try CAFile()
        let (directory, ca) = (caFile.directory, caFile.path)
        let bodyFile = try directory.write("body.json", Array(#"{"name":"ada"}"#.utf8))
        let output = directory.url.appendingPathComponent("out.txt").path
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: try Self.pki.validChain()), handler: Self.echo) {
            server in
            let result = try await run([
                "https://localhost:\(server.port)/items", "--ca", ca, "-X", "PUT", "-H",
                "Content-Type: application/json",
                "-H", "X-Request-Id: 42", "--data-file", bodyFile, "-o", output,
            ])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.isEmpty)
            #expect(try String(contentsOfFile: output, encoding: .utf8) == "hello PUT")
            let recorded = try #require(server.statistics.requests.first)
            #expect(recorded.method == "PUT")
            #expect(recorded.header("X-Request-Id") == "42")
            #expect(recorded.header("Content-Type") == "application/json")
            #expect(recorded.body == Array(#"{"name":"ada"}"#.utf8))

            // --data without -X is a POST, as with curl.
            let post = try await run(["https://localhost:\(server.port)/items", "--ca", ca, "--data", "x=1"])
            #expect(post.output == "hello POST")
        }
    }

    @Test func verboseShowsTrustTLSAndTimingsWithSecretsRedacted() async throws {
        let caFile = try CAFile()
        let ca = caFile.path
        let chain = try Self.pki.validChain()
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: chain), handler: Self.echo) { server in
            let result = try await run([
                "https://localhost:\(server.port)/login?access_token=query-secret&x=1", "--ca", ca,
                "--pin", Self.pki.intermediate.pin.description, "--pin", Self.pki.root.pin.description,
                "-H", "Authorization: Bearer header-secret", "-H", "Content-Type: application/json",
                "--data", #"{"user":"ada","password":"body-secret"}"#, "-v",
            ])
            #expect(result.status == 0, "\(result.error)")
            let log = result.error
            #expect(log.contains("* connected to localhost:\(server.port): TLSv1.3, TLS_AES_128_GCM_SHA256, HTTP/1.1"))
            #expect(log.contains("* trust: trusted"))
            #expect(
                log.contains(
                    "*   [1] CN=SecureNetworking Test Intermediate CA,O=SecureNetworking Tests  \(Self.pki.intermediate.pin)"
                )
            )
            #expect(log.contains("* pins: matched (localhost, 2 pins)"))
            #expect(log.contains("* CT: not required"))
            #expect(log.contains("> POST https://localhost:\(server.port)/login?access_token=REDACTED&x=1"))
            #expect(log.contains("> Authorization: <redacted>"))
            #expect(log.contains(#"> (body) {"password":"<redacted>","user":"ada"}"#))
            #expect(log.contains("< 200"))
            #expect(log.contains("< Set-Cookie: <redacted>"))
            #expect(log.contains("* timings: DNS "))
            #expect(log.contains(", connect ") && log.contains(", TLS ") && log.contains(", total "))
            for secret in ["query-secret", "header-secret", "body-secret", "cookie-secret"] {
                #expect(!log.contains(secret), "\(secret) in the log")
            }
            // The secrets did reach the server.
            let recorded = try #require(server.statistics.requests.first)
            #expect(recorded.header("Authorization") == "Bearer header-secret")
            #expect(recorded.uri.contains("access_token=query-secret"))
        }
    }

    @Test func jsonIsTheWholeExchangeWithSecretsRedacted() async throws {
        let caFile = try CAFile()
        let ca = caFile.path
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: try Self.pki.validChain()), handler: Self.echo) {
            server in
            let result = try await run([
                "https://localhost:\(server.port)/token", "--ca", ca, "-H", "Cookie: id=cookie-secret",
                "--data", "grant_type=refresh_token&refresh_token=form-secret", "--json",
            ])
            #expect(result.status == 0, "\(result.error)")
            for secret in ["form-secret", "cookie-secret"] { #expect(!result.output.contains(secret)) }
            let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            let request = try #require(json["request"] as? [String: Any])
            #expect(request["method"] as? String == "POST")
            #expect(request["body"] as? String == "grant_type=refresh_token&refresh_token=<redacted>")
            #expect((request["headers"] as? [[String: String]])?.first == ["name": "Cookie", "value": "<redacted>"])
            let response = try #require(json["response"] as? [String: Any])
            #expect(response["status"] as? Int == 200)
            #expect(response["body"] as? String == "hello POST")
            #expect((json["connection"] as? [String: Any])?["tlsVersion"] as? String == "TLSv1.3")
            let trust = try #require(json["trust"] as? [String: Any])
            #expect(trust["verdict"] as? String == "trusted")
            #expect((trust["chain"] as? [Any])?.count == 3)
            let timings = try #require(json["timings"] as? [String: Double])
            for key in [
                "connectMilliseconds", "tlsHandshakeMilliseconds", "firstByteMilliseconds", "totalMilliseconds",
            ] {
                #expect((timings[key] ?? 0) > 0, "\(key)")
            }
            #expect((timings["totalMilliseconds"] ?? 0) >= (timings["tlsHandshakeMilliseconds"] ?? .infinity))
        }
    }

    @Test func clientCertificatesFromPEMAndPKCS12() async throws {
        let caFile = try CAFile()
        let (directory, ca) = (caFile.directory, caFile.path)
        let client = try Self.pki.clientIdentity(commonName: "cli-device")
        let cert = try directory.write("client.pem", Array(client.pem.utf8))
        let key = try directory.write("client-key.pem", Array(client.leafIdentity.privateKeyPEM.utf8))
        let p12 = try directory.write("client.p12", try client.pkcs12(passphrase: "p12-passphrase"))
        var tls = LoopbackHTTPServer.TLS(chain: try Self.pki.validChain())
        tls.requiredClientCertificateIssuers = [Self.pki.clientCA]
        try await withLoopbackHTTPServer(tls, handler: Self.echo) { server in
            let url = "https://localhost:\(server.port)/"
            let pem = try await run([url, "--ca", ca, "--cert", cert, "--key", key])
            #expect(pem.status == 0, "\(pem.error)")
            #expect(pem.output == "hello GET")

            let bundle = try await run(
                [url, "--ca", ca, "--p12", p12, "-v"],
                environment: ["SECURENET_P12_PASSPHRASE": "p12-passphrase"]
            )
            #expect(bundle.status == 0, "\(bundle.error)")
            #expect(!bundle.error.contains("p12-passphrase"))

            let wrong = try await run(
                [url, "--ca", ca, "--p12", p12],
                environment: ["SECURENET_P12_PASSPHRASE": "wrong"]
            )
            #expect(wrong.status == 1)
            #expect(wrong.error.split(separator: "\n").count == 1)
            #expect(!wrong.error.contains("wrong\n") && !wrong.error.contains("p12-passphrase"))

            // No terminal and no variable: a clear error, not a hang.
            let missing = try await run([url, "--ca", ca, "--p12", p12, "--p12-passphrase-env", "SECURENET_TEST_UNSET"])
            #expect(missing.status == 1)
            #expect(missing.error.contains("set SECURENET_TEST_UNSET"), "\(missing.error)")

            let none = try await run([url, "--ca", ca])
            #expect(none.status == 1)
            #expect(none.error.contains("requires a client certificate"), "\(none.error)")
            #expect(server.statistics.requests.count == 2)
        }
    }

    @Test func theInfoPlistPolicyIsTheOneEnforced() async throws {
        let caFile = try CAFile()
        let (directory, ca) = (caFile.directory, caFile.path)
        var tls = LoopbackHTTPServer.TLS(chain: try Self.pki.validChain())
        tls.minimumVersion = .tlsv11
        tls.maximumVersion = .tlsv11
        let plist = InfoPlistFixtures.xml(
            """
            \t\t<key>NSExceptionDomains</key>
            \t\t<dict>
            \t\t\t<key>localhost</key>
            \t\t\t<dict>
            \t\t\t\t<key>NSExceptionMinimumTLSVersion</key>
            \t\t\t\t<string>TLSv1.1</string>
            \t\t\t</dict>
            \t\t</dict>
            """
        )
        let infoPlist = try directory.write("Info.plist", Array(plist.utf8))
        try await withLoopbackHTTPServer(tls, handler: Self.echo) { server in
            let url = "https://localhost:\(server.port)/"
            let strict = try await run([url, "--ca", ca])
            #expect(strict.status == 1)
            #expect(strict.error.contains("share no TLS version"), "\(strict.error)")
            let excepted = try await run([url, "--ca", ca, "--info-plist", infoPlist, "-v"])
            #expect(excepted.status == 0, "\(excepted.error)")
            #expect(excepted.error.contains(": TLSv1.1, TLS_ECDHE_ECDSA_WITH_"))
        }
    }

    @Test func aPinMismatchIsExitStatus2WithTheReason() async throws {
        let caFile = try CAFile()
        let ca = caFile.path
        let other = try TestPKI(referenceTime: Date())
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: try Self.pki.validChain()), handler: Self.echo) {
            server in
            let result = try await run([
                "https://localhost:\(server.port)/", "--ca", ca, "--pin", other.intermediate.pin.description,
                "--pin", other.root.pin.description, "-v",
            ])
            #expect(result.status == 2)
            #expect(result.error.contains("* trust: NOT trusted: pinMismatch"))
            #expect(result.error.contains("* pins: MISMATCH (localhost, 2 pins)"))
            #expect(result.error.contains("securenet: https://localhost:\(server.port)/: pinMismatch: "))
            #expect(server.statistics.requests.isEmpty)
        }
    }

    /// `--pin` for a URL whose host is an address in another spelling (`127.1`) pins the address
    /// the connection is judged as (`127.0.0.1`), and the pins are checked.
    @Test func pinsForAnAddressInAnotherSpellingApplyToTheAddress() async throws {
        let caFile = try CAFile()
        let chain = try Self.pki.validChain()
        let other = try TestPKI(referenceTime: Date())
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: chain), handler: Self.echo) { server in
            let matched = try await run([
                "https://127.1:\(server.port)/", "--ca", caFile.path, "--pin", Self.pki.intermediate.pin.description,
                "--pin", Self.pki.root.pin.description, "-v",
            ])
            #expect(matched.status == 0, "\(matched.error)")
            #expect(matched.error.contains("* pins: matched (127.0.0.1, 2 pins)"), "\(matched.error)")
            let refused = try await run([
                "https://127.1:\(server.port)/", "--ca", caFile.path, "--pin", other.intermediate.pin.description,
                "--pin", other.root.pin.description,
            ])
            #expect(refused.status == 2, "\(refused.error)")
            #expect(refused.error.contains("pinMismatch"), "\(refused.error)")
        }
    }

    @Test func badInputIsOneLineWithItsExitStatus() async throws {
        let caFile = try CAFile()
        let (directory, ca) = (caFile.directory, caFile.path)
        func expectOneLine(_ arguments: [String], _ text: String, status: Int32 = 1) async throws {
            let result = try await run(arguments)
            #expect(result.status == status, "\(arguments): \(result.error)")
            #expect(result.error.split(separator: "\n").count == 1, "\(result.error)")
            #expect(result.error.contains(text), "\(result.error)")
        }
        try await withRefusingLoopbackPort { port in
            try await expectOneLine(["https://127.0.0.1:\(port)/"], "could not connect")
            // The URL in an error hides secret-named query parameters.
            try await expectOneLine(
                ["https://127.0.0.1:\(port)/?access_token=query-secret"],
                "/?access_token=REDACTED: could not connect"
            )
        }
        try await withLoopbackHTTPServer(nil) { server in
            try await expectOneLine(["https://localhost:\(server.port)/", "--ca", ca], "did not answer with TLS")
            // Plain http is refused by the default policy before any connection.
            try await expectOneLine(["http://localhost:\(server.port)/"], "plain http to localhost is refused")
            #expect(server.statistics.requests.isEmpty)
        }
        try await expectOneLine(["https://localhost:1/", "--pin", "sha256/not-a-pin"], "securenet: --pin: ")
        try await expectOneLine(["https://localhost:1/", "--pin", Self.pki.root.pin.description], "securenet: --pin: ")
        try await expectOneLine(
            ["https://localhost:1/", "-H", "X-Injected: a\r\nX-Evil: b"],
            "securenet: -H: the value of X-Injected contains CR, LF or NUL"
        )
        try await expectOneLine(["https://localhost:1/", "-H", "no colon"], "securenet: -H: ")
        try await expectOneLine(
            ["https://localhost:1/", "--data-file", directory.url.appendingPathComponent("none").path],
            "cannot read the request body"
        )
        let badPlist = try directory.write("Info.plist", Array("not a plist".utf8))
        try await expectOneLine(["https://localhost:1/", "--info-plist", badPlist], "property list")
        try await expectOneLine(
            ["https://localhost:1/", "--cert", ca, "--key", directory.url.appendingPathComponent("none").path],
            "cannot read the client key"
        )
        let usage = try await run(["https://localhost:1/", "--data", "a", "--data-file", ca])
        #expect(usage.status == 64)
    }
}
#endif
