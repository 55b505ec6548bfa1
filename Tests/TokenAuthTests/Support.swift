#if TestServers
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import SecureHTTP
import SecureNetworkingTesting
import SecureStorage
import ServerTrust
import Testing

@testable import TokenAuth

enum Live {
    static let pki: TestPKI = {
        do { return try TestPKI(referenceTime: Date()) } catch { preconditionFailure("TestPKI: \(error)") }
    }()

    static var configuration: HTTPTransportConfiguration {
        var configuration = HTTPTransportConfiguration(policy: TransportSecurityPolicy(trustAnchors: pki.trustAnchors))
        configuration.timeouts.request = .seconds(60)
        return configuration
    }
}

/// A refresher that answers from a script and counts calls.
/// A gate a test opens: whoever waits on it before, resumes then; whoever waits after, passes.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if self.isOpen { return }
        await withCheckedContinuation { self.waiters.append($0) }
    }

    func open() {
        self.isOpen = true
        for waiter in self.waiters { waiter.resume() }
        self.waiters.removeAll()
    }
}

/// Polls `condition` (a value the test reads, not an interleaving it hopes for) for up to 10 s.
func waitFor(_ condition: @Sendable () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    for _ in 0..<2000 where !condition() {
        try await Task.sleep(for: .milliseconds(5))
    }
    #expect(condition(), "the condition did not hold within 10 s", sourceLocation: sourceLocation)
}

/// Waits (up to 10 s) until `count` callers have joined the manager's refresh in flight.
func waitUntilJoined(
    _ manager: TokenManager,
    _ count: Int,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    for _ in 0..<2000 {
        if await manager.refreshJoins >= count { break }
        try await Task.sleep(for: .milliseconds(5))
    }
    let joined = await manager.refreshJoins
    #expect(joined == count, "only \(joined) callers joined", sourceLocation: sourceLocation)
}

final class ScriptedRefresher: TokenRefresher {
    enum Step: Sendable {
        case succeed(TokenResponse)
        case fail(TokenAuthError)
    }

    private let state: NIOLockedValueBox<(steps: [Step], calls: [String])>
    /// Opened when a refresh has started; the refresh then waits for ``release``.
    let started = Gate()
    /// When set, each refresh waits here after opening ``started``.
    let release: Gate?

    init(_ steps: [Step], gated: Bool = false) {
        self.state = NIOLockedValueBox((steps, []))
        self.release = gated ? Gate() : nil
    }

    var calls: [String] { self.state.withLockedValue { $0.calls } }

    func refresh(using refreshToken: String) async throws(TokenAuthError) -> TokenResponse {
        let step = self.state.withLockedValue { state -> Step? in
            state.calls.append(refreshToken)
            return state.steps.isEmpty ? nil : state.steps.removeFirst()
        }
        await self.started.open()
        if let release = self.release { await release.wait() }
        switch step {
        case .succeed(let response): return response
        case .fail(let error): throw error
        case nil: throw TokenAuthError(.serverError, "script exhausted")
        }
    }
}

/// Collects a manager's events as they arrive.
final class EventLog: Sendable {
    private let events = NIOLockedValueBox<[TokenEvent]>([])
    private let task: NIOLockedValueBox<Task<Void, Never>?> = NIOLockedValueBox(nil)

    init(_ manager: TokenManager) {
        let events = self.events
        self.task.withLockedValue {
            $0 = Task {
                for await event in manager.events { events.withLockedValue { $0.append(event) } }
            }
        }
    }

    var all: [TokenEvent] { self.events.withLockedValue { $0 } }

    /// Every event the manager emitted before this call, duplicates included: signs in once
    /// more as a marker and waits for its `.signedIn` (the stream keeps the order in which the
    /// actor emitted). Call it last: it leaves the manager signed in.
    func drain(_ manager: TokenManager, marker: TokenBundle) async throws -> [TokenEvent] {
        let before = self.all.count
        try await manager.signIn(marker)
        try await waitFor { self.all.count > before && self.all.last == .signedIn }
        return Array(self.all.dropLast())
    }
}

func bundle(
    access: String = "access-1",
    refresh: String? = "refresh-1",
    expiresIn: TimeInterval = 3600,
    clock: TestClock
) -> TokenBundle {
    TokenBundle(
        accessToken: access,
        refreshToken: refresh,
        expiresAt: clock.now.addingTimeInterval(expiresIn),
        issuedAt: clock.now
    )
}

/// A counter that can be decremented once per call until zero.
final class NIOLockedValueBoxInt: Sendable {
    private let box: NIOLockedValueBox<Int>

    init(_ value: Int) {
        self.box = NIOLockedValueBox(value)
    }

    /// Whether a unit was left (and takes it).
    func takeOne() -> Bool {
        self.box.withLockedValue { value in
            guard value > 0 else { return false }
            value -= 1
            return true
        }
    }
}

/// Signs `user` in at a reference server's `POST /auth/login` through `transport`; the tokens.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
func referenceSignIn(
    _ server: ReferenceAuthServer,
    _ user: ReferenceAuthServer.User,
    through transport: some HTTPTransport
) async throws -> TokenResponse {
    var login = HTTPRequest(method: .post, url: server.baseURL.appendingPathComponent("auth/login"))
    login.headerFields[.contentType] = "application/json"
    let credentials = try JSONSerialization.data(withJSONObject: ["email": user.email, "password": user.password])
    return try JSONDecoder().decode(TokenResponse.self, from: try await transport.send(login, body: credentials).body)
}
#endif
