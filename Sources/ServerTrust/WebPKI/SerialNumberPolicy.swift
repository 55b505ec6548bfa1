public import SwiftASN1
public import X509

/// Serial numbers must be positive and at most 20 octets.
///
/// RFC 5280 §4.1.2.2: "The serial number MUST be a positive integer … Certificate users MUST be
/// able to handle serialNumber values up to 20 octets. Conforming CAs MUST NOT use serialNumber
/// values longer than 20 octets." The Baseline Requirements §7.1.2.x repeat it.
public struct SerialNumberPolicy: ChainRule, Sendable {
    /// The critical extensions this policy processes (the verifier refuses unprocessed ones).
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    /// The longest serial accepted, in octets of its DER content. 20, per RFC 5280.
    public static let maximumOctets = 20

    /// Creates the policy.
    public init() {}

    /// The failure of this rule for the chain (leaf first), or nil when it holds.
    public func check(_ chain: UnverifiedCertificateChain) -> ServerTrustError? {
        for certificate in chain {
            // swift-certificates holds the unsigned magnitude (it refuses to parse a negative
            // serial, which ServerTrust then reports from the raw DER); the DER content is one
            // octet longer when the top bit is set.
            let magnitude = certificate.serialNumber.bytes.drop(while: { $0 == 0 })
            guard let first = magnitude.first else {
                return Self.notPositive(certificate.subjectText)
            }
            let octets = magnitude.count + (first & 0x80 == 0 ? 0 : 1)
            if octets > Self.maximumOctets {
                return ServerTrustError(
                    .invalidSerialNumber,
                    "the serial number of \(certificate.subjectText) is \(octets) octets; at most 20 are allowed"
                )
            }
        }
        return nil
    }

    static func notPositive(_ subject: String) -> ServerTrustError {
        ServerTrustError(.invalidSerialNumber, "the serial number of \(subject) is not a positive integer")
    }

    /// Checks the serial number's DER content bytes (two's complement) of a certificate that
    /// could not be parsed.
    static func checkRaw(_ content: ArraySlice<UInt8>, subject: String) -> ServerTrustError? {
        guard let first = content.first, first & 0x80 == 0, content.contains(where: { $0 != 0 }) else {
            return Self.notPositive(subject)
        }
        if content.count > Self.maximumOctets {
            return ServerTrustError(
                .invalidSerialNumber,
                "the serial number of \(subject) is \(content.count) octets; at most 20 are allowed"
            )
        }
        return nil
    }
}
