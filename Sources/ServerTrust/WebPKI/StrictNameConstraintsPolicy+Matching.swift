import SwiftASN1
import X509

/// How one name is compared with one constraint of its type (RFC 5280 §4.2.1.10).
enum NameMatching {
    /// The name forms; only the first five can be evaluated.
    enum Kind: Equatable, CustomStringConvertible {
        case dns, ip, uri, email, directory, other(String)

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
                    return .failure(Problem(reason: "the DNS name \(text.debugDescription) is not a valid host name"))
                }
                return .success(.dns(labels: labels))
            case .ipAddress(let octets):
                let bytes = Array(octets.bytes)
                guard bytes.count == 4 || bytes.count == 16 else {
                    return .failure(Problem(reason: "an IP address name of \(bytes.count) octets"))
                }
                return .success(.ip(bytes))
            case .uniformResourceIdentifier(let text):
                guard let host = NameMatching.uriHost(text), let labels = NameMatching.dnsLabels(host, allowsWildcard: false) else {
                    return .failure(
                        Problem(reason: "the URI \(text.debugDescription) has no host name to check (RFC 5280 §4.2.1.10)")
                    )
                }
                return .success(.uri(host: labels))
            case .rfc822Name(let text):
                guard let at = text.lastIndex(of: "@"), at != text.startIndex,
                    let domain = NameMatching.dnsLabels(String(text[text.index(after: at)...]), allowsWildcard: false)
                else {
                    return .failure(Problem(reason: "the e-mail address \(text.debugDescription) is malformed"))
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

    /// Whether the name is within the constraint's subtree. With `everyInstance`, a wildcard name
    /// matches only if every name it stands for does (for permitted subtrees); without, if any
    /// does (for excluded subtrees).
    static func matches(_ candidate: Candidate, _ constraint: GeneralName, everyInstance: Bool) -> Bool {
        switch (candidate, constraint) {
        case (.dns(let labels), .dnsName(let text)):
            guard let subtree = DomainSubtree(text) else { return true }  // Refused earlier; fail closed.
            return subtree.contains(labels, everyInstance: everyInstance)
        case (.ip(let address), .ipAddress(let octets)):
            let range = Array(octets.bytes)
            if range.count == address.count * 2 {
                return zip(address, zip(range.prefix(address.count), range.suffix(address.count))).allSatisfy {
                    ($0 & $1.1) == ($1.0 & $1.1)
                }
            }
            // An IPv4-mapped IPv6 name is also the IPv4 address: never let it slip past an
            // excluded IPv4 range.
            if !everyInstance, address.count == 16, range.count == 8,
                address.prefix(12).elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF])
            {
                return self.matches(.ip(Array(address.suffix(4))), constraint, everyInstance: false)
            }
            return false
        case (.uri(let host), .uniformResourceIdentifier(let text)):
            guard let subtree = DomainSubtree(text) else { return true }
            return subtree.containsHost(host)
        case (.email(let local, let domain), .rfc822Name(let text)):
            if text.isEmpty { return true }
            if let at = text.lastIndex(of: "@") {
                guard let constraintDomain = self.dnsLabels(String(text[text.index(after: at)...]), allowsWildcard: false) else {
                    return true
                }
                return text[..<at] == local && constraintDomain == domain
            }
            guard let subtree = DomainSubtree(text) else { return true }
            return subtree.containsHost(domain)
        case (.directory(let rdns), .directoryName(let name)):
            let prefix = self.normalised(name)
            return prefix.count <= rdns.count && zip(prefix, rdns).allSatisfy { $0 == $1 }
        default:
            return false
        }
    }

    /// Why a constraint is malformed, or nil.
    static func constraintProblem(_ constraint: GeneralName) -> String? {
        switch constraint {
        case .dnsName(let text), .uniformResourceIdentifier(let text):
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
            guard let labels = NameMatching.dnsLabels(strictlyBelow ? String(text.dropFirst()) : text, allowsWildcard: false) else {
                return nil
            }
            self.labels = labels
            self.strictlyBelow = strictlyBelow
        }

        func contains(_ name: [Substring], everyInstance: Bool) -> Bool {
            guard name.count >= self.labels.count + (self.strictlyBelow ? 1 : 0) else { return false }
            for (presented, required) in zip(name, self.labels) where presented != required {
                // A wildcard label stands for any one label: some instance equals `required`,
                // but not every instance does.
                if presented == "*" && !everyInstance { continue }
                return false
            }
            return true
        }

        /// For URI and e-mail constraints, where `host.example.com` is that host only and
        /// `.example.com` any host below the domain (RFC 5280 §4.2.1.10).
        func containsHost(_ host: [Substring]) -> Bool {
            if self.labels.isEmpty || self.strictlyBelow { return self.contains(host, everyInstance: true) }
            return host == self.labels
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
        case .dnsName(let value): return "dNSName \(value.debugDescription)"
        case .uniformResourceIdentifier(let value): return "URI \(value.debugDescription)"
        case .rfc822Name(let value): return "rfc822Name \(value.debugDescription)"
        case .directoryName(let value): return "directoryName \"\(value)\""
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
