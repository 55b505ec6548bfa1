#if Tools
import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing

/// `securenet pins URL`: the chain a loopback TLS server serves, through NIOHTTPTransport, with
/// pin entries to paste; and the failures, each one line with its exit status.
@Suite("securenet pins URL")
struct PinsURLCommandTests {
    typealias TemporaryDirectory = CLI.TemporaryDirectory

    /// The binary validates at the real clock: a PKI minted now.
    static let pki: TestPKI = {
        do { return try TestPKI(referenceTime: Date()) } catch { preconditionFailure("TestPKI: \(error)") }
    }()

    func run(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        try await CLI.run(
            try CLI.securenet(),
            arguments,
            subcommand: "pins"
        )
    }

    @Test func theServedChainIsPrintedWithPinEntries() async throws {
        let directory = try TemporaryDirectory()
        let ca = try directory.write("ca.pem", Array(Self.pki.root.pem.utf8))
        let chain = try Self.pki.validChain()
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: chain)) { server in
            let url = "https://localhost:\(server.port)/"
            let result = try await run([url, "--ca", ca])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.contains("verdict:    trusted (the certificates of --ca)"))
            #expect(result.output.contains("[0] leaf"))
            #expect(result.output.contains("[1] intermediate"))
            #expect(result.output.contains("[2] anchor (not sent: from the trust store)"))
            #expect(result.output.contains("pin:        \(chain.pins[0])"))
            #expect(result.output.contains("key:        EC P-256"))
            let caPins = "\"caPins\": [\"\(Self.pki.intermediate.pin)\", \"\(Self.pki.root.pin)\"]"
            #expect(result.output.contains("\"pinnedDomains\": { \"localhost\": { \(caPins) } }"))
            #expect(result.output.contains("<string>\(Self.pki.intermediate.pin.base64)</string>"))
            #expect(result.output.contains("the leaf's key changes whenever the certificate is renewed"))
            #expect(!result.output.contains("warning:"))
            // The server saw the handshake and no request: the command needs only the chain.
            #expect(server.statistics.requests.isEmpty)

            let json = try await run([url, "--ca", ca, "--json"])
            #expect(json.status == 0)
            let outputs = try #require(
                try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]]
            )
            let certificates = try #require(outputs.first?["certificates"] as? [[String: Any]])
            #expect(
                certificates.map { $0["pin"] as? String } == [
                    chain.pins[0].description, Self.pki.intermediate.pin.description, Self.pki.root.pin.description,
                ]
            )
        }
    }

    /// A common name that is not one of the SANs does not refuse the server (clients identify
    /// it by the SAN); the command says so as a warning.
    @Test func aCommonNameThatIsNotASANIsPrintedAsAWarning() async throws {
        let directory = try TemporaryDirectory()
        let ca = try directory.write("ca.pem", Array(Self.pki.root.pem.utf8))
        let chain = try Self.pki.leaf {
            $0.commonName = "Example Server"
            $0.dnsNames = ["localhost"]
        }
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: chain)) { server in
            let result = try await run(["https://localhost:\(server.port)/", "--ca", ca])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.contains("verdict:    trusted (the certificates of --ca)"))
            #expect(
                result.output.contains(
                    "warning:    commonNameInconsistent: the leaf's common name \"Example Server\" is not written exactly as one of its subject alternative names (BR §7.1.4.3)"
                ),
                "\(result.output)"
            )
        }
    }

    @Test func anUntrustedChainIsStillPrintedWithExitStatus2() async throws {
        let chain = try Self.pki.validChain()
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: chain)) { server in
            // The system roots do not include the test root.
            let result = try await run(["https://localhost:\(server.port)/"])
            #expect(result.status == 2)
            #expect(result.output.contains("verdict:    NOT trusted: "))
            #expect(result.output.contains("pin:        \(chain.pins[0])"))
            #expect(result.output.contains("pin:        \(Self.pki.intermediate.pin)"))
            #expect(server.statistics.requests.isEmpty)
        }
    }

    @Test func failuresAreOneLineErrorsWithExitStatus1() async throws {
        let directory = try TemporaryDirectory()
        try await withRefusingLoopbackPort { port in
            let refused = try await run(["https://127.0.0.1:\(port)/"])
            #expect(refused.status == 1)
            #expect(refused.error.split(separator: "\n").count == 1)
            #expect(refused.error.hasPrefix("securenet: https://127.0.0.1:\(port)/: "))
        }
        // A port that speaks plain HTTP, not TLS.
        try await withLoopbackHTTPServer(nil) { server in
            let plain = try await run(["https://localhost:\(server.port)/"])
            #expect(plain.status == 1)
            #expect(plain.error.split(separator: "\n").count == 1)
        }
        let badCA = try directory.write("ca.pem", Array("not a certificate".utf8))
        let ca = try await run(["https://localhost:1/", "--ca", badCA])
        #expect(ca.status == 1)
        #expect(ca.error.contains("ca.pem"))
    }
}
#endif
