#if Tools
public import Foundation
public import SecureNetworking
public import SecureNetworkingTesting
import NIOPosix

/// What `securenet serve` runs: the reference auth server on loopback with a development PKI and
/// pin-update key kept in a folder, so that an app under development can trust and pin it, and a
/// signed pin-set update published from a file in that folder.
///
/// The first start on a folder makes the CA, the keys and the pins; every later start reuses them
/// (see ``start(directory:port:accessTokenLifetime:)``), so an app that trusts `ca.pem`, pins the
/// printed pins or compiled in `pin-update-key.pub.pem` keeps working across restarts. The
/// update served is the one in `pins.signed.json`: replace it (`securenet pins sign … --out`)
/// and ``publishPinSetUpdateFile()`` serves it, with or without a restart.
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
        /// The signed pin-set update the server publishes: version 1 (`localhost` pinned to the
        /// intermediate CA with the root as backup) as first written, or what was signed into
        /// it since (see ``DevelopmentServer/publishPinSetUpdateFile()``).
        public var pinSetUpdateFile: URL
        /// Where the server publishes it (`/.well-known/securenet-pins.json`).
        public var pinSetUpdateURL: URL
        /// What was published at the start.
        public var pinSetUpdate: Publication
        /// Whether the folder's CA, keys and pins were there already (false: made now).
        public var reused: Bool
        /// The files written at this start: every file of a new folder; in a reused one, a
        /// leaf certificate issued again (missing or expiring within a week) or a missing file
        /// made again from the kept ones.
        public var writtenFiles: [URL]
        /// The development account.
        public var email: String
        /// The development account's password, made up for this run.
        public var password: String
    }

    /// The running server.
    public let server: ReferenceAuthServer
    /// Its files and account.
    public let summary: Summary
    /// The update served, read from ``Summary/pinSetUpdateFile``.
    let publisher: PinSetPublisher

    /// Starts the server on the PKI and update key kept in `directory`, made there first when the
    /// folder is new.
    ///
    /// An empty or missing folder (created 0700) gets a new CA (root and intermediate), a client
    /// CA, leaf certificates for `localhost` and a client, a pin-update key (Ed25519), a policy
    /// file and version 1 of a signed update; keys are 0600. A folder that has them is reused:
    /// the CA certificates, the keys and so the pins stay; a leaf certificate that is missing or
    /// expires within a week is issued again for the same key; a missing policy file, public
    /// update key or signed update is written again; the others are left as they are. The root's
    /// key is never kept: nothing can mint another CA under the root devices trust.
    ///
    /// - Important: the folder holds private keys (the intermediate CA's, the client's, the
    ///   pin-update key); keep it out of version control.
    ///
    /// - Parameters:
    ///   - directory: where the files are.
    ///   - port: the port on 127.0.0.1; 0 picks a free one.
    ///   - accessTokenLifetime: how long access tokens live.
    /// - Throws: ``DevelopmentServerError`` when the folder holds some of its files and not others
    ///   (``DevelopmentServerError/Code/incompleteFolder``: a folder of an older `securenet serve`,
    ///   which kept no CA key), files that do not belong together
    ///   (``DevelopmentServerError/Code/mismatchedFiles``), or a file that cannot be read or
    ///   written; nothing in the folder is changed then, and no key is ever overwritten.
    public static func start(
        directory: URL,
        port: Int = 0,
        accessTokenLifetime: Duration = .seconds(300)
    ) async throws -> DevelopmentServer {
        let folder = DevelopmentFolder(directory: directory)
        typealias Name = DevelopmentFolder.Name
        // File I/O and key generation, off the cooperative pool.
        let contents = try await NIOThreadPool.singleton.runIfActive { try folder.prepare(now: Date()) }
        let publisher = PinSetPublisher(
            file: folder.url(Name.pinSetUpdate),
            policyFile: folder.url(Name.policy),
            updateKey: contents.updateKey
        )
        let first = try await NIOThreadPool.singleton.runIfActive { publisher.look(now: Date()) }

        let email = "dev@example.com"
        let password = UUID().uuidString
        var configuration = ReferenceAuthServer.Configuration(
            chain: contents.serverChain,
            clientCertificateIssuers: [contents.clientCA],
            accessTokenLifetime: accessTokenLifetime,
            users: [.init(email: email, password: password, displayName: "Developer")]
        )
        configuration.port = port
        configuration.pinSetUpdate = { publisher.served() }
        let server = try await ReferenceAuthServer.start(configuration)
        return DevelopmentServer(
            server: server,
            summary: Summary(
                url: server.baseURL,
                caFile: folder.url(Name.ca),
                serverChainFile: folder.url(Name.serverChain),
                clientCertificateFile: folder.url(Name.clientCertificate),
                clientKeyFile: folder.url(Name.clientKey),
                policyFile: folder.url(Name.policy),
                pins: contents.pins,
                pinUpdateKeyFile: folder.url(Name.updateKey),
                pinUpdatePublicKeyFile: folder.url(Name.updatePublicKey),
                pinSetUpdateFile: folder.url(Name.pinSetUpdate),
                pinSetUpdateURL: server.baseURL.appendingPathComponent(".well-known/securenet-pins.json"),
                pinSetUpdate: first
                    ?? Publication(servedVersion: nil, published: false, problem: nil, file: Name.pinSetUpdate),
                reused: contents.reused,
                writtenFiles: contents.written.map(folder.url),
                email: email,
                password: password
            ),
            publisher: publisher
        )
    }
}
#endif
