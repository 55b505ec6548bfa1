#if Tools
import ArgumentParser
import Foundation
import HTTPTypes
import HTTPTypesFoundation
import NIOConcurrencyHelpers
import SecureHTTP
import ServerTrust
import X509

@main
struct SecureNet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "securenet",
        abstract:
            "SecureNetworking's command-line tool: the end-to-end demo, a local reference auth server, certificate pins and Certificate Transparency.",
        subcommands: [
            Demo.self, Serve.self, Pins.self, Diagnose.self, RequestCommand.self, Transparency.self, PolicyCommand.self,
            Intercept.self, Audit.self,
        ]
    )
}

/// `securenet pins FILE…` and `securenet pins URL`: the SPKI pins of certificates in files, or of
/// the chain a server serves, with ready-to-paste pin entries.
struct Pins: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Certificate pins: print them (the default), and make, sign and verify signed pin-set updates.",
        subcommands: [PinsShow.self, PinsKeygen.self, PinsSign.self, PinsVerify.self],
        defaultSubcommand: PinsShow.self
    )
}

/// `securenet pins [show] FILE…|URL…`.
struct PinsShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract:
            "Print the sha256/ SPKI pin of each certificate in PEM or DER files, or of the chain an https:// server serves, with ready-to-paste pin entries.",
        discussion: """
            Examples:
              securenet pins server-chain.pem
              securenet pins https://api.example.com/
              securenet pins https://localhost:8443/ --ca securenet-dev/ca.pem --json

            For a URL, NIOHTTPTransport opens a connection with the strict policy and the system \
            roots (or only the certificates of --ca) and closes it once the TLS handshake is over, \
            sending no HTTP (any TLS server will do), and the validated chain is printed, \
            anchor included, with a JSON policy file entry and an NSPinnedDomains entry pinning the \
            CA certificates. Exit status: 0 printed (a URL: and trusted), 1 an error (unreadable \
            file, unreachable host), 2 a URL whose chain is not trusted (its presented chain is \
            still printed), 64 a usage error.
            """
    )

    @Argument(help: "Certificate files (PEM with one or more certificates, or DER), or https:// URLs.")
    var targets: [String]

    @Option(help: "For a URL: trust only the certificates of this PEM file instead of the system roots.")
    var ca: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() async throws {
        var status: Int32 = 0
        var outputs: [PinsOutput] = []
        for target in self.targets {
            var standardError = StandardError()
            do {
                if target.lowercased().hasPrefix("https://") {
                    let (output, trusted) = try await Self.served(target, ca: self.ca)
                    outputs.append(output)
                    if !trusted { status = max(status, 2) }
                } else {
                    let file = try CertificateFile(path: target)
                    outputs.append(
                        PinsOutput(
                            source: target,
                            certificates: file.entries.map(PinsOutput.Certificate.init),
                            verdict: nil,
                            warnings: nil,
                            snippets: nil
                        )
                    )
                }
            } catch let error as ServerTrustError {
                status = 1
                printEscaped("securenet: \(target): \(error.message)", to: &standardError)
            } catch let error as SecureHTTPError {
                status = 1
                printEscaped("securenet: \(target): \(error.message)", to: &standardError)
            }
        }
        if self.json {
            try printJSON(outputs)
        } else {
            for output in outputs { printEscaped(output.text) }
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// Connects to `url` and returns its chain: the validated one when trusted, else the presented one.
    static func served(_ url: String, ca: String?) async throws -> (PinsOutput, Bool) {
        guard let parsed = URL(string: url), parsed.host != nil else {
            throw ServerTrustError(.invalidURL, "not a URL")
        }
        var policy = TransportSecurityPolicy.strict
        if let ca {
            let anchors = try CertificateFile(path: ca).entries.compactMap(\.certificate)
            guard !anchors.isEmpty else { throw ServerTrustError(.notACertificate, "\(ca): no certificate") }
            policy.trustAnchors = .only(anchors)
        }
        let observation = try await HandshakeProbe.chain(of: parsed, policy: policy)
        let decision = observation.decision
        let trusted = decision.isTrusted
        let certificates: [PinsOutput.Certificate]
        if trusted {
            let sent = Set(observation.presentedChain.compactMap { try? Pin(certificateDER: $0) })
            certificates = decision.chain.enumerated().map { index, certificate in
                let pin = Pin(certificate: certificate)
                var entry = PinsOutput.Certificate(certificate: certificate, pin: pin)
                entry.role =
                    index == 0
                    ? "leaf"
                    : index == decision.chain.count - 1
                        ? (sent.contains(pin)
                            ? "anchor (sent by the server)" : "anchor (not sent: from the trust store)")
                        : "intermediate"
                return entry
            }
        } else {
            certificates = observation.presentedChain.compactMap { try? CertificateFile(bytes: $0).entries.first }.map(
                PinsOutput.Certificate.init
            )
        }
        let verdict =
            decision.failure.map { "NOT trusted: \($0.code): \($0.message)" }
            ?? "trusted (\(ca == nil ? "system roots" : "the certificates of --ca"))"
        let authorities = certificates.dropFirst().map(\.pin)
        return (
            PinsOutput(
                source: url,
                certificates: certificates,
                verdict: verdict,
                warnings: decision.warnings.map(\.description),
                snippets: .init(host: observation.requirements.host, pins: authorities)
            ),
            trusted
        )
    }
}

/// What `securenet pins` prints for one file or URL.
struct PinsOutput: Encodable {
    struct Certificate: Encodable {
        let subject: String
        let issuer: String
        let notBefore: Date?
        let notAfter: Date?
        let key: String
        let pin: String
        var role: String?

        init(_ entry: CertificateFile.Entry) {
            self.subject =
                entry.certificate.map { OutsideText.escaped(String(describing: $0.subject)) }
                ?? "(cannot be fully parsed)"
            self.issuer = entry.certificate.map { OutsideText.escaped(String(describing: $0.issuer)) } ?? ""
            self.notBefore = entry.certificate?.notValidBefore
            self.notAfter = entry.certificate?.notValidAfter
            self.key =
                entry.rsaKeyBits.map { "RSA \($0) bits" } ?? entry.certificate.map { Self.keyName($0.publicKey) }
                ?? "unknown"
            self.pin = entry.pin.description
        }

        init(certificate: X509.Certificate, pin: Pin) {
            self.subject = OutsideText.escaped(String(describing: certificate.subject))
            self.issuer = OutsideText.escaped(String(describing: certificate.issuer))
            self.notBefore = certificate.notValidBefore
            self.notAfter = certificate.notValidAfter
            self.key = Self.keyName(certificate.publicKey)
            self.pin = pin.description
        }

        /// `EC P-256`, `RSA 2048 bits`, … from swift-certificates' key description.
        static func keyName(_ key: X509.Certificate.PublicKey) -> String {
            let text = String(describing: key)
            if text.hasPrefix("RSA"), let bits = Int(text.dropFirst(3).prefix { $0.isNumber }) {
                return "RSA \(bits) bits"
            }
            if text.hasPrefix("P"), let size = Int(text.dropFirst().prefix { $0.isNumber }) { return "EC P-\(size)" }
            return text.replacingOccurrences(of: ".PublicKey", with: "")
        }
    }

    /// Pin entries for the CA certificates of a chain.
    struct Snippets: Encodable {
        let policyFile: String
        let infoPlist: String
        let note: String

        init(host: String, pins: [String]) {
            let list = pins.map { "\"\($0)\"" }.joined(separator: ", ")
            self.policyFile = "\"pinnedDomains\": { \"\(host)\": { \"caPins\": [\(list)] } }"
            let identities = pins.map { pin in
                "      <dict><key>SPKI-SHA256-BASE64</key><string>\(pin.replacingOccurrences(of: Pin.prefix, with: ""))</string></dict>"
            }
            self.infoPlist =
                ([
                    "<key>NSPinnedDomains</key>", "<dict>", "  <key>\(host)</key>", "  <dict>",
                    "    <key>NSPinnedCAIdentities</key>", "    <array>",
                ]
                + identities + ["    </array>", "  </dict>", "</dict>"]).joined(separator: "\n")
            var note =
                "The CA certificates are pinned, the first as the pin and the others as backups: the leaf's key changes whenever the certificate is renewed (every 90 days or less at many CAs), and a pinned leaf key locks out every installed app at the next renewal unless its successor was shipped first."
            if pins.count < 2 {
                note +=
                    " This chain has one CA certificate: add a backup pin (a second CA you may move to, or a key you hold in reserve), as an enforced pin set needs two."
            }
            self.note = note
        }
    }

    let source: String
    let certificates: [Certificate]
    /// For a URL: whether the chain is trusted, and why not.
    let verdict: String?
    /// For a trusted URL: what the chain does that has no security effect but a standard asks
    /// CAs not to do (``TrustDecision/warnings``).
    let warnings: [String]?
    let snippets: Snippets?

    var text: String {
        let formatter = ISO8601DateFormatter()
        var lines = ["\(self.source):"]
        if let verdict { lines.append("  verdict:    \(verdict)") }
        for warning in self.warnings ?? [] { lines.append("  warning:    \(warning)") }
        for (index, certificate) in self.certificates.enumerated() {
            lines.append("  [\(index)]\(certificate.role.map { " \($0)" } ?? "")")
            lines.append("    subject:    \(certificate.subject)")
            lines.append("    issuer:     \(certificate.issuer)")
            if let notBefore = certificate.notBefore {
                lines.append("    not before: \(formatter.string(from: notBefore))")
            }
            if let notAfter = certificate.notAfter {
                lines.append("    not after:  \(formatter.string(from: notAfter))")
            }
            lines.append("    key:        \(certificate.key)")
            lines.append("    pin:        \(certificate.pin)")
        }
        if let snippets {
            lines.append("  JSON policy file:")
            lines.append("    \(snippets.policyFile)")
            lines.append("  Info.plist (inside NSAppTransportSecurity):")
            lines += snippets.infoPlist.split(separator: "\n").map { "    \($0)" }
            lines.append("  \(snippets.note)")
        }
        return lines.joined(separator: "\n")
    }
}

/// Prints `value` as the `--json` output of every command: sorted keys, RFC 3339 dates.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// Prints `text` with each of its lines through ``OutsideText/escapedLines(_:)`` (issue 51
/// item 10): every text securenet prints as text holds what a server, a certificate or a file
/// chose (names, messages, header values), and none of it may rewrite the terminal or start a CI
/// workflow command. JSON output is not passed through it (its encoder escapes controls).
func printEscaped(_ text: String) {
    print(OutsideText.escapedLines(text))
}

/// ``printEscaped(_:)`` on standard error.
func printEscaped(_ text: String, to standardError: inout StandardError) {
    print(OutsideText.escapedLines(text), to: &standardError)
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}
#endif
