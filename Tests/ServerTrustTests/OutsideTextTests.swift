import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing
import X509

/// One escaping rule for every text that came from outside (issue 51 item 10): what a server
/// or a file chose cannot rewrite the terminal, add a line, reorder what the reader sees or
/// start a GitHub Actions workflow command, and plain names of every script are left alone.
@Suite("Outside text")
struct OutsideTextTests {
    /// A common name a server chose to forge a CI log: erase the line, return, and a line of
    /// its own.
    static let forgedName = "evil\u{1B}[2K\r\u{202E}txt.exe\n::error::forged"

    /// Whether `text` holds what a terminal or a log reader obeys, or a line that starts a
    /// workflow command after the runner's trim of every Unicode white space.
    static func obeyable(_ text: String) -> Bool {
        if text.unicodeScalars.contains(where: { OutsideText.isEscaped($0) && $0 != "\n" }) { return true }
        return text.split(separator: "\n").contains { line in
            String(String.UnicodeScalarView(line.unicodeScalars.drop { $0.properties.isWhitespace })).hasPrefix("::")
        }
    }

    @Test(arguments: [
        ("evil\u{1B}[2K", #"evil\u{1B}[2K"#),
        ("a\rb", #"a\u{D}b"#),
        ("a\nb", #"a\u{A}b"#),
        ("a\tb\u{7F}\u{85}\u{9B}", #"a\u{9}b\u{7F}\u{85}\u{9B}"#),
        ("::error::x", #"\u{3A}:error::x"#),
        ("  ::error::x", #"  \u{3A}:error::x"#),
        ("\u{A0}::error::x", #"\u{A0}::error::x"#),
        ("\u{2003}::error::x", #"\u{2003}::error::x"#),
        ("\u{3000}::error::x", #"\u{3000}::error::x"#),
        ("a\u{2028}b\u{2029}c", #"a\u{2028}b\u{2029}c"#),
        ("invoice\u{202E}fdp.exe", #"invoice\u{202E}fdp.exe"#),
        ("a\u{2066}b\u{2069}\u{200F}\u{61C}", #"a\u{2066}b\u{2069}\u{200F}\u{61C}"#),
        ("\u{FEFF}\u{200B}x", #"\u{FEFF}\u{200B}x"#),
        ("x ##[add-mask]y", #"x #\u{23}[add-mask]y"#),
        ("CN=api.example.com, O=Example", "CN=api.example.com, O=Example"),
        ("Zürich 東京 Ελλάδα 👩‍💻 C:\\keys", "Zürich 東京 Ελλάδα 👩‍💻 C:\\keys"),
        ("", ""),
    ])
    func escaped(text: String, expected: String) {
        #expect(OutsideText.escaped(text) == expected)
        #expect(!Self.obeyable(OutsideText.escaped(text)))
        // Escaping twice changes nothing more: a message may hold an escaped name.
        #expect(OutsideText.escaped(OutsideText.escaped(text)) == OutsideText.escaped(text))
    }

    @Test func everyUnicodeWhiteSpaceButTheSpaceIsEscaped() {
        for value in UInt32(0)...0x3000 {
            guard let scalar = Unicode.Scalar(value), scalar.properties.isWhitespace, scalar != " " else { continue }
            let text = OutsideText.escaped(String(scalar) + "::x")
            #expect(text.hasPrefix("\\u{"), "U+\(String(value, radix: 16))")
            #expect(!text.unicodeScalars.contains { $0.properties.isWhitespace }, "U+\(String(value, radix: 16))")
        }
    }

    @Test func quotedWritesALiteral() {
        #expect(OutsideText.quoted("a\"b\\c\nd\r\t\u{1B}\u{3000}") == #""a\"b\\c\nd\r\t\u{1B}\u{3000}""#)
        #expect(OutsideText.quoted("Zürich") == "\"Zürich\"")
    }

    @Test func escapedLinesKeepsTheLinesAndEscapesEachOne() {
        #expect(OutsideText.escapedLines("a\n::error::b\r\n\u{3000}::c") == "a\n\\u{3A}:error::b\\u{D}\n\\u{3000}::c")
    }

    /// A ServerTrustError's message, a SecureHTTPError's and a trust warning's go through the
    /// rule whoever made them.
    @Test func errorMessagesAreEscapedWhoeverMadeThem() {
        let error = ServerTrustError(.selfSigned, "the leaf (\(Self.forgedName)) is self-signed", keyPath: "a\u{1B}b")
        #expect(!Self.obeyable(error.message))
        #expect(!Self.obeyable(error.description))
        #expect(error.message.contains(#"evil\u{1B}[2K\u{D}\u{202E}txt.exe"#))
        #expect(error.keyPath == #"a\u{1B}b"#)
        let warning = TrustWarning(.commonNameInconsistent, "\u{1B}]0;title\u{7}")
        #expect(warning.message == #"\u{1B}]0;title\u{7}"#)
    }

    // MARK: - Names a server chose, in the trust decision

    static func forgedChain(_ configure: (inout TestPKI.LeafOptions) -> Void = { _ in }) throws -> TestPKI.Chain {
        let subject = try DistinguishedName {
            OrganizationName("Forgers \u{3000}::warning::x")
            CommonName(Self.forgedName)
        }
        return try Fixtures.pki.leaf {
            $0.subject = subject
            configure(&$0)
        }
    }

    @Test func aSelfSignedLeafsForgedNameIsEscapedInTheRefusal() async throws {
        let decision = try await evaluate(try Self.forgedChain { $0.issuer = .selfSigned })
        let failure = try #require(decision.failure)
        #expect(failure.code == .selfSigned)
        #expect(!Self.obeyable(failure.message), "\(failure.message)")
        #expect(!failure.message.contains("\n"))
        #expect(
            failure.message.contains(#"evil\u{1B}[2K\u{D}\u{202E}txt.exe\u{A}::error::forged"#),
            "\(failure.message)"
        )
    }

    @Test func aPinMismatchKeepsItsLinesAndEscapesTheNames() async throws {
        let unrelated = try TestPKI(referenceTime: Fixtures.now)
        let decision = try await evaluate(
            try Self.forgedChain(),
            pins: try PinSet([unrelated.root.pin.description, unrelated.intermediate.pin.description])
        )
        let failure = try #require(decision.failure)
        #expect(failure.code == .pinMismatch)
        #expect(!Self.obeyable(failure.message), "\(failure.message)")
        let lines = failure.message.split(separator: "\n")
        // The first line, "served chain:", three certificates, "pinned:", two pins.
        let expectedLines = 8
        #expect(lines.count == expectedLines, "\(failure.message)")
        #expect(lines.contains { $0.contains(#"evil\u{1B}[2K"#) })
    }

    @Test func aForgedCommonNameIsEscapedInTheWarning() async throws {
        let decision = try await evaluate(try Self.forgedChain())
        #expect(decision.isTrusted)
        let warning = try #require(decision.warnings.first)
        #expect(warning.code == .commonNameInconsistent)
        #expect(!Self.obeyable(warning.message), "\(warning.message)")
        #expect(warning.message.contains(#"\u{1B}[2K"#))
    }
}
