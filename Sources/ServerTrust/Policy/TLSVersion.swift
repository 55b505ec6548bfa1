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

    /// Parses `1.2`, `TLSv1.2` (the ATS spelling) or `TLS1.2`, in any case; nil for anything
    /// else. For typed input such as a command-line option: the policy readers (a JSON policy
    /// file, an Info.plist) take ATS's spelling only, exactly (see ``init(atsName:)``).
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

    /// Parses a version as ATS's `NSExceptionMinimumTLSVersion` spells it, exactly (case
    /// included): `TLSv1.0`, `TLSv1.1`, `TLSv1.2` or `TLSv1.3`; nil for anything else.
    ///
    /// The one rule of the policy readers, the JSON policy file's `minimumTLSVersion` and the
    /// Info.plist's `NSExceptionMinimumTLSVersion` alike: ATS ignores a spelling it does not know,
    /// and a file that meant `TLSv1.3` but wrote `tlsv1.3` should not be read as something else,
    /// so another spelling is refused rather than guessed.
    public init?(atsName text: String) {
        guard let version = Self.all.first(where: { $0.description == text }) else { return nil }
        self = version
    }

    /// The ATS spellings, `TLSv1.0` to `TLSv1.3`, as ``init(atsName:)`` reads them.
    public static var atsNames: [String] { Self.all.map(\.description) }

    /// Why a policy file's TLS version `text` is refused: the accepted spellings and, when `text`
    /// names a version in another spelling (`TLS1.2`, `tlsv1.3`, `1.2`), that version's.
    static func refusal(of text: String) -> String {
        let names = Self.atsNames
        let list = names.dropLast().joined(separator: ", ") + " or " + names.last!
        let meant = TLSVersion(text).map { "; did you mean \($0)?" } ?? ""
        return "'\(text.prefix(40))' is not an ATS TLS version (\(list), written exactly so)\(meant)"
    }

    private init(wireValue: UInt16) { self.wireValue = wireValue }

    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool { lhs.wireValue < rhs.wireValue }

    /// `TLSv1.2`.
    public var description: String { "TLSv1.\(Int(self.wireValue) - 0x0301)" }
}
