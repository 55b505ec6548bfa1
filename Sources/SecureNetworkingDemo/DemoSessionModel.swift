#if Tools
import Foundation
import SecureNetworking
import SecureNetworkingTesting
import SecureSession
import SecureStorage

/// The presence check of the demo's "device": it answers as the script says (a person who
/// cancels the first Face ID prompt, then looks at the phone), and counts the checks.
actor DemoPresenceGate: UserPresenceGate {
    private var answers: [SecureStoreError.Code?]
    private(set) var checks = 0

    init(answers: [SecureStoreError.Code?]) {
        self.answers = answers
    }

    func authenticate(reason: String) async throws(SecureStoreError) {
        self.checks += 1
        let answer = self.answers.isEmpty ? SecureStoreError.Code.authenticationFailed : self.answers.removeFirst()
        if let answer { throw SecureStoreError(answer, "the demo's scripted answer") }
    }
}

/// What the session steps share: the model, its client and the gate.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
struct DemoSessionApp: Sendable {
    let client: SecureAPIClient
    let gate: DemoPresenceGate
    let model: SessionModel<DemoUser>

    @MainActor
    init(_ world: DemoWorld) throws {
        // Turning presence unlock on passes; the first unlock is cancelled; the second passes.
        let gate = DemoPresenceGate(answers: [nil, .authenticationCancelled, nil])
        let presence = PresenceUnlock(wrapping: InMemoryStore(), gate: gate)
        let client = try SecureAPIClient(configuration: try world.configuration(store: presence.store))
        let tokens = try requireValue(client.tokens, "the client has no token manager")
        struct Login: Encodable, Sendable {
            var email: String
            var password: String
        }
        self.client = client
        self.gate = gate
        self.model = SessionModel(
            tokens: tokens,
            presence: presence,
            signIn: { email, password in
                try await client.signIn(
                    .post(
                        "auth/login",
                        body: .json(Login(email: email, password: password)),
                        requiresAuthentication: false
                    )
                )
            },
            user: { _ in
                let profile = try await client.send(Request<DemoProfile>.get("user/profile"))
                return DemoUser(email: profile.email, displayName: profile.displayName)
            }
        )
    }
}

/// The app's user in the demo's session model.
struct DemoUser: Equatable, Sendable {
    var email: String
    var displayName: String
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension SecureNetworkingDemo {
    /// 14–17: the session model driven as a UI drives it.
    func sessionModelSteps(_ world: DemoWorld, _ results: DemoResults) async {
        let app: DemoSessionApp
        do {
            app = try await DemoSessionApp(world)
        } catch {
            results.fail(.sessionSignIn, "session model: sign in", "the app could not start: \(error)")
            return
        }
        let model = app.model

        await results.check(.sessionSignIn, "session model: sign in, then presence unlock offered") {
            await model.start()
            let first = await model.state
            await model.signIn(username: DemoWorld.email, password: world.password)
            let signedIn = await model.state
            let offered = await model.presenceUnlock
            let enabled = await model.enablePresenceUnlock()
            return (
                first == .signedOut(reason: .neverSignedIn, message: nil)
                    && signedIn == .signedIn(DemoUser(email: DemoWorld.email, displayName: "Ada Lovelace"))
                    && offered == .offered && enabled,
                "SessionModel: signedOut(neverSignedIn) → signIn(username:password:) → signedIn(Ada Lovelace); presence unlock offered only now, turned on after one check"
            )
        }

        await results.check(.sessionLocked, "session model: background, back locked") {
            await model.appDidEnterBackground()
            let locked = await model.state
            await model.idle()
            let profileCalls = world.server.statistics.profileCalls
            var refusal = "none"
            do {
                _ = try await app.client.send(Request<DemoProfile>.get("user/profile"))
            } catch let error as APIError {
                refusal = error.authenticationError?.code.description ?? "\(error.code)"
            }
            await model.appWillEnterForeground()
            let back = await model.state
            return (
                locked == .locked(message: nil) && back == .locked(message: nil) && refusal == "sessionLocked"
                    && world.server.statistics.profileCalls == profileCalls,
                "appDidEnterBackground() → locked at once; a request while locked → sessionLocked, nothing sent; appWillEnterForeground() → still locked"
            )
        }

        await results.check(.sessionUnlocked, "session model: unlock through the presence gate") {
            await model.unlock()
            let cancelled = await model.state
            await model.unlock()
            let unlocked = await model.state
            let profile = try await app.client.send(Request<DemoProfile>.get("user/profile"))
            let checks = await app.gate.checks
            return (
                cancelled == .locked(message: nil) && unlocked.isSignedIn && profile.email == DemoWorld.email
                    && checks == 3,
                "unlock(): prompt cancelled → still locked, tokens kept; unlock() again: the gate passes → signedIn; GET /user/profile → \(profile.displayName)"
            )
        }

        await results.check(.sessionEndedByServer, "session model: the refresh token dies at the server") {
            world.server.revokeAllTokens()
            world.clock.advance(seconds: 301)
            do {
                _ = try await app.client.send(Request<DemoProfile>.get("user/profile"))
                return (false, "the revoked session still answered")
            } catch let error as APIError {
                let state = await model.state
                let expected = SessionState<DemoUser>.signedOut(
                    reason: .sessionExpired,
                    message: UserMessageCatalog().message(for: .sessionExpired)
                )
                // The sign-out arrives through the token manager's events.
                let reached = await model.waitForState(until: .now + .seconds(10)) { $0 == expected }
                return (
                    error.code == .signedOut && reached,
                    "the server revoked the refresh token; the access token expired; the refresh was refused → \(reached ? "signedOut(sessionExpired), telling the user \"\(expected.message ?? "")\"" : "\(state)")"
                )
            }
        }
        await app.client.shutdown()
    }
}
#endif
