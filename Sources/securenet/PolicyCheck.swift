#if Tools
import ArgumentParser
import Foundation
import SecureNetworkingInternal
import ServerTrust

/// `securenet policy …`: what a policy file or an app's Info.plist says.
struct PolicyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Inspect a transport security policy (a JSON policy file or an app's Info.plist).",
        subcommands: [PolicyCheck.self]
    )
}

/// `securenet policy check FILE [--host H] [--json] [-D NAME[=VALUE]]… [--preprocess]`.
struct PolicyCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract:
            "Load a JSON policy file or an Info.plist and print the effective rules per domain and every security warning.",
        discussion: """
            Examples:
              securenet policy check Info.plist
              securenet policy check policy.json --host api.example.com
              securenet policy check Info.plist --json
              securenet policy check Info.plist -D DEBUG

            An Info.plist is read as ATS reads it: what ATS ignores (an unknown or misspelt key, a \
            value of the wrong type, a domain key that names no host) is a warning with its key path, \
            and where SecureNetworking and ATS differ (a pinned domain with one identity and no \
            backup, a CIDR exception domain) the warning says what the app gets from each and why. \
            XML, binary and OpenStep (old-style ASCII) property lists are read.

            A source Info.plist written for Xcode's Info.plist preprocessor (#ifdef DEBUG lines, \
            INFOPLIST_PREPROCESS = YES) is refused with the line of its first directive unless -D \
            or --preprocess is given: then #if, #ifdef, #ifndef, #elif, #else and #endif are \
            evaluated with the names given as cpp -P -traditional evaluates them (the whole line with \
            its backslash continuations, /* */ comments removed, C's integer operators, #define'd \
            integers; an undefined name is 0) and the output says which branch was read. What it \
            cannot evaluate as cpp would (a name defined as text, a function-like macro, a name the \
            compiler predefines, // in a directive, an indented #) is refused with its line.

            Exit status: 0 the policy loads (warnings or not), 1 it does not (the error names the \
            key path or the line), 64 a usage error.
            """
    )

    @Argument(help: "A JSON policy file, or an Info.plist (XML, binary or OpenStep).")
    var file: String

    @Option(
        name: .customShort("D"),
        help: ArgumentHelp(
            "Define NAME (or NAME=VALUE, an integer) for an Info.plist's #if/#ifdef lines, as the build's -D does.",
            valueName: "name"
        )
    )
    var define: [String] = []

    @Flag(help: "Evaluate an Info.plist's #if/#ifdef lines even with no -D (every name undefined).")
    var preprocess = false

    @Option(help: "Also print the exact requirements this host gets, and why.")
    var host: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    /// The clock for "pins about to expire" (tests pass a fixed one through the environment).
    static func now() -> Date {
        if let text = ProcessInfo.processInfo.environment["SECURENET_NOW"],
            let date = InternetDateTime.parse(text)
        {
            return date
        }
        return Date()
    }

    func validate() throws {
        _ = try self.definitions()
    }

    /// The `-D` names and their values.
    func definitions() throws(ValidationError) -> [String: Int] {
        var definitions: [String: Int] = [:]
        for text in self.define {
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let isName =
                name.first.map { $0 == "_" || ($0.isASCII && $0.isLetter) } == true
                && name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
            guard isName else { throw ValidationError("-D \(text.prefix(40)): not a name (letters, digits and _)") }
            guard parts.count == 1 || Int(parts[1]) != nil else {
                throw ValidationError("-D \(text.prefix(40)): the value must be an integer")
            }
            definitions[name] = parts.count == 1 ? 1 : Int(parts[1])!
        }
        return definitions
    }

    func run() throws {
        var standardError = StandardError()
        do {
            let report = try self.check(now: Self.now())
            if self.json {
                try printJSON(report)
            } else {
                printEscaped(report.text)
            }
        } catch let error as ServerTrustError {
            printEscaped("securenet: \(self.file): \(error.message)", to: &standardError)
            throw ExitCode(1)
        }
    }

    struct Report: Encodable {
        struct Exception: Encodable {
            let domain: String
            let includesSubdomains: Bool
            let minimumTLSVersion: String
            let requiresForwardSecrecy: Bool
            let allowsInsecureHTTPLoads: Bool
            let requiresCertificateTransparency: Bool
            let cipherSuites: String
        }

        struct Pinned: Encodable {
            let pattern: String
            let groups: [[String: [String]]]
            let mode: String
            let expiration: String?
        }

        struct Host: Encodable {
            let host: String
            let plainHTTP: String
            let minimumTLSVersion: String
            let requiresForwardSecrecy: Bool
            let exception: String?
            let pins: String?
            let requiresCertificateTransparency: Bool
        }

        let format: String
        let allowsArbitraryLoads: Bool
        let allowsLocalNetworking: Bool
        let minimumTLSVersion: String
        let requiresForwardSecrecy: Bool
        let requiresCertificateTransparency: Bool
        let exceptions: [Exception]
        let pinnedDomains: [Pinned]
        let host: Host?
        /// For an Info.plist read through the preprocessor: the names defined and each branch.
        let preprocessor: Preprocessor?
        let warnings: [String]

        struct Preprocessor: Encodable {
            let definitions: [String]
            let branches: [String]
        }

        var text: String {
            var lines = [
                "format: \(self.format)",
                "everywhere: HTTPS only\(self.allowsArbitraryLoads ? " EXCEPT: plain HTTP allowed to every host without an exception" : ""), TLS ≥ \(self.minimumTLSVersion), forward secrecy \(self.requiresForwardSecrecy ? "required" : "NOT required"), CT \(self.requiresCertificateTransparency ? "required" : "not required")\(self.allowsLocalNetworking ? ", plain HTTP allowed to local hosts" : "")",
            ]
            lines.append("exception domains:\(self.exceptions.isEmpty ? " none" : "")")
            for exception in self.exceptions {
                var rules = ["TLS ≥ \(exception.minimumTLSVersion)"]
                rules.append(
                    exception.requiresForwardSecrecy ? "forward secrecy required" : "forward secrecy NOT required"
                )
                if exception.allowsInsecureHTTPLoads { rules.append("plain HTTP ALLOWED") }
                if exception.requiresCertificateTransparency { rules.append("CT required") }
                if exception.cipherSuites != "aead" { rules.append("cipher suites: \(exception.cipherSuites)") }
                lines.append(
                    "  \(exception.domain)\(exception.includesSubdomains ? " and its subdomains" : ""): \(rules.joined(separator: ", "))"
                )
            }
            lines.append("pinned domains:\(self.pinnedDomains.isEmpty ? " none" : "")")
            for pinned in self.pinnedDomains {
                lines.append("  \(pinned.pattern) (\(pinned.mode)\(pinned.expiration.map { ", until \($0)" } ?? "")):")
                for group in pinned.groups {
                    for (scope, pins) in group.sorted(by: { $0.key < $1.key }) {
                        lines.append("    \(scope): \(pins.joined(separator: " "))")
                    }
                }
            }
            if let host = self.host {
                lines.append("host \(host.host):")
                lines.append(
                    "  https: TLS ≥ \(host.minimumTLSVersion), forward secrecy \(host.requiresForwardSecrecy ? "required" : "NOT required"), CT \(host.requiresCertificateTransparency ? "required" : "not required")"
                )
                lines.append("  plain http: \(host.plainHTTP)")
                lines.append("  exception: \(host.exception ?? "none")")
                lines.append("  pins: \(host.pins ?? "none")")
            }
            if let preprocessor = self.preprocessor {
                let names =
                    preprocessor.definitions.isEmpty
                    ? "no names defined" : preprocessor.definitions.joined(separator: " ")
                lines.append("preprocessed (\(names)):\(preprocessor.branches.isEmpty ? " no directives" : "")")
                lines += preprocessor.branches.map { "  \($0)" }
            }
            lines.append("warnings:\(self.warnings.isEmpty ? " none" : "")")
            lines += self.warnings.map { "  - \($0)" }
            return lines.joined(separator: "\n")
        }
    }

    func check(now: Date) throws -> Report {
        let data: Data
        do {
            // A regular file of at most 8 MiB: a FIFO or /dev/zero is refused at once (issue 51 item 12).
            data = try RegularFileReader.read(self.file, limit: 8 << 20)
        } catch {
            throw ServerTrustError(.unreadableFile, "cannot read the file: \(error.reason)")
        }
        let isPlist = Self.isPropertyList(data, path: self.file)
        let policy: TransportSecurityPolicy
        var warnings: [String] = []
        var preprocessor: Report.Preprocessor?
        if isPlist {
            let read: InfoPlistPolicy
            if self.preprocess || !self.define.isEmpty {
                let definitions = try self.definitions()
                let result = try TransportSecurityPolicy.readInfoPlist(data, preprocessorDefinitions: definitions)
                read = result.read
                preprocessor = Report.Preprocessor(
                    definitions: definitions.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" },
                    branches: result.branches.map(\.description)
                )
            } else {
                read = try TransportSecurityPolicy.readInfoPlist(data)
            }
            policy = read.policy
            warnings += read.warnings.map(\.description)
        } else {
            guard self.define.isEmpty, !self.preprocess else {
                throw ServerTrustError(
                    .invalidPolicyFile,
                    "-D and --preprocess apply to an Info.plist, not a JSON policy file"
                )
            }
            // Relative "trustAnchors" files are read from the policy file's folder, as the app reads them.
            policy = try TransportSecurityPolicy(
                json: data,
                relativeTo: URL(fileURLWithPath: self.file).deletingLastPathComponent()
            )
        }
        warnings += policy.securityWarnings
        let requiringCT =
            (policy.requiresCertificateTransparency ? ["every host"] : [])
            + policy.exceptionDomains.filter { $0.value.requiresCertificateTransparency == true }.keys.sorted()
        if !requiringCT.isEmpty, policy.certificateTransparency.logList == nil {
            warnings.append(
                "\(requiringCT.joined(separator: ", ")): Certificate Transparency is required; the app must supply a CT log list (certificateTransparency.logList) or these hosts are refused"
            )
        }
        let formatter = ISO8601DateFormatter()
        var pinned: [Report.Pinned] = []
        for (pattern, pins) in policy.pinning.rules.sorted(by: { $0.key.description < $1.key.description }) {
            pinned.append(Self.pinned(pattern.description, pins, formatter))
            warnings += Self.pinWarnings(pattern.description, pins, now: now, formatter)
        }
        for (domain, exception) in policy.exceptionDomains.sorted(by: { $0.key < $1.key }) {
            if let pins = exception.pins {
                let scope = exception.includesSubdomains ? "**." + domain : domain
                pinned.append(Self.pinned(scope, pins, formatter))
                warnings += Self.pinWarnings(scope, pins, now: now, formatter)
            }
        }
        let exceptions = policy.exceptionDomains.sorted(by: { $0.key < $1.key }).map { domain, exception in
            Report.Exception(
                domain: domain,
                includesSubdomains: exception.includesSubdomains,
                minimumTLSVersion: (exception.minimumTLSVersion ?? policy.minimumTLSVersion).description,
                requiresForwardSecrecy: exception.requiresForwardSecrecy ?? policy.requiresForwardSecrecy,
                allowsInsecureHTTPLoads: exception.allowsInsecureHTTPLoads,
                requiresCertificateTransparency: exception.requiresCertificateTransparency
                    ?? policy.requiresCertificateTransparency,
                cipherSuites: exception.cipherSuites.description
            )
        }
        return Report(
            format: isPlist ? "Info.plist" : "JSON policy file",
            allowsArbitraryLoads: policy.allowsArbitraryLoads,
            allowsLocalNetworking: policy.allowsLocalNetworking,
            minimumTLSVersion: policy.minimumTLSVersion.description,
            requiresForwardSecrecy: policy.requiresForwardSecrecy,
            requiresCertificateTransparency: policy.requiresCertificateTransparency,
            exceptions: exceptions,
            pinnedDomains: pinned,
            host: try self.host.map { try Self.host($0, policy) },
            preprocessor: preprocessor,
            warnings: warnings
        )
    }

    /// Whether the file is read as a property list rather than a JSON policy: by its name
    /// (`.plist`, `.strings`; `.json`), else by its first bytes. JSON never starts with `<`, `(`,
    /// `#`, `/` or a UTF-16 byte-order mark, so anything that does goes to the property-list reader,
    /// which names why it refuses it (UTF-16, nesting, a preprocessor line); text that starts
    /// with `{` is JSON when a quoted string and `:` follow (`{ "key": …`), OpenStep otherwise
    /// (`{ key = …; }`, `{ "key" = …; }`).
    static func isPropertyList(_ data: Data, path: String) -> Bool {
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "plist", "strings": return true
        case "json": return false
        default: break
        }
        if data.starts(with: Array("bplist".utf8)) || data.starts(with: [0xFF, 0xFE])
            || data.starts(with: [0xFE, 0xFF])
        {
            return true
        }
        let text = data.drop { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        guard let first = text.first else { return false }
        // `/` starts an OpenStep comment (`//`, `/*`): JSON has none.
        if [UInt8(ascii: "<"), UInt8(ascii: "("), UInt8(ascii: "#"), UInt8(ascii: "/")].contains(first) { return true }
        guard first == UInt8(ascii: "{") else { return false }
        let isSpace: (UInt8) -> Bool = { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
        let afterBrace = text.dropFirst().drop(while: isSpace)
        guard afterBrace.first == UInt8(ascii: "\"") else {
            return afterBrace.first != UInt8(ascii: "}") && afterBrace.first != nil
        }
        // The end of the quoted key (JSON's escapes: a backslash takes the next byte).
        var index = afterBrace.index(after: afterBrace.startIndex)
        while index < afterBrace.endIndex, afterBrace[index] != UInt8(ascii: "\"") {
            index =
                afterBrace.index(
                    index,
                    offsetBy: afterBrace[index] == UInt8(ascii: "\\") ? 2 : 1,
                    limitedBy: afterBrace.endIndex
                ) ?? afterBrace.endIndex
        }
        guard index < afterBrace.endIndex else { return false }
        return afterBrace[afterBrace.index(after: index)...].drop(while: isSpace).first == UInt8(ascii: "=")
    }

    static func pinned(_ pattern: String, _ pins: PinSet, _ formatter: ISO8601DateFormatter) -> Report.Pinned {
        Report.Pinned(
            pattern: pattern,
            groups: pins.groups.map { [$0.scope.description: $0.pins.map(\.description)] },
            mode: pins.mode.description,
            expiration: pins.expiration.map { formatter.string(from: $0) }
        )
    }

    /// Pins that are not enforced, or stop being enforced within 30 days.
    static func pinWarnings(_ pattern: String, _ pins: PinSet, now: Date, _ formatter: ISO8601DateFormatter) -> [String]
    {
        var warnings: [String] = []
        if pins.mode == .reportOnly {
            warnings.append("\(pattern): pins are report-only (a mismatch is reported, not refused)")
        }
        if let expiration = pins.expiration {
            if expiration <= now {
                warnings.append(
                    "\(pattern): pins expired on \(formatter.string(from: expiration)) and are no longer enforced"
                )
            } else if expiration.timeIntervalSince(now) < 30 * 86_400 {
                let days = Int(expiration.timeIntervalSince(now) / 86_400)
                warnings.append(
                    "\(pattern): pins expire in \(days) days (\(formatter.string(from: expiration))): ship new pins before then"
                )
            }
        }
        return warnings
    }

    static func host(_ name: String, _ given: TransportSecurityPolicy) throws -> Report.Host {
        guard let url = URL(string: "https://\(name)/"), let plainURL = URL(string: "http://\(name)/") else {
            throw ServerTrustError(.invalidURL, "'\(name.prefix(60))' is not a host name")
        }
        // A file carries no CT log list (the app supplies it): an empty one stands in, so a host
        // that requires CT shows its other rules too.
        var policy = given
        if policy.certificateTransparency.logList == nil {
            policy.certificateTransparency.logList = try CertificateTransparencyLogList(timestamp: Date(), logs: [])
        }
        let secure = try policy.requirements(for: url)
        let plain: String
        do {
            _ = try policy.requirements(for: plainURL)
            plain = "allowed"
        } catch {
            plain = "refused (\(error.code))"
        }
        let chosen = policy.exceptionDomain(for: secure.host).map { domain in
            domain == secure.host ? domain : "\(domain) (includes subdomains)"
        }
        return Report.Host(
            host: secure.host,
            plainHTTP: plain,
            minimumTLSVersion: secure.minimumTLSVersion.description,
            requiresForwardSecrecy: secure.requiresForwardSecrecy,
            exception: chosen,
            pins: secure.pins.map { "\($0.pins.count) pins from \(secure.pinScope ?? secure.host) (\($0.mode))" },
            requiresCertificateTransparency: secure.certificateTransparency != nil
        )
    }
}
#endif
