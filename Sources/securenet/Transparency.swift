#if Tools
import ArgumentParser
import Foundation
import SecureNetworkingInternal
import ServerTrust
import X509

/// `securenet ct FILE`: the SCTs embedded in a certificate, and the verdict of each CT policy.
struct Transparency: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ct",
        abstract:
            "List the SCTs embedded in a certificate and check them against a CT log list under Apple's and Chrome's CT policies.",
        discussion: """
            FILE holds the certificate first, then its issuer (PEM, as a server sends its chain): \
            an embedded SCT signs the issuer's key hash, so without the issuer the signatures \
            cannot be checked. With a log list older than 70 days (too old to enforce CT, as \
            Chrome and Apple rule), the SCTs are still verified with it for diagnosis, and the \
            output gives the list's age beside the result. Exit status: 0 compliant under every policy checked, 1 an error, \
            2 not compliant (or not checked: no log list, or a stale one).
            """
    )

    @Argument(help: "A PEM or DER file: the certificate, then its issuer.")
    var file: String

    @Option(name: .customLong("log-list"), help: "A v3 CT log list (JSON), as Chrome and Apple publish it.")
    var logList: String?

    @Option(
        name: .customLong("log-list-time"),
        help: "When the log list was fetched (RFC 3339), for a list without log_list_timestamp (Apple's)."
    )
    var logListTime: String?

    @Option(help: "Which policy to apply: apple, chrome or both.")
    var policy: String = "both"

    @Option(help: "The time of the check (RFC 3339); default now.")
    var at: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        var standardError = StandardError()
        do {
            let code = try self.check()
            if code != 0 { throw ExitCode(code) }
        } catch let error as ServerTrustError {
            printEscaped("securenet: \(error.message)", to: &standardError)
            throw ExitCode(1)
        }
    }

    /// Runs the check and prints it; returns the exit status.
    func check() throws -> Int32 {
        let policies: [CertificateTransparencyPolicy]
        switch self.policy {
        case "both": policies = [.apple, .chrome]
        default:
            guard let one = CertificateTransparencyPolicy(self.policy) else {
                throw ServerTrustError(
                    .invalidPolicyFile,
                    "unknown CT policy '\(self.policy.prefix(40))': use apple, chrome or both"
                )
            }
            policies = [one]
        }
        let now = try self.at.map { try Self.date($0, option: "--at") } ?? Date()
        let file = try CertificateFile(path: self.file)
        guard let leaf = file.entries.first?.certificate else {
            throw ServerTrustError(.notACertificate, "\(self.file): the first certificate cannot be parsed")
        }
        let issuer = file.entries.dropFirst().compactMap(\.certificate).first {
            $0.subject == leaf.issuer && $0.publicKey.isValidSignature(leaf.signature, for: leaf)
        }
        let embedded = try SignedCertificateTimestamp.embedded(in: leaf)
        var list: CertificateTransparencyLogList?
        if let path = self.logList {
            list = try CertificateTransparencyLogList(
                contentsOfFile: path,
                timestamp: try self.logListTime.map { try Self.date($0, option: "--log-list-time") }
            )
        }
        let verifiers = list.map { list in policies.map { CertificateTransparencyVerifier(logList: list, policy: $0) } }
        let reports = verifiers?.map { $0.check(leaf: leaf, issuer: issuer, now: now).report } ?? []
        // A stale list is not enforced (the verifier's rule); the SCTs are still verified with it,
        // for diagnosis, and the output says so beside the result.
        let staleness = verifiers?.first.flatMap { verifier in
            verifier.isLogListStale(at: now) ? Staleness(verifier, now: now) : nil
        }
        let diagnoses =
            staleness == nil
            ? nil : verifiers?.map { $0.diagnose(leaf: leaf, issuer: issuer, now: now).report }

        if self.json {
            let output = Output(
                subject: leaf.subject.description,
                issuer: leaf.issuer.description,
                notBefore: leaf.notValidBefore,
                notAfter: leaf.notValidAfter,
                issuerFound: issuer != nil,
                scts: embedded.map {
                    .init(
                        logID: Data($0.logID).base64EncodedString(),
                        timestamp: $0.date,
                        hashAlgorithm: Int($0.hashAlgorithm),
                        signatureAlgorithm: Int($0.signatureAlgorithm)
                    )
                },
                verdicts: reports,
                logListStaleness: staleness,
                diagnosticVerdicts: diagnoses
            )
            try printJSON(output)
        } else {
            printEscaped(
                self.text(
                    leaf: leaf,
                    issuerFound: issuer != nil,
                    embedded: embedded,
                    reports: reports,
                    list: list,
                    staleness: staleness,
                    diagnoses: diagnoses
                )
            )
        }
        guard !reports.isEmpty else { return 2 }
        return reports.allSatisfy { $0.result == .compliant } ? 0 : 2
    }

    func text(
        leaf: Certificate,
        issuerFound: Bool,
        embedded: [SignedCertificateTimestamp],
        reports: [CertificateTransparencyReport],
        list: CertificateTransparencyLogList?,
        staleness: Staleness? = nil,
        diagnoses: [CertificateTransparencyReport]? = nil
    ) -> String {
        let formatter = ISO8601DateFormatter()
        var lines = [
            "\(self.file):",
            "  subject:    \(leaf.subject)",
            "  issuer:     \(leaf.issuer)\(issuerFound ? "" : " (not in the file: SCT signatures cannot be checked)")",
            "  validity:   \(formatter.string(from: leaf.notValidBefore)) to \(formatter.string(from: leaf.notValidAfter))",
            "  embedded SCTs: \(embedded.count)",
        ]
        // The first report has every SCT with its log and signature status (with a stale list,
        // the diagnosis's: the enforcing check stops at the list's age).
        let checks = (diagnoses ?? reports).first?.scts ?? []
        for (index, sct) in embedded.enumerated() {
            let check = checks.indices.contains(index) ? checks[index] : nil
            let algorithm =
                sct.signatureAlgorithm == 3
                ? "ECDSA" : sct.signatureAlgorithm == 1 ? "RSA" : "algorithm \(sct.signatureAlgorithm)"
            lines.append(
                "  [\(index)] log:       \(check?.logDescription ?? "(unknown)") \(Data(sct.logID).base64EncodedString())"
            )
            if let check {
                lines.append(
                    "      operator:  \(check.operatorName ?? "(unknown)")\(check.logState.map { ", state \($0.rawValue)" } ?? "")"
                )
            }
            lines.append("      time:      \(formatter.string(from: sct.date))")
            lines.append(
                "      signature: \(algorithm), \(check.map { Self.describe($0.status) } ?? "not checked (no log list)")"
            )
        }
        if let list {
            lines.append("  log list of \(formatter.string(from: list.timestamp)) (\(list.logs.count) logs)")
        }
        if let staleness {
            lines.append("  \(staleness.sentence)")
        }
        func verdict(_ report: CertificateTransparencyReport) -> String {
            switch report.result {
            case .compliant: "compliant"
            case .notCompliant: "NOT compliant (\(report.failureCode ?? "")): \(report.summary)"
            case .notEnforcedStaleLogList: "not checked: \(report.summary)"
            }
        }
        for (index, report) in reports.enumerated() {
            var line = "  \(report.policy) policy: \(verdict(report))"
            if let diagnoses, diagnoses.indices.contains(index) {
                line += "; with this list, for diagnosis: \(verdict(diagnoses[index]))"
            }
            lines.append(line)
        }
        if reports.isEmpty { lines.append("  no verdict: pass --log-list FILE to check the SCTs") }
        return lines.joined(separator: "\n")
    }

    static func describe(_ status: SCTCheck.Status) -> String {
        switch status {
        case .valid: "valid"
        case .invalidSignature: "INVALID"
        case .unknownLog: "unknown log"
        case .fromTheFuture: "from the future"
        }
    }

    static func date(_ text: String, option: String) throws -> Date {
        guard let date = InternetDateTime.parse(text) else {
            throw ServerTrustError(
                .invalidPolicyFile,
                "\(option): '\(text.prefix(40))' is not an RFC 3339 time such as 2026-01-01T00:00:00Z"
            )
        }
        return date
    }

    struct Output: Encodable {
        struct SCT: Encodable {
            let logID: String
            let timestamp: Date
            let hashAlgorithm: Int
            let signatureAlgorithm: Int
        }

        let subject: String
        let issuer: String
        let notBefore: Date
        let notAfter: Date
        let issuerFound: Bool
        let scts: [SCT]
        /// The policies' verdicts as a connection would get them (a stale list: not enforced).
        let verdicts: [CertificateTransparencyReport]
        /// Set when the log list is too old to enforce CT.
        let logListStaleness: Staleness?
        /// With a stale list: the SCTs verified and the policies applied with it anyway.
        let diagnosticVerdicts: [CertificateTransparencyReport]?
    }

    /// How far a log list is past the age at which CT stops being enforced.
    struct Staleness: Encodable {
        let published: Date
        let ageDays: Int
        let maximumAgeDays: Int

        init(_ verifier: CertificateTransparencyVerifier, now: Date) {
            self.published = verifier.logList.timestamp
            self.ageDays = Int(now.timeIntervalSince(verifier.logList.timestamp) / 86_400)
            self.maximumAgeDays = Int(verifier.maximumLogListAge / 86_400)
        }

        var sentence: String {
            let published = ISO8601DateFormatter().string(from: self.published)
            return
                "log list is \(self.ageDays) days old (published \(published)); Chrome/Apple policy requires ≤ \(self.maximumAgeDays) days for enforcement: SCTs verified for diagnosis only"
        }
    }
}
#endif
