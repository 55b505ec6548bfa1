public import CoreMetrics
public import Foundation
import HTTPTypes
import HTTPTypesFoundation
import NIOConcurrencyHelpers
public import SecureHTTP
public import SecureStorage
public import ServerTrust

/// What ``PinUpdater`` did, for the app's log or telemetry. Never holds a secret (pins, key ids
/// and versions are public).
public enum PinUpdateEvent: Sendable, Equatable {
    /// The stored update was verified again at launch and applied.
    case restored(version: UInt64)
    /// A fetched update was verified and applied.
    case applied(version: UInt64)
    /// The fetched document is the one applied already.
    case unchanged(version: UInt64)
    /// The applied update reached its `notAfter` while the app ran: the compiled-in pins are in
    /// force again (the highest version applied still refuses older documents).
    case expired(version: UInt64)
    /// An update (fetched, or stored and restored) was refused; nothing changed.
    case refused(ServerTrustError)
    /// The document could not be fetched; nothing changed.
    case fetchFailed(SecureHTTPError)
    /// The stored record could not be read (nothing is applied until it is: see
    /// ``PinUpdater``), or an applied update could not be stored (it is applied again after the
    /// next successful fetch).
    case storageFailed(SecureStoreError)
}

/// Keeps an app's pins current without an app release: fetches a signed pin-set update from a
/// URL the app configures, verifies it on the device (`PinUpdateVerifier`), applies it to the
/// app's transports (`PinUpdatableTransport`), and keeps it in the secure store so that it is
/// restored (verified again) at the next launch. The app's compiled-in pins are the floor:
/// without a valid update they are what the transports enforce.
///
/// It checks on ``start(applyingTo:)``, every ``Configuration/interval``, and after a pin
/// failure (``reportPinValidation(_:)``, which a transport calls through its
/// `pinValidationReporter`), with the backoff of ``PinUpdateSchedule``.
///
/// The fetch uses ``Configuration/fetchTransport``: give it one with your policy's chain
/// validation but without the pins an update may replace (the document's signature is what
/// authenticates it; a transport pinned to the old keys could never fetch the update that
/// rotates them).
///
/// ```swift
/// let updater = PinUpdater(configuration: .init(
///     url: URL(string: "https://api.example.com/.well-known/pins.json")!,
///     verifier: try PinUpdateVerifier(trustedKeys: [updateKey, backupUpdateKey], audience: "com.example.app/production"),
///     compiledPins: policy.pinning,
///     store: store,
///     fetchTransport: unpinnedTransport
/// ))
/// var configuration = HTTPTransportConfiguration(policy: policy)
/// configuration.pinValidationReporter = updater.reportPinValidation
/// let transport = try NIOHTTPTransport(configuration: configuration)
/// await updater.start(applyingTo: [transport])
/// ```
public actor PinUpdater {
    /// Where to fetch updates, which keys sign them, and how often to check.
    public struct Configuration: Sendable {
        /// The signed update's URL (an `https` URL; the signature authenticates the document).
        public var url: URL
        /// Checks a fetched or stored update.
        public var verifier: PinUpdateVerifier
        /// The app's compiled-in pins: the floor an update applies to.
        public var compiledPins: PinningPolicy
        /// Where the applied update is kept across launches (under ``storageKey``): the app's
        /// `KeychainStore` or `EncryptedFileStore`, one that opens without the user (it is read
        /// at launch). The update is public and verified again when restored, so the store
        /// guards it against loss, not against being read.
        public var store: any SecureStore
        /// The key of the stored update in ``store``.
        public var storageKey = "securenetworking.pin-set-update"
        /// The transport the document is fetched with (see ``PinUpdater``).
        public var fetchTransport: any HTTPTransport
        /// How often ``start(applyingTo:)``'s loop checks; 6 hours by default.
        public var interval: Duration = .seconds(6 * 3_600)
        /// The backoff of checks after pin failures.
        public var schedule = PinUpdateSchedule()
        /// The wall clock: an update's `issuedAt` and `notAfter`, and the backoff.
        public var now: @Sendable () -> Date = { Date() }
        /// Waits between scheduled checks, and until an applied update's `notAfter` (tests hand
        /// a gate of their own).
        public var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
        /// Told what happened after every check.
        public var onEvent: (@Sendable (PinUpdateEvent) -> Void)?
        /// Where the counter `securenet_pin_updates_total` (dimension `result`: applied,
        /// restored, unchanged, expired, refused, fetch_failed, storage_failed) reports; nil:
        /// `MetricsSystem.factory`.
        public var metricsFactory: (any MetricsFactory)?

        public init(
            url: URL,
            verifier: PinUpdateVerifier,
            compiledPins: PinningPolicy,
            store: any SecureStore,
            fetchTransport: any HTTPTransport
        ) {
            self.url = url
            self.verifier = verifier
            self.compiledPins = compiledPins
            self.store = store
            self.fetchTransport = fetchTransport
        }
    }

    /// What is kept in the store: the applied update's envelope, and the highest version ever
    /// applied (so that an expired update's older predecessor cannot be replayed).
    struct Stored: Codable, Sendable {
        var envelope: Data?
        var highestVersion: UInt64
    }

    private let configuration: Configuration
    private var transports: [any PinUpdatableTransport] = []
    private var applied: (update: PinSetUpdate, envelope: Data)?
    /// The highest version ever applied, from the stored record and this run (nil: none).
    private var highestVersion: UInt64?
    /// Whether the stored record has been read. Until it is, no check applies anything: the
    /// highest version applied is unknown, and any older, still-valid update would pass as new.
    private var recordRead = false
    private var loop: Task<Void, Never>?
    /// Drops the applied update at its `notAfter` (see ``expireIfPast()``).
    private var expiryTimer: Task<Void, Never>?
    /// The backoff, also read by ``reportPinValidation(_:)`` (nonisolated, synchronous).
    private let schedule: NIOLockedValueBox<PinUpdateSchedule>

    public init(configuration: Configuration) {
        self.configuration = configuration
        self.schedule = NIOLockedValueBox(configuration.schedule)
    }

    deinit {
        self.loop?.cancel()
        self.expiryTimer?.cancel()
    }

    /// The version of the update in force, or nil when the compiled-in pins are.
    public var appliedVersion: UInt64? { self.inForce?.version }

    /// The pins in force: the compiled-in pins with the applied update.
    public var currentPins: PinningPolicy {
        self.inForce.map { self.configuration.compiledPins.applying($0) } ?? self.configuration.compiledPins
    }

    /// The applied update, unless its `notAfter` has passed (the timer or the next check drops it).
    private var inForce: PinSetUpdate? {
        guard let update = self.applied?.update, !Self.hasExpired(update, at: self.configuration.now()) else {
            return nil
        }
        return update
    }

    /// Reads the stored record and restores the stored update (verified again: an expired or
    /// altered one is dropped and the compiled-in pins stay), applies it to `transports`, checks
    /// for a new one, then checks every ``Configuration/interval`` until ``stop()``.
    ///
    /// It returns once the restore and the first check are done (whatever their outcome, sent
    /// to ``Configuration/onEvent``), so that the requests made after it run under the newest
    /// pins the app can have; the scheduled checks run on in a task of the updater's own. Call
    /// it once, at launch, before the first request; a second call replaces `transports` (they
    /// get the pins in force) and restarts the schedule.
    ///
    /// No check applies anything before the stored record has been read: a pin failure reported
    /// before this call starts no check, and while the record cannot be read (the store fails)
    /// every check tries to read it again and, failing, reports
    /// ``PinUpdateEvent/storageFailed(_:)`` and changes nothing. Otherwise an older update, still
    /// valid and genuinely signed, served to a device that has not read its highest version yet,
    /// would be applied as new.
    public func start(applyingTo transports: [any PinUpdatableTransport]) async {
        self.transports = transports
        if self.recordRead {
            self.expireIfPast()
            for transport in transports { transport.applyPinUpdate(self.applied?.update) }
        }
        self.schedule.withLockedValue { $0.start() }
        // The first check reads the stored record (and restores the stored update) first.
        _ = await self.check(afterPinFailure: false)
        self.loop?.cancel()
        let interval = self.configuration.interval
        let sleep = self.configuration.sleep
        self.loop = Task { [weak self] in
            while !Task.isCancelled {
                do { try await sleep(interval) } catch { return }
                guard let self else { return }
                _ = await self.check(afterPinFailure: false)
            }
        }
    }

    /// Adds a transport made after ``start(applyingTo:)`` (a second client, a background
    /// session): the pins in force are applied to it at once, and every later update too.
    /// A transport object attached twice is kept once.
    public func attach(_ transport: any PinUpdatableTransport) {
        self.expireIfPast()
        let object = transport as AnyObject
        if !self.transports.contains(where: { ($0 as AnyObject) === object }) {
            self.transports.append(transport)
        }
        transport.applyPinUpdate(self.applied?.update)
    }

    /// Stops the scheduled checks (a check under way finishes). The applied update still
    /// expires at its `notAfter`.
    public func stop() {
        self.loop?.cancel()
        self.loop = nil
    }

    /// Fetches, verifies and applies the update now; returns what happened (also sent to
    /// ``Configuration/onEvent``). Nil when another check is under way. Before
    /// ``start(applyingTo:)`` it reads the stored record first, like every check.
    @discardableResult
    public func checkNow() async -> PinUpdateEvent? {
        await self.check(afterPinFailure: false)
    }

    /// For a transport's `pinValidationReporter`: a rejected pin check starts an update check,
    /// unless one ran recently without finding a new update (see ``PinUpdateSchedule``), or
    /// ``start(applyingTo:)`` has not run yet.
    public nonisolated func reportPinValidation(_ report: PinValidationReport) {
        guard report.result == .rejected else { return }
        let now = self.configuration.now()
        guard self.schedule.withLockedValue({ $0.pinFailure(at: now) }) else { return }
        Task { await self.performCheck(afterPinFailure: true) }
    }

    private func check(afterPinFailure: Bool) async -> PinUpdateEvent? {
        guard self.schedule.withLockedValue({ $0.checkStarting() }) else { return nil }
        return await self.performCheck(afterPinFailure: afterPinFailure)
    }

    /// One check; the schedule has marked it running (so no two run at once: the record read,
    /// the verification and the store's read-modify-write never interleave with another's).
    private func performCheck(afterPinFailure: Bool) async -> PinUpdateEvent {
        let event: PinUpdateEvent
        if !self.recordRead, let failure = await self.restore() {
            // The highest version applied is unknown: nothing is fetched or applied.
            event = .storageFailed(failure)
        } else {
            // Whether or not the fetch gets through (a man in the middle can block it), an
            // update past its notAfter stops being enforced.
            self.expireIfPast()
            event = await self.fetchAndApply()
        }
        let applied: Bool
        if case .applied = event { applied = true } else { applied = false }
        let now = self.configuration.now()
        self.schedule.withLockedValue {
            $0.checkFinished(at: now, applied: applied, afterPinFailure: afterPinFailure)
        }
        self.report(event)
        return event
    }

    private func fetchAndApply() async -> PinUpdateEvent {
        var request = HTTPRequest(url: self.configuration.url)
        request.headerFields[.accept] = "application/json"
        let envelope: Data
        do {
            let response = try await self.configuration.fetchTransport.send(request, body: nil)
            guard response.response.status == .ok else {
                return .fetchFailed(
                    SecureHTTPError(
                        .invalidResponse,
                        "the pin-set update URL answered \(response.response.status.code)"
                    )
                )
            }
            envelope = response.body
        } catch {
            return .fetchFailed(error)
        }
        // The fetch took time: judge the applied update by the clock now.
        self.expireIfPast()
        if let applied = self.applied, applied.envelope == envelope {
            return .unchanged(version: applied.update.version)
        }
        let update: PinSetUpdate
        do {
            update = try self.configuration.verifier.verify(
                envelope,
                current: self.currentPins,
                compiled: self.configuration.compiledPins,
                appliedVersion: self.highestVersion,
                now: self.configuration.now()
            )
        } catch {
            return .refused(error)
        }
        // Read-modify-write: the store keeps the highest version any run applied (another
        // process sharing the store, or a write this run did not see), never a lower one.
        let stored: Stored?
        do {
            stored = try await self.configuration.store.value(Stored.self, forKey: self.configuration.storageKey)
        } catch {
            return .storageFailed(error)
        }
        let storedHighest = stored?.highestVersion ?? 0
        self.highestVersion = max(self.highestVersion ?? 0, storedHighest)
        guard update.version > storedHighest else {
            return .refused(
                ServerTrustError(
                    .pinUpdateRollback,
                    "the pin-set update has version \(update.version), not greater than the highest version stored (\(storedHighest))"
                )
            )
        }
        self.apply(update, envelope: envelope)
        do {
            try await self.configuration.store.set(
                Stored(envelope: envelope, highestVersion: max(storedHighest, update.version)),
                forKey: self.configuration.storageKey
            )
        } catch {
            self.report(.storageFailed(error))
        }
        return .applied(version: update.version)
    }

    /// Reads the stored record and restores its update; returns the error when the read failed
    /// (the record stays unread, and the next check tries again).
    private func restore() async -> SecureStoreError? {
        let stored: Stored?
        do {
            stored = try await self.configuration.store.value(Stored.self, forKey: self.configuration.storageKey)
        } catch {
            return error
        }
        self.recordRead = true
        guard let stored else { return nil }
        self.highestVersion = max(self.highestVersion ?? 0, stored.highestVersion)
        guard let envelope = stored.envelope else { return nil }
        do throws(ServerTrustError) {
            // Verified as if nothing were applied (its own version is not a rollback), against
            // the compiled-in pins.
            let update = try self.configuration.verifier.verify(
                envelope,
                current: self.configuration.compiledPins,
                compiled: self.configuration.compiledPins,
                appliedVersion: nil,
                now: self.configuration.now()
            )
            guard update.version >= stored.highestVersion else {
                throw ServerTrustError(
                    .pinUpdateRollback,
                    "the stored pin-set update has version \(update.version), below the highest applied (\(stored.highestVersion))"
                )
            }
            self.apply(update, envelope: envelope)
            self.report(.restored(version: update.version))
        } catch {
            // Expired or altered: the compiled-in pins stay; the highest version is kept.
            self.report(.refused(error))
            try? await self.configuration.store.set(
                Stored(envelope: nil, highestVersion: stored.highestVersion),
                forKey: self.configuration.storageKey
            )
        }
        return nil
    }

    private func apply(_ update: PinSetUpdate, envelope: Data) {
        self.applied = (update, envelope)
        self.highestVersion = max(self.highestVersion ?? 0, update.version)
        for transport in self.transports {
            transport.applyPinUpdate(update)
        }
        self.scheduleExpiry(of: update)
    }

    /// Whether `update` is past its `notAfter` at `now` (the verifier's rule: it accepts a
    /// document up to `notAfter` itself).
    private static func hasExpired(_ update: PinSetUpdate, at now: Date) -> Bool {
        now > update.notAfter
    }

    /// Drops the applied update if its `notAfter` has passed: every transport goes back to the
    /// compiled-in pins (through the same `applyPinUpdate(nil)` as any change), the highest
    /// version is kept, and ``PinUpdateEvent/expired(version:)`` is reported. Runs on every
    /// check, on ``attach(_:)`` and on the timer ``scheduleExpiry(of:)`` arms, so a frozen
    /// update stops being enforced at `notAfter` while the app runs, not only at the next
    /// launch. Returns whether it dropped one.
    @discardableResult
    private func expireIfPast() -> Bool {
        guard let update = self.applied?.update, Self.hasExpired(update, at: self.configuration.now()) else {
            return false
        }
        self.applied = nil
        self.expiryTimer?.cancel()
        self.expiryTimer = nil
        for transport in self.transports {
            transport.applyPinUpdate(nil)
        }
        self.report(.expired(version: update.version))
        return true
    }

    /// Arms the timer that drops `update` at its `notAfter`, with ``Configuration/sleep`` and
    /// ``Configuration/now`` (a test holds both); woken early, it waits for the rest.
    private func scheduleExpiry(of update: PinSetUpdate) {
        self.expiryTimer?.cancel()
        let sleep = self.configuration.sleep
        let now = self.configuration.now
        self.expiryTimer = Task { [weak self] in
            while !Task.isCancelled {
                // Past notAfter by the time it wakes (the verifier's rule is strict).
                let remaining = max(update.notAfter.timeIntervalSince(now()), 0) + 0.001
                do { try await sleep(.seconds(remaining)) } catch { return }
                guard let self, await self.expiryTimerFired(for: update) else { return }
            }
        }
    }

    /// The expiry timer of `update` woke: drops it if it is past; returns whether to wait on
    /// (it is still applied and not yet past).
    private func expiryTimerFired(for update: PinSetUpdate) -> Bool {
        guard self.applied?.update == update else { return false }
        return !self.expireIfPast()
    }

    private func report(_ event: PinUpdateEvent) {
        let result: String
        switch event {
        case .restored: result = "restored"
        case .applied: result = "applied"
        case .unchanged: result = "unchanged"
        case .expired: result = "expired"
        case .refused: result = "refused"
        case .fetchFailed: result = "fetch_failed"
        case .storageFailed: result = "storage_failed"
        }
        Counter(
            label: "securenet_pin_updates_total",
            dimensions: [("result", result)],
            factory: self.configuration.metricsFactory ?? MetricsSystem.factory
        ).increment()
        self.configuration.onEvent?(event)
    }
}
