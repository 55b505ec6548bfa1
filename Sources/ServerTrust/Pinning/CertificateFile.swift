import Foundation
import SwiftASN1
public import X509

/// Certificates read from a PEM or DER file, with what `securenet pins` prints for each.
public struct CertificateFile: Sendable {
    /// One certificate of a file.
    public struct Entry: Sendable {
        /// The certificate's DER bytes.
        public let der: [UInt8]
        /// The parsed certificate, or nil when swift-certificates cannot load it (an RSA key
        /// under 2048 bits, for example); the pin is still known.
        public let certificate: Certificate?
        /// The SPKI pin.
        public let pin: Pin
        /// The RSA modulus size, when the key is RSA.
        public let rsaKeyBits: Int?
    }

    /// The certificates, in file order.
    public let entries: [Entry]

    /// Reads a file holding one or more PEM certificates, or one DER certificate.
    /// - Throws: ``ServerTrustError/Code/unreadableFile`` or ``ServerTrustError/Code/notACertificate``.
    public init(path: String) throws(ServerTrustError) {
        let data = try readFile(path, what: "the certificate file")
        do {
            try self.init(bytes: Array(data))
        } catch {
            throw ServerTrustError(error.code, "'\(path)': \(error.message)")
        }
    }

    /// Reads PEM text or DER bytes.
    /// - Throws: ``ServerTrustError/Code/notACertificate`` when no certificate can be read.
    public init(bytes: [UInt8]) throws(ServerTrustError) {
        let ders: [[UInt8]]
        if let text = String(validating: bytes, as: UTF8.self), text.contains("-----BEGIN") {
            ders = try Self.derCertificates(inPEM: text)
        } else {
            ders = [bytes]
        }
        self.entries = try ders.map { der throws(ServerTrustError) in
            let spki: ArraySlice<UInt8>
            do {
                spki = try RawCertificate.subjectPublicKeyInfo(fromCertificateDER: der)
            } catch {
                throw ServerTrustError(.notACertificate, "the data is not a DER certificate")
            }
            return Entry(
                der: der,
                certificate: try? Certificate(derEncoded: der),
                pin: Pin(subjectPublicKeyInfoDER: spki),
                rsaKeyBits: try? RawCertificate.rsaModulusBits(subjectPublicKeyInfo: spki)
            )
        }
    }

    /// The DER bytes of each `CERTIFICATE` block in a PEM text.
    static func derCertificates(inPEM pem: String) throws(ServerTrustError) -> [[UInt8]] {
        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: pem)
        } catch {
            throw ServerTrustError(.notACertificate, "the PEM text cannot be parsed")
        }
        let certificates = documents.filter { $0.discriminator == "CERTIFICATE" }.map(\.derBytes)
        guard !certificates.isEmpty else {
            throw ServerTrustError(.notACertificate, "the PEM text holds no CERTIFICATE block")
        }
        return certificates
    }
}
