public import SwiftASN1
public import X509

/// The leaf must name the host in its subject alternative names, with strict wildcard rules.
///
/// - RFC 9525 §6.3 (which obsoletes RFC 6125) and Baseline Requirements §7.1.2.7.12: only the
///   subjectAltName is used; a common name without a SAN never identifies the server.
/// - RFC 9525 §6.3 and RFC 6125 §6.4.3: a wildcard is the whole leftmost label (`*.example.com`),
///   matches exactly one label, and partial-label wildcards (`ba*.example.com`) never match.
/// - Baseline Requirements §3.2.2.6: no wildcard directly over a public suffix (`*.co.uk`) or a
///   single label (`*.com`).
/// - An IP address host matches only an iPAddress SAN of the same bytes (RFC 9525 §6.2).
public struct WebPKIServerIdentityPolicy: ChainRule, Sendable {
    /// The critical extensions this policy processes (the verifier refuses unprocessed ones).
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [.X509ExtensionID.subjectAlternativeName]

    /// The host, normalised.
    public let host: String
    /// Where wildcards may not be placed.
    public let publicSuffixes: PublicSuffixList

    /// Creates the policy for a DNS name or an IP address.
    public init(host: String, publicSuffixes: PublicSuffixList = .builtIn) {
        self.host = HostName.normalise(host)
        self.publicSuffixes = publicSuffixes
    }

    /// The failure of this rule for a path (leaf first, anchor last), or nil when it holds.
    public func check(certificates: [Certificate]) -> ServerTrustError? {
        let leaf = certificates[0]
        let names: SubjectAlternativeNames?
        do {
            names = try leaf.extensions.subjectAlternativeNames
        } catch {
            return ServerTrustError(.hostnameMismatch, "the leaf's subject alternative names are malformed")
        }
        guard let names, !names.isEmpty else {
            return ServerTrustError(
                .hostnameMismatch,
                "the leaf (\(leaf.subjectText)) has no subject alternative name; the common name is not used"
            )
        }
        if self.matches(names) { return nil }
        return ServerTrustError(
            .hostnameMismatch,
            "the leaf is for \(names.map(Self.text).joined(separator: ", ")), not \(self.host)"
        )
    }

    func matches(_ names: SubjectAlternativeNames) -> Bool {
        if let address = IPAddress(self.host) {
            return names.contains { name in
                if case .ipAddress(let bytes) = name { return Array(bytes.bytes) == address.bytes }
                return false
            }
        }
        return names.contains { name in
            if case .dnsName(let pattern) = name { return self.matches(dnsName: pattern) }
            return false
        }
    }

    func matches(dnsName presented: String) -> Bool {
        let presented = HostName.normalise(presented)
        guard presented.hasPrefix("*.") else {
            // A '*' anywhere else (partial label, inner label) never matches.
            return !presented.contains("*") && presented == self.host
        }
        let base = String(presented.dropFirst(2))
        guard !base.contains("*"), !self.publicSuffixes.isPublicSuffix(base) else { return false }
        guard self.host.hasSuffix("." + base) else { return false }
        let label = self.host.dropLast(base.count + 1)
        return !label.isEmpty && !label.contains(".")
    }

    static func text(_ name: GeneralName) -> String {
        switch name {
        case .dnsName(let value): return OutsideText.escaped(value)
        case .ipAddress(let bytes): return Self.addressText(Array(bytes.bytes))
        default: return OutsideText.escaped(String(describing: name))
        }
    }

    /// An address as text: IPv4 dotted-decimal (RFC 3986 §3.2.2), IPv6 in the canonical form of
    /// RFC 5952 §4 (lower case, no leading zeros, the first longest run of two or more zero
    /// groups written `::`); other lengths as hexadecimal.
    static func addressText(_ octets: [UInt8]) -> String {
        if octets.count == 4 { return octets.map(String.init).joined(separator: ".") }
        guard octets.count == 16 else { return octets.map { String($0, radix: 16) }.joined(separator: ":") }
        let groups = stride(from: 0, to: 16, by: 2).map { (Int(octets[$0]) << 8) | Int(octets[$0 + 1]) }
        var best: Range<Int>? = nil
        var start: Int? = nil
        for index in 0...groups.count {
            if index < groups.count, groups[index] == 0 {
                if start == nil { start = index }
            } else if let runStart = start {
                if index - runStart >= 2, index - runStart > (best?.count ?? 0) { best = runStart..<index }
                start = nil
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        guard let run = best else { return hex.joined(separator: ":") }
        return hex[..<run.lowerBound].joined(separator: ":") + "::" + hex[run.upperBound...].joined(separator: ":")
    }
}
