public import SwiftASN1
public import X509

/// Serial numbers must be positive and at most 20 octets.
///
/// RFC 5280 §4.1.2.2: "The serial number MUST be a positive integer … Certificate users MUST be
/// able to handle serialNumber values up to 20 octets. Conforming CAs MUST NOT use serialNumber
/// values longer than 20 octets." The Baseline Requirements §7.1.2.x repeat it.
public struct SerialNumberPolicy: ChainRule, Sendable {
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    /// The longest serial accepted, in octets of its DER content. 20, per RFC 5280.
    public static let maximumOctets = 20

    /// Creates the policy.
    public init() {}

    public func check(_ chain: UnverifiedCertificateChain) -> ServerTrustError? {
        for certificate in chain {
            let bytes = certificate.serialNumber.bytes
            guard let first = bytes.first, first & 0x80 == 0, bytes.contains(where: { $0 != 0 }) else {
                return ServerTrustError(
                    .invalidSerialNumber,
                    "the serial number of \(certificate.subjectText) is not a positive integer"
                )
            }
            if bytes.count > Self.maximumOctets {
                return ServerTrustError(
                    .invalidSerialNumber,
                    "the serial number of \(certificate.subjectText) is \(bytes.count) octets; at most 20 are allowed"
                )
            }
        }
        return nil
    }
}
