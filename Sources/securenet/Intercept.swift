#if Tools
import ArgumentParser
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import SecureHTTP
import SecureNetworkingTesting
import ServerTrust

/// `securenet intercept`: a Charles-style HTTPS proxy that shows whether an app pins.
struct Intercept: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Run an HTTPS-intercepting CONNECT proxy on 127.0.0.1 and report, per connection, whether the client let it read its traffic.",
        discussion: """
            Every CONNECT gets a certificate for the requested host, minted by the proxy's own CA \
            (written to --ca-directory as PEM and DER, with INSTALL.txt on trusting it in a \
            simulator). A client that completes the TLS handshake trusted the interception: it is \
            reported "intercepted", with its first request line (credential values redacted), and \
            its requests are relayed with SecureNetworking's transport, over verified TLS, to the \
            host and port it asked for. A client that aborts the handshake is reported "held": \
            its pins or its trust store refused the proxy. Run an app or a test through it to \
            prove that it pins. Debugging only: the CA's key can read the traffic of any device \
            that trusts it.

            Examples:
              securenet intercept
              securenet intercept --port 0 --ca-directory ~/.securenet/intercept-ci --json
              securenet intercept --upstream-ca securenet-dev/ca.pem --max-connections 2

            Text lines: `held  HOST:PORT  REASON`, `intercepted  HOST:PORT  REQUEST-LINE → STATUS`, or \
            `tunneled  HOST:PORT` for a --pass-through host. \
            With --json, one JSON object per line (host, port, outcome, reason, request, status, \
            upstreamError). The listening address and the CA files go to standard error. \
            The CA folder must be yours and private (mode 0700, the key 0600): keep it in your \
            home folder, never in a shared one such as /tmp, where another user could plant or \
            read the key. Exit status: 0 stopped (Ctrl-C, or --max-connections reached), 1 it \
            could not start (the port is taken, the CA folder cannot be read or written, or it \
            or the key is not private), 64 a usage error.
            """
    )

    @Option(help: "The port on 127.0.0.1 (0 picks a free one).")
    var port: Int = 8888

    @Option(
        help:
            "The folder of the proxy's CA (private to you, in your home folder): reused when it holds one, else created there with mode 0700."
    )
    var caDirectory: String = Intercept.defaultCADirectory

    @Option(help: "Trust only the certificates of this PEM file for the upstream servers instead of the system roots.")
    var upstreamCA: String?

    @Option(
        name: .customLong("pass-through"),
        help: "A host whose tunnels are relayed untouched instead of intercepted (repeatable)."
    )
    var passThrough: [String] = []

    @Option(help: "Stop after this many connections have been reported.")
    var maxConnections: Int?

    @Flag(help: "Print one JSON object per connection instead of text.")
    var json = false

    static var defaultCADirectory: String {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? FileManager.default.currentDirectoryPath
        return URL(fileURLWithPath: home).appendingPathComponent(".securenet/intercept").path
    }

    func validate() throws {
        guard (0...65_535).contains(self.port) else { throw ValidationError("--port must be between 0 and 65535") }
        if let maximum = self.maxConnections, maximum < 1 {
            throw ValidationError("--max-connections must be at least 1")
        }
    }

    func run() async throws {
        let directory = URL(fileURLWithPath: self.caDirectory, isDirectory: true).standardizedFileURL
        var standardError = StandardError()
        let (authority, created): (InterceptionAuthority, Bool)
        do {
            (authority, created) = try InterceptionAuthority.loadOrCreate(in: directory)
        } catch {
            printEscaped(
                "securenet: the intercept CA in \(directory.path) cannot be used: \(error)",
                to: &standardError
            )
            throw ExitCode(1)
        }
        var policy = TransportSecurityPolicy.strict
        if let upstreamCA {
            let anchors = try CertificateFile(path: upstreamCA).entries.compactMap(\.certificate)
            guard !anchors.isEmpty else { throw ValidationError("\(upstreamCA): no certificate") }
            policy.trustAnchors = .only(anchors)
        }
        var configuration = HTTPTransportConfiguration(policy: policy)
        // The client sees the upstream's redirects and follows them through the proxy itself.
        configuration.redirects = .none
        let transport = try NIOHTTPTransport(configuration: configuration)
        let forward: InterceptingProxy.Forward = { request, body in
            let answer = try await transport.send(request, body: body.readableBytes == 0 ? nil : Data(buffer: body))
            return (answer.response, ByteBuffer(data: answer.body))
        }

        let done = ConnectionCountdown(limit: self.maxConnections)
        let json = self.json
        let proxy: InterceptingProxy
        do {
            proxy = try await InterceptingProxy.startConnectProxy(
                port: self.port,
                authority: authority,
                passThrough: Set(self.passThrough),
                forward: forward,
                onConnection: { connection in
                    Self.say(json ? Self.jsonLine(connection) : OutsideText.escaped(Self.textLine(connection)))
                    done.count()
                }
            )
        } catch {
            await transport.shutdown()
            printEscaped("securenet: cannot listen on 127.0.0.1:\(self.port): \(error)", to: &standardError)
            throw ExitCode(1)
        }
        let caFile = directory.appendingPathComponent(InterceptionAuthority.File.certificatePEM).path
        printEscaped(
            """
            securenet intercept: listening on 127.0.0.1:\(proxy.port)
            CA (\(created ? "created" : "reused")): \(caFile) and \(InterceptionAuthority.File.certificateDER), pin \(authority.pin)
            to trust it in a simulator or device: \(directory.appendingPathComponent(InterceptionAuthority.File.instructions).path)
            """,
            to: &standardError
        )
        await done.wait()
        await proxy.shutdown()
        await transport.shutdown()
    }

    /// Written unbuffered, so each line is there at once even when stdout is a pipe.
    static func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

    static func textLine(_ connection: InterceptingProxy.Connection) -> String {
        let target = "\(connection.host.contains(":") ? "[\(connection.host)]" : connection.host):\(connection.port)"
        switch connection.outcome {
        case .held:
            return "held         \(target)  \(connection.reason ?? "the client aborted the handshake")"
        case .tunneled:
            return "tunneled     \(target)  (--pass-through: relayed untouched, TLS end to end)"
        case .intercepted:
            guard let request = connection.request else {
                return "intercepted  \(target)  (handshake completed, no request before the client closed)"
            }
            var line = "intercepted  \(target)  \(request)"
            if let status = connection.status { line += " → \(status)" }
            if let error = connection.upstreamError { line += " (upstream failed: \(error))" }
            return line
        }
    }

    static func jsonLine(_ connection: InterceptingProxy.Connection) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(connection)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// Counts reported connections; `wait()` returns once `limit` were reported (never without one,
/// until the task is cancelled by Ctrl-C).
final class ConnectionCountdown: Sendable {
    private let limit: Int?
    private let state = NIOLockedValueBox<(count: Int, waiter: CheckedContinuation<Void, Never>?)>((0, nil))

    init(limit: Int?) { self.limit = limit }

    func count() {
        let waiter = self.state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            state.count += 1
            guard let limit = self.limit, state.count >= limit else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func wait() async {
        guard let limit = self.limit else {
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3_600)) }
            return
        }
        await withCheckedContinuation { continuation in
            let ready = self.state.withLockedValue { state -> Bool in
                if state.count >= limit { return true }
                state.waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
#endif
