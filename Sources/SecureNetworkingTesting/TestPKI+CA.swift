import Crypto
import Foundation
import SwiftASN1
public import X509

extension TestPKI {
    /// Everything about a CA certificate that a conformance test may want to get wrong.
    ///
    /// The defaults make a CA that meets RFC 5280 and the Baseline Requirements' CA profile:
    /// critical basicConstraints with cA=TRUE, critical keyUsage keyCertSign and cRLSign, a
    /// subjectKeyIdentifier, and an authorityKeyIdentifier when it is not self-signed.
    public struct CAOptions: Sendable {
        /// The common name of the subject (with O=SecureNetworking Tests).
        public var name: String
        /// A subject to use instead of the one made from ``name`` (an empty name for an empty subject).
        public var subject: DistinguishedName?
        /// The CA's key.
        public var key: KeyKind = .p256
        /// Whether basicConstraints is present at all.
        public var includesBasicConstraints = true
        /// Whether basicConstraints says cA=TRUE.
        public var isCertificateAuthority = true
        /// The pathLenConstraint.
        public var maximumPathLength: Int?
        /// Whether basicConstraints is marked critical.
        public var basicConstraintsIsCritical = true
        /// The key usage; nil leaves the extension out.
        public var keyUsage: KeyUsage? = KeyUsage(keyCertSign: true, cRLSign: true)
        /// The extended key usages; nil leaves the extension out.
        public var extendedKeyUsage: [ExtendedKeyUsage.Usage]?
        /// Name constraints, as swift-certificates encodes them (marked critical).
        public var nameConstraints: NameConstraints?
        /// Whether to include a subjectKeyIdentifier.
        public var includesSubjectKeyIdentifier = true
        /// Whether to include an authorityKeyIdentifier naming the issuer's key (never on a
        /// self-signed CA unless ``authorityKeyIdentifier`` is set).
        public var includesAuthorityKeyIdentifier = true
        /// An authorityKeyIdentifier to use instead of the computed one (also on a self-signed CA).
        public var authorityKeyIdentifier: AuthorityKeyIdentifier?
        /// The serial number's magnitude; nil: a random positive 20-octet serial.
        public var serialNumberBytes: [UInt8]?
        /// The signature algorithm; nil uses the issuer key's default.
        public var signatureAlgorithm: Certificate.SignatureAlgorithm?
        /// Extra extensions, encoded by the caller (malformed ones included).
        public var extraExtensions: [Certificate.Extension] = []

        /// A conforming CA named `name`.
        public init(name: String) {
            self.name = name
        }
    }

    /// Mints a CA under `issuer` (self-signed when nil), valid around the reference time.
    ///
    /// - Parameters:
    ///   - options: what the CA certificate holds.
    ///   - issuer: the issuing CA; nil for a self-signed root.
    public func makeCA(_ options: CAOptions, issuer: Identity?) throws -> Identity {
        try Self.makeCA(
            options,
            key: try options.key.make(),
            issuer: issuer,
            notBefore: self.referenceTime.addingTimeInterval(-365 * 86_400),
            notAfter: self.referenceTime.addingTimeInterval(10 * 365 * 86_400)
        )
    }

    /// Mints a CA with configuration `configure` applied to the defaults.
    public func makeCA(
        name: String,
        issuer: Identity?,
        _ configure: (inout CAOptions) -> Void = { _ in }
    ) throws -> Identity {
        var options = CAOptions(name: name)
        configure(&options)
        return try self.makeCA(options, issuer: issuer)
    }

    static func makeCA(
        _ options: CAOptions,
        key: Certificate.PrivateKey,
        issuer: Identity?,
        notBefore: Date,
        notAfter: Date
    ) throws -> Identity {
        let subject =
            try options.subject
            ?? DistinguishedName {
                OrganizationName("SecureNetworking Tests")
                CommonName(options.name)
            }
        var extensions = Certificate.Extensions()
        if options.includesBasicConstraints {
            let constraints: BasicConstraints =
                options.isCertificateAuthority
                ? .isCertificateAuthority(maxPathLength: options.maximumPathLength) : .notCertificateAuthority
            try extensions.append(Certificate.Extension(constraints, critical: options.basicConstraintsIsCritical))
        }
        if options.includesSubjectKeyIdentifier {
            try extensions.append(SubjectKeyIdentifier(hash: key.publicKey).makeCertificateExtension())
        }
        if let aki = options.authorityKeyIdentifier {
            try extensions.append(aki.makeCertificateExtension())
        } else if let issuer, options.includesAuthorityKeyIdentifier {
            try extensions.append(Self.authorityKeyIdentifier(of: issuer.certificate).makeCertificateExtension())
        }
        if let keyUsage = options.keyUsage { try extensions.append(Critical(keyUsage).makeCertificateExtension()) }
        if let usages = options.extendedKeyUsage {
            try extensions.append(ExtendedKeyUsage(usages).makeCertificateExtension())
        }
        if let constraints = options.nameConstraints {
            try extensions.append(Critical(constraints).makeCertificateExtension())
        }
        for ext in options.extraExtensions { try extensions.append(ext) }

        var serial = Self.randomSerialNumber()
        if let bytes = options.serialNumberBytes { serial.bytes = ArraySlice(bytes) }
        let certificate = try Self.sign(
            serialNumber: serial,
            publicKey: key.publicKey,
            notBefore: notBefore,
            notAfter: notAfter,
            issuer: issuer?.certificate.subject ?? subject,
            subject: subject,
            extensions: extensions,
            issuerKey: issuer?.privateKey ?? key,
            signatureAlgorithm: options.signatureAlgorithm
        )
        return Identity(certificate: certificate, privateKey: key)
    }
}
