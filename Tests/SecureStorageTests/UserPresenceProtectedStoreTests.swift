import Foundation
import SecureStorage
import Testing

/// A gate that answers from a script (success when the script runs out) and counts its calls.
actor ScriptedGate: UserPresenceGate {
    private var script: [SecureStoreError.Code?]
    private(set) var calls = 0
    private(set) var reasons: [String] = []

    init(_ script: [SecureStoreError.Code?] = []) {
        self.script = script
    }

    func authenticate(reason: String) async throws(SecureStoreError) {
        self.calls += 1
        self.reasons.append(reason)
        guard !self.script.isEmpty, let code = self.script.removeFirst() else { return }
        throw SecureStoreError(code, "scripted")
    }
}

@Suite("UserPresenceProtectedStore")
struct UserPresenceProtectedStoreTests {
    let secret = Data("refresh-token".utf8)

    func makeStore(
        _ gate: ScriptedGate,
        _ clock: ManualClock,
        _ configuration: UserPresenceProtectedStore.Configuration
    ) async throws -> UserPresenceProtectedStore {
        let base = InMemoryStore(["tokens": self.secret, "settings": Data("dark".utf8)])
        return UserPresenceProtectedStore(wrapping: base, gate: gate, configuration: configuration, now: { clock.now })
    }

    @Test func aSuccessfulCheckIsReusedOnlyWithinTheWindow() async throws {
        let gate = ScriptedGate()
        let clock = ManualClock()
        let store = try await self.makeStore(gate, clock, .init(reason: "Unlock tokens", reuseDuration: .seconds(30)))
        #expect(try await store.data(forKey: "tokens") == self.secret)
        #expect(await gate.calls == 1)
        #expect(await gate.reasons == ["Unlock tokens"])
        clock.advance(by: .seconds(29))
        #expect(try await store.data(forKey: "tokens") == self.secret)
        #expect(await gate.calls == 1)
        clock.advance(by: .seconds(1))
        #expect(try await store.data(forKey: "tokens") == self.secret)
        #expect(await gate.calls == 2)
        await store.invalidateAuthentication()
        #expect(try await store.data(forKey: "tokens") == self.secret)
        #expect(await gate.calls == 3)
    }

    @Test(arguments: ["", "   ", "\n"])
    func aBlankReasonIsReplacedByTheDefaultOne(reason: String) async throws {
        // LocalAuthentication raises an exception for an empty `localizedReason`: the prompt
        // always has a sentence.
        let gate = ScriptedGate()
        let store = try await self.makeStore(gate, ManualClock(), .init(reason: reason))
        #expect(try await store.data(forKey: "tokens") == self.secret)
        #expect(await gate.reasons == ["Confirm it is you to use your saved credentials"])
        #expect(store.configuration.reason == "Confirm it is you to use your saved credentials")
        // Set later, too.
        var configuration = UserPresenceProtectedStore.Configuration(reason: "Unlock your account")
        configuration.reason = reason
        #expect(configuration.reason == UserPresenceProtectedStore.Configuration.defaultReason)
    }

    @Test func theDefaultAsksOnEveryProtectedRead() async throws {
        let gate = ScriptedGate()
        let store = try await self.makeStore(gate, ManualClock(), .init())
        #expect(try await store.data(forKey: "tokens") == self.secret)
        #expect(try await store.data(forKey: "settings") == Data("dark".utf8))
        #expect(await gate.calls == 2)
    }

    @Test func consecutiveFailuresLockOutWithoutAskingTheGate() async throws {
        let gate = ScriptedGate([.authenticationFailed, .authenticationFailed, .authenticationFailed])
        let clock = ManualClock()
        let store = try await self.makeStore(
            gate,
            clock,
            .init(maximumFailures: 3, lockoutDuration: .seconds(60))
        )
        for _ in 0..<3 {
            #expect(await errorCode { try await store.data(forKey: "tokens") } == .authenticationFailed)
        }
        #expect(await gate.calls == 3)
        #expect(await errorCode { try await store.data(forKey: "tokens") } == .lockedOut)
        clock.advance(by: .seconds(59))
        #expect(await errorCode { try await store.data(forKey: "tokens") } == .lockedOut)
        #expect(await gate.calls == 3)
        // Writes and existence checks are not gated, so they work during a lockout.
        try await store.set(Data("new".utf8), forKey: "tokens")
        #expect(try await store.contains("tokens"))

        clock.advance(by: .seconds(1))
        #expect(try await store.data(forKey: "tokens") == Data("new".utf8))
        #expect(await gate.calls == 4)
    }

    @Test func aSuccessResetsTheFailureCount() async throws {
        let gate = ScriptedGate([
            .authenticationFailed, .authenticationFailed, nil, .authenticationFailed, .authenticationFailed,
        ])
        let store = try await self.makeStore(gate, ManualClock(), .init(maximumFailures: 3))
        #expect(await errorCode { try await store.data(forKey: "tokens") } == .authenticationFailed)
        #expect(await errorCode { try await store.data(forKey: "tokens") } == .authenticationFailed)
        #expect(try await store.data(forKey: "tokens") == self.secret)
        #expect(await errorCode { try await store.data(forKey: "tokens") } == .authenticationFailed)
        #expect(await errorCode { try await store.data(forKey: "tokens") } == .authenticationFailed)
        #expect(try await store.data(forKey: "tokens") == self.secret)  // only 2 in a row: no lockout
        #expect(await gate.calls == 6)
    }

    @Test func cancellationIsReportedAndDoesNotCountTowardsLockout() async throws {
        let gate = ScriptedGate([.authenticationCancelled, .authenticationCancelled, .authenticationCancelled])
        let store = try await self.makeStore(
            gate,
            ManualClock(),
            .init(reuseDuration: .seconds(60), maximumFailures: 2)
        )
        for _ in 0..<3 {
            #expect(await errorCode { try await store.data(forKey: "tokens") } == .authenticationCancelled)
        }
        #expect(try await store.data(forKey: "tokens") == self.secret)
        #expect(await gate.calls == 4)
    }

    @Test func unprotectedItemsAndNonReadsNeverAsk() async throws {
        let gate = ScriptedGate([.authenticationFailed])
        let store = try await self.makeStore(gate, ManualClock(), .init(protectedItems: .keys(["tokens"])))
        #expect(try await store.data(forKey: "settings") == Data("dark".utf8))
        #expect(try await store.contains("tokens"))
        #expect(try await store.data(forKey: "absent") == nil)
        try await store.set(Data("t2".utf8), forKey: "tokens")
        try await store.removeValue(forKey: "settings")
        #expect(try await store.data(forKey: "settings") == nil)
        #expect(await gate.calls == 0)
        #expect(await errorCode { try await store.data(forKey: "tokens") } == .authenticationFailed)
        #expect(await gate.calls == 1)

        let predicate = try await self.makeStore(
            gate,
            ManualClock(),
            .init(protectedItems: .matching { $0.hasPrefix("tok") })
        )
        #expect(try await predicate.data(forKey: "settings") == Data("dark".utf8))
        #expect(await gate.calls == 1)
        #expect(try await predicate.data(forKey: "tokens") == self.secret)
        #expect(await gate.calls == 2)
        #expect(await errorCode { try await predicate.data(forKey: "") } == .invalidKey)
        #expect(await gate.calls == 2)
    }

    @Test func aProtectedEncryptedFileStoreAsksBeforeReleasing() async throws {
        let directory = try TemporaryDirectory()
        let gate = ScriptedGate([.authenticationCancelled])
        let store = UserPresenceProtectedStore(wrapping: directory.store(), gate: gate)
        try await store.set(Data("v".utf8), forKey: "tokens")
        #expect(await errorCode { try await store.data(forKey: "tokens") } == .authenticationCancelled)
        #expect(try await store.data(forKey: "tokens") == Data("v".utf8))
        #expect(await gate.calls == 2)
    }
}
