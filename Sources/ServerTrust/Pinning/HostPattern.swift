/// Which hosts a pin set or a rule applies to, in OkHttp's notation.
///
/// - `api.example.com` matches that host only;
/// - `*.example.com` matches exactly one more label (`api.example.com`, not `a.b.example.com`
///   and not `example.com`);
/// - `**.example.com` matches any depth below `example.com` and `example.com` itself.
///
/// IPv4 and IPv6 addresses can be given as exact patterns. Matching ignores case and a
/// trailing dot.
public struct HostPattern: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Int, Hashable, Sendable {
        case anyDepth = 0
        case oneLabel = 1
        case exact = 2
    }

    let kind: Kind
    /// The domain (or address) after the wildcard label, normalised.
    let domain: String

    /// Parses a pattern.
    /// - Throws: ``ServerTrustError/Code/invalidHostPattern`` when it is empty, has an empty label,
    ///   a wildcard anywhere but as the whole first label, characters a host name cannot have, or
    ///   a wildcard directly over a single label (such as `*.com`).
    public init(_ pattern: String) throws(ServerTrustError) {
        let text = HostName.normalise(pattern)
        if text.hasPrefix("**.") {
            self.kind = .anyDepth
            self.domain = String(text.dropFirst(3))
        } else if text.hasPrefix("*.") {
            self.kind = .oneLabel
            self.domain = String(text.dropFirst(2))
        } else {
            self.kind = .exact
            self.domain = text
        }
        // One trailing dot is the most a pattern may carry: `IPAddress` normalises again, and
        // `::..` or `10.0.0.1..` would otherwise be accepted (with a description that reads back
        // as another pattern). Found by fuzzing.
        if self.kind == .exact, !self.domain.hasSuffix("."), HostName.isIPAddress(self.domain) { return }
        guard !self.domain.isEmpty else {
            throw ServerTrustError(.invalidHostPattern, "'\(pattern)' names no host")
        }
        let labels = self.domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.allSatisfy({ !$0.isEmpty }) else {
            throw ServerTrustError(.invalidHostPattern, "'\(pattern)' has an empty label")
        }
        guard labels.allSatisfy({ $0.utf8.allSatisfy(HostName.isHostCharacter) }) else {
            throw ServerTrustError(
                .invalidHostPattern,
                "'\(pattern)': a wildcard may only be the whole first label ('*.' or '**.'), and a host "
                    + "name has only letters, digits, '-' and '_'"
            )
        }
        if self.kind != .exact, labels.count < 2 {
            throw ServerTrustError(.invalidHostPattern, "'\(pattern)' covers a whole top-level domain")
        }
    }

    /// Whether the host (a DNS name or an IP address) matches.
    public func matches(_ host: String) -> Bool {
        let host = HostName.normalise(host)
        switch self.kind {
        case .exact:
            if let pattern = IPAddress(self.domain), let address = IPAddress(host) { return pattern == address }
            return host == self.domain
        case .oneLabel:
            guard host.hasSuffix("." + self.domain) else { return false }
            let label = host.dropLast(self.domain.count + 1)
            return !label.isEmpty && !label.contains(".")
        case .anyDepth:
            return host == self.domain || host.hasSuffix("." + self.domain)
        }
    }

    /// Orders patterns so that the most specific one wins: an exact host beats any wildcard, a
    /// longer domain beats a shorter one, and `*.` beats `**.` over the same domain.
    func isMoreSpecific(than other: HostPattern) -> Bool {
        if (self.kind == .exact) != (other.kind == .exact) { return self.kind == .exact }
        let mine = self.domain.split(separator: ".").count
        let theirs = other.domain.split(separator: ".").count
        if mine != theirs { return mine > theirs }
        return self.kind.rawValue > other.kind.rawValue
    }

    /// The pattern as written in normal form.
    public var description: String {
        switch self.kind {
        case .exact: return self.domain
        case .oneLabel: return "*." + self.domain
        case .anyDepth: return "**." + self.domain
        }
    }
}

/// Host-name helpers shared by patterns, the transport policy and identity checks.
enum HostName {
    /// Lowercases ASCII, strips one trailing dot and IPv6 brackets.
    static func normalise(_ host: String) -> String {
        var text = host.lowercased()
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    static func isHostCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    static func isIPAddress(_ host: String) -> Bool {
        IPAddress(host) != nil
    }
}
