public import Foundation
public import SecureHTTP

/// Turns a server's error into a message written in advance for users, so raw server text
/// (stack traces, SQL, internal names, another user's data) is never shown.
public struct UserMessageCatalog: Sendable {
    /// Messages by server error code (`"invalid_credentials"` → "The e-mail or password is wrong.").
    public var messages: [String: String]
    /// Messages by HTTP status, used when the code is unknown.
    public var statusMessages: [Int: String]
    /// Messages for the situations the library recognises itself (a refused sign-in, an ended
    /// session, a timeout, …), used before the status messages.
    public var situationMessages: [Situation: String]
    /// The message when nothing more specific is known.
    public var fallback: String

    /// A situation a user needs told apart, recognised from an ``APIError``'s code and the
    /// transport's error rather than from a status.
    public struct Situation: Hashable, Sendable, CustomStringConvertible {
        let name: String

        /// The name of the situation.
        public var description: String { self.name }

        /// The sign-in was refused: ``APIError/Code/invalidCredentials``.
        public static let invalidCredentials = Situation(name: "invalidCredentials")
        /// The session ended and the user must sign in again: ``APIError/Code/signedOut``.
        public static let signedOut = Situation(name: "signedOut")
        /// The request, or the TLS handshake, did not finish within its time.
        public static let timedOut = Situation(name: "timedOut")
        /// No connection could be made: refused, host not found, no network, connect timeout, a
        /// proxy that would not tunnel.
        public static let unreachable = Situation(name: "unreachable")
        /// The connection closed or was reset before the answer was complete.
        public static let connectionLost = Situation(name: "connectionLost")
        /// The connection could not be made secure: a refused certificate or pin, the transport
        /// policy, a TLS version or cipher suite, a client certificate.
        public static let insecureConnection = Situation(name: "insecureConnection")
        /// The session ended because the server refused to refresh it (the refresh token expired
        /// or was revoked) or it had no refresh token.
        public static let sessionExpired = Situation(name: "sessionExpired")
        /// The server ended the session early: it refused a token that had not expired, then the
        /// refresh token.
        public static let sessionRevoked = Situation(name: "sessionRevoked")
        /// The server saw a refresh token used twice and ended the session (reuse detection).
        public static let reuseDetected = Situation(name: "reuseDetected")
        /// The session ended after a period of inactivity.
        public static let inactivity = Situation(name: "inactivity")
        /// Another process sharing the session (an app extension) ended it.
        public static let endedElsewhere = Situation(name: "endedElsewhere")
        /// A user-presence check (Face ID, Touch ID, the passcode) did not confirm the user.
        public static let unlockFailed = Situation(name: "unlockFailed")
        /// Too many failed user-presence checks: unlocking is refused for a while.
        public static let unlockLockedOut = Situation(name: "unlockLockedOut")
        /// The device is locked, so the saved session cannot be read until it is unlocked.
        public static let deviceLocked = Situation(name: "deviceLocked")
    }

    /// Creates a catalog; the status and situation messages default to the standard ones.
    ///
    /// - Parameters:
    ///   - messages: messages by server error code.
    ///   - statusMessages: messages by HTTP status.
    ///   - situationMessages: messages by situation.
    ///   - fallback: the message when nothing more specific is known.
    public init(
        messages: [String: String] = [:],
        statusMessages: [Int: String] = UserMessageCatalog.standardStatusMessages,
        situationMessages: [Situation: String] = UserMessageCatalog.standardSituationMessages,
        fallback: String = "Something went wrong. Please try again."
    ) {
        self.messages = messages
        self.statusMessages = statusMessages
        self.situationMessages = situationMessages
        self.fallback = fallback
    }

    /// Plain messages for the situations the library recognises.
    public static let standardSituationMessages: [Situation: String] = [
        .invalidCredentials: "The e-mail or password is wrong.",
        .signedOut: "Your session has ended. Please sign in again.",
        .timedOut: "The server took too long to answer. Please try again.",
        .unreachable: "The server could not be reached. Please check your connection and try again.",
        .connectionLost: "The connection to the server was lost. Please try again.",
        .insecureConnection: "A secure connection to the server could not be established.",
        .sessionExpired: "Your session has expired. Please sign in again.",
        .sessionRevoked: "You have been signed out. Please sign in again.",
        .reuseDetected: "For your security, you have been signed out. Please sign in again.",
        .inactivity: "You were signed out after a period of inactivity. Please sign in again.",
        .endedElsewhere: "You have been signed out. Please sign in again.",
        .unlockFailed: "We couldn't confirm it's you. Please try again.",
        .unlockLockedOut: "Too many attempts. Please wait a moment and try again, or sign in again.",
        .deviceLocked: "Unlock your device to continue.",
    ]

    /// Plain messages for the statuses an app meets most.
    public static let standardStatusMessages: [Int: String] = [
        400: "The request could not be completed. Please check what you entered.",
        401: "You are not allowed to do this.",
        403: "You don't have permission to do that.",
        404: "We couldn't find what you were looking for.",
        409: "This was changed elsewhere. Please refresh and try again.",
        413: "That is too large to upload.",
        429: "Too many attempts. Please wait a moment and try again.",
        500: "The service is having trouble. Please try again later.",
        502: "The service is having trouble. Please try again later.",
        503: "The service is temporarily unavailable. Please try again later.",
        504: "The service took too long to answer. Please try again later.",
    ]

    /// The message for a transport's error (a timeout, an unreachable server, a connection that
    /// could not be made secure), or the fallback.
    public func message(for error: SecureHTTPError) -> String {
        APIError.situation(for: error.code).flatMap { self.situationMessages[$0] } ?? self.fallback
    }

    /// The message for a situation, or the fallback when the catalog has none for it.
    public func message(for situation: Situation) -> String {
        self.situationMessages[situation] ?? self.fallback
    }

    /// The message for a server error code, or the fallback.
    public func message(forCode code: String?) -> String {
        code.flatMap { self.messages[$0] } ?? self.fallback
    }

    /// The message for an error response: its code (read from a JSON body's `code`, `error` or
    /// `error_code` string field) when the catalog knows it, else its status, else the fallback.
    /// Nothing from the body other than the code is used, and the code itself is never shown.
    public func message(status: Int, body: Data?) -> String {
        if let code = Self.serverCode(in: body), let message = self.messages[code] {
            return message
        }
        if let message = self.statusMessages[status] { return message }
        if (500...599).contains(status), let message = self.statusMessages[500] { return message }
        return self.fallback
    }

    /// The error code of a JSON error body (`code`, `error` or `error_code`, the first that is a
    /// short identifier: letters, digits, `_`, `-`, `.`; at most 64 characters), or nil. Prose
    /// is never taken for a code.
    static func serverCode(in body: Data?) -> String? {
        guard let body, !body.isEmpty, body.count <= 64 * 1024,
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        else { return nil }
        for key in ["code", "error", "error_code"] {
            guard let code = object[key] as? String, Self.isIdentifier(code) else { continue }
            return code
        }
        return nil
    }

    /// Whether `code` is a short identifier (letters, digits, `_`, `-`, `.`; 1 to 64 bytes), not
    /// prose.
    static func isIdentifier(_ code: String) -> Bool {
        (1...64).contains(code.utf8.count)
            && code.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            }
    }
}
