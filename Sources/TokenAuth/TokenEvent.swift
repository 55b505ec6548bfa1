/// Something that happened to the session, published on ``TokenManager/events``.
public struct TokenEvent: Hashable, Sendable, CustomStringConvertible {
    fileprivate enum Kind: String, Hashable, Sendable {
        case signedIn, refreshed, signedOut
    }

    private let kind: Kind
    /// Why the session ended, for a signed-out event.
    public let reason: SignOutReason?

    /// Tokens were stored by ``TokenManager/signIn(_:)``.
    public static let signedIn = TokenEvent(kind: .signedIn, reason: nil)
    /// The access token was refreshed.
    public static let refreshed = TokenEvent(kind: .refreshed, reason: nil)
    /// The session ended; the tokens are cleared.
    public static func signedOut(_ reason: SignOutReason) -> TokenEvent {
        TokenEvent(kind: .signedOut, reason: reason)
    }

    /// Whether this is a signed-out event.
    public var isSignedOut: Bool { self.kind == .signedOut }

    /// The event's name, and the reason of a sign-out.
    public var description: String {
        self.reason.map { "\(self.kind.rawValue)(\($0))" } ?? self.kind.rawValue
    }
}

/// Why a session ended.
public struct SignOutReason: Hashable, Sendable, CustomStringConvertible {
    private let name: String

    /// The app called ``TokenManager/signOut()``.
    public static let requested = SignOutReason(name: "requested")
    /// The token endpoint refused the refresh token (`invalid_grant`, `invalid_client`, another 400/401).
    public static let refreshRejected = SignOutReason(name: "refreshRejected")
    /// The access token expired and there is no refresh token.
    public static let noRefreshToken = SignOutReason(name: "noRefreshToken")
    /// No activity for longer than the inactivity timeout.
    public static let inactivity = SignOutReason(name: "inactivity")
    /// Another process sharing the store ended the session (it signed out, or its refresh was
    /// refused) while this one was refreshing; the result was not stored, so the session stays
    /// ended.
    public static let endedElsewhere = SignOutReason(name: "endedElsewhere")
    /// The server refused an access token that had not expired, then refused the refresh token
    /// too: it ended the session early (revoked it, or the user signed out elsewhere).
    public static let revoked = SignOutReason(name: "revoked")
    /// The server refused a refresh token that this manager had presented once before without
    /// getting an answer (the request failed on the way back): the server saw it used twice, so
    /// its reuse detection (RFC 9700 §4.14.2) revoked the session.
    public static let reuseDetected = SignOutReason(name: "reuseDetected")

    /// The reason's name.
    public var description: String { self.name }
}
