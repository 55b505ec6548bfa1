public import Foundation

/// Turns a server's error into a message written in advance for users, so raw server text
/// (stack traces, SQL, internal names, another user's data) is never shown.
public struct UserMessageCatalog: Sendable {
    /// Messages by server error code (`"invalid_credentials"` → "The e-mail or password is wrong.").
    public var messages: [String: String]
    /// Messages by HTTP status, used when the code is unknown.
    public var statusMessages: [Int: String]
    /// The message when nothing more specific is known.
    public var fallback: String

    /// Creates a catalog; the status messages default to ``standardStatusMessages``.
    public init(
        messages: [String: String] = [:],
        statusMessages: [Int: String] = UserMessageCatalog.standardStatusMessages,
        fallback: String = "Something went wrong. Please try again."
    ) {
        self.messages = messages
        self.statusMessages = statusMessages
        self.fallback = fallback
    }

    /// Plain messages for the statuses an app meets most.
    public static let standardStatusMessages: [Int: String] = [
        400: "The request could not be completed. Please check what you entered.",
        401: "Your session has ended. Please sign in again.",
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
            guard let code = object[key] as? String, (1...64).contains(code.utf8.count) else { continue }
            let isIdentifier = code.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            }
            if isIdentifier { return code }
        }
        return nil
    }
}
