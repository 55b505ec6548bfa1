/// Rules on the keys and signatures of a validated chain, as App Transport Security states them.
public struct CertificateRules: Hashable, Sendable {
    /// The smallest RSA modulus accepted, in bits. Default 2048.
    public var minimumRSAKeySize: Int
    /// The smallest elliptic-curve key accepted, in bits. Default 256.
    public var minimumECKeySize: Int
    /// Whether every signature below the trust anchor must use SHA-256 or stronger. Default true.
    public var requiresSHA2Signatures: Bool

    /// The ATS rules: RSA ≥ 2048, EC ≥ 256, SHA-2 signatures.
    public static let `default` = CertificateRules(
        minimumRSAKeySize: 2048,
        minimumECKeySize: 256,
        requiresSHA2Signatures: true
    )

    /// Creates rules.
    /// - Important: lowering these below the defaults accepts keys and signatures that can be forged.
    public init(minimumRSAKeySize: Int, minimumECKeySize: Int, requiresSHA2Signatures: Bool) {
        self.minimumRSAKeySize = minimumRSAKeySize
        self.minimumECKeySize = minimumECKeySize
        self.requiresSHA2Signatures = requiresSHA2Signatures
    }
}
