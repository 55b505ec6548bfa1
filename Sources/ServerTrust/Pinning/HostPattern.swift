/// Which hosts a pin set or a rule applies to, in OkHttp's notation.
///
/// - `api.example.com` matches that host only;
/// - `*.example.com` matches exactly one more label (`api.example.com`, not `a.b.example.com`
///   and not `example.com`);
/// - `**.example.com` matches any depth below `example.com` and `example.com` itself.
///
/// IPv4 and IPv6 addresses can be given as exact patterns: IPv4 in dotted decimal only
/// (`127.0.0.1`; `127.1`, `0x7f.0.0.1` and `017700000001`, which URL parsers read as the same
/// address, are refused), IPv6 in any form, kept in RFC 5952 form; an IPv4-mapped IPv6 address
/// (`::ffff:127.0.0.1`) is the IPv4 address it carries. Matching ignores case and a trailing
/// dot, and reads a host address in any of those spellings as the address it denotes.
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
    ///   a wildcard directly over a single label (such as `*.com`); and when it ends in a number
    ///   (so a URL parser reads it as an IPv4 address) without being one exact IPv4 address in
    ///   dotted decimal (`127.1`, `0x7f.0.0.1`, `0177.0.0.1`, `*.0.0.1`).
    public init(_ pattern: String) throws(ServerTrustError) {
        let text = HostName.normalise(pattern)
        let kind: Kind
        let domain: String
        if text.hasPrefix("**.") {
            (kind, domain) = (.anyDepth, String(text.dropFirst(3)))
        } else if text.hasPrefix("*.") {
            (kind, domain) = (.oneLabel, String(text.dropFirst(2)))
        } else {
            (kind, domain) = (.exact, text)
        }
        self.kind = kind
        // One trailing dot is the most a pattern may carry: `IPAddress` normalises again, and
        // `::..` or `10.0.0.1..` would otherwise be accepted (with a description that reads back
        // as another pattern). Found by fuzzing.
        if kind == .exact, !domain.hasSuffix("."), let address = IPAddress(domain) {
            // One spelling per address, so equal addresses make equal patterns.
            self.domain = address.unmapped.canonicalText
            return
        }
        self.domain = domain
        // WHATWG URL §3.5: a host whose last label is a number is an IPv4 address, whatever the
        // DNS says; only the dotted-decimal spelling is a pattern (a pin written as `127.1` would
        // otherwise be a name that no address host ever matches).
        if IPAddress.endsInANumber(domain) {
            throw ServerTrustError(
                .invalidHostPattern,
                "'\(pattern)' ends in a number, so it names an IPv4 address: write the address as an exact "
                    + "pattern in dotted decimal (such as 127.0.0.1)"
            )
        }
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
        let host = HostName.canonical(host)
        switch self.kind {
        case .exact:
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

    /// The host in the one form that rules compare: normalised, and an address in any spelling a
    /// URL parser or `getaddrinfo` reads (`127.1`, `0x7f.0.0.1`, `017700000001`,
    /// `[::FFFF:7f00:1]`) as its canonical text (``IPAddress/canonicalText``), an IPv4-mapped
    /// IPv6 address as the IPv4 address it carries. A number out of range (`4294967296`) denotes
    /// no address and is left as it is.
    static func canonical(_ host: String) -> String {
        let text = self.normalise(host)
        if let address = IPAddress(text) { return address.unmapped.canonicalText }
        if IPAddress.endsInANumber(text), let bytes = IPAddress.numericIPv4(text) {
            return IPAddress(bytes: bytes).canonicalText
        }
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
