import Crypto
public import Foundation
import SwiftASN1
public import X509

/// A public-key pin: the SHA-256 digest of a certificate's SubjectPublicKeyInfo DER.
///
/// Written `sha256/BASE64`, the form of OkHttp, TrustKit and Apple's `NSPinnedDomains`. Pinning
/// the key rather than the certificate lets a server renew its certificate without breaking the
/// app, as long as it keeps the key (or moves to the backup key).
public struct Pin: Hashable, Sendable, CustomStringConvertible {
    /// The 32 bytes of the SHA-256 digest.
    public let digest: [UInt8]

    /// The algorithm prefix of the text form.
    public static let prefix = "sha256/"

    /// Creates a pin from the 32 bytes of a SHA-256 digest.
    /// - Throws: ``ServerTrustError/Code/invalidPin`` when the digest is not 32 bytes.
    public init(sha256Digest: some Sequence<UInt8>) throws(ServerTrustError) {
        let bytes = Array(sha256Digest)
        guard bytes.count == SHA256.byteCount else {
            throw ServerTrustError(.invalidPin, "a SHA-256 pin is 32 bytes, not \(bytes.count)")
        }
        self.digest = bytes
    }

    /// Parses `sha256/BASE64`, or bare base64 of the digest as TrustKit and ATS write it.
    /// - Throws: ``ServerTrustError/Code/invalidPin`` naming the problem: an unsupported
    ///   algorithm prefix, text that is not base64, or a digest of the wrong length.
    public init(_ text: String) throws(ServerTrustError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var encoded = trimmed
        if trimmed.lowercased().hasPrefix(Self.prefix) {
            encoded = String(trimmed.dropFirst(Self.prefix.count))
        } else if let separator = trimmed.firstIndex(where: { $0 == "/" || $0 == ":" }),
            trimmed.count != 44,
            trimmed[..<separator].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }),
            trimmed.distance(from: trimmed.startIndex, to: separator) <= 10
        {
            let algorithm = trimmed[..<separator]
            throw ServerTrustError(
                .invalidPin,
                "unsupported pin prefix '\(algorithm)\(trimmed[separator])': only sha256/ pins are supported"
            )
        }
        guard !encoded.isEmpty else { throw ServerTrustError(.invalidPin, "the pin is empty") }
        guard let data = Data(base64Encoded: encoded) else {
            throw ServerTrustError(.invalidPin, "the pin '\(trimmed)' is not valid base64")
        }
        guard data.count == SHA256.byteCount else {
            throw ServerTrustError(
                .invalidPin,
                "the pin '\(trimmed)' decodes to \(data.count) bytes; a SHA-256 pin is 32 bytes"
            )
        }
        self.digest = Array(data)
    }

    /// The pin of a DER-encoded SubjectPublicKeyInfo.
    public init(subjectPublicKeyInfoDER: some DataProtocol) {
        self.digest = Array(SHA256.hash(data: subjectPublicKeyInfoDER))
    }

    /// The pin of a certificate's public key.
    public init(certificate: Certificate) {
        // Serialising an in-memory key does not fail; if it ever did, the digest of no bytes is
        // a pin that matches no real key, so pinning fails closed.
        var serializer = DER.Serializer()
        if (try? serializer.serialize(certificate.publicKey)) == nil { serializer = DER.Serializer() }
        self.init(subjectPublicKeyInfoDER: serializer.serializedBytes)
    }

    /// The pin of a DER-encoded certificate, taken from its SubjectPublicKeyInfo bytes as encoded.
    ///
    /// Works for certificates swift-certificates cannot load (such as RSA-1024 keys), so a
    /// weak server can still be reported with its pin.
    /// - Throws: ``ServerTrustError/Code/notACertificate`` when the bytes are not a certificate.
    public init(certificateDER: some Sequence<UInt8>) throws(ServerTrustError) {
        do {
            let spki = try RawCertificate.subjectPublicKeyInfo(fromCertificateDER: Array(certificateDER))
            self.init(subjectPublicKeyInfoDER: spki)
        } catch {
            throw ServerTrustError(.notACertificate, "the data is not a DER certificate")
        }
    }

    /// The pins of every certificate in a PEM text, in order.
    /// - Throws: ``ServerTrustError/Code/notACertificate`` when it holds no certificate or a bad one.
    public static func pins(inPEM pem: String) throws(ServerTrustError) -> [Pin] {
        try CertificateFile.derCertificates(inPEM: pem).map { der throws(ServerTrustError) in
            try Pin(certificateDER: der)
        }
    }

    /// `sha256/BASE64`.
    public var description: String { Self.prefix + self.base64 }

    /// The bare base64 digest, as TrustKit and ATS write it.
    public var base64: String { Data(self.digest).base64EncodedString() }
}

extension Pin: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        try self.init(container.decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.description)
    }
}
