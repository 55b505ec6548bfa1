import Foundation
import SecureNetworkingInternal
import SecureStorage
import Testing

/// The development gate answers as it is told, with the errors the Apple gate reports, and works
/// behind the store as a real gate does (reason, reuse window, lockout).
@Suite("DevelopmentPresenceGate")
struct DevelopmentPresenceGateTests {
    let secret = Data("refresh-token".utf8)

    @Test(arguments: [
        (DevelopmentPresenceGate.Answer.deny, SecureStoreError.Code.authenticationFailed),
        (.cancel, .authenticationCancelled),
        (.lockOut, .lockedOut),
    ])
    func eachRefusalIsTheErrorTheAppleGateReports(
        answer: DevelopmentPresenceGate.Answer,
        code: SecureStoreError.Code
    ) async {
        let gate = DevelopmentPresenceGate.always(answer)
        #expect(await errorCode { try await gate.authenticate(reason: "Unlock") } == code)
        // Asked again, it answers the same.
        #expect(await errorCode { try await gate.authenticate(reason: "Unlock") } == code)
    }

    @Test func anApprovingGatePasses() async {
        let gate = DevelopmentPresenceGate.always(.approve)
        #expect(await errorCode { try await gate.authenticate(reason: "Unlock") } == nil)
    }

    @Test func aScriptAnswersInOrderThenFailsClosed() async {
        let gate = DevelopmentPresenceGate.scripted([.cancel, .approve, .lockOut])
        var codes: [SecureStoreError.Code?] = []
        for _ in 0..<5 {
            codes.append(await errorCode { try await gate.authenticate(reason: "Unlock") })
        }
        #expect(codes == [.authenticationCancelled, nil, .lockedOut, .authenticationFailed, .authenticationFailed])
    }

    @Test func aScriptCanEndWithAnotherAnswer() async {
        let gate = DevelopmentPresenceGate.scripted([.deny], then: .approve)
        #expect(await errorCode { try await gate.authenticate(reason: "Unlock") } == .authenticationFailed)
        #expect(await errorCode { try await gate.authenticate(reason: "Unlock") } == nil)
        #expect(await errorCode { try await gate.authenticate(reason: "Unlock") } == nil)
    }

    @Test func theClosureDecidesFromTheReasonTheStoreAsksWith() async throws {
        let reasons = Locked<[String]>([])
        let gate = DevelopmentPresenceGate { reason in
            reasons.withLock { $0.append(reason) }
            return reason.contains("payment") ? .deny : .approve
        }
        let base = InMemoryStore(["tokens": self.secret])
        let store = UserPresenceProtectedStore(
            wrapping: base,
            gate: gate,
            configuration: .init(reason: "Unlock your account")
        )
        #expect(try await store.data(forKey: "tokens") == self.secret)
        let payments = UserPresenceProtectedStore(
            wrapping: base,
            gate: gate,
            configuration: .init(reason: "Confirm the payment")
        )
        #expect(await errorCode { try await payments.data(forKey: "tokens") } == .authenticationFailed)
        #expect(reasons.withLock { $0 } == ["Unlock your account", "Confirm the payment"])
    }

    @Test func behindTheStoreItsDenialsStartTheLockout() async {
        let clock = ManualClock()
        let store = UserPresenceProtectedStore(
            wrapping: InMemoryStore(["tokens": self.secret]),
            gate: DevelopmentPresenceGate.always(.deny),
            configuration: .init(maximumFailures: 2, lockoutDuration: .seconds(60)),
            now: { clock.now }
        )
        #expect(await errorCode { try await store.data(forKey: "tokens") } == .authenticationFailed)
        #expect(await errorCode { try await store.data(forKey: "tokens") } == .authenticationFailed)
        #expect(await errorCode { try await store.data(forKey: "tokens") } == .lockedOut)
    }

    @Test func itSaysWhetherItCanEvaluateAsItWasTold() async {
        #expect(await DevelopmentPresenceGate.always(.approve).canEvaluate())
        #expect(await DevelopmentPresenceGate.always(.approve, canEvaluate: false).canEvaluate() == false)
        #expect(await DevelopmentPresenceGate.scripted([], canEvaluate: false).canEvaluate() == false)
    }

    @Test func itNamesItselfAsNoSecurityBoundary() {
        let gate = DevelopmentPresenceGate.always(.approve)
        #expect("\(gate)" == "DevelopmentPresenceGate (not a security boundary)")
        #expect("\(DevelopmentPresenceGate.Answer.approve)" == "approve")
        #expect("\(DevelopmentPresenceGate.Answer.lockOut)" == "lockedOut")
    }
}
