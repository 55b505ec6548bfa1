#if Tools
import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing
import X509

/// A certificate whose names a server chose to forge a terminal or a CI log (issue 51 item 10):
/// `securenet pins` and `securenet request` print them escaped, as one honest line each.
@Suite("securenet: names a server chose are escaped")
struct OutsideTextCommandTests {
    typealias TemporaryDirectory = CLI.TemporaryDirectory

    static var pki: TestPKI { PinsURLCommandTests.pki }

    /// `evil ESC[2K CR … LF ::error::forged`, and a Unicode space before `::` in the organization.
    static let forgedName = "evil\u{1B}[2K\rok \u{202E}gpj.exe\n::error::forged"

    static func forgedChain(selfSigned: Bool = false) throws -> TestPKI.Chain {
        let subject = try DistinguishedName {
            OrganizationName("\u{3000}::warning::org")
            CommonName(Self.forgedName)
        }
        return try Self.pki.leaf {
            $0.subject = subject
            if selfSigned { $0.issuer = .selfSigned }
        }
    }

    /// What a terminal or a log reader obeys: a control character but LF, a white space
    /// but U+0020, a bidirectional control, or a line that starts (after the Actions runner's
    /// trim of every Unicode white space) with `::`.
    static func expectHonest(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            !text.unicodeScalars.contains { OutsideText.isEscaped($0) && $0 != "\n" },
            "\(text.debugDescription)",
            sourceLocation: sourceLocation
        )
        for line in text.split(separator: "\n") {
            let trimmed = String(String.UnicodeScalarView(line.unicodeScalars.drop { $0.properties.isWhitespace }))
            #expect(!trimmed.hasPrefix("::"), "\(line.debugDescription)", sourceLocation: sourceLocation)
        }
    }

    @Test func pinsPrintsAForgedSubjectEscaped() async throws {
        let directory = try TemporaryDirectory()
        let ca = try directory.write("ca.pem", Array(Self.pki.root.pem.utf8))
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: try Self.forgedChain())) { server in
            let result = try await CLI.run(
                try CLI.securenet(),
                ["https://localhost:\(server.port)/", "--ca", ca],
                subcommand: "pins"
            )
            #expect(result.status == 0, "\(result.error)")
            Self.expectHonest(result.output)
            Self.expectHonest(result.error)
            #expect(
                result.output.contains(#"evil\u{1B}[2K\u{D}ok \u{202E}gpj.exe\u{A}::error::forged"#),
                "\(result.output)"
            )
            #expect(result.output.contains(#"O=\u{3000}::warning::org"#), "\(result.output)")
            // The common name is not a SAN: the warning quotes it, escaped too.
            #expect(result.output.contains("warning:    commonNameInconsistent"))
        }
    }

    @Test func aRefusedSelfSignedServerIsReportedEscaped() async throws {
        try await withLoopbackHTTPServer(LoopbackHTTPServer.TLS(chain: try Self.forgedChain(selfSigned: true))) {
            server in
            let url = "https://localhost:\(server.port)/"
            let pins = try await CLI.run(try CLI.securenet(), [url], subcommand: "pins")
            #expect(pins.status == 2, "\(pins.error)")
            Self.expectHonest(pins.output)
            Self.expectHonest(pins.error)
            #expect(pins.output.contains("NOT trusted: selfSigned: the leaf (CN=evil\\u{1B}[2K"), "\(pins.output)")

            let request = try await CLI.run(try CLI.securenet(), [url, "-v"], subcommand: "request")
            #expect(request.status == 2, "\(request.error)")
            Self.expectHonest(request.output)
            Self.expectHonest(request.error)
            #expect(request.error.contains("selfSigned: the leaf (CN=evil\\u{1B}[2K"), "\(request.error)")
            #expect(request.error.contains("*   [0] CN=evil\\u{1B}[2K"), "\(request.error)")
        }
    }
}
#endif
