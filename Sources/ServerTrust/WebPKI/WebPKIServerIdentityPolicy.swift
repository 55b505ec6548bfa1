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

    /// The failure of this rule for the chain (leaf first), or nil when it holds.
    public func check(_ chain: UnverifiedCertificateChain) -> ServerTrustError? {
        let leaf = chain.leaf
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
        case .dnsName(let value): return value
        case .ipAddress(let bytes):
            let octets = Array(bytes.bytes)
            if octets.count == 4 { return octets.map(String.init).joined(separator: ".") }
            return stride(from: 0, to: octets.count, by: 2).map {
                String((Int(octets[$0]) << 8) | Int(octets[min($0 + 1, octets.count - 1)]), radix: 16)
            }.joined(separator: ":")
        default: return String(describing: name)
        }
    }
}
