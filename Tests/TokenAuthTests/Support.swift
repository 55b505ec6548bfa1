import Foundation
import NIOConcurrencyHelpers
import SecureHTTP
import SecureNetworkingTesting
import SecureStorage
import ServerTrust
import TokenAuth

enum Live {
    static let pki: TestPKI = {
        do { return try TestPKI(referenceTime: Date()) } catch { preconditionFailure("TestPKI: \(error)") }
    }()

    static var configuration: HTTPTransportConfiguration {
        var configuration = HTTPTransportConfiguration(policy: TransportSecurityPolicy(trustAnchors: pki.trustAnchors))
        configuration.timeouts.request = .seconds(20)
        return configuration
    }
}

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let current: NIOLockedValueBox<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        self.current = NIOLockedValueBox(start)
    }

    var now: Date { self.current.withLockedValue { $0 } }

    func advance(_ seconds: TimeInterval) {
        self.current.withLockedValue { $0 = $0.addingTimeInterval(seconds) }
    }

    var function: @Sendable () -> Date { { self.now } }
}

/// A refresher that answers from a script and counts calls.
final class ScriptedRefresher: TokenRefresher {
    enum Step: Sendable {
        case succeed(TokenResponse)
        case fail(TokenAuthError)
    }

    private let state: NIOLockedValueBox<(steps: [Step], calls: [String])>
    let delay: Duration

    init(_ steps: [Step], delay: Duration = .zero) {
        self.state = NIOLockedValueBox((steps, []))
        self.delay = delay
    }

    var calls: [String] { self.state.withLockedValue { $0.calls } }

    func refresh(using refreshToken: String) async throws(TokenAuthError) -> TokenResponse {
        let step = self.state.withLockedValue { state -> Step? in
            state.calls.append(refreshToken)
            return state.steps.isEmpty ? nil : state.steps.removeFirst()
        }
        if self.delay > .zero { try? await Task.sleep(for: self.delay) }
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

    /// Waits until at least `count` events arrived (up to 5 s), then a little longer so a
    /// duplicate event would show up too.
    func settle(expecting count: Int) async {
        for _ in 0..<1000 where self.all.count < count {
            try? await Task.sleep(for: .milliseconds(5))
        }
        try? await Task.sleep(for: .milliseconds(50))
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
