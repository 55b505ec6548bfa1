/// Something about a trusted chain that a standard asks CAs not to do, but that gives nobody a
/// way to impersonate the host or weaken the connection, so it does not refuse the server.
///
/// ServerTrust refuses every rule with a security effect (path validation, names, key usage,
/// key strength, signatures, validity, name constraints); rules that bind only the certificate
/// authority, and that Apple, Chrome and Firefox do not enforce on clients, are reported here
/// instead. `securenet pins URL` prints them.
public struct TrustWarning: Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier of the kind of warning.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The identifier.
        public let rawValue: String

        /// Wraps an identifier.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The leaf's common name is not one of its subject alternative names, as BR §7.1.4.3
        /// asks of the CA, or there is more than one, or it is in a string type that is not read.
        /// Clients identify the host by the subjectAltName only (RFC 9525 §6.3), so the common
        /// name has no effect on the decision.
        public static let commonNameInconsistent = Code(rawValue: "commonNameInconsistent")

        /// The identifier.
        public var description: String { self.rawValue }
    }

    /// What kind of warning this is.
    public let code: Code
    /// A sentence for people; never holds a secret.
    public let message: String

    /// Creates a warning. `message` goes through ``OutsideText/escapedLines(_:)``, as a
    /// ``ServerTrustError``'s does.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = OutsideText.escapedLines(message)
    }

    /// `code: message`.
    public var description: String { "\(self.code): \(self.message)" }
}
