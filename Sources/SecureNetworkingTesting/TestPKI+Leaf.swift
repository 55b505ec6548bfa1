import Crypto
public import Foundation
import SwiftASN1
public import X509
import _CryptoExtras

extension TestPKI {
    /// Which CA signs a leaf.
    public struct Issuer: Sendable {
        let pick: @Sendable (TestPKI) -> (identity: Identity?, presented: [Identity])

        /// The trusted intermediate; the chain presents the intermediate.
        public static let intermediate = Issuer { ($0.intermediate, [$0.intermediate]) }
        /// The trusted RSA intermediate; the chain presents it.
        public static let rsaIntermediate = Issuer { ($0.rsaIntermediate, [$0.rsaIntermediate]) }
        /// The trusted intermediate, but the chain leaves it out (a misconfigured server).
        public static let intermediateNotPresented = Issuer { ($0.intermediate, []) }
        /// The untrusted intermediate; the chain presents it and the untrusted root.
        public static let untrusted = Issuer {
            ($0.untrustedIntermediate, [$0.untrustedIntermediate, $0.untrustedRoot])
        }
        /// The interception CA, presented as a proxy would.
        public static let interceptionCA = Issuer { ($0.interceptionCA, [$0.interceptionCA]) }
        /// The client CA (for client certificates).
        public static let clientCA = Issuer { ($0.clientCA, []) }
        /// The leaf signs itself.
        public static let selfSigned = Issuer { _ in (nil, []) }
        /// Any CA identity, presenting the given certificates after the leaf.
        public static func custom(_ identity: Identity, presenting: [Identity]) -> Issuer {
            Issuer { _ in (identity, presenting) }
        }
    }

    /// The key a leaf gets.
    public struct KeyKind: Sendable {
        let make: @Sendable () throws -> Certificate.PrivateKey

        /// P-256 (the default).
        public static let p256 = KeyKind { .init(P256.Signing.PrivateKey()) }
        /// P-384.
        public static let p384 = KeyKind { .init(P384.Signing.PrivateKey()) }
        /// RSA of the given size; sizes under 2048 use swift-crypto's `unsafeKeySize`.
        public static func rsa(bits: Int) -> KeyKind {
            KeyKind {
                let size = _RSA.Signing.KeySize(bitCount: bits)
                if bits < 2048 { return .init(try _RSA.Signing.PrivateKey(unsafeKeySize: size)) }
                return .init(try _RSA.Signing.PrivateKey(keySize: size))
            }
        }
        /// A fixed key (for rotation tests: same key, new certificate).
        public static func existing(_ key: Certificate.PrivateKey) -> KeyKind { KeyKind { key } }
    }

    /// Everything about a leaf that a test may want to get wrong.
    public struct LeafOptions: Sendable {
        /// The DNS subject alternative names.
        public var dnsNames: [String] = TestPKI.defaultDNSNames
        /// The IP subject alternative names.
        public var ipAddresses: [String] = TestPKI.defaultIPAddresses
        /// Whether to include a subject alternative name extension at all.
        public var includesSubjectAlternativeNames = true
        /// The subject common name; nil leaves it out.
        public var commonName: String? = "localhost"
        /// A subject to use instead of O=SecureNetworking Tests, CN=``commonName`` (an empty name
        /// for an empty subject).
        public var subject: DistinguishedName?
        /// A public key for the leaf instead of ``key``'s (for keys no private key can be made
        /// for, such as an RSA modulus of 2052 bits); the chain's `leafKey` is then unrelated.
        public var publicKey: Certificate.PublicKey?
        /// Seconds from the reference time to notBefore.
        public var notBeforeOffset: TimeInterval = -86_400
        /// Seconds from the reference time to notAfter.
        public var notAfterOffset: TimeInterval = 90 * 86_400
        /// The signer.
        public var issuer: Issuer = .intermediate
        /// The leaf's key.
        public var key: KeyKind = .p256
        /// The signature algorithm; nil uses the issuer key's default (SHA-256 family).
        public var signatureAlgorithm: Certificate.SignatureAlgorithm?
        /// The extended key usages; nil leaves the extension out.
        public var extendedKeyUsage: [ExtendedKeyUsage.Usage]? = [.serverAuth]
        /// The key usage extension; nil leaves it out.
        public var keyUsage: KeyUsage? = KeyUsage(digitalSignature: true)
        /// Whether basic constraints say cA=true.
        public var isCertificateAuthority = false
        /// The serial number as swift-certificates holds it (unsigned big-endian magnitude; a
        /// top bit set adds a leading zero octet on the wire); nil: a random positive 20-octet serial.
        public var serialNumberBytes: [UInt8]?
        /// Whether to include an authorityKeyIdentifier naming the issuer's key (a self-signed
        /// leaf never has one).
        public var includesAuthorityKeyIdentifier = true
        /// Whether the subject alternative name extension is marked critical.
        public var subjectAlternativeNamesAreCritical = false
        /// Whether the extended key usage extension is marked critical.
        public var extendedKeyUsageIsCritical = false
        /// Extra extensions.
        public var extraExtensions: [Certificate.Extension] = []

        /// The default: a valid server leaf for localhost, 127.0.0.1 and ::1 under the intermediate.
        public init() {}
    }

    /// Mints a leaf and returns it as a server would present it.
    public func leaf(_ options: LeafOptions = LeafOptions()) throws -> Chain {
        let key = try options.key.make()
        let (issuer, presented) = options.issuer.pick(self)
        let subject =
            try options.subject
            ?? DistinguishedName {
                OrganizationName("SecureNetworking Tests")
                if let commonName = options.commonName { CommonName(commonName) }
            }
        var extensions = try Certificate.Extensions {
            if options.isCertificateAuthority {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            } else {
                Critical(BasicConstraints.notCertificateAuthority)
            }
        }
        if let keyUsage = options.keyUsage { try extensions.append(Critical(keyUsage).makeCertificateExtension()) }
        if let issuer, options.includesAuthorityKeyIdentifier {
            try extensions.append(Self.authorityKeyIdentifier(of: issuer.certificate).makeCertificateExtension())
        }
        if let usages = options.extendedKeyUsage {
            try extensions.append(
                Certificate.Extension(ExtendedKeyUsage(usages), critical: options.extendedKeyUsageIsCritical)
            )
        }
        if options.includesSubjectAlternativeNames {
            var names = options.dnsNames.map { GeneralName.dnsName($0) }
            for address in options.ipAddresses {
                names.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(try Self.addressBytes(address)))))
            }
            try extensions.append(
                Certificate.Extension(
                    SubjectAlternativeNames(names),
                    critical: options.subjectAlternativeNamesAreCritical
                )
            )
        }
        for ext in options.extraExtensions { try extensions.append(ext) }

        var serial = Self.randomSerialNumber()
        if let bytes = options.serialNumberBytes { serial.bytes = ArraySlice(bytes) }

        let certificate = try Self.sign(
            serialNumber: serial,
            publicKey: options.publicKey ?? key.publicKey,
            notBefore: self.referenceTime.addingTimeInterval(options.notBeforeOffset),
            notAfter: self.referenceTime.addingTimeInterval(options.notAfterOffset),
            issuer: issuer?.certificate.subject ?? subject,
            subject: subject,
            extensions: extensions,
            issuerKey: issuer?.privateKey ?? key,
            signatureAlgorithm: options.signatureAlgorithm
        )
        return Chain(certificates: [certificate] + presented.map(\.certificate), leafKey: key)
    }

    /// Mints a leaf from the defaults changed by `configure`.
    public func leaf(_ configure: (inout LeafOptions) -> Void) throws -> Chain {
        var options = LeafOptions()
        configure(&options)
        return try self.leaf(options)
    }

    static func addressBytes(_ text: String) throws -> [UInt8] {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        throw CocoaError(.formatting)
    }

    // MARK: - The trust matrix

    /// A valid chain for localhost, 127.0.0.1 and ::1: leaf and intermediate.
    public func validChain() throws -> Chain { try self.leaf() }
    /// Expired a day before the reference time.
    public func expiredChain() throws -> Chain {
        try self.leaf {
            $0.notBeforeOffset = -90 * 86_400
            $0.notAfterOffset = -86_400
        }
    }
    /// Valid only from a day after the reference time.
    public func notYetValidChain() throws -> Chain {
        try self.leaf {
            $0.notBeforeOffset = 86_400
            $0.notAfterOffset = 90 * 86_400
        }
    }
    /// For `wrong.example.com` only.
    public func wrongHostChain() throws -> Chain {
        try self.leaf {
            $0.dnsNames = ["wrong.example.com"]
            $0.ipAddresses = []
            $0.commonName = "wrong.example.com"
        }
    }
    /// A self-signed leaf.
    public func selfSignedChain() throws -> Chain { try self.leaf { $0.issuer = .selfSigned } }
    /// A leaf under the untrusted root (the root is presented).
    public func untrustedRootChain() throws -> Chain { try self.leaf { $0.issuer = .untrusted } }
    /// A leaf whose intermediate is not presented.
    public func missingIntermediateChain() throws -> Chain { try self.leaf { $0.issuer = .intermediateNotPresented } }
    /// A leaf signed with SHA-1 (by the RSA intermediate).
    public func sha1Chain() throws -> Chain {
        try self.leaf {
            $0.issuer = .rsaIntermediate
            $0.signatureAlgorithm = .sha1WithRSAEncryption
        }
    }
    /// A leaf with an RSA-1024 key.
    public func rsa1024Chain() throws -> Chain { try self.leaf { $0.key = .rsa(bits: 1024) } }
    /// A leaf for the hosts issued by the interception CA, as a MITM proxy presents it.
    public func interceptionChain() throws -> Chain { try self.leaf { $0.issuer = .interceptionCA } }
    /// A client certificate (clientAuth) for mutual TLS, issued by ``clientCA``.
    public func clientIdentity(commonName: String = "test-client") throws -> Chain {
        try self.leaf {
            $0.issuer = .clientCA
            $0.commonName = commonName
            $0.dnsNames = []
            $0.ipAddresses = []
            $0.includesSubjectAlternativeNames = false
            $0.extendedKeyUsage = [.clientAuth]
        }
    }

    /// A valid chain whose leaf has a negative serial number, as DER (swift-certificates cannot
    /// represent one, so the leaf's TBS is patched and signed again by the intermediate).
    public func negativeSerialChainDER() throws -> [[UInt8]] {
        var marker = [UInt8](repeating: 0x5A, count: 20)
        marker[0] = 0x7E
        let chain = try self.leaf { $0.serialNumberBytes = marker }
        let der = chain.derChain[0]
        let root = try DER.parse(der)
        guard case .constructed(let parts) = root.content else { throw CocoaError(.coderInvalidValue) }
        let nodes = Array(parts)
        var tbs = Array(nodes[0].encodedBytes)
        // INTEGER, length 20, 0x7E 0x5A…: make the first content octet 0xFE (negative).
        let needle: [UInt8] = [0x02, 0x14, 0x7E, 0x5A, 0x5A]
        guard let at = (0...(tbs.count - needle.count)).first(where: { Array(tbs[$0..<($0 + needle.count)]) == needle })
        else {
            throw CocoaError(.coderInvalidValue)
        }
        tbs[at + 2] = 0xFE
        let signature = try self.intermediate.privateKey.sign(bytes: tbs, signatureAlgorithm: .ecdsaWithSHA256)
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { coder in
            coder.serializeRawBytes(tbs[...])
            coder.serializeRawBytes(nodes[1].encodedBytes)
            try coder.serialize(ASN1BitString(bytes: ArraySlice(signature.rawRepresentation)))
        }
        return [serializer.serializedBytes] + Array(chain.derChain.dropFirst())
    }
}
