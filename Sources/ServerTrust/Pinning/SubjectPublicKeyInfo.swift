import SwiftASN1

/// Reads the few fields ServerTrust needs straight from certificate DER.
///
/// swift-certificates refuses to parse certificates whose RSA key is under 2048 bits (swift-crypto
/// will not load such a key), so pins and the weak-key diagnosis for those certificates are taken
/// from the raw structure: `Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signature }`
/// and `TBSCertificate ::= SEQUENCE { [0] version OPTIONAL, serialNumber, signature, issuer,
/// validity, subject, subjectPublicKeyInfo, … }` (RFC 5280 §4.1).
enum RawCertificate {
    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 1, 1]

    /// The exact DER bytes of the certificate's SubjectPublicKeyInfo.
    static func subjectPublicKeyInfo(fromCertificateDER der: [UInt8]) throws -> ArraySlice<UInt8> {
        try self.tbsFields(der)[5].encodedBytes
    }

    /// The DER content octets of the serial number (two's complement, as encoded).
    static func serialNumberContent(fromCertificateDER der: [UInt8]) throws -> ArraySlice<UInt8> {
        guard case .primitive(let content) = try self.tbsFields(der)[0].content else {
            throw ASN1Error.invalidASN1Object(reason: "bad serial number")
        }
        return content
    }

    /// Signature algorithms weaker than SHA-2, by OID, with their names.
    static let weakSignatureAlgorithms: [ASN1ObjectIdentifier: String] = [
        [1, 2, 840, 113_549, 1, 1, 2]: "md2WithRSAEncryption",
        [1, 2, 840, 113_549, 1, 1, 4]: "md5WithRSAEncryption",
        [1, 2, 840, 113_549, 1, 1, 5]: "sha1WithRSAEncryption",
        [1, 3, 14, 3, 2, 29]: "sha1WithRSASignature",
        [1, 2, 840, 10045, 4, 1]: "ecdsa-with-SHA1",
        [1, 2, 840, 10040, 4, 3]: "dsa-with-sha1",
    ]

    /// The OID of the certificate's outer signatureAlgorithm.
    static func signatureAlgorithm(fromCertificateDER der: [UInt8]) throws -> ASN1ObjectIdentifier {
        let certificate = try DER.parse(der)
        guard case .constructed(let fields) = certificate.content else {
            throw ASN1Error.invalidASN1Object(reason: "not a certificate")
        }
        let parts = Array(fields)
        guard parts.count == 3, case .constructed(let algorithm) = parts[1].content,
            let oid = algorithm.first(where: { _ in true })
        else { throw ASN1Error.invalidASN1Object(reason: "no signatureAlgorithm") }
        return try ASN1ObjectIdentifier(derEncoded: oid)
    }

    /// The TBSCertificate fields from serialNumber on (the optional version removed).
    private static func tbsFields(_ der: [UInt8]) throws -> [ASN1Node] {
        let certificate = try DER.parse(der)
        guard case .constructed(let certificateFields) = certificate.content,
            let tbs = certificateFields.first(where: { _ in true }),
            case .constructed(let tbsFields) = tbs.content
        else { throw ASN1Error.invalidASN1Object(reason: "not a certificate") }

        var fields = Array(tbsFields)
        if let first = fields.first, first.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
            fields.removeFirst()
        }
        // serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo
        guard fields.count >= 6, fields[5].identifier == .sequence else {
            throw ASN1Error.invalidASN1Object(reason: "no subjectPublicKeyInfo")
        }
        return fields
    }

    /// The RSA modulus size in bits, or nil when the key is not RSA.
    static func rsaModulusBits(subjectPublicKeyInfo spki: ArraySlice<UInt8>) throws -> Int? {
        let node = try DER.parse(spki)
        guard case .constructed(let parts) = node.content else { return nil }
        let partsArray = Array(parts)
        guard partsArray.count == 2, case .constructed(let algorithm) = partsArray[0].content,
            let oidNode = algorithm.first(where: { _ in true })
        else { return nil }
        let oid = try ASN1ObjectIdentifier(derEncoded: oidNode)
        guard oid == Self.rsaEncryption else { return nil }
        let bits = try ASN1BitString(derEncoded: partsArray[1])
        let rsaKey = try DER.parse(bits.bytes)
        guard case .constructed(let numbers) = rsaKey.content, let modulusNode = numbers.first(where: { _ in true }),
            case .primitive(let modulus) = modulusNode.content
        else { return nil }
        let significant = modulus.drop(while: { $0 == 0 })
        guard let top = significant.first else { return 0 }
        return (significant.count - 1) * 8 + (8 - top.leadingZeroBitCount)
    }
}
