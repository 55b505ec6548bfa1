// swift-format-ignore-file
// The SwiftUI example of the README ("A session screen in SwiftUI") and of the SecureSession
// article "The app's session in SwiftUI", verbatim (SessionSwiftUIExampleTests compares them):
// type-checked on Linux as part of SecureSession against the SwiftUI stubs
// (AppleInterfaceStubs/typecheck.py). It uses nothing of the model but its public API.
//
// An iOS and macOS app's code, as its `@available(iOS 17, macOS 14, *)` says: the per-platform
// availability check (AppleInterfaceStubs/availability.py) compiles it in the iOS and macOS passes
// only. On tvOS `LocalAuthenticationGate` is unavailable, and a tvOS or watchOS app would also
// name tvOS 17 / watchOS 10 (`SessionModel`'s) in these attributes.
#if canImport(SwiftUI) && !os(tvOS) && !os(watchOS)
import SecureNetworking
import SwiftUI

struct Profile: Decodable, Equatable, Sendable {
    var displayName: String
}

struct Login: Encodable, Sendable {
    var email: String
    var password: String
}

struct NoTokenManager: Error {}

/// Built once, at launch: the tokens live in the Keychain, behind Face ID once the user asks.
@available(iOS 17, macOS 14, *)
@MainActor
func makeSession(policy: TransportSecurityPolicy) throws -> (SecureAPIClient, SessionModel<Profile>) {
    let presence = PresenceUnlock(
        wrapping: KeychainStore(configuration: .init(service: "com.example.app")),
        gate: LocalAuthenticationGate()
    )
    let client = try SecureAPIClient(configuration: .init(
        baseURL: URL(string: "https://api.example.com/")!,
        policy: policy,
        authentication: .oauth(client: .publicClient(id: "ios-app"), store: presence.store)))
    guard let tokens = client.tokens else { throw NoTokenManager() }
    let session = SessionModel<Profile>(
        tokens: tokens,
        presence: presence,
        configuration: .init(lockAfter: .seconds(60)),
        signIn: { email, password in
            try await client.signIn(.post("auth/login", body: .json(Login(email: email, password: password)),
                                          requiresAuthentication: false))
        },
        user: { _ in try await client.send(Request<Profile>.get("user/profile")) })
    return (client, session)
}

/// The app's root: one screen per state of the session.
@available(iOS 17, macOS 14, *)
struct SessionRootView: View {
    let session: SessionModel<Profile>
    @Environment(\.scenePhase) private var scenePhase

    var body: some View {
        Group {
            switch session.state {
            case .starting, .signingIn, .unlocking:
                ProgressView()
            case .signedOut(_, let message):
                SignInForm(session: session, message: message)
            case .signedIn(let profile):
                SignedInView(session: session, profile: profile)
            case .offline(let message):
                OfflineView(session: session, message: message)
            case .locked(let message):
                LockedView(session: session, message: message)
            case .deviceLocked(let message):
                Text(message)
            }
        }
        .task { await session.start() }
        .onChange(of: scenePhase) { _, phase in
            if phase == .background { session.appDidEnterBackground() }
            if phase == .active { session.appWillEnterForeground() }
        }
    }
}

@available(iOS 17, macOS 14, *)
struct SignInForm: View {
    let session: SessionModel<Profile>
    let message: String?  // "The e-mail or password is wrong.", never the server's text
    @State private var email = ""
    @State private var password = ""

    var body: some View {
        VStack(spacing: 12) {
            TextField("E-mail", text: $email)
            SecureField("Password", text: $password)
            if let message { Text(message) }
            Button("Sign in") {
                Task { await session.signIn(username: email, password: password) }
            }
        }
    }
}

@available(iOS 17, macOS 14, *)
struct LockedView: View {
    let session: SessionModel<Profile>
    let message: String?  // nil after a cancelled prompt

    var body: some View {
        VStack(spacing: 12) {
            if let message { Text(message) }
            Button("Unlock with Face ID") { Task { await session.unlock() } }
            Button("Sign out") { Task { await session.signOut() } }
        }
    }
}

@available(iOS 17, macOS 14, *)
struct SignedInView: View {
    let session: SessionModel<Profile>
    let profile: Profile

    var body: some View {
        VStack(spacing: 12) {
            Text(profile.displayName)
            if session.presenceUnlock == .offered {
                Button("Use Face ID to unlock") { Task { await session.enablePresenceUnlock() } }
            }
            Button("Sign out") { Task { await session.signOut() } }
        }
    }
}

@available(iOS 17, macOS 14, *)
struct OfflineView: View {
    let session: SessionModel<Profile>
    let message: String  // "The server could not be reached. …"; the session is kept

    var body: some View {
        VStack(spacing: 12) {
            Text(message)
            Button("Try again") { Task { await session.retry() } }
            Button("Sign out") { Task { await session.signOut() } }
        }
    }
}
#endif
