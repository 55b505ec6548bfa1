import ArgumentParser
import ServerTrust
import X509

import Foundation

@main
struct SecureNet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "securenet",
        abstract: "SecureNetworking's command-line tool: the end-to-end demo, a local reference auth server, certificate pins and Certificate Transparency.",
        subcommands: [Demo.self, Serve.self, Pins.self, Transparency.self, PolicyCommand.self]
    )
}

/// `securenet pins FILE…`: the SPKI pin of every certificate in PEM or DER files.
struct Pins: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print subject, issuer, validity and the sha256/ SPKI pin of each certificate in PEM or DER files."
    )

    @Argument(help: "Certificate files (PEM with one or more certificates, or DER).")
    var files: [String]

    func run() throws {
        var failed = false
        for path in self.files {
            do {
                let file = try CertificateFile(path: path)
                print("\(path):")
                for (index, entry) in file.entries.enumerated() {
                    print(Self.describe(entry, index: index))
                }
            } catch {
                failed = true
                var standardError = StandardError()
                print("securenet: \(error.message)", to: &standardError)
            }
        }
        if failed { throw ExitCode(1) }
    }

    static func describe(_ entry: CertificateFile.Entry, index: Int) -> String {
        var lines = ["  [\(index)]"]
        if let certificate = entry.certificate {
            lines.append("    subject:    \(certificate.subject)")
            lines.append("    issuer:     \(certificate.issuer)")
            lines.append("    not before: \(certificate.notValidBefore)")
            lines.append("    not after:  \(certificate.notValidAfter)")
        } else {
            lines.append("    (details unavailable: the certificate cannot be fully parsed)")
        }
        if let bits = entry.rsaKeyBits { lines.append("    key:        RSA \(bits) bits") }
        lines.append("    pin:        \(entry.pin)")
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

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}
