import SwiftASN1
import X509

/// How one name is compared with one constraint of its type (RFC 5280 §4.2.1.10).
enum NameMatching {
    /// The name forms; only the first five can be evaluated.
    enum Kind: Equatable, CustomStringConvertible {
        case dns, ip, uri, email, directory
        case other(String)

        init(_ name: GeneralName) {
            switch name {
            case .dnsName: self = .dns
            case .ipAddress: self = .ip
            case .uniformResourceIdentifier: self = .uri
            case .rfc822Name: self = .email
            case .directoryName: self = .directory
            case .otherName: self = .other("otherName")
            case .x400Address: self = .other("x400Address")
            case .ediPartyName: self = .other("ediPartyName")
            case .registeredID: self = .other("registeredID")
            }
        }

        var isSupported: Bool {
            if case .other = self { return false }
            return true
        }

        var description: String {
            switch self {
            case .dns: return "dNSName"
            case .ip: return "iPAddress"
            case .uri: return "uniformResourceIdentifier"
            case .email: return "rfc822Name"
            case .directory: return "directoryName"
            case .other(let name): return name
            }
        }
    }

    /// A name of a certificate, parsed for comparison.
    enum Candidate {
        /// Labels from the top-level domain down, lower-cased; a leading `*` label is a wildcard.
        case dns(labels: [Substring])
        case ip([UInt8])
        /// The host name of the URI, as DNS labels.
        case uri(host: [Substring])
        case email(local: Substring, domain: [Substring])
        case directory([Set<DirectoryAttribute>])

        struct Problem: Error {
            let reason: String
        }

        static func make(_ name: GeneralName) -> Result<Candidate, Problem> {
            switch name {
            case .dnsName(let text):
                guard let labels = NameMatching.dnsLabels(text, allowsWildcard: true) else {
                    return .failure(
                        Problem(reason: "the DNS name \(OutsideText.quoted(text)) is not a valid host name")
                    )
                }
                return .success(.dns(labels: labels))
            case .ipAddress(let octets):
                let bytes = Array(octets.bytes)
                guard bytes.count == 4 || bytes.count == 16 else {
                    return .failure(Problem(reason: "an IP address name of \(bytes.count) octets"))
                }
                return .success(.ip(bytes))
            case .uniformResourceIdentifier(let text):
                guard let host = NameMatching.uriHost(text),
                    let labels = NameMatching.dnsLabels(host, allowsWildcard: false)
                else {
                    return .failure(
                        Problem(
                            reason: "the URI \(OutsideText.quoted(text)) has no host name to check (RFC 5280 §4.2.1.10)"
                        )
                    )
                }
                return .success(.uri(host: labels))
            case .rfc822Name(let text):
                guard let at = text.lastIndex(of: "@"), at != text.startIndex,
                    let domain = NameMatching.dnsLabels(String(text[text.index(after: at)...]), allowsWildcard: false)
                else {
                    return .failure(Problem(reason: "the e-mail address \(OutsideText.quoted(text)) is malformed"))
                }
                return .success(.email(local: text[..<at], domain: domain))
            case .directoryName(let name):
                return .success(.directory(NameMatching.normalised(name)))
            default:
                return .failure(Problem(reason: "a name of an unsupported form"))
            }
        }
    }

    /// One attribute of a distinguished name, its text value compared without regard to case and
    /// repeated white space (RFC 5280 §7.1, RFC 4518), other values compared as encoded.
    struct DirectoryAttribute: Hashable {
        let type: ASN1ObjectIdentifier
        let text: String?
        let raw: RelativeDistinguishedName.Attribute.Value?
    }

    static func normalised(_ name: DistinguishedName) -> [Set<DirectoryAttribute>] {
        name.map { rdn in
            Set(
                rdn.map { attribute in
                    if let text = String(attribute.value) {
                        let folded = text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
                        return DirectoryAttribute(type: attribute.type, text: folded, raw: nil)
                    }
                    return DirectoryAttribute(type: attribute.type, text: nil, raw: attribute.value)
                }
            )
        }
    }

    /// One list of subtrees (permitted or excluded), indexed by name type. DNS, URI and e-mail
    /// domains are kept in sets of their text, and a name is looked up one suffix at a time; IP
    /// ranges are masked integers; directory names are compared as RDN prefixes.
    struct Index {
        /// A set of domains: `example.com` (the domain and below, or for URI and e-mail hosts,
        /// that host only) and `.example.com` (strictly below), plus whether an empty constraint
        /// (every name) is present.
        struct Domains {
            var all = false
            var domains: Set<String> = []
            var strictlyBelow: Set<String> = []
            /// The parents of `domains` (`example.com` for `bar.example.com`): what a wildcard
            /// `*.example.com` can stand for one of.
            var parents: Set<String> = []
            var isEmpty = true

            mutating func insert(_ subtree: DomainSubtree) {
                self.isEmpty = false
                if subtree.labels.isEmpty {
                    self.all = true
                } else if subtree.strictlyBelow {
                    self.strictlyBelow.insert(Self.text(subtree.labels[...]))
                } else {
                    self.domains.insert(Self.text(subtree.labels[...]))
                    self.parents.insert(Self.text(subtree.labels.dropLast()))
                }
            }

            /// `labels` (top-level first) as a domain name.
            static func text(_ labels: ArraySlice<Substring>) -> String {
                labels.reversed().joined(separator: ".")
            }

            /// Whether the DNS name (top-level first; a leading `*` label a wildcard) is within a
            /// subtree: for every name a wildcard stands for, or for some.
            func containsDNS(_ name: [Substring], everyInstance: Bool) -> Bool {
                if self.all { return true }
                let isWildcard = name.last == "*"
                // Suffixes of the literal labels: depth 1 (the top-level domain) up to the whole
                // name, or up to the wildcard's base.
                let literalDepth = isWildcard ? name.count - 1 : name.count
                for depth in stride(from: 1, through: literalDepth, by: 1) {
                    let domain = Self.text(name[..<depth])
                    if self.domains.contains(domain) { return true }
                    // Strictly below: a proper suffix (the wildcard's base is one for every instance).
                    if depth < name.count, self.strictlyBelow.contains(domain) { return true }
                }
                // Some name `*.example.com` stands for is `bar.example.com` itself.
                if isWildcard, !everyInstance, name.count > 1,
                    self.parents.contains(Self.text(name[..<(name.count - 1)]))
                {
                    return true
                }
                return false
            }

            /// Whether a URI or e-mail host is within: that host exactly, or strictly below.
            func containsHost(_ host: [Substring]) -> Bool {
                if self.all { return true }
                if self.domains.contains(Self.text(host[...])) { return true }
                for depth in stride(from: 1, to: host.count, by: 1)
                where self.strictlyBelow.contains(Self.text(host[..<depth])) {
                    return true
                }
                return false
            }
        }

        /// An address range as masked 128-bit integers (IPv4 in the low 32 bits).
        struct Range {
            let isIPv4: Bool
            let high: UInt64, low: UInt64
            let maskHigh: UInt64, maskLow: UInt64

            func contains(_ address: (isIPv4: Bool, high: UInt64, low: UInt64)) -> Bool {
                address.isIPv4 == self.isIPv4 && address.high & self.maskHigh == self.high & self.maskHigh
                    && address.low & self.maskLow == self.low & self.maskLow
            }
        }

        var dns = Domains()
        var uri = Domains()
        var emailDomains = Domains()
        var mailboxes: Set<String> = []
        var ranges: [Range] = []
        var directories: [[Set<DirectoryAttribute>]] = []
        var kinds: [Kind] = []

        init(_ subtrees: [GeneralName]) {
            for subtree in subtrees {
                let kind = Kind(subtree)
                if !self.kinds.contains(kind) { self.kinds.append(kind) }
                switch subtree {
                case .dnsName(let text):
                    if let domain = DomainSubtree(text) { self.dns.insert(domain) }
                case .uniformResourceIdentifier(let text):
                    if let domain = DomainSubtree(text) { self.uri.insert(domain) }
                case .rfc822Name(let text):
                    if let at = text.lastIndex(of: "@"),
                        let domain = NameMatching.dnsLabels(
                            String(text[text.index(after: at)...]),
                            allowsWildcard: false
                        )
                    {
                        self.mailboxes.insert(String(text[..<at]) + "@" + Domains.text(domain[...]))
                    } else if let domain = DomainSubtree(text) {
                        self.emailDomains.insert(domain)
                    }
                case .ipAddress(let octets):
                    let bytes = Array(octets.bytes)
                    let half = bytes.count / 2
                    let address = NameMatching.integer(Array(bytes.prefix(half)))
                    let mask = NameMatching.integer(Array(bytes.suffix(half)))
                    self.ranges.append(
                        Range(
                            isIPv4: half == 4,
                            high: address.high,
                            low: address.low,
                            maskHigh: mask.high,
                            maskLow: mask.low
                        )
                    )
                case .directoryName(let name):
                    self.directories.append(NameMatching.normalised(name))
                default:
                    break
                }
            }
        }

        /// Whether the list has a subtree of this name type.
        func constrains(_ kind: Kind) -> Bool { self.kinds.contains(kind) }

        /// Whether the name is within one of the subtrees. With `everyInstance`, a wildcard name
        /// is within only if every name it stands for is (for permitted subtrees); without, if
        /// any is (for excluded subtrees).
        func contains(_ candidate: Candidate, everyInstance: Bool) -> Bool {
            switch candidate {
            case .dns(let labels):
                return self.dns.containsDNS(labels, everyInstance: everyInstance)
            case .ip(let bytes):
                let address = NameMatching.integer(bytes)
                if self.ranges.contains(where: { $0.contains((bytes.count == 4, address.high, address.low)) }) {
                    return true
                }
                // An IPv4-mapped IPv6 name is also the IPv4 address: never let it slip past an
                // excluded IPv4 range.
                if !everyInstance, bytes.count == 16,
                    bytes.prefix(12).elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF])
                {
                    let v4 = NameMatching.integer(Array(bytes.suffix(4)))
                    return self.ranges.contains(where: { $0.contains((true, v4.high, v4.low)) })
                }
                return false
            case .uri(let host):
                return self.uri.containsHost(host)
            case .email(let local, let domain):
                if self.emailDomains.containsHost(domain) { return true }
                return self.mailboxes.contains(String(local) + "@" + Domains.text(domain[...]))
            case .directory(let rdns):
                return self.directories.contains { prefix in
                    prefix.count <= rdns.count && zip(prefix, rdns).allSatisfy { $0 == $1 }
                }
            }
        }
    }

    /// Network-order bytes (4 or 16) as two 64-bit halves.
    static func integer(_ bytes: [UInt8]) -> (high: UInt64, low: UInt64) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            if bytes.count == 16, index < 8 {
                high = high << 8 | UInt64(byte)
            } else {
                low = low << 8 | UInt64(byte)
            }
        }
        return (high, low)
    }

    /// Why a constraint is malformed, or nil.
    static func constraintProblem(_ constraint: GeneralName) -> String? {
        switch constraint {
        case .dnsName(let text):
            // RFC 5280 §4.2.1.10 gives a leading period a meaning in URI and e-mail constraints
            // only; OpenSSL reads `.example.com` as "strictly below", others as malformed, so a
            // DNS constraint spelled that way is refused rather than guessed at (x509-limbo's
            // rfc5280::nc::invalid-dnsname-leading-period).
            if text.hasPrefix(".") {
                return "\(self.text(constraint)) is not a domain (a leading period is not allowed in a DNS constraint)"
            }
            return DomainSubtree(text) == nil ? "\(self.text(constraint)) is not a domain" : nil
        case .uniformResourceIdentifier(let text):
            return DomainSubtree(text) == nil ? "\(self.text(constraint)) is not a domain" : nil
        case .rfc822Name(let text):
            if text.isEmpty { return nil }
            if let at = text.lastIndex(of: "@") {
                let domainOK = self.dnsLabels(String(text[text.index(after: at)...]), allowsWildcard: false) != nil
                return at != text.startIndex && domainOK ? nil : "\(self.text(constraint)) is not a mailbox"
            }
            return DomainSubtree(text) == nil ? "\(self.text(constraint)) is not a domain" : nil
        case .ipAddress(let octets):
            let bytes = Array(octets.bytes)
            guard bytes.count == 8 || bytes.count == 32 else {
                return "an iPAddress constraint of \(bytes.count) octets (8 or 32 expected)"
            }
            let mask = bytes.suffix(bytes.count / 2).flatMap { byte in (0..<8).map { (byte >> (7 - $0)) & 1 } }
            let ones = mask.prefix(while: { $0 == 1 }).count
            return mask.dropFirst(ones).contains(1) ? "the iPAddress constraint's mask is not a prefix (RFC 4632)" : nil
        default:
            return nil
        }
    }

    /// A DNS-style constraint: empty (every name), `example.com` (the domain and below) or
    /// `.example.com` (strictly below).
    struct DomainSubtree {
        let labels: [Substring]
        let strictlyBelow: Bool

        init?(_ text: String) {
            if text.isEmpty {
                self.labels = []
                self.strictlyBelow = false
                return
            }
            let strictlyBelow = text.hasPrefix(".")
            guard
                let labels = NameMatching.dnsLabels(
                    strictlyBelow ? String(text.dropFirst()) : text,
                    allowsWildcard: false
                )
            else {
                return nil
            }
            self.labels = labels
            self.strictlyBelow = strictlyBelow
        }
    }

    /// The labels of a host name from the top-level domain down, lower-cased, or nil when it is
    /// not a valid name: 1…253 octets, labels of 1…63 letters, digits, `-` or `_` that neither
    /// start nor end with `-`, a top-level label that is not all digits, and (if allowed) a
    /// leftmost label `*` alone.
    static func dnsLabels(_ text: String, allowsWildcard: Bool) -> [Substring]? {
        let lowered = text.lowercased()
        guard (1...253).contains(lowered.utf8.count), lowered.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        let labels = lowered.split(separator: ".", omittingEmptySubsequences: false)
        for (index, label) in labels.enumerated() {
            if label == "*" {
                guard allowsWildcard, index == 0, labels.count > 1 else { return nil }
                continue
            }
            guard (1...63).contains(label.utf8.count), label.first != "-", label.last != "-" else { return nil }
            guard label.utf8.allSatisfy({ HostName.isHostCharacter($0) }) else { return nil }
        }
        if let top = labels.last, top.allSatisfy(\.isNumber) { return nil }
        return labels.reversed()
    }

    /// The host of a URI with an authority (`scheme://[userinfo@]host[:port]…`), or nil when it
    /// has none or the host is an IP literal.
    static func uriHost(_ text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        let rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { return nil }
        let authority = rest.dropFirst(2).prefix(while: { !"/?#".contains($0) })
        var host = authority
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        if host.hasPrefix("[") { return nil }
        if let port = host.firstIndex(of: ":") { host = host[..<port] }
        let name = String(host)
        guard !name.isEmpty, IPAddress(name) == nil else { return nil }
        return name
    }

    static func text(_ name: GeneralName) -> String {
        switch name {
        case .dnsName(let value): return "dNSName \(OutsideText.quoted(value))"
        case .uniformResourceIdentifier(let value): return "URI \(OutsideText.quoted(value))"
        case .rfc822Name(let value): return "rfc822Name \(OutsideText.quoted(value))"
        case .directoryName(let value): return "directoryName \(OutsideText.quoted(String(describing: value)))"
        case .ipAddress(let octets):
            let bytes = Array(octets.bytes)
            if bytes.count == 8 || bytes.count == 32 {
                let half = bytes.count / 2
                let prefix = bytes.suffix(half).reduce(0) { $0 + $1.nonzeroBitCount }
                return "iPAddress \(WebPKIServerIdentityPolicy.addressText(Array(bytes.prefix(half))))/\(prefix)"
            }
            return "iPAddress \(WebPKIServerIdentityPolicy.addressText(bytes))"
        default: return String(describing: Kind(name))
        }
    }
}
