#if Tools
import ArgumentParser
import Foundation
import HTTPTypes
import HTTPTypesFoundation
import NIOConcurrencyHelpers
import SecureHTTP
import ServerTrust

/// `securenet diagnose URL`: Apple's `nscurl --ats-diagnostics`, on any OS, through the project's
/// transport: the connection under the default policy and under each relaxation ATS offers, and
/// the smallest exception the app would need.
struct Diagnose: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Try a server under the default ATS-style policy and each relaxation ATS offers (like nscurl --ats-diagnostics), and print the smallest exception an app needs.",
        discussion: """
            Examples:
              securenet diagnose https://api.example.com/
              securenet diagnose https://legacy.example.com/ --info-plist MyApp/Info.plist
              securenet diagnose https://localhost:8443/ --ca securenet-dev/ca.pem --json

            Each configuration is one request (HEAD) through NIOHTTPTransport on a connection of \
            its own: the default (TLS 1.2 or newer, forward secrecy, AEAD suites), TLS 1.3 only, \
            ATS's CBC suites, forward secrecy off, TLS 1.1 and 1.0 minimums, both, and arbitrary \
            loads. Any HTTP response passes; a failure prints its code. The smallest passing \
            relaxation is printed as an Info.plist and a JSON policy entry. Relaxations are ranked \
            by RFC 9325 (BCP 195): ATS's CBC suites, then forward secrecy off (static RSA key \
            transport, a SHOULD NOT, §4.1), then TLS 1.1 and 1.0 (MUST NOT, §3.1.1). No exception \
            makes an untrusted chain pass: fix the certificate or trust its CA (--ca). With \
            --info-plist or --policy, that exact policy is tried too.

            Exit status: 0 the default policy passes (with --info-plist or --policy: that policy \
            passes), 2 it does not but an exception would (with a policy: the policy fails), 3 no \
            configuration passes, 1 an error (unreachable host, a port without TLS, an unreadable \
            file), 64 a usage error.
            """
    )

    @Argument(help: "The https:// (or http://) URL to diagnose.")
    var url: String

    @OptionGroup var policyOptions: PolicyOptions

    @Option(help: "Seconds each configuration may take.")
    var timeout = 10

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func validate() throws {
        guard let url = URL(string: self.url), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme),
            url.host?.isEmpty == false
        else {
            throw ValidationError("'\(self.url)' is not an http:// or https:// URL")
        }
        guard self.timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        let report: Report
        do {
            report = try await self.diagnose()
        } catch {
            throw error.exit()
        }
        if self.json {
            try printJSON(report)
        } else {
            printEscaped(report.text)
        }
        if report.status != 0 { throw ExitCode(report.status) }
    }

    func diagnose() async throws(CLIError) -> Report {
        let url = URL(string: self.url)!
        let host = HostNameText.normalise(url.host ?? "")
        let appPolicy = try self.policyOptions.loadPolicy()
        var base = TransportSecurityPolicy.strict
        if let anchors = try self.policyOptions.anchors() {
            base.trustAnchors = anchors
        } else if let appPolicy {
            base.trustAnchors = appPolicy.trustAnchors
        }
        let usesTLS = url.scheme?.lowercased() == "https"
        let configurations = usesTLS ? Configuration.tls(host: host) : Configuration.plainHTTP(host: host)
        // Progress for a person watching (each configuration can take up to --timeout); kept
        // off pipes, so a script's standard error holds only the one-line error, if any.
        if isatty(STDERR_FILENO) == 1 {
            var standardError = StandardError()
            let count = configurations.count + (appPolicy == nil ? 0 : 1)
            printEscaped(
                "securenet: diagnosing \(Redaction.url(url) ?? self.url) (\(count) configurations)…",
                to: &standardError
            )
        }

        let shownURL = Redaction.url(url) ?? self.url
        var results: [Attempt] = []
        var reached = false
        for configuration in configurations {
            let attempt = await Self.attempt(
                url,
                configuration.name,
                configuration.policy(base: base, host: host),
                timeout: self.timeout
            )
            // The first configuration that tries to connect (not refused by the policy first)
            // tells whether the host is there: nothing a policy relaxes can change an
            // unreachable host or a port without TLS.
            if !reached, attempt.error?.code != .policyViolation {
                reached = true
                if let error = attempt.error, Self.isFatal(error.code) {
                    throw CLIError(subject: shownURL, error.message)
                }
            }
            results.append(attempt.with(configuration))
        }
        var appResult: Attempt?
        if let appPolicy {
            appResult = await Self.attempt(
                url,
                "the policy of \(self.policyOptions.policyFile ?? "")",
                appPolicy,
                timeout: self.timeout
            )
        }
        return Report(
            url: shownURL,
            host: host,
            trust: self.policyOptions.ca != nil
                ? "the certificates of --ca"
                : appPolicy?.trustAnchors.includesSystemRoots == false ? "the policy's anchors" : "system roots",
            attempts: results,
            appPolicy: appResult
        )
    }

    /// Failures that no policy relaxation can change.
    static func isFatal(_ code: SecureHTTPError.Code) -> Bool {
        [.connectFailed, .connectTimeout, .tlsFailure, .tlsHandshakeTimeout, .deadlineExceeded].contains(code)
    }

    /// One request through a transport of its own under `policy`.
    static func attempt(_ url: URL, _ name: String, _ policy: TransportSecurityPolicy, timeout: Int) async -> Attempt {
        let handshake = NIOLockedValueBox<HandshakeObservation?>(nil)
        let connection = NIOLockedValueBox<ConnectionObservation?>(nil)
        var configuration = HTTPTransportConfiguration(policy: policy)
        configuration.redirects = .none
        configuration.handshakeObserver = { observation in handshake.withLockedValue { $0 = observation } }
        configuration.connectionObserver = { observation in connection.withLockedValue { $0 = observation } }
        configuration.timeouts.connect = .seconds(timeout)
        configuration.timeouts.tlsHandshake = .seconds(timeout)
        configuration.timeouts.request = .seconds(timeout)
        var request = HTTPRequest(url: url)
        request.method = .head
        var status: Int?
        var failure: SecureHTTPError?
        do {
            let response = try await withNIOHTTPTransport(configuration: configuration) { try await $0.send(request) }
            status = response.response.status.code
        } catch let error as SecureHTTPError {
            failure = error
        } catch {
            failure = SecureHTTPError(.connectFailed, "\(error)")
        }
        let observed = handshake.withLockedValue { $0 }
        return Attempt(
            name: name,
            status: status,
            error: failure,
            negotiated: connection.withLockedValue { $0 }?.negotiated ?? observed?.negotiated,
            httpVersion: connection.withLockedValue { $0 }?.httpVersion,
            handshake: observed
        )
    }

    /// One configuration: a relaxation of the default for the host.
    struct Configuration {
        let name: String
        /// The exception for the host, if any.
        let exception: DomainException?
        var allowsArbitraryLoads = false
        var allowsLocalNetworking = false
        /// The rank among relaxations (1 is the smallest); nil: not a relaxation (the default,
        /// a stricter check, or one that never fixes what it is tried on).
        let rank: Int?
        /// What the output says about it.
        var note: String?

        func policy(base: TransportSecurityPolicy, host: String) -> TransportSecurityPolicy {
            var policy = base
            policy.allowsArbitraryLoads = self.allowsArbitraryLoads
            policy.allowsLocalNetworking = self.allowsLocalNetworking
            if let exception { policy.setException(exception, for: host) }
            return policy
        }

        static func tls(host: String) -> [Configuration] {
            [
                Configuration(name: "ATS default (TLSv1.2+, forward secrecy, AEAD suites)", exception: nil, rank: nil),
                Configuration(
                    name: "TLSv1.3 minimum (stricter)",
                    exception: DomainException(minimumTLSVersion: .v1_3),
                    rank: nil
                ),
                Configuration(
                    name: "ATS cipher list (adds CBC suites)",
                    exception: DomainException(cipherSuites: .ats),
                    rank: 1
                ),
                Configuration(
                    name: "forward secrecy off",
                    exception: DomainException(requiresForwardSecrecy: false),
                    rank: 2
                ),
                Configuration(name: "TLSv1.1 minimum", exception: DomainException(minimumTLSVersion: .v1_1), rank: 3),
                Configuration(name: "TLSv1.0 minimum", exception: DomainException(minimumTLSVersion: .v1_0), rank: 4),
                Configuration(
                    name: "forward secrecy off, TLSv1.1 minimum",
                    exception: DomainException(minimumTLSVersion: .v1_1, requiresForwardSecrecy: false),
                    rank: 5
                ),
                Configuration(
                    name: "forward secrecy off, TLSv1.0 minimum",
                    exception: DomainException(minimumTLSVersion: .v1_0, requiresForwardSecrecy: false),
                    rank: 6
                ),
                Configuration(
                    name: "arbitrary loads",
                    exception: nil,
                    allowsArbitraryLoads: true,
                    rank: nil,
                    note:
                        "here arbitrary loads allow plain http only and TLS keeps its requirements, unlike ATS: use a domain exception"
                ),
            ]
        }

        static func plainHTTP(host: String) -> [Configuration] {
            [
                Configuration(name: "ATS default (HTTPS only)", exception: nil, rank: nil),
                Configuration(
                    name: "insecure HTTP loads for \(host)",
                    exception: DomainException(allowsInsecureHTTPLoads: true),
                    rank: 1
                ),
                Configuration(name: "local networking", exception: nil, allowsLocalNetworking: true, rank: 2),
                Configuration(name: "arbitrary loads", exception: nil, allowsArbitraryLoads: true, rank: 3),
            ]
        }
    }

    /// What one configuration gave.
    struct Attempt {
        let name: String
        let status: Int?
        let error: SecureHTTPError?
        let negotiated: NegotiatedTLS?
        let httpVersion: String?
        let handshake: HandshakeObservation?
        var configuration: Configuration?

        var passed: Bool { self.status != nil }

        func with(_ configuration: Configuration) -> Attempt {
            var copy = self
            copy.configuration = configuration
            return copy
        }
    }
}

extension Diagnose {
    /// Everything `diagnose` found, as text or JSON.
    struct Report: Encodable {
        struct Result: Encodable {
            let configuration: String
            let result: String
            let status: Int?
            let errorCode: String?
            let error: String?
            let tlsVersion: String?
            let cipherSuite: String?
            let httpVersion: String?
            let note: String?

            init(_ attempt: Attempt) {
                self.configuration = attempt.name
                self.result = attempt.passed ? "PASS" : "FAIL"
                self.status = attempt.status
                self.errorCode = attempt.error.map { "\($0.serverTrustError?.code.description ?? $0.code.description)" }
                self.error = attempt.error.map { $0.serverTrustError.map { "\($0.code): \($0.message)" } ?? $0.message }
                self.tlsVersion = attempt.negotiated?.version.description
                self.cipherSuite = attempt.negotiated?.cipherSuiteName
                self.httpVersion = attempt.httpVersion
                self.note = attempt.configuration?.note
            }
        }

        /// The smallest exception that passes, as policy entries.
        struct Exception: Encodable {
            let configuration: String
            let infoPlist: String?
            let policyFile: String
            let note: String?
        }

        let url: String
        let trust: String
        let results: [Result]
        let chain: String?
        let pins: String?
        let certificateTransparency: String?
        let minimalException: Exception?
        let conclusion: String
        let appPolicy: Result?
        let status: Int32

        init(url: String, host: String, trust: String, attempts: [Attempt], appPolicy: Attempt?) {
            self.url = url
            self.trust = trust
            self.results = attempts.map(Result.init)
            self.appPolicy = appPolicy.map(Result.init)
            let observation = attempts.lazy.compactMap(\.handshake).first
            self.chain = observation.map { observation in
                let decision = observation.decision
                if let failure = decision.failure {
                    return "NOT trusted (\(trust)): \(failure.code): \(failure.message)"
                }
                return
                    "trusted (\(trust)): \(decision.chain.count) certificates, leaf \(decision.chain.first.map { String(describing: $0.subject) } ?? "")"
            }
            let policyObservation = appPolicy?.handshake
            if let requirements = policyObservation?.requirements, let pins = requirements.pins {
                let scope = requirements.pinScope ?? host
                if let failure = policyObservation?.decision.failure, failure.code == .pinMismatch {
                    self.pins = "MISMATCH for \(scope) (\(pins.pins.count) pins): \(failure.message)"
                } else if let report = policyObservation?.decision.pinReport {
                    self.pins = "report-only mismatch for \(scope): \(report.knownPins.count) pins, none served"
                } else if policyObservation?.decision.isTrusted == true {
                    self.pins = "matched (\(scope), \(pins.pins.count) pins)"
                } else {
                    self.pins = "not checked: the chain is not trusted"
                }
            } else {
                self.pins = appPolicy == nil ? nil : "none for \(host) in the policy"
            }
            if let report = policyObservation?.decision.transparencyReport {
                self.certificateTransparency = "\(report.result.rawValue) (\(report.policy)): \(report.summary)"
            } else if let leaf = observation?.decision.chain.first ?? nil {
                let count = (try? SignedCertificateTimestamp.embedded(in: leaf).count) ?? 0
                self.certificateTransparency =
                    "not required\(appPolicy == nil ? "" : " by the policy"); the leaf carries \(count) embedded SCT\(count == 1 ? "" : "s")"
            } else {
                self.certificateTransparency = nil
            }

            let passing = attempts.filter { $0.passed && $0.configuration?.rank != nil }
                .sorted { ($0.configuration?.rank ?? 0) < ($1.configuration?.rank ?? 0) }
            let defaultPassed = attempts.first?.passed == true
            if defaultPassed {
                self.minimalException = nil
                self.conclusion = "PASS under the default policy: no exception needed"
            } else if let minimal = passing.first, let configuration = minimal.configuration {
                self.minimalException = Self.exception(configuration, host: host)
                self.conclusion = "needs an exception: \(configuration.name)"
            } else {
                self.minimalException = nil
                let codes = Set(attempts.compactMap { $0.error?.code })
                if codes.contains(.serverTrustFailure) {
                    self.conclusion =
                        "no configuration passes: the chain is not trusted, and no exception changes that (fix the certificate, or trust its CA with --ca)"
                } else if codes.contains(.clientCertificateRequired) {
                    self.conclusion =
                        "no configuration passes: the server requires a client certificate (try securenet request with --cert and --key, or --p12)"
                } else {
                    self.conclusion = "no configuration passes"
                }
            }
            if let appPolicy {
                self.status = appPolicy.passed ? 0 : 2
            } else {
                self.status = defaultPassed ? 0 : self.minimalException != nil ? 2 : 3
            }
        }

        static func exception(_ configuration: Configuration, host: String) -> Exception {
            var plistKeys: [(String, String)] = []
            var jsonKeys: [String] = []
            var note: String?
            if let exception = configuration.exception {
                if exception.allowsInsecureHTTPLoads {
                    plistKeys.append(("NSExceptionAllowsInsecureHTTPLoads", "<true/>"))
                    jsonKeys.append("\"allowsInsecureHTTPLoads\": true")
                    note = "plain HTTP can be read and changed by anyone on the path: prefer https"
                }
                if let version = exception.minimumTLSVersion {
                    plistKeys.append(("NSExceptionMinimumTLSVersion", "<string>\(version)</string>"))
                    jsonKeys.append("\"minimumTLSVersion\": \"\(version)\"")
                }
                if exception.requiresForwardSecrecy == false {
                    plistKeys.append(("NSExceptionRequiresForwardSecrecy", "<false/>"))
                    jsonKeys.append("\"requiresForwardSecrecy\": false")
                }
                if exception.cipherSuites == .ats {
                    jsonKeys.append("\"cipherSuites\": \"ats\"")
                    note =
                        "ATS offers these CBC suites by default, so an app on Apple's ATS needs no Info.plist key; this library's policy offers AEAD suites only unless the domain's exception says \"cipherSuites\": \"ats\" (set DomainException.cipherSuites in code when the policy comes from an Info.plist)"
                }
                let infoPlist =
                    plistKeys.isEmpty
                    ? nil
                    : (["<key>NSExceptionDomains</key>", "<dict>", "  <key>\(host)</key>", "  <dict>"]
                        + plistKeys.flatMap { ["    <key>\($0.0)</key>", "    \($0.1)"] } + ["  </dict>", "</dict>"])
                        .joined(separator: "\n")
                if IPAddress(host) != nil {
                    note =
                        (note.map { $0 + "; " } ?? "")
                        + "ATS does not take IP addresses in NSExceptionDomains: use a host name"
                }
                return Exception(
                    configuration: configuration.name,
                    infoPlist: infoPlist,
                    policyFile: "\"exceptionDomains\": { \"\(host)\": { \(jsonKeys.joined(separator: ", ")) } }",
                    note: note
                )
            }
            if configuration.allowsLocalNetworking {
                return Exception(
                    configuration: configuration.name,
                    infoPlist: "<key>NSAllowsLocalNetworking</key>\n<true/>",
                    policyFile: "\"allowsLocalNetworking\": true",
                    note: "plain HTTP to every local host (loopback, private and link-local addresses, .local names)"
                )
            }
            return Exception(
                configuration: configuration.name,
                infoPlist: "<key>NSAllowsArbitraryLoads</key>\n<true/>",
                policyFile: "\"allowsArbitraryLoads\": true",
                note: "plain HTTP to every host without an exception: avoid"
            )
        }

        var text: String {
            var lines = [
                "ATS diagnostics for \(self.url) (securenet, through NIOHTTPTransport; trust: \(self.trust))", "",
            ]
            let width = max(
                self.results.map(\.configuration.count).max() ?? 0,
                self.appPolicy?.configuration.count ?? 0
            )
            func line(_ result: Result) -> String {
                let padded = result.configuration.padding(toLength: width, withPad: " ", startingAt: 0)
                var detail: String
                if let status = result.status {
                    detail = "\(result.tlsVersion.map { "\($0), \(result.cipherSuite ?? "")" } ?? "plain HTTP")"
                    detail += ", \(result.httpVersion ?? "HTTP/1.1") \(status)"
                } else {
                    detail = "\(result.errorCode ?? ""): \(result.error ?? "")"
                }
                var text = "  \(padded)  \(result.result)  \(detail)"
                if let note = result.note { text += "\n  \(String(repeating: " ", count: width))        (\(note))" }
                return text
            }
            lines += self.results.map(line)
            lines.append("")
            if let chain { lines.append("chain:  \(chain)") }
            if let pins { lines.append("pins:   \(pins)") }
            if let certificateTransparency { lines.append("CT:     \(certificateTransparency)") }
            lines.append("")
            lines.append("result: \(self.conclusion)")
            if let exception = self.minimalException {
                if let infoPlist = exception.infoPlist {
                    lines.append("  Info.plist (inside NSAppTransportSecurity):")
                    lines += infoPlist.split(separator: "\n").map { "    \($0)" }
                }
                lines.append("  JSON policy file:")
                lines.append("    \(exception.policyFile)")
                if let note = exception.note { lines.append("  note: \(note)") }
            }
            if let appPolicy {
                lines.append("")
                lines.append("your policy:")
                lines.append(line(appPolicy))
            }
            return lines.joined(separator: "\n")
        }
    }
}

/// Host-name helpers the CLI needs (ServerTrust keeps its own internal).
enum HostNameText {
    /// Lower case, no trailing dot, no IPv6 brackets.
    static func normalise(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        while host.hasSuffix(".") { host.removeLast() }
        return host
    }
}
#endif
