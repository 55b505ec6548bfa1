#if Tools
import Foundation
import NIOSSL
import SecureNetworkingTesting
import ServerTrust
import Testing
import X509

/// `securenet diagnose URL`: the built binary against loopback servers that need each exception
/// ATS offers, and against the bad inputs.
@Suite("securenet diagnose")
struct DiagnoseCommandTests {
    typealias TemporaryDirectory = CLI.TemporaryDirectory

    static var pki: TestPKI { PinsURLCommandTests.pki }

    func run(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        try await CLI.run(
            try CLI.securenet(),
            arguments,
            subcommand: "diagnose"
        )
    }

    /// The JSON report of a run with the test root as the only anchor.
    func report(_ port: Int, _ extra: [String] = []) async throws -> (status: Int32, json: [String: Any], error: String)
    {
        let directory = try TemporaryDirectory()
        let ca = try directory.write("ca.pem", Array(Self.pki.root.pem.utf8))
        let result = try await run(["https://localhost:\(port)/", "--ca", ca, "--json"] + extra)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
            "\(result.output) \(result.error)"
        )
        return (result.status, json, result.error)
    }

    /// PASS or FAIL per configuration, by name.
    static func results(_ json: [String: Any]) -> [String: String] {
        let results = json["results"] as? [[String: Any]] ?? []
        return Dictionary(
            uniqueKeysWithValues: results.map { ($0["configuration"] as? String ?? "", $0["result"] as? String ?? "") }
        )
    }

    static func minimal(_ json: [String: Any]) -> [String: Any]? { json["minimalException"] as? [String: Any] }

    static let defaultName = "ATS default (TLSv1.2+, forward secrecy, AEAD suites)"

    /// A server that serves only `version`, with NIOSSL's default suites (CBC ones included).
    static func legacyServer(_ version: NIOSSL.TLSVersion) throws -> LoopbackHTTPServer.TLS {
        var tls = LoopbackHTTPServer.TLS(chain: try pki.validChain())
        tls.minimumVersion = version
        tls.maximumVersion = version
        return tls
    }

    /// TLS 1.2 with RSA key transport only (TLS_RSA_WITH_AES_128_GCM_SHA256): no forward secrecy.
    static func staticRSAServer() throws -> LoopbackHTTPServer.TLS {
        let chain = try pki.leaf {
            $0.issuer = .rsaIntermediate
            $0.key = .rsa(bits: 2048)
            $0.keyUsage = KeyUsage(digitalSignature: true, keyEncipherment: true)
        }
        var tls = LoopbackHTTPServer.TLS(chain: chain)
        tls.maximumVersion = .tlsv12
        tls.cipherSuites = [.TLS_RSA_WITH_AES_128_GCM_SHA256]
        return tls
    }

    @Test func aGoodServerPassesTheDefaultAndNeedsNoException() async throws {
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: try Self.pki.validChain())) { server in
            let (status, json, _) = try await report(server.port)
            #expect(status == 0)
            let results = Self.results(json)
            #expect(results[Self.defaultName] == "PASS")
            #expect(results["TLSv1.3 minimum (stricter)"] == "PASS")
            #expect(Self.minimal(json) == nil)
            #expect(json["conclusion"] as? String == "PASS under the default policy: no exception needed")
            let first = try #require((json["results"] as? [[String: Any]])?.first)
            #expect(first["tlsVersion"] as? String == "TLSv1.3")
            #expect(first["cipherSuite"] as? String == "TLS_AES_128_GCM_SHA256")
            #expect((json["chain"] as? String)?.hasPrefix("trusted (the certificates of --ca): 3 certificates") == true)
            // Every configuration is its own connection and handshake.
            #expect(server.statistics.handshakesCompleted == (json["results"] as? [Any])?.count)
        }
    }

    @Test func aTLS12OnlyServerReportsItsSuite() async throws {
        var tls = LoopbackHTTPServer.TLS(chain: try Self.pki.validChain())
        tls.maximumVersion = .tlsv12
        try await withLoopbackHTTPServer(tls) { server in
            let (status, json, _) = try await report(server.port)
            #expect(status == 0)
            let results = try #require(json["results"] as? [[String: Any]])
            #expect(results[0]["tlsVersion"] as? String == "TLSv1.2")
            #expect((results[0]["cipherSuite"] as? String)?.hasPrefix("TLS_ECDHE_ECDSA_WITH_") == true)
            #expect(Self.results(json)["TLSv1.3 minimum (stricter)"] == "FAIL")
        }
    }

    @Test func aTLS10OnlyServerNeedsTheTLS10Minimum() async throws {
        try await withLoopbackHTTPServer(try Self.legacyServer(.tlsv1)) { server in
            let (status, json, _) = try await report(server.port)
            #expect(status == 2)
            let results = Self.results(json)
            #expect(results[Self.defaultName] == "FAIL")
            #expect(results["TLSv1.1 minimum"] == "FAIL")
            #expect(results["forward secrecy off"] == "FAIL")
            #expect(results["TLSv1.0 minimum"] == "PASS")
            let minimal = try #require(Self.minimal(json))
            #expect(minimal["configuration"] as? String == "TLSv1.0 minimum")
            #expect(
                minimal["policyFile"] as? String
                    == "\"exceptionDomains\": { \"localhost\": { \"minimumTLSVersion\": \"TLSv1.0\" } }"
            )
            let plist = try #require(minimal["infoPlist"] as? String)
            #expect(plist.contains("<key>NSExceptionMinimumTLSVersion</key>\n    <string>TLSv1.0</string>"))
            #expect(!plist.contains("NSExceptionRequiresForwardSecrecy"))
            let passing = try #require(
                (json["results"] as? [[String: Any]])?.first { $0["configuration"] as? String == "TLSv1.0 minimum" }
            )
            #expect(passing["tlsVersion"] as? String == "TLSv1.0")
            #expect((passing["cipherSuite"] as? String)?.hasSuffix("_CBC_SHA") == true)
            let failing = try #require((json["results"] as? [[String: Any]])?.first)
            #expect(failing["errorCode"] as? String == "tlsVersionRefused")
        }
    }

    @Test func aTLS11OnlyServerNeedsTheTLS11Minimum() async throws {
        try await withLoopbackHTTPServer(try Self.legacyServer(.tlsv11)) { server in
            let (status, json, _) = try await report(server.port)
            #expect(status == 2)
            let results = Self.results(json)
            #expect(results[Self.defaultName] == "FAIL")
            #expect(results["TLSv1.1 minimum"] == "PASS")
            #expect(results["TLSv1.0 minimum"] == "PASS")
            let minimal = try #require(Self.minimal(json))
            #expect(minimal["configuration"] as? String == "TLSv1.1 minimum")
            #expect(
                minimal["policyFile"] as? String
                    == "\"exceptionDomains\": { \"localhost\": { \"minimumTLSVersion\": \"TLSv1.1\" } }"
            )
        }
    }

    @Test func aServerWithoutForwardSecrecyNeedsForwardSecrecyOff() async throws {
        try await withLoopbackHTTPServer(try Self.staticRSAServer()) { server in
            let (status, json, _) = try await report(server.port)
            #expect(status == 2)
            let results = Self.results(json)
            #expect(results[Self.defaultName] == "FAIL")
            #expect(results["ATS cipher list (adds CBC suites)"] == "FAIL")
            #expect(results["TLSv1.0 minimum"] == "FAIL")
            #expect(results["forward secrecy off"] == "PASS")
            let minimal = try #require(Self.minimal(json))
            #expect(minimal["configuration"] as? String == "forward secrecy off")
            #expect(
                minimal["policyFile"] as? String
                    == "\"exceptionDomains\": { \"localhost\": { \"requiresForwardSecrecy\": false } }"
            )
            #expect(
                (minimal["infoPlist"] as? String)?.contains(
                    "<key>NSExceptionRequiresForwardSecrecy</key>\n    <false/>"
                ) == true
            )
            let passing = try #require(
                (json["results"] as? [[String: Any]])?.first { $0["configuration"] as? String == "forward secrecy off" }
            )
            #expect(passing["cipherSuite"] as? String == "TLS_RSA_WITH_AES_128_GCM_SHA256")
        }
    }

    /// The printed exception, pasted into an Info.plist, is a policy under which the server passes.
    @Test func thePrintedInfoPlistExceptionMakesTheServerPass() async throws {
        try await withLoopbackHTTPServer(try Self.legacyServer(.tlsv11)) { server in
            let directory = try TemporaryDirectory()
            let (_, json, _) = try await report(server.port)
            let snippet = try #require(Self.minimal(json)?["infoPlist"] as? String)
            let plist = InfoPlistFixtures.xml(snippet)
            let path = try directory.write("Info.plist", Array(plist.utf8))
            let (status, withPolicy, _) = try await report(server.port, ["--info-plist", path])
            #expect(status == 0)
            let app = try #require(withPolicy["appPolicy"] as? [String: Any])
            #expect(app["result"] as? String == "PASS")
            #expect(app["tlsVersion"] as? String == "TLSv1.1")
            #expect(withPolicy["pins"] as? String == "none for localhost in the policy")

            // Without the exception, the app's policy fails: exit status 2.
            let strict = try directory.write(
                "Strict.plist",
                Array(InfoPlistFixtures.xml(nil).utf8)
            )
            let (failing, withoutException, _) = try await report(server.port, ["--info-plist", strict])
            #expect(failing == 2)
            #expect((withoutException["appPolicy"] as? [String: Any])?["errorCode"] as? String == "tlsVersionRefused")
        }
    }

    @Test func thePolicysPinsAreChecked() async throws {
        let directory = try TemporaryDirectory()
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: try Self.pki.validChain())) { server in
            let good = try directory.write(
                "good.json",
                Array(
                    #"{ "pinnedDomains": { "localhost": { "pins": ["\#(Self.pki.intermediate.pin)", "\#(Self.pki.root.pin)"] } } }"#
                        .utf8
                )
            )
            let (status, json, _) = try await report(server.port, ["--policy", good])
            #expect(status == 0)
            #expect(json["pins"] as? String == "matched (localhost, 2 pins)")

            let other = try TestPKI(referenceTime: Date())
            let bad = try directory.write(
                "bad.json",
                Array(
                    #"{ "pinnedDomains": { "localhost": { "pins": ["\#(other.intermediate.pin)", "\#(other.root.pin)"] } } }"#
                        .utf8
                )
            )
            let (mismatch, mismatched, _) = try await report(server.port, ["--policy", bad])
            #expect(mismatch == 2)
            #expect((mismatched["pins"] as? String)?.hasPrefix("MISMATCH for localhost (2 pins)") == true)
            #expect((mismatched["appPolicy"] as? [String: Any])?["errorCode"] as? String == "pinMismatch")
        }
    }

    @Test func anUntrustedChainPassesNoConfiguration() async throws {
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: try Self.pki.validChain())) { server in
            // The system roots do not hold the test root.
            let result = try await run(["https://localhost:\(server.port)/"])
            #expect(result.status == 3)
            #expect(result.output.contains("chain:  NOT trusted (system roots): "))
            #expect(result.output.contains("no configuration passes: the chain is not trusted"))
            #expect(server.statistics.requests.isEmpty)
        }
    }

    @Test func aServerThatRequiresAClientCertificatePassesNoConfiguration() async throws {
        var tls = LoopbackHTTPServer.TLS(chain: try Self.pki.validChain())
        tls.requiredClientCertificateIssuers = [Self.pki.clientCA]
        try await withLoopbackHTTPServer(tls) { server in
            let (status, json, _) = try await report(server.port)
            #expect(status == 3)
            #expect(Self.results(json).values.allSatisfy { $0 == "FAIL" })
            #expect(
                (json["results"] as? [[String: Any]])?.first?["errorCode"] as? String == "clientCertificateRequired"
            )
            #expect((json["conclusion"] as? String)?.contains("requires a client certificate") == true)
            #expect(server.statistics.requests.isEmpty)
        }
    }

    @Test func plainHTTPNeedsTheInsecureLoadsException() async throws {
        try await withLoopbackHTTPServer(nil) { server in
            let result = try await run(["http://localhost:\(server.port)/", "--json"])
            #expect(result.status == 2)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            let results = Self.results(json)
            #expect(results["ATS default (HTTPS only)"] == "FAIL")
            #expect(results["insecure HTTP loads for localhost"] == "PASS")
            let minimal = try #require(Self.minimal(json))
            #expect(
                minimal["policyFile"] as? String
                    == "\"exceptionDomains\": { \"localhost\": { \"allowsInsecureHTTPLoads\": true } }"
            )
            // The default refused it before connecting: the passing configurations made the requests.
            #expect(server.statistics.requests.count == results.values.filter { $0 == "PASS" }.count)
        }
    }

    @Test func badInputIsOneLineWithItsExitStatus() async throws {
        let directory = try TemporaryDirectory()
        try await withRefusingLoopbackPort { port in
            let refused = try await run(["https://127.0.0.1:\(port)/"])
            #expect(refused.status == 1)
            #expect(refused.error.split(separator: "\n").count == 1)
            #expect(refused.error.contains("securenet: https://127.0.0.1:\(port)/: could not connect"))
            // For http://, the default refuses before connecting; the first attempt that
            // connects finds nobody there.
            let plain = try await run(["http://127.0.0.1:\(port)/?token=query-secret"])
            #expect(plain.status == 1)
            #expect(
                plain.error.hasPrefix("securenet: http://127.0.0.1:\(port)/?token=REDACTED: could not connect"),
                "\(plain.error)"
            )
        }
        try await withLoopbackHTTPServer(nil) { server in
            let plain = try await run(["https://localhost:\(server.port)/"])
            #expect(plain.status == 1)
            #expect(plain.error.contains("did not answer with TLS"), "\(plain.error)")
        }
        let badPlist = try directory.write(
            "Info.plist",
            Array(
                // A TLS version ATS does not know is an error with its key path (a value of the wrong
                // type is not: ATS ignores it, so the file loads with a warning).
                ("<?xml version=\"1.0\"?><plist><dict><key>NSAppTransportSecurity</key><dict>"
                    + "<key>NSExceptionDomains</key><dict><key>a.example</key><dict>"
                    + "<key>NSExceptionMinimumTLSVersion</key><string>1.2</string></dict></dict></dict></dict></plist>")
                    .utf8
            )
        )
        let plist = try await run(["https://localhost:1/", "--info-plist", badPlist])
        #expect(plist.status == 1)
        #expect(plist.error.contains("securenet: \(badPlist): NSAppTransportSecurity"), "\(plist.error)")
        let missing = try await run([
            "https://localhost:1/", "--policy", directory.url.appendingPathComponent("none.json").path,
        ])
        #expect(missing.status == 1)
        #expect(missing.error.contains("cannot read"))
        let badPin = try directory.write(
            "policy.json",
            Array(#"{ "pinnedDomains": { "localhost": { "pins": ["sha256/short", "sha256/x"] } } }"#.utf8)
        )
        let pin = try await run(["https://localhost:1/", "--policy", badPin])
        #expect(pin.status == 1)
        #expect(pin.error.split(separator: "\n").count == 1)
        #expect(pin.error.contains("securenet: \(badPin): $.pinnedDomains"), "\(pin.error)")
        let usage = try await run(["ftp://localhost/"])
        #expect(usage.status == 64)
    }
}
#endif
