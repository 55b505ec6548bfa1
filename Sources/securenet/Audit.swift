import ArgumentParser
import Foundation
import SecurityAudit

/// `securenet audit PATH`: an app project checked against the mistakes the security articles
/// warn about, as text, JSON or SARIF for code scanning.
struct Audit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Audit an app project (Swift sources, Info.plist and other property lists, entitlements, .xcconfig) for transport, storage, logging and crypto mistakes.",
        discussion: """
            Swift is parsed with swift-syntax; property lists with Foundation's parsers. Every \
            finding has a rule id, a severity (high, medium, low), a file, line and column, what \
            is wrong there and the fix. The rules, with a bad and a good example each, are in the \
            README (under "securenet audit"). Build folders (.build, DerivedData), dependency folders (Pods, Carthage, \
            node_modules) and hidden folders are skipped.

            Suppress one finding with a comment on its line that gives a reason (a suppression \
            without one is itself a finding, SN000):
              let url = URL(string: "http://printer.local")  // securenet:ignore SN005 LAN device without TLS
              <key>NSAllowsArbitraryLoads</key><true/> <!-- securenet:ignore SN001 kiosk build -->

            Examples:
              securenet audit .
              securenet audit MyApp --fail-on medium
              securenet audit . --format sarif --output securenet.sarif   (for GitHub code scanning)

            SARIF locations are relative to PATH: audit the repository root for code scanning. \
            Exit status: 0 no finding at or above --fail-on (default high), 2 at least one, 1 an \
            error (PATH missing or unreadable, or a file that could not be parsed, so the audit is \
            incomplete), 64 a usage error.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, sarif
    }

    enum Threshold: String, ExpressibleByArgument, CaseIterable {
        case high, medium, low, never

        var severity: AuditSeverity? {
            switch self {
            case .high: .high
            case .medium: .medium
            case .low: .low
            case .never: nil
            }
        }
    }

    /// The version written into SARIF logs.
    static let version = "0.20.0"

    @Argument(help: "The project folder (or one file) to audit.")
    var path: String

    @Option(help: "The report format: text, json or sarif (SARIF 2.1.0).")
    var format: Format = .text

    @Flag(help: "Print JSON (the same as --format json).")
    var json = false

    @Option(
        name: .customLong("fail-on"),
        help: "The lowest severity that makes the exit status 2: high, medium, low or never."
    )
    var failOn: Threshold = .high

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: "Write the report to this file instead of standard output."
    )
    var output: String?

    func run() throws {
        var standardError = StandardError()
        let report: AuditReport
        do {
            report = try SecurityAuditor().audit(path: self.path)
        } catch {
            print("securenet: \(self.path): \(error)", to: &standardError)
            throw ExitCode(1)
        }
        let format = self.json ? .json : self.format
        let rendered: Data
        switch format {
        case .text: rendered = Data(report.text().utf8)
        case .json: rendered = try report.json()
        case .sarif:
            let root = URL(fileURLWithPath: self.path).standardizedFileURL
            rendered = try report.sarif(
                toolVersion: Self.version,
                sourceRoot: root.hasDirectoryPath ? root.path : root.deletingLastPathComponent().path
            )
        }
        if let output {
            do {
                try rendered.write(to: URL(fileURLWithPath: output))
            } catch {
                print("securenet: \(output): cannot be written", to: &standardError)
                throw ExitCode(1)
            }
        } else {
            FileHandle.standardOutput.write(rendered)
            if rendered.last != 0x0A { FileHandle.standardOutput.write(Data("\n".utf8)) }
        }
        for file in report.unreadableFiles {
            print("securenet: \(file.path): not audited: \(file.reason)", to: &standardError)
        }
        if let threshold = self.failOn.severity, !report.findings(atOrAbove: threshold).isEmpty {
            throw ExitCode(2)
        }
        if !report.unreadableFiles.isEmpty { throw ExitCode(1) }
    }
}
