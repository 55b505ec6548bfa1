// swift-format-ignore-file
#if Tools
// The article "Rotating pins without an app release" quotes this file's code verbatim (a test
// compares the two), so the file keeps the layout the article shows.
import Foundation
import SecureNetworking
import SecureNetworkingDemo
import SecureNetworkingTesting
import Testing

/// The article's code, verbatim apart from the indentation.
struct RotatingPinsArticle {
    /// What the article's set-up makes.
    struct Pinned {
        let client: SecureAPIClient
        let updater: PinUpdater
        let transport: NIOHTTPTransport
        let fetch: NIOHTTPTransport
    }

    /// The set-up: a SecureAPIClient on a transport whose pins a PinUpdater keeps current.
    func setUp(api: URL, policyFile: String, updateKeyPEM: String, reserveKeyPEM: String, audience: String, store: any SecureStore) async throws -> Pinned {
        let policy = try TransportSecurityPolicy(contentsOfFile: policyFile)
        let verifier = try PinUpdateVerifier(
            trustedKeys: [
                try PinUpdateKey(pemEncoded: updateKeyPEM),   // compiled into the app
                try PinUpdateKey(pemEncoded: reserveKeyPEM),  // its reserve, whose private half you keep offline
            ],
            audience: audience  // this app and environment: only documents signed for it are applied
        )

        // The fetch validates the chain but does not pin: a transport pinned to the old keys could never
        // fetch the update that replaces them (the signature is what authenticates the document).
        var unpinned = policy
        unpinned.pinning = .none
        let fetch = try NIOHTTPTransport(configuration: HTTPTransportConfiguration(policy: unpinned))

        let updater = PinUpdater(configuration: .init(
            url: api.appendingPathComponent(".well-known/securenet-pins.json"),
            verifier: verifier,
            compiledPins: policy.pinning,
            store: store,  // opens without the user: the update is restored at launch
            fetchTransport: fetch
        ))

        // The client's transport: pinned by the policy, and telling the updater of pin failures.
        var transportConfiguration = HTTPTransportConfiguration(policy: policy)
        transportConfiguration.pinValidationReporter = updater.reportPinValidation
        let transport = try NIOHTTPTransport(configuration: transportConfiguration)
        let client = try SecureAPIClient(
            configuration: .init(baseURL: api, transport: transportConfiguration),
            transport: transport
        )

        // Restores the stored update, checks once, and returns. The checks every 6 hours and after a
        // pin failure run on in the background until updater.stop().
        await updater.start(applyingTo: [transport])
        return Pinned(client: client, updater: updater, transport: transport, fetch: fetch)
    }

    /// The tear-down: the client does not own a transport it is given.
    func tearDown(_ pinned: Pinned) async {
        let (updater, transport, fetch) = (pinned.updater, pinned.transport, pinned.fetch)
        await updater.stop()
        await transport.shutdown()
        await fetch.shutdown()
    }
}

@Suite("Article: rotating pins without an app release")
struct RotatingPinsArticleTests {
    static let article = "Sources/SecureNetworking/SecureNetworking.docc/RotatingPinsWithoutARelease.md"

    struct Echo: Decodable, Sendable {
        var method: String
    }

    @Test func theArticleShowsThisFilesCode() throws {
        let blocks = try SessionSwiftUIExampleTests.codeBlocks(in: Self.article)
        #expect(blocks.count == 2)
        let source = SessionSwiftUIExampleTests.lines(
            try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        )
        for block in blocks {
            #expect(block.count >= 3)
            #expect(SessionSwiftUIExampleTests.contains(source, block), "the article's block \(block.first ?? "") differs")
        }
    }

    /// The article's rehearsal: its code against `securenet serve`'s server applies version 1,
    /// then a version 2 signed into the folder while the server runs, and refuses a version 3
    /// signed by a key the app does not trust (which the server publishes, saying so).
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theRehearsalAgainstServeAppliesAVersion2SignedIntoItsFolder() async throws {
        let directory = try TemporaryDirectory(prefix: "rotating-pins")
        let development = try await DevelopmentServer.start(directory: directory.url)
        do {
            try await Self.rehearse(development.summary, publish: { await development.publishPinSetUpdateFile() })
        } catch {
            await development.server.shutdown()
            throw error
        }
        await development.server.shutdown()
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static func rehearse(
        _ summary: DevelopmentServer.Summary,
        publish: () async -> DevelopmentServer.Publication?
    ) async throws {
        let reserve = PinUpdateSigningKey.generate(.ed25519)
        let article = RotatingPinsArticle()
        let pinned = try await article.setUp(
            api: summary.url,
            policyFile: summary.policyFile.path,
            updateKeyPEM: try String(contentsOf: summary.pinUpdatePublicKeyFile, encoding: .utf8),
            reserveKeyPEM: reserve.publicKey.pemEncoded,
            audience: "securenet-dev",
            store: InMemoryStore()
        )
        #expect(await pinned.updater.appliedVersion == 1)
        #expect(try await pinned.client.send(Request<Echo>.get("echo/v1", requiresAuthentication: false)).method == "GET")

        // Version 2: localhost pinned to the leaf's key with the root as backup, signed into the
        // folder with its key while the server runs.
        let pins = Dictionary(uniqueKeysWithValues: summary.pins.map { ($0.name, $0.pin) })
        let localhost = try HostPattern("localhost")
        let key = try PinUpdateSigningKey(pemEncoded: try String(contentsOf: summary.pinUpdateKeyFile, encoding: .utf8))
        let moved = try PinSet(pins: [try #require(pins["leaf"]), try #require(pins["root"])])
        try Self.sign(version: 2, [localhost: .pinned(moved)], with: key, into: summary.pinSetUpdateFile)
        let published = try #require(await publish())
        #expect(published.published && published.servedVersion == 2 && published.problem == nil, "\(published)")
        #expect(await pinned.updater.checkNow() == .applied(version: 2))
        #expect(await pinned.updater.currentPins.rules[localhost] == moved)
        #expect(try await pinned.client.send(Request<Echo>.get("echo/v2", requiresAuthentication: false)).method == "GET")

        // Version 3, signed by a key the app does not trust: the server publishes it and says
        // why an app refuses it; the app refuses it and keeps version 2.
        let stranger = PinUpdateSigningKey.generate(.ed25519)
        try Self.sign(version: 3, [localhost: .pinned(moved)], with: stranger, into: summary.pinSetUpdateFile)
        let foreign = try #require(await publish())
        #expect(foreign.published && foreign.servedVersion == 3)
        #expect(foreign.problem?.hasPrefix("unknownPinUpdateKey: ") == true, "\(foreign)")
        #expect(await pinned.updater.checkNow() == .refused(ServerTrustError(.unknownPinUpdateKey, "")))
        #expect(await pinned.updater.appliedVersion == 2)
        await article.tearDown(pinned)
    }

    static func sign(
        version: UInt64,
        _ entries: [HostPattern: PinSetUpdate.Entry],
        with key: PinUpdateSigningKey,
        into file: URL
    ) throws {
        let now = Date()
        let update = try PinSetUpdate(
            audience: "securenet-dev",
            version: version,
            issuedAt: now,
            notAfter: now.addingTimeInterval(86_400),
            entries: entries
        )
        try SignedPinSetUpdate(signing: update.jsonData(), with: key).envelope().write(to: file, options: .atomic)
    }
}
#endif
