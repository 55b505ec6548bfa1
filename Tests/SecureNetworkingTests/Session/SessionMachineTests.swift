import SecureNetworking
import SecureStorage
import Testing
import TokenAuth

@testable import SecureSession

/// Every transition of the session's state machine, without I/O: the app's calls, the token
/// manager's events, the outcomes of work, and the races between them.
@Suite("The session's state machine")
struct SessionMachineTests {
    typealias Machine = SessionMachine<String>
    static let catalog = UserMessageCatalog()
    static let t0 = ContinuousClock.now

    /// A machine that has been through `inputs`.
    static func machine(_ inputs: [Machine.Input], lockAfter: Duration = .zero) -> Machine {
        var machine = Machine(lockAfter: lockAfter, messages: catalog)
        for input in inputs { machine.handle(input) }
        return machine
    }

    static func message(_ situation: UserMessageCatalog.Situation) -> String {
        catalog.situationMessages[situation]!
    }

    /// The states a session can be in, each reached by the inputs that lead there.
    static let states: [(name: String, inputs: [Machine.Input])] = [
        ("starting", []),
        ("signedOut", [.restored(.noSession)]),
        ("signingIn", [.restored(.noSession), .signInStarted]),
        ("signedIn", [.gateAvailability(true), .restored(.signedIn("ada"))]),
        ("signedIn+presence", [.gateAvailability(true), .restored(.signedIn("ada")), .presenceUnlockEnabled(true)]),
        ("locked", [.restored(.locked)]),
        ("unlocking", [.restored(.locked), .unlockStarted]),
        ("deviceLocked", [.restored(.deviceLocked)]),
        ("offline", [.gateAvailability(true), .restored(.offline(message: message(.unreachable)))]),
    ]

    static func state(_ name: String) -> Machine {
        machine(states.first { $0.name == name }!.inputs)
    }

    // MARK: - Launch

    @Test(arguments: [
        (Machine.Restored.noSession, SessionState<String>.signedOut(reason: .neverSignedIn, message: nil)),
        (.signedIn("ada"), .signedIn("ada")),
        (.locked, .locked(message: nil)),
        (.ended(.inactivity), .signedOut(reason: .inactivity, message: message(.inactivity))),
        (.deviceLocked, .deviceLocked(message: message(.deviceLocked))),
        (.offline(message: message(.unreachable)), .offline(message: message(.unreachable))),
        // A session was stored: not "never signed in", though the tokens are kept.
        (
            .failed(message: "Something went wrong."),
            .signedOut(reason: .sessionUnusable, message: "Something went wrong.")
        ),
    ])
    func aRestoreFromStartingSettlesTheState(restored: Machine.Restored, expected: SessionState<String>) {
        var machine = Self.machine([])
        #expect(machine.state == .starting)
        let (effects, _) = machine.handle(.restored(restored))
        #expect(machine.state == expected)
        #expect(effects.isEmpty)
        #expect(machine.presenceUnlockEnabled == (restored == .locked))
    }

    @Test func aSessionKeptOfflineIsReadAgainInTheForegroundAfterARefreshAndOnRetry() {
        // Each way back reads the session again and leaves the state as it is until the read ends.
        let inputs: [Machine.Input] = [
            .enteredForeground(at: Self.t0),
            .tokenEvent(.refreshed),
            .retryRequested,
        ]
        for input in inputs {
            var machine = Self.state("offline")
            let (effects, _) = machine.handle(input)
            #expect(effects == [.restore], "\(input)")
            #expect(machine.state == .offline(message: Self.message(.unreachable)), "\(input)")
            // Still offline: the state says so with the new read's sentence.
            machine.handle(.restored(.offline(message: Self.message(.timedOut))))
            #expect(machine.state == .offline(message: Self.message(.timedOut)))
            machine.handle(.restored(.signedIn("ada")))
            #expect(machine.state == .signedIn("ada"))
            #expect(machine.presenceUnlock == .offered)
        }
    }

    @Test func reasonsToReadAgainDuringAReadCostOneMoreReadOnlyIfItFindsTheSessionStillOffline() {
        // The read's own refresh gets through: its event is no reason for a second read.
        var machine = Self.state("offline")
        #expect(machine.handle(.retryRequested).effects == [.restore])
        #expect(machine.handle(.tokenEvent(.refreshed)).effects.isEmpty)
        #expect(machine.handle(.enteredForeground(at: Self.t0)).effects.isEmpty)
        #expect(machine.handle(.restored(.signedIn("ada"))).effects.isEmpty)
        #expect(machine.state == .signedIn("ada"))

        // The read failed, but a refresh got through meanwhile: read once more.
        var again = Self.state("offline")
        #expect(again.handle(.retryRequested).effects == [.restore])
        #expect(again.handle(.tokenEvent(.refreshed)).effects.isEmpty)
        #expect(again.handle(.restored(.offline(message: Self.message(.unreachable)))).effects == [.restore])
        #expect(again.handle(.restored(.offline(message: Self.message(.unreachable)))).effects.isEmpty)
        #expect(again.readsInFlight == 0)
        // With nothing in flight, the next reason reads at once.
        #expect(again.handle(.retryRequested).effects == [.restore])
    }

    @Test func aSessionKeptOfflineIsNotSignedInAndOffersNothing() {
        var machine = Self.state("offline")
        #expect(!machine.state.isSignedIn)
        #expect(machine.state.message == Self.message(.unreachable))
        #expect(machine.presenceUnlock == .unavailable)
        machine.handle(.presenceUnlockEnabled(true))
        #expect(machine.presenceUnlockEnabled == false)
        // Going to the background locks nothing: there is no presence unlock to lock.
        #expect(machine.handle(.enteredBackground(at: Self.t0)).effects.isEmpty)
        #expect(machine.state == .offline(message: Self.message(.unreachable)))
    }

    @Test func aRetryReadsOnlyASessionThatCouldNotBeOpened() {
        for (name, _) in Self.states {
            var machine = Self.state(name)
            let before = machine.state
            let (effects, _) = machine.handle(.retryRequested)
            #expect(effects == (["offline", "deviceLocked"].contains(name) ? [.restore] : []), "\(name)")
            #expect(machine.state == before, "\(name)")
        }
    }

    @Test func aRestoreAfterTheSessionMovedOnIsIgnored() {
        for name in ["signedOut", "signingIn", "signedIn", "locked", "unlocking"] {
            var machine = Self.state(name)
            let before = machine.state
            machine.handle(.restored(.signedIn("mallory")))
            #expect(machine.state == before, "\(name)")
        }
        // A device-locked store read again settles like a launch.
        var machine = Self.state("deviceLocked")
        machine.handle(.restored(.locked))
        #expect(machine.state == .locked(message: nil))
    }

    // MARK: - Sign-in

    @Test func aSignInStartsOnlyFromSignedOut() {
        for (name, _) in Self.states {
            var machine = Self.state(name)
            let before = machine.state
            let (_, attempt) = machine.handle(.signInStarted)
            if name == "signedOut" {
                #expect(attempt != nil)
                #expect(machine.state == .signingIn)
            } else {
                #expect(attempt == nil, "\(name)")
                #expect(machine.state == before, "\(name)")
            }
        }
    }

    @Test(arguments: [
        (Machine.SignInOutcome.signedIn("ada"), SessionState<String>.signedIn("ada"), 1),
        (
            .failed(message: message(.invalidCredentials)),
            .signedOut(reason: .neverSignedIn, message: message(.invalidCredentials)), 0
        ),
        (.cancelled, .signedOut(reason: .neverSignedIn, message: nil), 0),
        (
            .undecodable(message: "Something went wrong."),
            .signedOut(reason: .neverSignedIn, message: "Something went wrong."), 1
        ),
    ])
    func aSignInEnds(outcome: Machine.SignInOutcome, expected: SessionState<String>, pendingEvents: Int) {
        var machine = Self.state("signedOut")
        let attempt = machine.handle(.signInStarted).attempt!
        machine.handle(.signInFinished(attempt: attempt, outcome))
        #expect(machine.state == expected)
        #expect(machine.pendingSignInEvents == pendingEvents)
    }

    @Test func theOutcomeOfAnEarlierSignInIsIgnored() {
        var machine = Self.state("signedOut")
        let first = machine.handle(.signInStarted).attempt!
        machine.handle(.signInFinished(attempt: first, .failed(message: "no")))
        let second = machine.handle(.signInStarted).attempt!
        machine.handle(.signInFinished(attempt: first, .signedIn("stale")))
        #expect(machine.state == .signingIn)
        machine.handle(.signInFinished(attempt: second, .signedIn("ada")))
        #expect(machine.state == .signedIn("ada"))
    }

    // MARK: - Unlock

    @Test func anUnlockStartsOnlyFromLocked() {
        for (name, _) in Self.states {
            var machine = Self.state(name)
            let before = machine.state
            let (_, attempt) = machine.handle(.unlockStarted)
            if name == "locked" {
                #expect(attempt != nil)
                #expect(machine.state == .unlocking)
            } else {
                #expect(attempt == nil, "\(name)")
                #expect(machine.state == before, "\(name)")
            }
        }
    }

    @Test(arguments: [
        (Machine.UnlockOutcome.unlocked("ada"), SessionState<String>.signedIn("ada"), [Machine.Effect]()),
        (.refused(.authenticationCancelled), .locked(message: nil), []),
        (.refused(.authenticationFailed), .locked(message: message(.unlockFailed)), []),
        (.refused(.lockedOut), .locked(message: message(.unlockLockedOut)), []),
        (.refused(.ioFailure), .locked(message: message(.unlockFailed)), []),
        (.refused(.deviceLocked), .deviceLocked(message: message(.deviceLocked)), []),
        (.undecodable, .locked(message: catalog.fallback), [.lockTokens]),
        // Confirmed, but the server cannot be reached: locked again, saying why.
        (.offline(message: message(.unreachable)), .locked(message: message(.unreachable)), [.lockTokens]),
        (.noSession, .signedOut(reason: .endedElsewhere, message: message(.endedElsewhere)), [.forgetPresenceUnlock]),
        (.ended(.inactivity), .signedOut(reason: .inactivity, message: message(.inactivity)), [.forgetPresenceUnlock]),
    ])
    func anUnlockEnds(outcome: Machine.UnlockOutcome, expected: SessionState<String>, effects: [Machine.Effect]) {
        var machine = Self.state("locked")
        let attempt = machine.handle(.unlockStarted).attempt!
        let (done, _) = machine.handle(.unlockFinished(attempt: attempt, outcome))
        #expect(machine.state == expected)
        #expect(done == effects)
        // A failed unlock never ends the session (no endSession effect), whatever the gate said.
        #expect(!done.contains(.endSession))
    }

    @Test func aLockedOutSessionCanTryAgainAndStaysLocked() {
        var machine = Self.state("locked")
        for _ in 0..<3 {
            let attempt = machine.handle(.unlockStarted).attempt!
            machine.handle(.unlockFinished(attempt: attempt, .refused(.lockedOut)))
            #expect(machine.state == .locked(message: Self.message(.unlockLockedOut)))
            #expect(machine.presenceUnlockEnabled)
        }
    }

    // MARK: - The token manager's events

    @Test(arguments: [
        (SignOutReason.refreshRejected, SignedOutReason.sessionExpired, UserMessageCatalog.Situation.sessionExpired),
        (.noRefreshToken, .sessionExpired, .sessionExpired),
        (.revoked, .revoked, .sessionRevoked),
        (.reuseDetected, .reuseDetected, .reuseDetected),
        (.inactivity, .inactivity, .inactivity),
        (.endedElsewhere, .endedElsewhere, .endedElsewhere),
    ])
    func aSignedOutEventEndsAnOpenSessionWithItsReason(
        event: SignOutReason,
        reason: SignedOutReason,
        situation: UserMessageCatalog.Situation
    ) {
        for name in ["signedIn", "signedIn+presence", "locked", "unlocking", "deviceLocked", "offline"] {
            var machine = Self.state(name)
            let wasEnabled = machine.presenceUnlockEnabled
            let (effects, _) = machine.handle(.tokenEvent(.signedOut(event)))
            #expect(machine.state == .signedOut(reason: reason, message: Self.message(situation)), "\(name)")
            #expect(machine.presenceUnlockEnabled == false)
            #expect(effects == (wasEnabled ? [.forgetPresenceUnlock] : []), "\(name)")
        }
    }

    @Test func aSignedOutEventDoesNotMoveStartingSigningInOrSignedOut() {
        for name in ["starting", "signingIn", "signedOut"] {
            var machine = Self.state(name)
            let before = machine.state
            let (effects, _) = machine.handle(.tokenEvent(.signedOut(.refreshRejected)))
            #expect(machine.state == before, "\(name)")
            #expect(effects.isEmpty)
        }
    }

    @Test(arguments: [
        Machine.Restored.ended(.refreshRejected), .noSession, .failed(message: "Something went wrong."),
        .signedIn("ada"), .offline(message: "offline"),
    ])
    func aSessionTheTokenManagerEndsDuringTheLaunchReadEndsWithItsReason(read: Machine.Restored) {
        // The refresh inside the `user` closure was refused: the token manager's event comes
        // before the read's outcome, which it overrides whatever it is.
        var machine = Self.machine([])
        machine.handle(.tokenEvent(.signedOut(.revoked)))
        #expect(machine.state == .starting)
        let (effects, _) = machine.handle(.restored(read))
        #expect(machine.state == .signedOut(reason: .revoked, message: Self.message(.sessionRevoked)))
        #expect(effects.isEmpty)
        // Used once: the next launch read is its own.
        #expect(machine.endedWhileRestoring == nil)
    }

    @Test func aReadThatFoundTheSessionEndedTakesTheReasonOfTheEventThatFollows() {
        // The read's outcome comes first: the session is over at once, as expired...
        var machine = Self.machine([])
        machine.handle(.restored(.ended(.refreshRejected)))
        #expect(machine.state == .signedOut(reason: .sessionExpired, message: Self.message(.sessionExpired)))
        // ...and the token manager's event names the precise reason.
        machine.handle(.tokenEvent(.signedOut(.reuseDetected)))
        #expect(machine.state == .signedOut(reason: .reuseDetected, message: Self.message(.reuseDetected)))
        // Only that one event: a later one changes nothing.
        machine.handle(.tokenEvent(.signedOut(.revoked)))
        #expect(machine.state == .signedOut(reason: .reuseDetected, message: Self.message(.reuseDetected)))
    }

    @Test func anUnlockThatFoundTheSessionEndedTakesTheReasonOfTheEventThatFollows() {
        var machine = Self.state("locked")
        let attempt = machine.handle(.unlockStarted).attempt!
        machine.handle(.unlockFinished(attempt: attempt, .ended(.refreshRejected)))
        #expect(machine.state == .signedOut(reason: .sessionExpired, message: Self.message(.sessionExpired)))
        machine.handle(.tokenEvent(.signedOut(.revoked)))
        #expect(machine.state == .signedOut(reason: .revoked, message: Self.message(.sessionRevoked)))
    }

    @Test func aSignOutTheModelKnowsIsNotRewrittenByALaterEvent() {
        for inputs: [Machine.Input] in [
            [.restored(.noSession)],
            [.restored(.ended(.refreshRejected)), .signOutRequested],
            [.restored(.ended(.refreshRejected)), .signInStarted, .signInFinished(attempt: 2, .cancelled)],
        ] {
            var machine = Self.machine(inputs)
            let before = machine.state
            machine.handle(.tokenEvent(.signedOut(.revoked)))
            #expect(machine.state == before, "\(inputs)")
        }
    }

    @Test func theUsersOwnSignOutCarriesNoMessage() {
        var machine = Self.state("signedIn")
        machine.handle(.tokenEvent(.signedOut(.requested)))
        #expect(machine.state == .signedOut(reason: .userSignedOut, message: nil))
    }

    @Test func eventsOfTheSessionASignInReplacedAreIgnored() {
        // Signed out, signed in again: the stream still holds the old session's sign-out.
        var machine = Self.state("signedIn")
        machine.handle(.signOutRequested)
        let attempt = machine.handle(.signInStarted).attempt!
        machine.handle(.signInFinished(attempt: attempt, .signedIn("ada")))
        machine.handle(.tokenEvent(.signedOut(.requested)))  // the old session's
        #expect(machine.state == .signedIn("ada"))
        machine.handle(.tokenEvent(.signedIn))  // the new session's
        #expect(machine.pendingSignInEvents == 0)
        machine.handle(.tokenEvent(.signedOut(.refreshRejected)))  // the new session's end
        #expect(machine.state == .signedOut(reason: .sessionExpired, message: Self.message(.sessionExpired)))
    }

    @Test func aSignInsEventThatArrivesBeforeItEndsLeavesNothingPending() {
        // The token manager emits `signedIn` inside the sign-in; the model may see it first.
        var machine = Self.state("signedIn")
        machine.handle(.signOutRequested)
        let attempt = machine.handle(.signInStarted).attempt!
        machine.handle(.tokenEvent(.signedOut(.requested)))  // the old session's
        machine.handle(.tokenEvent(.signedIn))  // this sign-in's, early
        #expect(machine.state == .signingIn)
        machine.handle(.signInFinished(attempt: attempt, .signedIn("ada")))
        #expect(machine.pendingSignInEvents == 0)
        // So the next sign-out event is this session's, and ends it.
        machine.handle(.tokenEvent(.signedOut(.revoked)))
        #expect(machine.state == .signedOut(reason: .revoked, message: Self.message(.sessionRevoked)))
    }

    @Test func aSignInTheModelDidNotMakeIsReadFromTheStore() {
        var machine = Self.state("signedOut")
        let (effects, _) = machine.handle(.tokenEvent(.signedIn))
        #expect(machine.state == .starting)
        #expect(effects == [.restore])
        machine.handle(.restored(.signedIn("ada")))
        #expect(machine.state == .signedIn("ada"))
        // Signed in already: nothing to read.
        let (again, _) = machine.handle(.tokenEvent(.signedIn))
        #expect(again.isEmpty)
        // Refreshes change nothing.
        let (refreshed, _) = machine.handle(.tokenEvent(.refreshed))
        #expect(refreshed.isEmpty)
        #expect(machine.state == .signedIn("ada"))
    }

    // MARK: - Sign-out

    @Test func aSignOutEndsEveryStateAndAskedTwiceDoesNothing() {
        for (name, _) in Self.states {
            var machine = Self.state(name)
            let (effects, _) = machine.handle(.signOutRequested)
            #expect(machine.state == .signedOut(reason: .userSignedOut, message: nil), "\(name)")
            #expect(effects == [.endSession, .forgetPresenceUnlock], "\(name)")
            #expect(machine.presenceUnlock != .enabled)
            let (again, _) = machine.handle(.signOutRequested)
            #expect(again.isEmpty, "\(name)")
        }
    }

    // MARK: - Background and foreground

    @Test func withNoDelayThePresenceSessionLocksAsTheAppLeaves() {
        var machine = Self.state("signedIn+presence")
        let (effects, _) = machine.handle(.enteredBackground(at: Self.t0))
        #expect(machine.state == .locked(message: nil))
        #expect(effects == [.lockTokens])
        let (back, _) = machine.handle(.enteredForeground(at: Self.t0 + .seconds(1)))
        #expect(machine.state == .locked(message: nil))
        #expect(back == [.checkInactivity])
    }

    @Test func withoutPresenceUnlockTheSessionNeverLocks() {
        var machine = Self.state("signedIn")
        #expect(machine.handle(.enteredBackground(at: Self.t0)).effects.isEmpty)
        let (effects, _) = machine.handle(.enteredForeground(at: Self.t0 + .seconds(3600)))
        #expect(machine.state == .signedIn("ada"))
        #expect(effects == [.checkInactivity])
    }

    @Test(arguments: [
        (Duration.seconds(299), false),
        (.seconds(300), true),
        (.seconds(86_400), true),
    ])
    func theSessionLocksAfterTheConfiguredTimeInTheBackground(away: Duration, locks: Bool) {
        var machine = Self.machine(
            [.gateAvailability(true), .restored(.signedIn("ada")), .presenceUnlockEnabled(true)],
            lockAfter: .seconds(300)
        )
        #expect(machine.handle(.enteredBackground(at: Self.t0)).effects.isEmpty)
        #expect(machine.state == .signedIn("ada"))
        let (effects, _) = machine.handle(.enteredForeground(at: Self.t0 + away))
        #expect(machine.state == (locks ? .locked(message: nil) : .signedIn("ada")))
        #expect(effects == (locks ? [.lockTokens, .checkInactivity] : [.checkInactivity]))
    }

    @Test func theFirstBackgroundingCountsAndAForegroundResetsIt() {
        var machine = Self.machine(
            [.gateAvailability(true), .restored(.signedIn("ada")), .presenceUnlockEnabled(true)],
            lockAfter: .seconds(300)
        )
        machine.handle(.enteredBackground(at: Self.t0))
        machine.handle(.enteredBackground(at: Self.t0 + .seconds(200)))  // repeated: the first counts
        machine.handle(.enteredForeground(at: Self.t0 + .seconds(300)))
        #expect(machine.state == .locked(message: nil))

        var other = Self.machine(
            [.gateAvailability(true), .restored(.signedIn("ada")), .presenceUnlockEnabled(true)],
            lockAfter: .seconds(300)
        )
        other.handle(.enteredBackground(at: Self.t0))
        other.handle(.enteredForeground(at: Self.t0 + .seconds(200)))
        other.handle(.enteredBackground(at: Self.t0 + .seconds(250)))
        other.handle(.enteredForeground(at: Self.t0 + .seconds(450)))
        #expect(other.state == .signedIn("ada"))
    }

    @Test func aDeviceLockedStoreIsReadAgainInTheForeground() {
        var machine = Self.state("deviceLocked")
        machine.handle(.enteredBackground(at: Self.t0))
        let (effects, _) = machine.handle(.enteredForeground(at: Self.t0 + .seconds(1)))
        #expect(machine.state == .starting)
        #expect(effects == [.restore])
        machine.handle(.restored(.signedIn("ada")))
        #expect(machine.state == .signedIn("ada"))
    }

    // MARK: - Races

    @Test func aSignOutEventWhileUnlockingWinsOverTheUnlocksSuccess() {
        var machine = Self.state("locked")
        let attempt = machine.handle(.unlockStarted).attempt!
        machine.handle(.tokenEvent(.signedOut(.endedElsewhere)))
        machine.handle(.unlockFinished(attempt: attempt, .unlocked("ada")))
        #expect(machine.state == .signedOut(reason: .endedElsewhere, message: Self.message(.endedElsewhere)))
    }

    @Test func aSignOutWhileUnlockingWinsOverTheUnlocksSuccess() {
        var machine = Self.state("locked")
        let attempt = machine.handle(.unlockStarted).attempt!
        machine.handle(.signOutRequested)
        machine.handle(.unlockFinished(attempt: attempt, .unlocked("ada")))
        #expect(machine.state == .signedOut(reason: .userSignedOut, message: nil))
    }

    @Test func aRefreshFailureWhileLockedSignsOutWithItsReason() {
        var machine = Self.state("signedIn+presence")
        machine.handle(.enteredBackground(at: Self.t0))
        #expect(machine.state == .locked(message: nil))
        // The refresh that was in flight when the session locked was refused.
        let (effects, _) = machine.handle(.tokenEvent(.signedOut(.refreshRejected)))
        #expect(machine.state == .signedOut(reason: .sessionExpired, message: Self.message(.sessionExpired)))
        #expect(effects == [.forgetPresenceUnlock])
        // The unlock screen's button is too late now.
        #expect(machine.handle(.unlockStarted).attempt == nil)
    }

    @Test func goingToTheBackgroundDuringASignInLetsItFinish() {
        var machine = Self.state("signedOut")
        let attempt = machine.handle(.signInStarted).attempt!
        machine.handle(.enteredBackground(at: Self.t0))
        #expect(machine.state == .signingIn)
        machine.handle(.signInFinished(attempt: attempt, .signedIn("ada")))
        #expect(machine.state == .signedIn("ada"))
        // Presence unlock is off after a fresh sign-in: nothing to lock.
        let (effects, _) = machine.handle(.enteredForeground(at: Self.t0 + .seconds(3600)))
        #expect(machine.state == .signedIn("ada"))
        #expect(effects == [.checkInactivity])
    }

    @Test func goingToTheBackgroundDuringAnUnlockLeavesTheOutcomeToThePrompt() {
        var machine = Self.state("locked")
        let attempt = machine.handle(.unlockStarted).attempt!
        machine.handle(.enteredBackground(at: Self.t0))
        let (effects, _) = machine.handle(.enteredForeground(at: Self.t0 + .seconds(5)))
        #expect(machine.state == .unlocking)
        #expect(effects.isEmpty)
        // The system cancelled the prompt when the app left.
        machine.handle(.unlockFinished(attempt: attempt, .refused(.authenticationCancelled)))
        #expect(machine.state == .locked(message: nil))
    }

    // MARK: - Offering presence unlock

    @Test func presenceUnlockIsOfferedOnlyToASignedInUserWhenTheGateCanEvaluate() {
        #expect(Self.machine([.gateAvailability(true), .restored(.noSession)]).presenceUnlock == .unavailable)
        #expect(Self.machine([.gateAvailability(false), .restored(.signedIn("ada"))]).presenceUnlock == .unavailable)
        #expect(Self.machine([.gateAvailability(true), .restored(.signedIn("ada"))]).presenceUnlock == .offered)
        #expect(Self.state("signedIn+presence").presenceUnlock == .enabled)
        #expect(Self.state("locked").presenceUnlock == .enabled)

        // Not from a sign-in screen or a lock screen.
        var signedOut = Self.machine([.gateAvailability(true), .restored(.noSession)])
        signedOut.handle(.presenceUnlockEnabled(true))
        #expect(signedOut.presenceUnlockEnabled == false)
        var signingIn = Self.machine([.gateAvailability(true), .restored(.noSession), .signInStarted])
        signingIn.handle(.presenceUnlockEnabled(true))
        #expect(signingIn.presenceUnlockEnabled == false)
    }

    @Test func theModelsReasonsFollowTheTokenManagers() {
        #expect(SignedOutReason(.requested) == .userSignedOut)
        #expect(SignedOutReason(.refreshRejected) == .sessionExpired)
        #expect(SignedOutReason(.noRefreshToken) == .sessionExpired)
        #expect(SignedOutReason(.inactivity) == .inactivity)
        #expect(SignedOutReason(.revoked) == .revoked)
        #expect(SignedOutReason(.reuseDetected) == .reuseDetected)
        #expect(SignedOutReason(.endedElsewhere) == .endedElsewhere)
    }
}
