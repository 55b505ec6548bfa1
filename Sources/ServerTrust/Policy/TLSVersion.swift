/// A TLS protocol version, ordered from oldest to newest.
public struct TLSVersion: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The version's wire value (`0x0303` for TLS 1.2).
    public let wireValue: UInt16

    /// TLS 1.0: refused by the default policy; for exceptions only.
    public static let v1_0 = TLSVersion(wireValue: 0x0301)
    /// TLS 1.1: refused by the default policy; for exceptions only.
    public static let v1_1 = TLSVersion(wireValue: 0x0302)
    /// TLS 1.2: the default minimum, as in App Transport Security.
    public static let v1_2 = TLSVersion(wireValue: 0x0303)
    /// TLS 1.3.
    public static let v1_3 = TLSVersion(wireValue: 0x0304)

    /// The versions this package knows.
    public static let all: [TLSVersion] = [.v1_0, .v1_1, .v1_2, .v1_3]

    /// Parses `1.2`, `TLSv1.2` (the ATS spelling) or `TLS1.2`; nil for anything else.
    public init?(_ text: String) {
        var value = text.lowercased()
        for prefix in ["tlsv", "tls"] where value.hasPrefix(prefix) {
            value.removeFirst(prefix.count)
            break
        }
        switch value {
        case "1.0": self = .v1_0
        case "1.1": self = .v1_1
        case "1.2": self = .v1_2
        case "1.3": self = .v1_3
        default: return nil
        }
    }

    private init(wireValue: UInt16) { self.wireValue = wireValue }

    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool { lhs.wireValue < rhs.wireValue }

    /// `TLSv1.2`.
    public var description: String { "TLSv1.\(Int(self.wireValue) - 0x0301)" }
}
