#if Tools
import Foundation
import NIOConcurrencyHelpers
import SecureNetworking
import SecureNetworkingTesting

/// What the demo runs against: a fresh PKI, the reference server on a free loopback port, an
/// encrypted file store in a temporary folder, and the app's client (pinned, with a session).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
struct DemoWorld: Sendable {
    static let email = "ada@example.com"
    static let clientID = "securenet-demo"

    let pki: TestPKI
    let clock: DemoClock
    let server: ReferenceAuthServer
    let storeDirectory: URL
    let store: EncryptedFileStore
    let client: SecureAPIClient
    let pinnedIntermediate: Pin
    /// A password made up for this run; it never leaves the process.
    let password: String
    /// What the server publishes at `/.well-known/securenet-pins.json` (a signed pin-set update).
    let publishedPinUpdate: NIOLockedValueBox<Data?>
    /// The key the service signs its pin-set updates with (its public half is in the app).
    let pinUpdateKey: PinUpdateSigningKey

    static func start() async throws -> DemoWorld {
        let pki = try TestPKI(referenceTime: Date())
        let clock = DemoClock()
        let password = UUID().uuidString
        var configuration = ReferenceAuthServer.Configuration(
            chain: try pki.validChain(),
            clientCertificateIssuers: [pki.clientCA],
            accessTokenLifetime: .seconds(300),
            tokenFormat: .jwt,
            users: [.init(email: Self.email, password: password, displayName: "Ada Lovelace")]
        )
        configuration.now = { clock.now }
        let published = NIOLockedValueBox<Data?>(nil)
        configuration.pinSetUpdate = { published.withLockedValue { $0 } }
        let server = try await ReferenceAuthServer.start(configuration)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "securenet-demo-\(UUID().uuidString)"
        )
        let store = EncryptedFileStore(
            directory: directory,
            keySource: .keyFile(at: directory.appendingPathComponent("store.key"))
        )
        do {
            let client = try SecureAPIClient(
                configuration: try Self.configuration(
                    baseURL: server.baseURL,
                    store: store,
                    policy: try Self.pinnedPolicy(pki),
                    clientIdentity: nil,
                    clock: clock
                )
            )
            return DemoWorld(
                pki: pki,
                clock: clock,
                server: server,
                storeDirectory: directory,
                store: store,
                client: client,
                pinnedIntermediate: pki.intermediate.pin,
                password: password,
                publishedPinUpdate: published,
                pinUpdateKey: PinUpdateSigningKey.generate(.ed25519)
            )
        } catch {
            await server.shutdown()
            throw error
        }
    }

    func shutdown() async {
        await self.client.shutdown()
        await self.server.shutdown()
        try? FileManager.default.removeItem(at: self.storeDirectory)
    }

    var loginRequest: Request<TokenResponse> {
        struct Login: Encodable, Sendable {
            var email: String
            var password: String
        }
        return .post(
            "auth/login",
            body: .json(Login(email: Self.email, password: self.password)),
            requiresAuthentication: false
        )
    }

    var plainURL: URL { URL(string: "http://localhost:\(self.server.port)/")! }

    func url(port: Int) -> URL { URL(string: "https://localhost:\(port)/")! }

    /// Trusts only the demo root, and pins localhost to the intermediate CA with the root as backup.
    static func pinnedPolicy(_ pki: TestPKI) throws -> TransportSecurityPolicy {
        var policy = TransportSecurityPolicy(trustAnchors: pki.trustAnchors)
        policy.pinning.pin(try HostPattern("localhost"), to: try PinSet(pins: [pki.intermediate.pin, pki.root.pin]))
        return policy
    }

    /// A device that also trusts an interception CA (a debugging proxy's, or one an attacker got installed).
    func deviceTrustPolicy(pinned: Bool) throws -> TransportSecurityPolicy {
        var policy = TransportSecurityPolicy(
            trustAnchors: .only([self.pki.root.certificate, self.pki.interceptionCA.certificate])
        )
        if pinned {
            policy.pinning.pin(
                try HostPattern("localhost"),
                to: try PinSet(pins: [self.pki.intermediate.pin, self.pki.root.pin])
            )
        }
        return policy
    }

    /// Publishes `update` at `/.well-known/securenet-pins.json`, signed by `key` (the service's
    /// update key by default); returns the signed envelope.
    @discardableResult
    func publish(_ update: PinSetUpdate, signedBy key: PinUpdateSigningKey? = nil) throws -> Data {
        let envelope = try SignedPinSetUpdate(signing: update.jsonData(), with: key ?? self.pinUpdateKey).envelope()
        self.publishedPinUpdate.withLockedValue { $0 = envelope }
        return envelope
    }

    /// Publishes a signed envelope as it is (a replay).
    func publish(envelope: Data) {
        self.publishedPinUpdate.withLockedValue { $0 = envelope }
    }

    /// A client configuration for this server; by default pinned, without a session of its own.
    func configuration(
        baseURL: URL? = nil,
        store: any SecureStore = InMemoryStore(),
        policy: TransportSecurityPolicy? = nil,
        clientIdentity: ClientIdentity? = nil,
        dpop: DPoPSigner? = nil
    ) throws -> SecureAPIClient.Configuration {
        try Self.configuration(
            baseURL: baseURL ?? self.server.baseURL,
            store: store,
            policy: try policy ?? Self.pinnedPolicy(self.pki),
            clientIdentity: clientIdentity,
            clock: self.clock,
            dpop: dpop
        )
    }

    private static func configuration(
        baseURL: URL,
        store: any SecureStore,
        policy: TransportSecurityPolicy,
        clientIdentity: ClientIdentity?,
        clock: DemoClock,
        dpop: DPoPSigner? = nil
    ) throws -> SecureAPIClient.Configuration {
        var transport = HTTPTransportConfiguration(policy: policy)
        transport.clientIdentity = clientIdentity
        var configuration = SecureAPIClient.Configuration(
            baseURL: baseURL,
            transport: transport,
            authentication: .oauth(
                client: .publicClient(id: Self.clientID),
                store: store,
                configuration: TokenManager.Configuration(inactivityTimeout: .seconds(15 * 60)),
                dpop: dpop,
                now: { clock.now }
            )
        )
        configuration.retry = RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(50))
        // The same clock as the token manager's: a sign-in's expiry is measured on it.
        configuration.now = { clock.now }
        return configuration
    }

    /// Runs `body` with an intercepting proxy in front of the server.
    func withProxy<R: Sendable>(_ body: (InterceptingProxy) async throws -> R) async throws -> R {
        let proxy = try await InterceptingProxy.start(
            upstreamPort: self.server.port,
            interceptionChain: try self.pki.interceptionChain(),
            upstreamRoots: [self.pki.root]
        )
        do {
            let result = try await body(proxy)
            await proxy.shutdown()
            return result
        } catch {
            await proxy.shutdown()
            throw error
        }
    }
}

/// Collects step results and reports each one as it comes.
final class DemoResults: Sendable {
    private let results: NIOLockedValueBox<[(DemoStepID, DemoStep)]>
    private let report: @Sendable (DemoStepID, DemoStep) -> Void

    init(report: @escaping @Sendable (DemoStepID, DemoStep) -> Void) {
        self.results = NIOLockedValueBox([])
        self.report = report
    }

    var all: [(DemoStepID, DemoStep)] { self.results.withLockedValue { $0 } }

    func fail(_ id: DemoStepID, _ title: String, _ detail: String) {
        self.add(id, DemoStep(title: title, passed: false, detail: detail))
    }

    /// Runs a step: it returns whether it behaved as it should and an explanation; a thrown
    /// error fails it.
    func check(_ id: DemoStepID, _ title: String, _ body: () async throws -> (Bool, String)) async {
        do {
            let (passed, detail) = try await body()
            self.add(id, DemoStep(title: title, passed: passed, detail: detail))
        } catch {
            self.fail(id, title, "unexpected error: \(error)")
        }
    }

    private func add(_ id: DemoStepID, _ step: DemoStep) {
        self.results.withLockedValue { $0.append((id, step)) }
        self.report(id, step)
    }
}
#endif
