#if Tools
import ArgumentParser
import Foundation
import HTTPTypes
import HTTPTypesFoundation
import NIOConcurrencyHelpers
import NIOCore
import SecureHTTP
import SecureNetworkingInternal
import ServerTrust

/// `securenet request URL`: one request through `NIOHTTPTransport` under the exact policy an app
/// ships, with its pins and client certificate.
struct RequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract:
            "Send one request through NIOHTTPTransport under a given policy, pins and client certificate, and print the response.",
        discussion: """
            Examples:
              securenet request https://api.example.com/health
              securenet request https://api.example.com/v1/items --info-plist MyApp/Info.plist -v
              securenet request https://localhost:8443/mtls/whoami --ca ca.pem --cert device.pem --key device-key.pem
              SECURENET_P12_PASSPHRASE=… securenet request https://localhost:8443/ --ca ca.pem --p12 device.p12
              securenet request https://localhost:8443/health --ca ca.pem --proxy 127.0.0.1:8888
              securenet request https://api.example.com/v1/items -X POST -H 'Content-Type: application/json' --data '{"name":"a"}' --json

            The response body goes to standard output (or -o FILE); -v prints the request and \
            response heads, the negotiated TLS, the trust decision (chain, pins, CT) and timings \
            on standard error; --json prints the whole exchange. Credential fields (Authorization, \
            Cookie, Set-Cookie, Proxy-Authorization), the URL's query and JSON or form fields \
            named like secrets (password, token, secret, …) are redacted in -v and --json output. \
            A PKCS#12 passphrase is read from the environment variable named by \
            --p12-passphrase-env, else from a prompt on the terminal; never from the command line.

            Exit status: 0 a response was received (any HTTP status), 1 an error (refused by the \
            policy, unreachable host, a port without TLS, a bad file, pin or header), 2 the server \
            is not trusted (chain, host name, pins or CT), 64 a usage error.
            """
    )

    @Argument(help: "The URL to request.")
    var url: String

    @OptionGroup var policyOptions: PolicyOptions

    @Option(
        name: .customLong("pin"),
        help: "Pin the host to this sha256/… SPKI pin (repeat it: an enforced pin set needs a backup)."
    )
    var pins: [String] = []

    @Option(
        help:
            "Connect through this HTTP proxy (HOST:PORT) with CONNECT; TLS and the trust checks stay end to end, so an intercepting proxy (securenet intercept) is refused unless --ca trusts its CA and nothing is pinned."
    )
    var proxy: String?

    @Option(help: "Client certificate chain (PEM) for mutual TLS; with --key.")
    var cert: String?

    @Option(help: "The client certificate's private key (PEM); with --cert.")
    var key: String?

    @Option(help: "Client identity as a PKCS#12 bundle (.p12).")
    var p12: String?

    @Option(name: .customLong("p12-passphrase-env"), help: "The environment variable holding the PKCS#12 passphrase.")
    var passphraseVariable = "SECURENET_P12_PASSPHRASE"

    @Option(name: [.customShort("X"), .customLong("request")], help: "The method (default GET, or POST with a body).")
    var method: String?

    @Option(name: [.customShort("H"), .customLong("header")], help: "A request header, 'Name: value' (repeatable).")
    var headers: [String] = []

    @Option(help: "The request body.")
    var data: String?

    @Option(name: .customLong("data-file"), help: "Read the request body from this file.")
    var dataFile: String?

    @Option(name: [.customShort("o"), .customLong("output")], help: "Write the response body to this file.")
    var output: String?

    @Option(name: .customLong("max-time"), help: "Seconds the whole request may take.")
    var maxTime = 30

    @Flag(name: .shortAndLong, help: "Print the exchange, the trust decision and timings on standard error.")
    var verbose = false

    @Flag(help: "Print the whole exchange as JSON (secrets redacted) instead of the body.")
    var json = false

    func validate() throws {
        if self.data != nil && self.dataFile != nil { throw ValidationError("give --data or --data-file, not both") }
        if self.p12 != nil && (self.cert != nil || self.key != nil) {
            throw ValidationError("give --p12 or --cert/--key, not both")
        }
        if (self.cert == nil) != (self.key == nil) { throw ValidationError("--cert and --key go together") }
        guard self.maxTime > 0 else { throw ValidationError("--max-time must be positive") }
    }

    func run() async throws {
        do {
            let exchange = try await self.send()
            if self.verbose { exchange.printVerbose() }
            if self.json {
                try printJSON(exchange.record)
            } else if let output = self.output {
                do {
                    try exchange.body.write(to: URL(fileURLWithPath: output), options: .atomic)
                } catch {
                    throw CLIError(subject: output, "cannot write the response body")
                }
            } else {
                FileHandle.standardOutput.write(exchange.body)
            }
        } catch let error as CLIError {
            throw error.exit()
        } catch let failure as UntrustedServer {
            var standardError = StandardError()
            printEscaped("securenet: \(self.shownURL): \(failure.message)", to: &standardError)
            throw ExitCode(2)
        }
    }

    /// The URL as errors show it: secret-named query parameters and user info redacted.
    var shownURL: String { Redaction.url(URL(string: self.url)) ?? "the URL" }

    /// A server that was reached but not trusted.
    struct UntrustedServer: Error {
        let message: String
    }

    func send() async throws -> Exchange {
        guard let url = URL(string: self.url), url.host?.isEmpty == false else {
            throw CLIError(subject: self.shownURL, "not a URL")
        }
        var policy = try self.policyOptions.loadPolicy() ?? TransportSecurityPolicy.strict
        if self.policyOptions.policyFile == nil, let anchors = try self.policyOptions.anchors() {
            policy.trustAnchors = anchors
        }
        if !self.pins.isEmpty {
            do {
                let pinSet = try PinSet(self.pins)
                // The host as the policy judges it: an address in any spelling (`127.1`) is pinned
                // as its canonical text, as the connection's requirements will name it.
                let host = (try? policy.requirements(for: url).host) ?? HostNameText.normalise(url.host ?? "")
                policy.pinning.pin(try HostPattern(host), to: pinSet)
            } catch {
                throw CLIError(subject: "--pin", error.message)
            }
        }
        var configuration = HTTPTransportConfiguration(policy: policy)
        configuration.clientIdentity = try self.clientIdentity()
        configuration.redirects = .none
        configuration.timeouts.request = .seconds(self.maxTime)
        if let proxy = self.proxy {
            guard let colon = proxy.lastIndex(of: ":"), let port = Int(proxy[proxy.index(after: colon)...]) else {
                throw ValidationError("--proxy must be HOST:PORT")
            }
            let host = proxy[..<colon]
            configuration.proxy = HTTPProxy(
                host: String(host.hasPrefix("[") && host.hasSuffix("]") ? host.dropFirst().dropLast() : host),
                port: port
            )
        }
        let handshake = NIOLockedValueBox<HandshakeObservation?>(nil)
        let connection = NIOLockedValueBox<ConnectionObservation?>(nil)
        let sent = NIOLockedValueBox<ContinuousClock.Instant?>(nil)
        let firstByte = NIOLockedValueBox<ContinuousClock.Instant?>(nil)
        configuration.handshakeObserver = { observation in handshake.withLockedValue { $0 = observation } }
        configuration.connectionObserver = { observation in connection.withLockedValue { $0 = observation } }

        var request = HTTPRequest(url: url)
        let body = try self.body()
        request.method = try self.requestMethod(hasBody: body != nil)
        for header in self.headers {
            guard let colon = header.firstIndex(of: ":") else {
                throw CLIError(subject: "-H", "'\(header.prefix(64))' is not 'Name: value'")
            }
            let name = String(header[..<colon]).trimmingCharacters(in: .whitespaces)
            let value = String(header[header.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            do {
                request.headerFields.append(try HTTPField.checked(name: name, value: value))
            } catch {
                throw CLIError(subject: "-H", error.message)
            }
        }
        // The moment the request has its connection and goes on the wire; the hook sets nothing.
        var options = HTTPRequestOptions()
        options.credential = .init(name: .authorization) {
            sent.withLockedValue { $0 = .now }
            return nil
        }
        options.responseHeadObserver = { firstByte.withLockedValue { $0 = .now } }

        let dns = Self.resolve(url)
        let started = ContinuousClock.now
        let response: HTTPTransportResponse
        do {
            response = try await withNIOHTTPTransport(configuration: configuration) { transport in
                try await transport.send(request, body: body, options: options)
            }
        } catch let error as SecureHTTPError {
            if error.code == .serverTrustFailure {
                if self.verbose, let observation = handshake.withLockedValue({ $0 }) {
                    Exchange.printTrust(observation)
                }
                throw UntrustedServer(
                    message: error.serverTrustError.map { "\($0.code): \($0.message)" } ?? error.message
                )
            }
            throw CLIError(subject: self.shownURL, error.serverTrustError?.message ?? error.message)
        }
        let finished = ContinuousClock.now
        return Exchange(
            request: request,
            requestBody: body,
            response: response,
            handshake: handshake.withLockedValue { $0 },
            connection: connection.withLockedValue { $0 },
            timings: Exchange.Timings(
                dns: dns,
                connect: connection.withLockedValue { $0 }?.connect,
                tlsHandshake: connection.withLockedValue { $0 }?.tlsHandshake,
                firstByte: sent.withLockedValue { sent in
                    firstByte.withLockedValue { head in head.flatMap { head in sent.map { $0.duration(to: head) } } }
                },
                total: started.duration(to: finished)
            )
        )
    }

    /// How long the system resolver takes for the host, measured on its own before the request
    /// (NIO resolves again while connecting; that lookup is inside "connect").
    static func resolve(_ url: URL) -> Duration? {
        guard let host = url.host, IPAddress(HostNameText.normalise(host)) == nil else { return nil }
        let start = ContinuousClock.now
        guard (try? SocketAddress.makeAddressResolvingHost(host, port: url.port ?? 443)) != nil else { return nil }
        return start.duration(to: .now)
    }

    func requestMethod(hasBody: Bool) throws(CLIError) -> HTTPRequest.Method {
        guard let method = self.method else { return hasBody ? .post : .get }
        guard let parsed = HTTPRequest.Method(method.uppercased()) else {
            throw CLIError(subject: "-X", "'\(method.prefix(32))' is not an HTTP method")
        }
        return parsed
    }

    func body() throws(CLIError) -> Data? {
        if let data = self.data { return Data(data.utf8) }
        guard let file = self.dataFile else { return nil }
        do {
            return try RegularFileReader.read(file, limit: Self.maximumBodyFileSize)
        } catch {
            throw CLIError(subject: file, "cannot read the request body: \(error.reason)")
        }
    }

    /// The largest `--data-file` read (a FIFO or `/dev/zero` is refused before a byte is read).
    static let maximumBodyFileSize = 64 << 20
    /// The largest certificate, key or PKCS#12 file read.
    static let maximumIdentityFileSize = 1 << 20

    func clientIdentity() throws(CLIError) -> ClientIdentity? {
        if let cert = self.cert, let key = self.key {
            return .pem(
                certificateChain: try Self.read(cert, "the client certificate"),
                privateKey: try Self.read(key, "the client key")
            )
        }
        guard let p12 = self.p12 else { return nil }
        let bundle = try Self.read(p12, "the PKCS#12 bundle")
        if let passphrase = ProcessInfo.processInfo.environment[self.passphraseVariable] {
            return .pkcs12(bundle, passphrase: passphrase)
        }
        guard let passphrase = Terminal.readSecret(prompt: "Passphrase for \(p12): ") else {
            throw CLIError(
                subject: p12,
                "no passphrase: set \(self.passphraseVariable), or run on a terminal to be asked"
            )
        }
        return .pkcs12(bundle, passphrase: passphrase)
    }

    static func read(_ path: String, _ what: String) throws(CLIError) -> [UInt8] {
        do {
            return Array(try RegularFileReader.read(path, limit: Self.maximumIdentityFileSize))
        } catch {
            throw CLIError(subject: path, "cannot read \(what): \(error.reason)")
        }
    }
}

/// A prompt on the controlling terminal with echo off.
enum Terminal {
    static func readSecret(prompt: String) -> String? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        _ = tcsetattr(fd, TCSAFLUSH, &silent)
        defer {
            _ = tcsetattr(fd, TCSAFLUSH, &saved)
            _ = write(fd, "\n", 1)
        }
        _ = prompt.withCString { write(fd, $0, strlen($0)) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1, byte != 0x0A, byte != 0x0D, bytes.count < 4096 { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
#endif
