public import SwiftASN1
public import X509

/// The leaf's common name, when it has one, repeats one of its subject alternative names.
///
/// BR §7.1.4.3 (§7.1.2.7.2 in BR 2.x): "If present, this attribute MUST contain exactly one entry
/// that is one of the values contained in the Certificate's subjectAltName extension", written
/// as RFC 3986 §3.2.2 dotted-decimal for IPv4 (no leading zeros, no hexadecimal), RFC 5952 §4
/// text for IPv6 (lower case, `::` used to the full), and a character-for-character copy of the
/// dNSName for a domain (A-labels, same case). The name is still matched against the host from
/// the subjectAltName only (``WebPKIServerIdentityPolicy``).
///
/// The rule binds the CA, not the client: no client uses the common name for identity (RFC 9525
/// §6.3; nor do Apple, Chrome or Firefox), so an inconsistent one lets nobody impersonate a host.
/// ``ServerTrust`` therefore reports it as a ``TrustWarning`` (``TrustWarning/Code/commonNameInconsistent``)
/// in ``TrustDecision/warnings`` and does not refuse the chain, under the Web PKI profile only. As a
/// ``ChainRule`` run in a `Verifier` of your own, a failure is
/// ``ServerTrustError/Code/certificateProfileViolation``.
public struct CommonNamePolicy: ChainRule, Sendable {
    /// The critical extensions this policy processes (the verifier refuses unprocessed ones).
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    /// Creates the policy.
    public init() {}

    /// The failure of this rule for a path (leaf first, anchor last), or nil when it holds.
    public func check(certificates: [Certificate]) -> ServerTrustError? {
        self.problem(certificates).map(Self.failure)
    }

    /// The warning ``ServerTrust`` reports for a validated path, or nil when the rule holds.
    public func warning(certificates: [Certificate]) -> TrustWarning? {
        self.problem(certificates).map { TrustWarning(.commonNameInconsistent, $0) }
    }

    func problem(_ certificates: [Certificate]) -> String? {
        guard let leaf = certificates.first else { return nil }
        var commonNames: [RelativeDistinguishedName.Attribute.Value] = []
        for rdn in leaf.subject {
            for attribute in rdn where attribute.type == .RDNAttributeType.commonName {
                commonNames.append(attribute.value)
            }
        }
        guard let value = commonNames.first else { return nil }
        if commonNames.count > 1 {
            return "the leaf has \(commonNames.count) common names; at most one is allowed (BR §7.1.4.3)"
        }
        guard let text = String(value) else {
            return "the leaf's common name is in a string type that is not read (T61String, BMPString, …; BR §7.1.4.3)"
        }
        guard let names = try? leaf.extensions.subjectAlternativeNames, !names.isEmpty else {
            return nil  // No SAN: the identity policy refuses the leaf with its own reason.
        }
        let matches = names.contains { name in
            switch name {
            case .dnsName(let dns): return dns == text
            case .ipAddress(let octets): return WebPKIServerIdentityPolicy.addressText(Array(octets.bytes)) == text
            default: return false
            }
        }
        if matches { return nil }
        return
            "the leaf's common name \(OutsideText.quoted(text)) is not written exactly as one of its subject alternative names (BR §7.1.4.3)"
    }

    private static func failure(_ message: String) -> ServerTrustError {
        ServerTrustError(.certificateProfileViolation, message)
    }
}
