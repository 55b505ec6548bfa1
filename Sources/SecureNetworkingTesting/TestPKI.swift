import Crypto
public import Foundation
public import ServerTrust
import SwiftASN1
public import X509
import _CryptoExtras

/// A throw-away public-key infrastructure for tests, minted in memory at a fixed reference time.
///
/// It has a trusted root and intermediate, an RSA intermediate (to sign with SHA-1), an untrusted
/// root with its own intermediate, an "interception" CA (what a proxy such as Charles or mitmproxy
/// asks users to install on a device) and a client CA for mutual TLS. `leaf(_:)` mints a server
/// certificate under any of them with any flaw a test needs; the named chains (`validChain()`,
/// ``expiredChain()``, …) are the cases of the trust matrix.
///
/// Everything is valid around `referenceTime` (2026-01-01T00:00:00Z), so tests validate at
/// that instant and never rot as the calendar moves.
public struct TestPKI: Sendable {
    /// 2026-01-01T00:00:00Z.
    public static let referenceTime = Date(timeIntervalSince1970: 1_767_225_600)

    /// The host names the default leaves are for: `localhost`.
    public static let defaultDNSNames = ["localhost"]
    /// The addresses the default leaves are for: `127.0.0.1` and `::1`.
    public static let defaultIPAddresses = ["127.0.0.1", "::1"]

    /// A certificate with its private key.
    public struct Identity: Sendable {
        /// The certificate.
        public let certificate: Certificate
        /// Its private key.
        public let privateKey: Certificate.PrivateKey

        /// The certificate's DER bytes.
        public var derBytes: [UInt8] { Self.der(self.certificate) }
        /// The certificate as PEM.
        public var pem: String { Self.pem(self.certificate) }
        /// The private key as PEM (PKCS#8 or SEC 1, as swift-certificates writes it).
        public var privateKeyPEM: String { (try? self.privateKey.serializeAsPEM().pemString) ?? "" }
        /// The SPKI pin of the certificate.
        public var pin: Pin { Pin(certificate: self.certificate) }

        static func der(_ certificate: Certificate) -> [UInt8] {
            var serializer = DER.Serializer()
            try? serializer.serialize(certificate)
            return serializer.serializedBytes
        }

        static func pem(_ certificate: Certificate) -> String {
            (try? certificate.serializeAsPEM().pemString) ?? ""
        }
    }

    /// A chain as a server presents it (leaf first), with the leaf's key.
    public struct Chain: Sendable {
        /// The presented certificates, leaf first.
        public let certificates: [Certificate]
        /// The leaf's private key.
        public let leafKey: Certificate.PrivateKey

        /// A chain of any certificates (leaf first), such as a CA presented as if it were a server.
        public init(certificates: [Certificate], leafKey: Certificate.PrivateKey) {
            self.certificates = certificates
            self.leafKey = leafKey
        }

        /// The leaf.
        public var leaf: Certificate { self.certificates[0] }
        /// The leaf with its key, for a TLS server.
        public var leafIdentity: Identity { Identity(certificate: self.leaf, privateKey: self.leafKey) }
        /// Each certificate's DER, leaf first, as a TLS handshake carries them.
        public var derChain: [[UInt8]] { self.certificates.map(Identity.der) }
        /// The chain as concatenated PEM, leaf first.
        public var pem: String { self.certificates.map(Identity.pem).joined(separator: "\n") }
        /// The SPKI pins, leaf first.
        public var pins: [Pin] { self.certificates.map(Pin.init(certificate:)) }
    }

    /// The instant everything is minted around.
    public let referenceTime: Date
    /// The trusted root.
    public let root: Identity
    /// The trusted P-256 intermediate that issues the default leaves.
    public let intermediate: Identity
    /// A trusted RSA-2048 intermediate, for SHA-1 and RSA signatures.
    public let rsaIntermediate: Identity
    /// A root the tests do not trust.
    public let untrustedRoot: Identity
    /// An intermediate under ``untrustedRoot``.
    public let untrustedIntermediate: Identity
    /// An interception CA, as installed on a device by a debugging proxy.
    public let interceptionCA: Identity
    /// The CA that issues client certificates for mutual TLS.
    public let clientCA: Identity

    /// Mints the CAs. Leaves are minted on demand.
    public init(referenceTime: Date = TestPKI.referenceTime) throws {
        self.referenceTime = referenceTime
        let caBefore = referenceTime.addingTimeInterval(-365 * 86_400)
        let caAfter = referenceTime.addingTimeInterval(10 * 365 * 86_400)

        func ca(_ name: String, key: Certificate.PrivateKey, issuer: Identity? = nil) throws -> Identity {
            try Self.makeCA(name: name, key: key, issuer: issuer, notBefore: caBefore, notAfter: caAfter)
        }

        self.root = try ca("SecureNetworking Test Root CA", key: .init(P256.Signing.PrivateKey()))
        self.intermediate = try ca(
            "SecureNetworking Test Intermediate CA",
            key: .init(P256.Signing.PrivateKey()),
            issuer: self.root
        )
        self.rsaIntermediate = try ca(
            "SecureNetworking Test RSA Intermediate CA",
            key: .init(_RSA.Signing.PrivateKey(keySize: .bits2048)),
            issuer: self.root
        )
        self.untrustedRoot = try ca("Untrusted Test Root CA", key: .init(P256.Signing.PrivateKey()))
        self.untrustedIntermediate = try ca(
            "Untrusted Test Intermediate CA",
            key: .init(P256.Signing.PrivateKey()),
            issuer: self.untrustedRoot
        )
        self.interceptionCA = try ca("Interception Proxy CA", key: .init(P256.Signing.PrivateKey()))
        self.clientCA = try ca("SecureNetworking Test Client CA", key: .init(P256.Signing.PrivateKey()))
    }

    /// The trusted anchors: the root only.
    public var trustAnchors: TrustAnchors { .only([self.root.certificate]) }

    /// Mints a CA certificate (self-signed when `issuer` is nil).
    static func makeCA(
        name: String,
        key: Certificate.PrivateKey,
        issuer: Identity?,
        notBefore: Date,
        notAfter: Date,
        keyUsage: KeyUsage? = KeyUsage(keyCertSign: true, cRLSign: true),
        extendedKeyUsage: [ExtendedKeyUsage.Usage]? = nil,
        nameConstraints: NameConstraints? = nil
    ) throws -> Identity {
        var options = CAOptions(name: name)
        options.keyUsage = keyUsage
        options.extendedKeyUsage = extendedKeyUsage
        options.nameConstraints = nameConstraints
        return try Self.makeCA(options, key: key, issuer: issuer, notBefore: notBefore, notAfter: notAfter)
    }

    /// The authorityKeyIdentifier a certificate issued by `issuer` carries: the issuer's
    /// subjectKeyIdentifier (RFC 5280 §4.2.1.1), or the SHA-1 of its key when it has none.
    static func authorityKeyIdentifier(of issuer: Certificate) -> AuthorityKeyIdentifier {
        let identifier =
            (try? issuer.extensions.subjectKeyIdentifier)?.keyIdentifier
            ?? SubjectKeyIdentifier(hash: issuer.publicKey).keyIdentifier
        return AuthorityKeyIdentifier(keyIdentifier: identifier)
    }

    /// A random positive serial of exactly 20 octets, the most RFC 5280 allows.
    static func randomSerialNumber() -> Certificate.SerialNumber {
        var bytes = (0..<20).map { _ in UInt8.random(in: 0...255) }
        bytes[0] = (bytes[0] & 0x7F) | 0x01
        return Certificate.SerialNumber(bytes: bytes)
    }

    /// SHA-256 with the issuer's key type (SHA-384 for P-384), as swift-certificates would pick.
    static func defaultSignatureAlgorithm(for key: Certificate.PrivateKey) -> Certificate.SignatureAlgorithm {
        if P384.Signing.PublicKey(key.publicKey) != nil { return .ecdsaWithSHA384 }
        if P521.Signing.PublicKey(key.publicKey) != nil { return .ecdsaWithSHA512 }
        if _RSA.Signing.PublicKey(key.publicKey) != nil { return .sha256WithRSAEncryption }
        return .ecdsaWithSHA256
    }

    static func sign(
        serialNumber: Certificate.SerialNumber,
        publicKey: Certificate.PublicKey,
        notBefore: Date,
        notAfter: Date,
        issuer: DistinguishedName,
        subject: DistinguishedName,
        extensions: Certificate.Extensions,
        issuerKey: Certificate.PrivateKey,
        signatureAlgorithm: Certificate.SignatureAlgorithm?
    ) throws -> Certificate {
        try Certificate(
            version: .v3,
            serialNumber: serialNumber,
            publicKey: publicKey,
            notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: issuer,
            subject: subject,
            signatureAlgorithm: signatureAlgorithm ?? Self.defaultSignatureAlgorithm(for: issuerKey),
            extensions: extensions,
            issuerPrivateKey: issuerKey
        )
    }
}

extension TestPKI {
    /// Mints another intermediate under the trusted root, with chosen key usage, extended key
    /// usage and name constraints (for the Web PKI rule tests).
    public func makeIntermediate(
        name: String,
        keyUsage: KeyUsage? = KeyUsage(keyCertSign: true, cRLSign: true),
        extendedKeyUsage: [ExtendedKeyUsage.Usage]? = nil,
        nameConstraints: NameConstraints? = nil
    ) throws -> Identity {
        try Self.makeCA(
            name: name,
            key: Certificate.PrivateKey(P256.Signing.PrivateKey()),
            issuer: self.root,
            notBefore: self.referenceTime.addingTimeInterval(-365 * 86_400),
            notAfter: self.referenceTime.addingTimeInterval(10 * 365 * 86_400),
            keyUsage: keyUsage,
            extendedKeyUsage: extendedKeyUsage,
            nameConstraints: nameConstraints
        )
    }
}
