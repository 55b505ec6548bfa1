import Crypto
import Foundation
import SecureNetworkingTesting
import SwiftASN1
import Testing
import X509

@testable import ServerTrust

/// The header walker the CT check uses instead of a full parse: it must agree with SwiftASN1 and
/// refuse what is not DER.
@Suite("DER walker")
struct DERWalkerTests {
    @Test func theRebuiltTBSMatchesSwiftASN1sRebuild() throws {
        for count in 1...3 {
            let logs = Array(CTFixtures.logs.prefix(count))
            let leaf = try Fixtures.pki.leafWithSCTs(scts: logs.map { .init($0) }).chain.leaf
            let walked = try DERWalker.tbs(
                leaf.tbsCertificateBytes,
                removingExtension: SignedCertificateTimestamp.embeddedListExtensionDER
            )
            let parsed = try Self.rebuiltTBS(
                leaf.tbsCertificateBytes,
                removing: SignedCertificateTimestamp.embeddedListExtension
            )
            #expect(walked == parsed)
            #expect(walked.count < leaf.tbsCertificateBytes.count)
        }
        // Removing an extension the certificate does not have changes nothing.
        let plain = try Fixtures.pki.validChain().leaf
        #expect(
            try DERWalker.tbs(
                plain.tbsCertificateBytes,
                removingExtension: SignedCertificateTimestamp.embeddedListExtensionDER
            ) == Array(plain.tbsCertificateBytes)
        )
    }

    @Test func theSPKIIsTheOneSwiftCertificatesEncodes() throws {
        for identity in [Fixtures.pki.intermediate, Fixtures.pki.rsaIntermediate, Fixtures.pki.root] {
            var serializer = DER.Serializer()
            try serializer.serialize(identity.certificate.publicKey)
            #expect(
                Array(try DERWalker.subjectPublicKeyInfo(ofTBS: identity.certificate.tbsCertificateBytes))
                    == serializer.serializedBytes
            )
        }
    }

    @Test(
        arguments: [
            ("empty", [UInt8]()),
            ("truncated", [0x30, 0x05, 0x02, 0x01]),
            ("indefinite length", [0x30, 0x80, 0x00, 0x00]),
            ("non-minimal length", [0x30, 0x81, 0x03, 0x02, 0x01, 0x01]),
            ("high tag number", [0x30, 0x03, 0x1F, 0x01, 0x00]),
            ("trailing bytes", [0x30, 0x03, 0x02, 0x01, 0x01, 0x00]),
            ("length beyond the input", [0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF]),
        ] as [(String, [UInt8])]
    )
    func malformedInputIsRefused(name: String, bytes: [UInt8]) {
        #expect(throws: DERWalker.Malformed.self, "\(name)") {
            try DERWalker.tbs(bytes[...], removingExtension: SignedCertificateTimestamp.embeddedListExtensionDER)
        }
    }

    @Test func p256SignaturesAreReadStrictly() throws {
        let key = P256.Signing.PrivateKey()
        for _ in 0..<20 {
            let signature = try key.signature(for: Array("message".utf8))
            #expect(DERWalker.p256Signature(Array(signature.derRepresentation)) == Array(signature.rawRepresentation))
        }
        let one: [UInt8] = [0x02, 0x01, 0x01]
        #expect(
            DERWalker.p256Signature([0x30, 0x06] + one + one) == [UInt8](repeating: 0, count: 31) + [1]
                + [UInt8](repeating: 0, count: 31) + [1]
        )
        // Negative, needless leading zero, too long, one integer, trailing bytes.
        #expect(DERWalker.p256Signature([0x30, 0x06, 0x02, 0x01, 0x80] + one) == nil)
        #expect(DERWalker.p256Signature([0x30, 0x07, 0x02, 0x02, 0x00, 0x01] + one) == nil)
        #expect(
            DERWalker.p256Signature([0x30, 0x25, 0x02, 0x21, 0x01] + [UInt8](repeating: 1, count: 32) + one) == nil
        )
        #expect(DERWalker.p256Signature([0x30, 0x03] + one) == nil)
        #expect(DERWalker.p256Signature([0x30, 0x06] + one + one + [0]) == nil)
    }

    /// A reference implementation on SwiftASN1's tree, for the walker to agree with: `tbs` with the extension `oid` removed from its `[3] EXPLICIT Extensions` (dropping the
    /// field if no extension remains).
    static func rebuiltTBS(_ tbs: ArraySlice<UInt8>, removing oid: ASN1ObjectIdentifier) throws -> [UInt8] {
        let root = try DER.parse(tbs)
        guard root.identifier == .sequence, case .constructed(let fields) = root.content else {
            throw ASN1Error.invalidASN1Object(reason: "the TBSCertificate is not a SEQUENCE")
        }
        let extensionsTag = ASN1Identifier(tagWithNumber: 3, tagClass: .contextSpecific)
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { coder in
            for field in fields {
                guard field.identifier == extensionsTag else {
                    coder.serialize(field)
                    continue
                }
                guard case .constructed(let wrapped) = field.content,
                    let list = wrapped.first(where: { _ in true }), list.identifier == .sequence,
                    case .constructed(let extensions) = list.content
                else { throw ASN1Error.invalidASN1Object(reason: "bad extensions") }
                let kept = try extensions.filter { ext in
                    guard case .constructed(let parts) = ext.content, let first = parts.first(where: { _ in true })
                    else {
                        throw ASN1Error.invalidASN1Object(reason: "bad extension")
                    }
                    return try ASN1ObjectIdentifier(derEncoded: first) != oid
                }
                guard !kept.isEmpty else { continue }
                try coder.appendConstructedNode(identifier: extensionsTag) { coder in
                    try coder.appendConstructedNode(identifier: .sequence) { coder in
                        for ext in kept { coder.serialize(ext) }
                    }
                }
            }
        }
        return serializer.serializedBytes
    }
}
