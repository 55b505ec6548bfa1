#if Tools
import Foundation
import NIOConcurrencyHelpers
import SecureNetworking
import SecureNetworkingTesting

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension SecureNetworkingDemo {
    /// 12–13: the service moves to a certificate from a new intermediate CA whose key the app
    /// did not ship; a signed pin-set update, fetched after the pin failure, fixes it without a
    /// new build; a forged and a replayed update are refused.
    func pinRotationSteps(_ world: DemoWorld, _ results: DemoResults) async {
        let session = NIOLockedValueBox<RotationSession?>(nil)
        await results.check(.pinRotation, "pins rotated by a signed update, no new build") {
            let rotation = try await RotationSession.start(world)
            session.withLockedValue { $0 = rotation }
            let first = try await rotation.next()
            guard first == .applied(version: 1) else { return (false, "the first update was not applied: \(first)") }

            // The service rotates to the new intermediate and publishes version 2.
            try world.publish(
                try rotation.document(version: 2, pins: [world.pki.intermediate.pin, rotation.rotatedIntermediate.pin])
            )
            let probe = Request<DemoEcho>.get("echo/after-rotation", requiresAuthentication: false)
            let failure: String
            do {
                _ = try await rotation.client.send(probe)
                return (false, "the app accepted the new intermediate before any update")
            } catch let error as APIError {
                guard error.transportError?.serverTrustError?.code == .pinMismatch else {
                    return (false, "the first request failed otherwise: \(error)")
                }
                failure = "pinMismatch"
            }
            // The pin failure started a check: the update is fetched, verified and applied.
            let event = try await rotation.next()
            guard event == .applied(version: 2) else { return (false, "the update was not applied: \(event)") }
            let echo = try await rotation.client.send(probe)
            let reached = rotation.server.statistics.requests
            return (
                echo.method == "GET" && reached == 1,
                "the service moved to a new intermediate CA (\(rotation.rotatedIntermediate.pin.shortDescription)) the app had no pin for: GET /echo/after-rotation → \(failure); the failure started a check: signed update v2 fetched from /.well-known/securenet-pins.json, verified with the compiled-in \(world.pinUpdateKey.publicKey.algorithm) key and applied; the same request → 200, no new build"
            )
        }
        await results.check(.forgedPinUpdateRefused, "forged and replayed pin updates refused") {
            let rotation = try requireValue(session.withLockedValue { $0 }, "no rotation session")
            // An attacker publishes pins for its interception CA, signed with its own key.
            let attacker = PinUpdateSigningKey.generate(.ed25519)
            try world.publish(
                try rotation.document(version: 3, pins: [world.pki.interceptionCA.pin, world.pki.untrustedRoot.pin]),
                signedBy: attacker
            )
            let forged = await rotation.updater.checkNow()
            _ = try await rotation.next()
            // A replay of the genuine version 1 (signed by the service's key).
            world.publish(envelope: rotation.version1)
            let replayed = await rotation.updater.checkNow()
            _ = try await rotation.next()
            let applied = await rotation.updater.appliedVersion
            let stillServed =
                try await rotation.client.send(
                    Request<DemoEcho>.get("echo/after-refusals", requiresAuthentication: false)
                )
                .method == "GET"
            guard case .refused(let forgedError)? = forged, case .refused(let replayError)? = replayed else {
                return (
                    false, "an update was not refused: \(String(describing: forged)), \(String(describing: replayed))"
                )
            }
            await rotation.shutdown()
            return (
                forgedError.code == .unknownPinUpdateKey && replayError.code == .pinUpdateRollback && applied == 2
                    && stillServed,
                "v3 pinning the interception CA, signed by another key → \(forgedError.code); the genuine v1 replayed → \(replayError.code); v2 stays in force and the next request → 200"
            )
        }
        await session.withLockedValue { $0 }?.shutdown()
    }
}

/// The rotation steps' world: the service after the rotation (the reference server with a chain
/// from a new intermediate CA), and the app's client with its compiled-in pins, a pin updater
/// and its events.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
final class RotationSession: Sendable {
    let server: ReferenceAuthServer
    let rotatedIntermediate: TestPKI.Identity
    let transport: NIOHTTPTransport
    let fetchTransport: NIOHTTPTransport
    let client: SecureAPIClient
    let updater: PinUpdater
    let version1: Data
    let clock: DemoClock
    private let events: PinUpdateEvents
    private let stopped = NIOLockedValueBox(false)

    private init(
        server: ReferenceAuthServer,
        rotatedIntermediate: TestPKI.Identity,
        transport: NIOHTTPTransport,
        fetchTransport: NIOHTTPTransport,
        client: SecureAPIClient,
        updater: PinUpdater,
        version1: Data,
        clock: DemoClock,
        events: PinUpdateEvents
    ) {
        self.server = server
        self.rotatedIntermediate = rotatedIntermediate
        self.transport = transport
        self.fetchTransport = fetchTransport
        self.client = client
        self.updater = updater
        self.version1 = version1
        self.clock = clock
        self.events = events
    }

    static func start(_ world: DemoWorld) async throws -> RotationSession {
        let rotated = try world.pki.makeCA(
            name: "SecureNetworking Demo Rotated Intermediate CA",
            issuer: world.pki.root
        )
        let chain = try world.pki.leaf { $0.issuer = .custom(rotated, presenting: [rotated]) }
        var serverConfiguration = ReferenceAuthServer.Configuration(chain: chain)
        serverConfiguration.now = { world.clock.now }
        let server = try await ReferenceAuthServer.start(serverConfiguration)

        // The app shipped its intermediate's pin and a backup key held in reserve.
        var policy = TransportSecurityPolicy(trustAnchors: world.pki.trustAnchors)
        let compiled = PinningPolicy([
            try HostPattern("localhost"): try PinSet(pins: [world.pki.intermediate.pin, world.pki.untrustedRoot.pin])
        ])
        policy.pinning = compiled
        let fetchTransport = try NIOHTTPTransport(
            configuration: HTTPTransportConfiguration(
                policy: TransportSecurityPolicy(trustAnchors: world.pki.trustAnchors)
            )
        )
        let events = PinUpdateEvents()
        var updaterConfiguration = PinUpdater.Configuration(
            url: world.server.baseURL.appendingPathComponent(".well-known/securenet-pins.json"),
            verifier: try PinUpdateVerifier(trustedKeys: [world.pinUpdateKey.publicKey], audience: Self.audience),
            compiledPins: compiled,
            store: world.store,
            fetchTransport: fetchTransport
        )
        updaterConfiguration.now = { world.clock.now }
        updaterConfiguration.onEvent = { events.add($0) }
        let updater = PinUpdater(configuration: updaterConfiguration)

        var transportConfiguration = HTTPTransportConfiguration(policy: policy)
        transportConfiguration.pinValidationReporter = updater.reportPinValidation
        let transport = try NIOHTTPTransport(configuration: transportConfiguration)
        let client = try SecureAPIClient(
            configuration: try world.configuration(baseURL: server.baseURL, policy: policy),
            transport: transport
        )
        let version1 = try world.publish(
            try Self.document(
                version: 1,
                pins: [world.pki.intermediate.pin, world.pki.untrustedRoot.pin],
                at: world.clock.now
            )
        )
        let session = RotationSession(
            server: server,
            rotatedIntermediate: rotated,
            transport: transport,
            fetchTransport: fetchTransport,
            client: client,
            updater: updater,
            version1: version1,
            clock: world.clock,
            events: events
        )
        await updater.start(applyingTo: [transport])
        return session
    }

    /// The audience of the demo app's pin-set updates.
    static let audience = "com.example.demo"

    /// A document for `localhost`, valid for 90 days from `now`.
    static func document(version: UInt64, pins: [Pin], at now: Date) throws -> PinSetUpdate {
        try PinSetUpdate(
            audience: Self.audience,
            version: version,
            issuedAt: now,
            notAfter: now.addingTimeInterval(90 * 86_400),
            entries: [try HostPattern("localhost"): .pinned(try PinSet(pins: pins))]
        )
    }

    /// A document for `localhost`, valid for 90 days from the demo clock's now.
    func document(version: UInt64, pins: [Pin]) throws -> PinSetUpdate {
        try Self.document(version: version, pins: pins, at: self.clock.now)
    }

    /// The updater's next event (an update fetched after a pin failure arrives on its own
    /// task), within 30 seconds.
    func next() async throws -> PinUpdateEvent {
        let events = self.events
        let event = await withTaskGroup(of: PinUpdateEvent?.self) { group in
            group.addTask { await events.next() }
            group.addTask {
                try? await Task.sleep(for: .seconds(30))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        return try requireValue(event, "no pin update event within 30 s")
    }

    func shutdown() async {
        guard
            !self.stopped.withLockedValue({ stopped in
                defer { stopped = true }
                return stopped
            })
        else { return }
        await self.updater.stop()
        await self.client.shutdown()
        await self.transport.shutdown()
        await self.fetchTransport.shutdown()
        await self.server.shutdown()
    }
}

/// The pin updater's events, in order, for a step to wait on one at a time.
final class PinUpdateEvents: Sendable {
    private struct State {
        var events: [PinUpdateEvent] = []
        var waiter: CheckedContinuation<PinUpdateEvent?, Never>?
    }

    private let state = NIOLockedValueBox(State())

    func add(_ event: PinUpdateEvent) {
        let waiter = self.state.withLockedValue { state -> CheckedContinuation<PinUpdateEvent?, Never>? in
            guard let waiter = state.waiter else {
                state.events.append(event)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: event)
    }

    /// The next event, or nil if the waiting task is cancelled first.
    func next() async -> PinUpdateEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<PinUpdateEvent?, Never>) in
                let ready = self.state.withLockedValue { state -> PinUpdateEvent?? in
                    if !state.events.isEmpty { return .some(state.events.removeFirst()) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = self.state.withLockedValue { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
#endif
