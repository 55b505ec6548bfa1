public import Foundation
public import SecureNetworking
public import SecureNetworkingTesting

/// What `securenet serve` runs: the reference auth server on loopback with a fresh TestPKI whose
/// files are written to a folder, so an app under development can trust and pin it.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public struct DevelopmentServer: Sendable {
    /// Where things are, for printing.
    public struct Summary: Sendable {
        /// The server's base URL (`https://localhost:PORT/`).
        public var url: URL
        /// The root CA certificate (PEM) to trust.
        public var caFile: URL
        /// The server's certificate chain (PEM, leaf first).
        public var serverChainFile: URL
        /// A client certificate and key (PEM) for `/mtls/whoami`.
        public var clientCertificateFile: URL
        /// The client certificate's private key (PEM, mode 0600).
        public var clientKeyFile: URL
        /// A policy file that trusts the CA (`"trustAnchors"` names `ca.pem`, relative to the
        /// folder) and pins `localhost` to the intermediate CA with the root as backup, so
        /// `TransportSecurityPolicy(contentsOfFile:)` alone reaches the server.
        public var policyFile: URL
        /// The pins of the chain: leaf, intermediate, root.
        public var pins: [(name: String, pin: Pin)]
        /// The key that signs pin-set updates (PEM PRIVATE KEY, mode 0600), for
        /// `securenet pins sign`.
        public var pinUpdateKeyFile: URL
        /// Its public half (PEM PUBLIC KEY), to compile into the app.
        public var pinUpdatePublicKeyFile: URL
        /// The signed pin-set update the server publishes (version 1: `localhost` pinned to the
        /// intermediate CA with the root as backup).
        public var pinSetUpdateFile: URL
        /// Where the server publishes it (`/.well-known/securenet-pins.json`).
        public var pinSetUpdateURL: URL
        /// The development account.
        public var email: String
        /// The development account's password, made up for this run.
        public var password: String
    }

    /// The running server.
    public let server: ReferenceAuthServer
    /// Its files and account.
    public let summary: Summary

    /// Mints a PKI, writes its files to `directory` (created 0700; keys 0600) and starts the server.
    ///
    /// - Important: the folder holds the client certificate's private key; keep it out of version
    ///   control.
    ///
    /// - Parameters:
    ///   - directory: where the files go.
    ///   - port: the port on 127.0.0.1; 0 picks a free one.
    ///   - accessTokenLifetime: how long access tokens live.
    public static func start(
        directory: URL,
        port: Int = 0,
        accessTokenLifetime: Duration = .seconds(300)
    ) async throws -> DevelopmentServer {
        let pki = try TestPKI(referenceTime: Date())
        let chain = try pki.validChain()
        let client = try pki.clientIdentity(commonName: "securenet-dev-client")
        let manager = FileManager.default
        try manager.createDirectory(
            at: directory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)

        let files = (
            ca: directory.appendingPathComponent("ca.pem"),
            chain: directory.appendingPathComponent("server-chain.pem"),
            clientCertificate: directory.appendingPathComponent("client.pem"),
            clientKey: directory.appendingPathComponent("client-key.pem"),
            policy: directory.appendingPathComponent("policy.json"),
            pinUpdateKey: directory.appendingPathComponent("pin-update-key.pem"),
            pinUpdatePublicKey: directory.appendingPathComponent("pin-update-key.pub.pem"),
            pinSetUpdate: directory.appendingPathComponent("pins.signed.json")
        )
        let pins: [(name: String, pin: Pin)] = [
            ("leaf", chain.leafIdentity.pin), ("intermediate", pki.intermediate.pin), ("root", pki.root.pin),
        ]
        try Self.write(pki.root.pem, to: files.ca, mode: 0o644)
        try Self.write(chain.pem, to: files.chain, mode: 0o644)
        try Self.write(client.pem, to: files.clientCertificate, mode: 0o644)
        try Self.write(client.leafIdentity.privateKeyPEM, to: files.clientKey, mode: 0o600)
        try Self.write(
            Self.samplePolicy(caFile: files.ca.lastPathComponent, pins: [pki.intermediate.pin, pki.root.pin]),
            to: files.policy,
            mode: 0o644
        )

        let updateKey = PinUpdateSigningKey.generate(.ed25519)
        let now = Date()
        let update = try PinSetUpdate(
            version: 1,
            issuedAt: now,
            notAfter: now.addingTimeInterval(90 * 86_400),
            entries: [
                try HostPattern("localhost"): .pinned(try PinSet(pins: [pki.intermediate.pin, pki.root.pin]))
            ]
        )
        let envelope = try SignedPinSetUpdate(signing: update.jsonData(), with: updateKey).envelope()
        try Self.write(updateKey.pemEncoded + "\n", to: files.pinUpdateKey, mode: 0o600)
        try Self.write(updateKey.publicKey.pemEncoded + "\n", to: files.pinUpdatePublicKey, mode: 0o644)
        try envelope.write(to: files.pinSetUpdate, options: .atomic)

        let email = "dev@example.com"
        let password = UUID().uuidString
        var configuration = ReferenceAuthServer.Configuration(
            chain: chain,
            clientCertificateIssuers: [pki.clientCA],
            accessTokenLifetime: accessTokenLifetime,
            users: [.init(email: email, password: password, displayName: "Developer")]
        )
        configuration.port = port
        configuration.pinSetUpdate = { envelope }
        let server = try await ReferenceAuthServer.start(configuration)
        return DevelopmentServer(
            server: server,
            summary: Summary(
                url: server.baseURL,
                caFile: files.ca,
                serverChainFile: files.chain,
                clientCertificateFile: files.clientCertificate,
                clientKeyFile: files.clientKey,
                policyFile: files.policy,
                pins: pins,
                pinUpdateKeyFile: files.pinUpdateKey,
                pinUpdatePublicKeyFile: files.pinUpdatePublicKey,
                pinSetUpdateFile: files.pinSetUpdate,
                pinSetUpdateURL: server.baseURL.appendingPathComponent(".well-known/securenet-pins.json"),
                email: email,
                password: password
            )
        )
    }

    /// The policy file: ATS defaults, the system roots and the CA file `caFile` (a path relative
    /// to the policy file's folder), `localhost` pinned to `pins`.
    static func samplePolicy(caFile: String, pins: [Pin]) -> String {
        let list = pins.map { "\"\($0)\"" }.joined(separator: ", ")
        return """
            {
              "minimumTLSVersion": "TLSv1.2",
              "requiresForwardSecrecy": true,
              "trustAnchors": { "system": true, "certificates": ["\(caFile)"] },
              "pinnedDomains": {
                "localhost": { "pins": [\(list)] }
              }
            }

            """
    }

    private static func write(_ text: String, to url: URL, mode: Int) throws {
        try Data(text.utf8).write(to: url, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
    }
}
