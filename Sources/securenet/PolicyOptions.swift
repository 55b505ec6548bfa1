#if Tools
import ArgumentParser
import Foundation
import ServerTrust

/// `--info-plist F | --policy F` and `--ca F`: the policy an app ships and the anchors to trust,
/// shared by `diagnose` and `request`.
struct PolicyOptions: ParsableArguments {
    @Option(
        name: .customLong("info-plist"),
        help: "Use the NSAppTransportSecurity policy of this Info.plist (XML or binary)."
    )
    var infoPlist: String?

    @Option(help: "Use this JSON policy file.")
    var policy: String?

    @Option(
        help: "Trust only the certificates of this PEM file instead of the system roots (or the policy file's anchors)."
    )
    var ca: String?

    func validate() throws {
        if self.infoPlist != nil && self.policy != nil {
            throw ValidationError("give --info-plist or --policy, not both")
        }
    }

    /// The file named by `--info-plist` or `--policy`, for messages.
    var policyFile: String? { self.infoPlist ?? self.policy }

    /// The policy given, with `--ca`'s anchors when given; nil without `--info-plist` or `--policy`.
    func loadPolicy() throws(CLIError) -> TransportSecurityPolicy? {
        var policy: TransportSecurityPolicy
        do {
            if let infoPlist = self.infoPlist {
                policy = try TransportSecurityPolicy.readInfoPlist(contentsOfFile: infoPlist).policy
            } else if let file = self.policy {
                policy = try TransportSecurityPolicy(contentsOfFile: file)
            } else {
                return nil
            }
        } catch {
            throw CLIError(subject: self.policyFile ?? "", error.message)
        }
        if let anchors = try self.anchors() { policy.trustAnchors = anchors }
        return policy
    }

    /// `--ca`'s certificates as the only anchors; nil without `--ca`.
    func anchors() throws(CLIError) -> TrustAnchors? {
        guard let ca = self.ca else { return nil }
        let certificates: [CertificateFile.Entry]
        do {
            certificates = try CertificateFile(path: ca).entries
        } catch {
            throw CLIError(subject: ca, error.message)
        }
        let anchors = certificates.compactMap(\.certificate)
        guard !anchors.isEmpty else { throw CLIError(subject: ca, "no certificate") }
        return .only(anchors)
    }
}

/// A failure a command reports as one line on standard error, `securenet: SUBJECT: MESSAGE`,
/// exiting with status 1.
struct CLIError: Error {
    let subject: String
    let message: String

    init(subject: String, _ message: String) {
        self.subject = subject
        self.message = message
    }

    /// Prints the line and exits 1.
    func exit() -> ExitCode {
        var standardError = StandardError()
        printEscaped("securenet: \(self.subject): \(self.message)", to: &standardError)
        return ExitCode(1)
    }
}
#endif
