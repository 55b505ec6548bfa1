import Foundation
import NIOConcurrencyHelpers
import SecureSession
import SecureStorage
import Testing
import TokenAuth

/// A presence gate the test drives: it answers from a script, or holds each check until the test
/// answers it (a gate the test controls, never a sleep).
actor TestPresenceGate: UserPresenceGate {
    private var script: [Result<Void, SecureStoreError>] = []
    private var holding = false
    private var held: [CheckedContinuation<Result<Void, SecureStoreError>, Never>] = []
    private var promptWaiters: [CheckedContinuation<Void, Never>] = []
    private(set) var asked = 0
    private(set) var reasons: [String] = []
    var evaluable = true

    init(evaluable: Bool = true) {
        self.evaluable = evaluable
    }

    /// Queues answers for the next checks (an empty script fails a check).
    func answer(_ results: Result<Void, SecureStoreError>...) { self.script += results }

    func setEvaluable(_ evaluable: Bool) { self.evaluable = evaluable }

    /// From now on, each check waits for ``release(_:)``.
    func hold() { self.holding = true }

    /// Answers the check that is waiting.
    func release(_ result: Result<Void, SecureStoreError>) {
        self.holding = false
        let waiting = self.held
        self.held = []
        for continuation in waiting { continuation.resume(returning: result) }
    }

    /// Returns once a check is waiting for ``release(_:)``.
    func waitForPrompt() async {
        if !self.held.isEmpty { return }
        await withCheckedContinuation { self.promptWaiters.append($0) }
    }

    func authenticate(reason: String) async throws(SecureStoreError) {
        self.asked += 1
        self.reasons.append(reason)
        if self.holding {
            let result = await withCheckedContinuation { continuation in
                self.held.append(continuation)
                let waiters = self.promptWaiters
                self.promptWaiters = []
                for waiter in waiters { waiter.resume() }
            }
            try result.get()
            return
        }
        guard !self.script.isEmpty else {
            throw SecureStoreError(.authenticationFailed, "no answer scripted")
        }
        try self.script.removeFirst().get()
    }

    func canEvaluate() async -> Bool { self.evaluable }
}

extension Result where Success == Void, Failure == SecureStoreError {
    static let passed = Result.success(())
    static let cancelled = Result.failure(SecureStoreError(.authenticationCancelled, "cancelled"))
    static let failed = Result.failure(SecureStoreError(.authenticationFailed, "failed"))
    static let lockedOut = Result.failure(SecureStoreError(.lockedOut, "locked out"))
}

/// A store that refuses reads with `deviceLocked` while the test says the device is locked.
final class DeviceLockableStore: SecureStore {
    let base = InMemoryStore()
    let deviceLocked = NIOLockedValueBox(false)

    func data(forKey key: String) async throws(SecureStoreError) -> Data? {
        if self.deviceLocked.withLockedValue({ $0 }) {
            throw SecureStoreError(.deviceLocked, "the device is locked")
        }
        return try await self.base.data(forKey: key)
    }

    func set(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        try await self.base.set(data, forKey: key)
    }

    func removeValue(forKey key: String) async throws(SecureStoreError) {
        try await self.base.removeValue(forKey: key)
    }

    func contains(_ key: String) async throws(SecureStoreError) -> Bool {
        try await self.base.contains(key)
    }
}

/// A refresher the test scripts: each refresh takes the next answer, optionally held until the
/// test releases it.
actor ScriptedRefresher: TokenRefresher {
    private var answers: [Result<TokenResponse, TokenAuthError>] = []
    private var holding = false
    private var held: [CheckedContinuation<Void, Never>] = []
    private var startedWaiters: [CheckedContinuation<Void, Never>] = []
    private(set) var presented: [String] = []

    func answer(_ results: Result<TokenResponse, TokenAuthError>...) { self.answers += results }
    func hold() { self.holding = true }

    func release() {
        self.holding = false
        let waiting = self.held
        self.held = []
        for continuation in waiting { continuation.resume() }
    }

    /// Returns once a refresh is held.
    func waitForRefresh() async {
        if !self.held.isEmpty { return }
        await withCheckedContinuation { self.startedWaiters.append($0) }
    }

    func refresh(using refreshToken: String) async throws(TokenAuthError) -> TokenResponse {
        self.presented.append(refreshToken)
        if self.holding {
            await withCheckedContinuation { continuation in
                self.held.append(continuation)
                let waiters = self.startedWaiters
                self.startedWaiters = []
                for waiter in waiters { waiter.resume() }
            }
        }
        guard !self.answers.isEmpty else { throw TokenAuthError(.invalidGrant, "no answer scripted") }
        return try self.answers.removeFirst().get()
    }
}

/// Waits until the model's state satisfies `condition` (the model's own Observation-driven
/// wait). Cancellation (a test's time limit) ends the wait and records an issue, so a state that
/// never comes fails the test instead of hanging the run.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
func waitForState<User>(
    _ model: SessionModel<User>,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: (SessionState<User>) -> Bool
) async {
    guard await model.waitForState(until: .now + .seconds(120), condition) else {
        Issue.record("the state never came; it is \(model.state)", sourceLocation: sourceLocation)
        return
    }
}

/// A clock the tests move by hand, for `ContinuousClock` instants and `Date`s alike.
final class SessionTestClock: Sendable {
    private let offset = NIOLockedValueBox(Duration.zero)
    private let start = ContinuousClock.now
    private let startDate = Date()

    func advance(_ duration: Duration) { self.offset.withLockedValue { $0 += duration } }
    var instant: ContinuousClock.Instant { self.start + self.offset.withLockedValue { $0 } }
    var date: Date {
        let offset = self.offset.withLockedValue { $0 }
        return self.startDate.addingTimeInterval(
            Double(offset.components.seconds) + Double(offset.components.attoseconds) / 1e18
        )
    }
}
