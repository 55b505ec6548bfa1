import Foundation
public import X509

extension TrustAnchors {
    /// The largest certificate file read as trust anchors: 1 MiB, room for a full CA bundle
    /// (the Mozilla bundle is about 220 KB) while a wrong path to a large file fails fast.
    public static let maximumCertificateFileSize = 1 << 20

    /// The system roots and the CA certificates of a PEM (or DER) file, under the Web PKI profile.
    ///
    /// ```swift
    /// policy.trustAnchors = try .system(addingPEMFile: "securenet-dev/ca.pem")
    /// ```
    ///
    /// - Parameter path: the file; a relative path is resolved against the current directory.
    /// - Throws: ``ServerTrustError/Code/unreadableFile`` when the file cannot be read or is larger
    ///   than ``maximumCertificateFileSize``; ``ServerTrustError/Code/notACertificate`` when it holds
    ///   no certificate, or a certificate that is not a CA certificate (basicConstraints cA=TRUE).
    public static func system(addingPEMFile path: String) throws(ServerTrustError) -> TrustAnchors {
        .system(adding: try Self.loadCertificates(pemFile: path))
    }

    /// The CA certificates of a PEM (or DER) file only, in place of the system roots.
    ///
    /// - Parameters:
    ///   - path: the file; a relative path is resolved against the current directory.
    ///   - profile: the certificate profile chains to them are held to; default
    ///     ``CertificateProfile/webPKI``.
    /// - Throws: as ``system(addingPEMFile:)``.
    public static func only(
        pemFile path: String,
        profile: CertificateProfile = .webPKI
    ) throws(ServerTrustError) -> TrustAnchors {
        .only(try Self.loadCertificates(pemFile: path), profile: profile)
    }

    /// The CA certificates of a PEM (or DER) file, checked to be usable as trust anchors.
    ///
    /// - Parameter path: the file; a relative path is resolved against the current directory.
    /// - Returns: the certificates in file order.
    /// - Throws: as ``system(addingPEMFile:)``; the message names the file.
    public static func loadCertificates(pemFile path: String) throws(ServerTrustError) -> [Certificate] {
        let bytes = try readAnchorFile(path)
        do {
            return try Self.anchorCertificates(bytes)
        } catch {
            throw ServerTrustError(error.code, "'\(path)': \(error.message)")
        }
    }

    /// The CA certificates of a PEM text (one or more `CERTIFICATE` blocks).
    ///
    /// - Parameter pem: the PEM text.
    /// - Returns: the certificates in text order.
    /// - Throws: ``ServerTrustError/Code/notACertificate`` when the text holds no certificate, or a
    ///   certificate that is not a CA certificate.
    public static func loadCertificates(pem: String) throws(ServerTrustError) -> [Certificate] {
        guard pem.contains("-----BEGIN") else {
            throw ServerTrustError(.notACertificate, "the text is not PEM (no -----BEGIN line)")
        }
        return try Self.anchorCertificates(Array(pem.utf8))
    }

    /// The certificates of PEM or DER bytes; each must load and be a CA certificate.
    static func anchorCertificates(_ bytes: [UInt8]) throws(ServerTrustError) -> [Certificate] {
        let file = try CertificateFile(bytes: bytes)
        var certificates: [Certificate] = []
        for (index, entry) in file.entries.enumerated() {
            let which = file.entries.count == 1 ? "the certificate" : "certificate \(index + 1)"
            guard let certificate = entry.certificate else {
                let key = entry.rsaKeyBits.map { " (an RSA-\($0) key?)" } ?? ""
                throw ServerTrustError(.notACertificate, "\(which) cannot be loaded\(key)")
            }
            guard certificate.isCertificateAuthority else {
                throw ServerTrustError(
                    .notACertificate,
                    "\(which) (\(certificate.subjectText)) is not a CA certificate (basicConstraints cA=TRUE); trust the CA that issued it"
                )
            }
            certificates.append(certificate)
        }
        return certificates
    }
}

/// The bytes of a trust-anchor file, at most ``TrustAnchors/maximumCertificateFileSize``.
///
/// A FIFO or a device given by mistake (`/dev/zero`) is refused before a byte is read, and a
/// file that grows is not read past one byte more than the limit (``readFile(_:what:limit:)``).
/// - Throws: ``ServerTrustError/Code/unreadableFile`` naming the path.
func readAnchorFile(_ path: String) throws(ServerTrustError) -> [UInt8] {
    Array(try readFile(path, what: "the certificate file", limit: TrustAnchors.maximumCertificateFileSize))
}
