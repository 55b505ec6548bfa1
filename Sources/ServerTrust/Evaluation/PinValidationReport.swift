public import Foundation

/// What happened when a validated chain did not match the host's pins, for delivery to a
/// reporting endpoint (in the manner of HPKP's `report-uri` and TrustKit's reports).
public struct PinValidationReport: Hashable, Sendable, Codable {
    /// How the mismatch was handled.
    public struct Result: Hashable, Sendable, Codable, CustomStringConvertible {
        fileprivate let name: String

        /// The pins were enforced: the connection was refused.
        public static let rejected = Result(name: "rejected")
        /// Report-only pins: the connection went on.
        public static let reportOnly = Result(name: "report-only")
        /// The pin set had expired: the connection went on.
        public static let expiredNotEnforced = Result(name: "expired-not-enforced")

        public var description: String { self.name }

        public init(from decoder: any Decoder) throws {
            self.name = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(self.name)
        }

        private init(name: String) { self.name = name }
    }

    /// The host connected to.
    public let host: String
    /// The port connected to.
    public let port: Int
    /// The pattern whose pins applied.
    public let pattern: String
    /// The pins of the validated chain, leaf first, anchor last.
    public let servedChainPins: [Pin]
    /// The pins configured for the pattern.
    public let knownPins: [Pin]
    /// How the mismatch was handled.
    public let result: Result
    /// When the evaluation happened.
    public let date: Date
}
