public import TokenAuth

/// Where the app's session is: the one value a view switches over.
///
/// ```swift
/// switch session.state {
/// case .starting: ProgressView()
/// case .signedOut(_, let message): SignInForm(message: message)
/// case .signingIn, .unlocking: ProgressView()
/// case .signedIn(let user): HomeView(user: user)
/// case .offline(let message): OfflineView(message: message)  // Try again, Sign out
/// case .locked(let message): LockedView(message: message)
/// case .deviceLocked(let message): Text(message)
/// }
/// ```
///
/// - Note: ``offline(message:)`` was added after the other cases (issue 50): a `switch` written
///   before it needs a case for it, or the app keeps compiling only with a `default:`.
public enum SessionState<User: Sendable & Equatable>: Sendable, Equatable {
    /// The stored session is being read (``SessionModel/start()``); nothing to show yet.
    case starting
    /// No session. `message` tells the user why, when they need telling (a refused sign-in, a
    /// session the server ended); it is nil after a sign-out they asked for or a cancelled
    /// sign-in.
    case signedOut(reason: SignedOutReason, message: String?)
    /// A sign-in is in progress.
    case signingIn
    /// Signed in, as `user` (decoded by the app's closure from the session's tokens).
    case signedIn(User)
    /// The session is kept, but it could not be opened: the app's `user` closure failed for a
    /// transient reason (no network, a timeout, a refused or lost connection, a 5xx or 429
    /// answer, a refresh the token manager could not make and kept the tokens for). `message`
    /// says so ("The server could not be reached. Please check your connection and try
    /// again.").
    ///
    /// Nothing is deleted, and the user is not asked to sign in again. The model reads the
    /// session again when the app comes to the foreground, when the token manager refreshes the
    /// tokens (a request the app made got through), and on ``SessionModel/retry()``; a sign-out
    /// works as from any state. A `user` closure that needs no network (it decodes the user from
    /// the tokens, or from a profile the app keeps) never leads here: offline, the state is then
    /// ``signedIn(_:)``.
    case offline(message: String)
    /// The session is kept but locked: the user must prove they are present (Face ID, Touch ID,
    /// the passcode) to use it. `message` says why the last unlock did not succeed, if it did
    /// not; nil for a cancelled prompt.
    case locked(message: String?)
    /// An unlock is in progress (the presence prompt is showing).
    case unlocking
    /// The device is locked, so the store cannot release the session yet (the Keychain's
    /// `errSecInteractionNotAllowed`); the tokens are kept. The model tries again when the app
    /// comes to the foreground.
    case deviceLocked(message: String)

    /// Whether the user is signed in.
    public var isSignedIn: Bool {
        if case .signedIn = self { return true }
        return false
    }

    /// The message for the user that this state carries, if any.
    public var message: String? {
        switch self {
        case .signedOut(_, let message), .locked(let message): message
        case .deviceLocked(let message), .offline(let message): message
        case .starting, .signingIn, .signedIn, .unlocking: nil
        }
    }
}

/// Why there is no session.
public struct SignedOutReason: Hashable, Sendable, CustomStringConvertible {
    private let name: String

    /// There was no stored session at launch, or a sign-in did not succeed.
    public static let neverSignedIn = SignedOutReason(name: "neverSignedIn")
    /// A session was stored, but it could not be used at launch: the store would not release
    /// it (tampered, sealed under another key, an I/O failure), or the app's `user` closure
    /// failed for a reason that is not the network's (a 404, a body that does not decode). The
    /// tokens are left in the store; a sign-in replaces them.
    public static let sessionUnusable = SignedOutReason(name: "sessionUnusable")
    /// The user signed out (``SessionModel/signOut()``).
    public static let userSignedOut = SignedOutReason(name: "userSignedOut")
    /// The refresh token is dead: the server refused it (expired, revoked), or there was none
    /// when the access token expired.
    public static let sessionExpired = SignedOutReason(name: "sessionExpired")
    /// The server saw a refresh token used twice and ended the session (RFC 9700 §4.14.2).
    public static let reuseDetected = SignedOutReason(name: "reuseDetected")
    /// No activity for longer than the token manager's inactivity timeout.
    public static let inactivity = SignedOutReason(name: "inactivity")
    /// The server ended the session early: it refused an access token that had not expired,
    /// then the refresh token.
    public static let revoked = SignedOutReason(name: "revoked")
    /// Another process sharing the session's store (an app extension) ended it.
    public static let endedElsewhere = SignedOutReason(name: "endedElsewhere")

    /// The reason a token manager's sign-out event gives, as the model's.
    public init(_ reason: SignOutReason) {
        switch reason {
        case .requested: self = .userSignedOut
        case .inactivity: self = .inactivity
        case .endedElsewhere: self = .endedElsewhere
        case .revoked: self = .revoked
        case .reuseDetected: self = .reuseDetected
        default: self = .sessionExpired  // refreshRejected, noRefreshToken
        }
    }

    private init(name: String) {
        self.name = name
    }

    /// The reason's name.
    public var description: String { self.name }
}

/// Whether the app may offer, or uses, unlocking the session with the user's presence.
public enum PresenceUnlockStatus: Hashable, Sendable {
    /// Not offered: no presence gate configured, the gate cannot evaluate on this device (no
    /// biometry enrolled, no passcode), or nobody is signed in.
    case unavailable
    /// Signed in and the gate can evaluate: the app may offer it
    /// (``SessionModel/enablePresenceUnlock()``).
    case offered
    /// On: the session locks in the background and at launch, and unlocks through the gate.
    case enabled
}
