public import SwiftASN1
public import X509

/// Serial numbers of the presented certificates must be positive and at most 20 octets long.
///
/// RFC 5280 §4.1.2.2: "The serial number MUST be a positive integer … Certificate users MUST be
/// able to handle serialNumber values up to 20 octets. Conforming CAs MUST NOT use serialNumber
/// values longer than 20 octets." The limit is on the value: a 20-octet value whose top bit is
/// set is encoded in 21 content octets, the first a `0x00` sign octet, and is accepted (swift-
/// certificates' own `SerialNumber()` makes such values about half the time). Longer values, zero
/// and negative serials are refused.
///
/// The trust anchor is not judged: it is trusted by configuration, and real roots of the system
/// bundle have serial 0 (Starfield Root Certificate Authority – G2, Go Daddy Root Certificate
/// Authority – G2).
public struct SerialNumberPolicy: ChainRule, Sendable {
    /// The critical extensions this policy processes (the verifier refuses unprocessed ones).
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    /// The longest serial accepted, in octets of its DER content. 20, per RFC 5280.
    public static let maximumOctets = 20

    /// Creates the policy.
    public init() {}

    /// The failure of this rule for a path (leaf first, anchor last), or nil when it holds.
    public func check(certificates: [Certificate]) -> ServerTrustError? {
        for index in certificates.presentedIndices {
            let certificate = certificates[index]
            // swift-certificates holds the unsigned magnitude (it refuses to parse a negative
            // serial, which ServerTrust then reports from the raw DER).
            let magnitude = certificate.serialNumber.bytes.drop(while: { $0 == 0 })
            if magnitude.isEmpty {
                return Self.notPositive(certificate.subjectText)
            }
            if magnitude.count > Self.maximumOctets {
                return Self.tooLong(certificate.subjectText, octets: magnitude.count)
            }
        }
        return nil
    }

    static func tooLong(_ subject: String, octets: Int) -> ServerTrustError {
        ServerTrustError(
            .invalidSerialNumber,
            "the serial number of \(subject) is a \(octets)-octet value; at most 20 octets are allowed (RFC 5280 §4.1.2.2)"
        )
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
        let magnitude = content.drop(while: { $0 == 0 })
        if magnitude.count > Self.maximumOctets {
            return Self.tooLong(subject, octets: magnitude.count)
        }
        return nil
    }
}
