public import NIOSSL

extension TestPKI.Identity {
    /// The certificate as a NIOSSL certificate.
    public func nioCertificate() throws -> NIOSSLCertificate {
        try NIOSSLCertificate(bytes: self.derBytes, format: .der)
    }

    /// The private key as a NIOSSL key.
    public func nioPrivateKey() throws -> NIOSSLPrivateKey {
        try NIOSSLPrivateKey(bytes: Array(self.privateKeyPEM.utf8), format: .pem)
    }
}

extension TestPKI.Chain {
    /// The certificates a server presents (leaf first), as NIOSSL sources.
    public func nioCertificateChain() throws -> [NIOSSLCertificateSource] {
        try self.derChain.map { .certificate(try NIOSSLCertificate(bytes: $0, format: .der)) }
    }

    /// The leaf's private key as a NIOSSL key source.
    public func nioPrivateKey() throws -> NIOSSLPrivateKeySource {
        .privateKey(try self.leafIdentity.nioPrivateKey())
    }
}
