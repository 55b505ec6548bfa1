import SecureNetworkingTesting

/// A PKCS#12 bundle of a test chain (``TestPKI/Chain/pkcs12(passphrase:)``).
enum PKCS12Fixture {
    static func make(_ chain: TestPKI.Chain, passphrase: String) throws -> [UInt8] {
        try chain.pkcs12(passphrase: passphrase)
    }
}
