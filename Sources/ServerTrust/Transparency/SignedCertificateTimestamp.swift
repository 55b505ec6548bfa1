import Crypto
public import Foundation
public import SwiftASN1
public import X509

/// A signed certificate timestamp (SCT): a CT log's promise to publish a certificate
/// (RFC 6962 §3.2), as carried in a certificate, a TLS extension or an OCSP response.
///
/// Only version 1 (`v1(0)`) exists; an SCT of any other version is refused when the list is read,
/// as RFC 6962 §3.2 lets a client do ("clients that do not understand a version MUST ignore it"
/// — here it is kept out of the list, so it never counts).
public struct SignedCertificateTimestamp: Hashable, Sendable {
    /// Where an SCT came from. An SCT over a precertificate is only ever embedded in the
    /// certificate; SCTs from the TLS extension or an OCSP response sign the certificate itself.
    public enum Origin: String, Hashable, Sendable, Codable {
        /// The certificate's SignedCertificateTimestampList extension (RFC 6962 §3.3).
        case embedded
        /// The TLS `signed_certificate_timestamp` extension (RFC 6962 §3.3.1).
        case tlsExtension
        /// A stapled OCSP response's SCT list extension (RFC 6962 §3.3.1).
        case ocspResponse
    }

    /// The SHA-256 hash of the log's public key (SubjectPublicKeyInfo DER), 32 bytes.
    public let logID: [UInt8]
    /// When the log issued the SCT, in milliseconds since the Unix epoch (leap seconds ignored).
    public let timestamp: UInt64
    /// The SCT's extensions (none are defined in RFC 6962; signed over as they are).
    public let extensions: [UInt8]
    /// The TLS `HashAlgorithm` of the signature (4 = SHA-256, the only one RFC 6962 §2.1.4 allows).
    public let hashAlgorithm: UInt8
    /// The TLS `SignatureAlgorithm` of the signature (1 = RSA, 3 = ECDSA).
    public let signatureAlgorithm: UInt8
    /// The signature: DER ECDSA-Sig-Value for ECDSA, the PKCS #1 v1.5 signature for RSA.
    public let signature: [UInt8]
    /// Where the SCT came from.
    public let origin: Origin

    /// When the log issued the SCT.
    public var date: Date { Date(timeIntervalSince1970: Double(self.timestamp) / 1000) }

    /// The most SCTs read from one list; a list with more is refused as malformed. Real
    /// certificates carry 2 to 5.
    public static let maximumListCount = 32

    /// The OID of the embedded SCT list extension (RFC 6962 §3.3).
    public static let embeddedListExtension: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 11129, 2, 4, 2]
    /// The DER encoding of ``embeddedListExtension``.
    static let embeddedListExtensionDER: [UInt8] = [
        0x06, 0x0A, 0x2B, 0x06, 0x01, 0x04, 0x01, 0xD6, 0x79, 0x02, 0x04, 0x02,
    ]
    /// The OID of the precertificate poison extension (RFC 6962 §3.1).
    public static let poisonExtension: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 11129, 2, 4, 3]
    /// The OID of the SCT list extension of an OCSP SingleResponse (RFC 6962 §3.3).
    public static let ocspListExtension: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 11129, 2, 4, 5]

    /// Creates an SCT from its fields (for tests and for SCTs parsed elsewhere).
    public init(
        logID: [UInt8],
        timestamp: UInt64,
        extensions: [UInt8] = [],
        hashAlgorithm: UInt8 = 4,
        signatureAlgorithm: UInt8,
        signature: [UInt8],
        origin: Origin
    ) {
        self.logID = logID
        self.timestamp = timestamp
        self.extensions = extensions
        self.hashAlgorithm = hashAlgorithm
        self.signatureAlgorithm = signatureAlgorithm
        self.signature = signature
        self.origin = origin
    }

    /// Reads a `SignedCertificateTimestampList` (RFC 6962 §3.3): a 16-bit length, then SCTs each
    /// prefixed by a 16-bit length.
    ///
    /// - Throws: ``ServerTrustError/Code/ctMalformedSCT`` for a truncated or overlong list, an
    ///   empty list or SCT, a list of more than ``maximumListCount`` SCTs, an SCT of a version
    ///   other than v1, or bytes left over anywhere.
    public static func parseList(
        _ bytes: some Collection<UInt8>,
        origin: Origin
    ) throws(ServerTrustError) -> [SignedCertificateTimestamp] {
        var reader = TLSReader(Array(bytes))
        let list = try reader.vector(lengthBytes: 2, what: "the SCT list")
        guard reader.isAtEnd else { throw malformed("bytes follow the SCT list") }
        guard !list.isEmpty else { throw malformed("the SCT list is empty") }
        var listReader = TLSReader(list)
        var timestamps: [SignedCertificateTimestamp] = []
        while !listReader.isAtEnd {
            guard timestamps.count < Self.maximumListCount else {
                throw malformed("the SCT list holds more than \(Self.maximumListCount) SCTs")
            }
            let serialized = try listReader.vector(lengthBytes: 2, what: "an SCT")
            timestamps.append(try Self(serialized: serialized, origin: origin))
        }
        return timestamps
    }

    /// Reads one `SignedCertificateTimestamp` structure (RFC 6962 §3.2).
    init(serialized: [UInt8], origin: Origin) throws(ServerTrustError) {
        guard !serialized.isEmpty else { throw malformed("an SCT is empty") }
        var reader = TLSReader(serialized)
        let version = try reader.integer(bytes: 1, what: "the SCT version")
        guard version == 0 else { throw malformed("an SCT has version \(version); only v1 (0) is known") }
        self.logID = try reader.bytes(32, what: "the log ID")
        self.timestamp = try reader.integer(bytes: 8, what: "the timestamp")
        self.extensions = try reader.vector(lengthBytes: 2, what: "the SCT extensions")
        self.hashAlgorithm = UInt8(try reader.integer(bytes: 1, what: "the hash algorithm"))
        self.signatureAlgorithm = UInt8(try reader.integer(bytes: 1, what: "the signature algorithm"))
        self.signature = try reader.vector(lengthBytes: 2, what: "the signature")
        guard !self.signature.isEmpty else { throw malformed("an SCT has an empty signature") }
        guard reader.isAtEnd else { throw malformed("bytes follow an SCT") }
        self.origin = origin
    }

    /// The SCTs embedded in a certificate, or an empty list when it has no SCT list extension.
    ///
    /// - Throws: ``ServerTrustError/Code/ctMalformedSCT`` when the extension is there but is not
    ///   an OCTET STRING holding a valid list.
    public static func embedded(in certificate: Certificate) throws(ServerTrustError) -> [SignedCertificateTimestamp] {
        guard let ext = certificate.extensions[oid: Self.embeddedListExtension] else { return [] }
        // extnValue holds the DER encoding of an OCTET STRING whose contents are the TLS list.
        let inner: ASN1OctetString
        do {
            inner = try ASN1OctetString(derEncoded: ext.value)
        } catch {
            throw malformed("the SCT list extension is not an OCTET STRING")
        }
        return try Self.parseList(inner.bytes, origin: .embedded)
    }

    /// The TLS encoding of this SCT (RFC 6962 §3.2), as it appears in a list.
    public var serialized: [UInt8] {
        var out: [UInt8] = [0]
        out += self.logID
        out.appendInteger(self.timestamp, bytes: 8)
        out.appendInteger(UInt64(self.extensions.count), bytes: 2)
        out += self.extensions
        out.append(self.hashAlgorithm)
        out.append(self.signatureAlgorithm)
        out.appendInteger(UInt64(self.signature.count), bytes: 2)
        out += self.signature
        return out
    }

    /// The TLS encoding of a `SignedCertificateTimestampList` holding `timestamps`.
    public static func serializeList(_ timestamps: [SignedCertificateTimestamp]) -> [UInt8] {
        var body: [UInt8] = []
        for sct in timestamps {
            let one = sct.serialized
            body.appendInteger(UInt64(one.count), bytes: 2)
            body += one
        }
        var out: [UInt8] = []
        out.appendInteger(UInt64(body.count), bytes: 2)
        return out + body
    }

    // MARK: - What the log signs

    /// The data a log signs for a precertificate entry (RFC 6962 §3.2, `digitally-signed struct`
    /// with `signature_type` certificate_timestamp and `entry_type` precert_entry): the issuer's
    /// key hash and the TBSCertificate.
    public static func signedData(
        timestamp: UInt64,
        extensions: [UInt8],
        issuerKeyHash: [UInt8],
        precertificateTBS: [UInt8]
    ) -> [UInt8] {
        var out: [UInt8] = [0, 0]  // sct_version v1, signature_type certificate_timestamp
        out.appendInteger(timestamp, bytes: 8)
        out.appendInteger(1, bytes: 2)  // entry_type precert_entry
        out += issuerKeyHash
        out.appendInteger(UInt64(precertificateTBS.count), bytes: 3)
        out += precertificateTBS
        out.appendInteger(UInt64(extensions.count), bytes: 2)
        out += extensions
        return out
    }

    /// The data a log signs for an X.509 entry (the certificate itself; SCTs delivered by TLS
    /// or OCSP).
    public static func signedData(timestamp: UInt64, extensions: [UInt8], certificateDER: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0, 0]
        out.appendInteger(timestamp, bytes: 8)
        out.appendInteger(0, bytes: 2)  // entry_type x509_entry
        out.appendInteger(UInt64(certificateDER.count), bytes: 3)
        out += certificateDER
        out.appendInteger(UInt64(extensions.count), bytes: 2)
        out += extensions
        return out
    }

    /// The TBSCertificate a log signed for the precertificate behind `certificate`: the
    /// certificate's own TBSCertificate with the SCT list extension removed, re-encoded
    /// (RFC 6962 §3.2: "the TBSCertificate component of the final certificate, with the SCT list
    /// extension removed"; RFC 6962 §3.1 has the precertificate's poison removed to the same end).
    ///
    /// - Throws: ``ServerTrustError/Code/ctMalformedSCT`` when the TBSCertificate cannot be read.
    public static func precertificateTBS(of certificate: Certificate) throws(ServerTrustError) -> [UInt8] {
        do {
            return try DERWalker.tbs(certificate.tbsCertificateBytes, removingExtension: Self.embeddedListExtensionDER)
        } catch {
            throw malformed("the certificate's TBSCertificate cannot be rebuilt without its SCT list")
        }
    }
}

func malformed(_ message: String) -> ServerTrustError {
    ServerTrustError(.ctMalformedSCT, message)
}

/// Reads TLS presentation-language structures (RFC 8446 §3): big-endian integers and
/// length-prefixed vectors, never past the end.
struct TLSReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { self.offset == self.bytes.count }

    mutating func bytes(_ count: Int, what: String) throws(ServerTrustError) -> [UInt8] {
        guard count <= self.bytes.count - self.offset else { throw malformed("\(what) is truncated") }
        defer { self.offset += count }
        return Array(self.bytes[self.offset..<self.offset + count])
    }

    mutating func integer(bytes count: Int, what: String) throws(ServerTrustError) -> UInt64 {
        try self.bytes(count, what: what).reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func vector(lengthBytes: Int, what: String) throws(ServerTrustError) -> [UInt8] {
        let length = try self.integer(bytes: lengthBytes, what: "the length of \(what)")
        return try self.bytes(Int(length), what: what)
    }
}

extension [UInt8] {
    mutating func appendInteger(_ value: UInt64, bytes: Int) {
        for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) {
            self.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
