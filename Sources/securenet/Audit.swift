#if Tools
import ArgumentParser
import Foundation
import SecurityAudit

/// `securenet audit PATH`: an app project checked against the mistakes the security articles
/// warn about, as text, JSON or SARIF for code scanning.
struct Audit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Audit an app project (Swift and Objective-C sources, Info.plist and other property lists, entitlements, .xcconfig) for transport, storage, logging and crypto mistakes.",
        discussion: """
            Swift is parsed with swift-syntax, Objective-C read by a lexer that skips comments \
            and strings, property lists (XML, binary, OpenStep) with Foundation's parsers and \
            the library's own. Findings in test, preview, mock and debug-only code (test \
            targets, XCTest and swift-testing files, #Preview, #if DEBUG) are counted, not \
            listed, and do not fail the audit; --include-tests lists and counts them. Every \
            finding has a rule id, a severity (high, medium, low), a file, line and column, what \
            is wrong there and the fix. The rules, with a bad and a good example each, are in the \
            SecurityAudit documentation (its "Audit rules" article). Build folders (.build, DerivedData), dependency folders (Pods, Carthage, \
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

    @Flag(
        name: .customLong("include-tests"),
        help:
            "Also report findings in test, preview and mock code (test targets, XCTest and swift-testing files, #Preview, fixtures). By default they are only counted."
    )
    var includeTests = false

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: "Write the report to this file instead of standard output."
    )
    var output: String?

    func run() throws {
        var standardError = StandardError()
        let report: AuditReport
        do {
            report = try SecurityAuditor(includesTestCode: self.includeTests).audit(path: self.path)
        } catch {
            print(AuditReport.textLine("securenet: \(self.path): \(error)"), to: &standardError)
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
            if let problem = Self.writeReport(rendered, to: output) {
                print("securenet: \(AuditReport.textLine(output)): \(problem)", to: &standardError)
                throw ExitCode(1)
            }
        } else {
            FileHandle.standardOutput.write(rendered)
            if rendered.last != 0x0A { FileHandle.standardOutput.write(Data("\n".utf8)) }
        }
        for file in report.unreadableFiles {
            print(AuditReport.textLine("securenet: \(file.path): not audited: \(file.reason)"), to: &standardError)
        }
        if let threshold = self.failOn.severity, !report.findings(atOrAbove: threshold).isEmpty {
            throw ExitCode(2)
        }
        if !report.unreadableFiles.isEmpty { throw ExitCode(1) }
    }

    /// Writes the report to `path`, or says why not.
    ///
    /// The audited tree may be someone else's, and `--output` often points into it: a symbolic
    /// link planted there is refused rather than followed (`O_NOFOLLOW`), so is anything but a
    /// regular file with one link (a FIFO would block, a hard link would redirect the write). A
    /// new file is created with `O_CREAT | O_EXCL`, an existing one truncated only after that check.
    static func writeReport(_ data: Data, to path: String) -> String? {
        let common = O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        var fd = open(path, common | O_CREAT | O_EXCL, 0o644)
        if fd < 0, errno == EEXIST {
            fd = open(path, common)
            if fd < 0 { return errno == ELOOP ? "refused: a symbolic link" : "cannot be written" }
            var status = stat()
            guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
                close(fd)
                return "refused: not a regular file"
            }
            guard status.st_nlink == 1 else {
                close(fd)
                return "refused: a file with more than one hard link"
            }
            guard ftruncate(fd, 0) == 0 else {
                close(fd)
                return "cannot be written"
            }
        }
        guard fd >= 0 else { return errno == ELOOP ? "refused: a symbolic link" : "cannot be written" }
        defer { close(fd) }
        let written = data.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let count = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        return written ? nil : "cannot be written"
    }
}
#endif
