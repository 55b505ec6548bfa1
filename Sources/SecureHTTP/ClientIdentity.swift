/// The certificate and private key a client presents for mutual TLS.
///
/// It holds the encoded bytes; each transport loads them into its own TLS stack
/// (NIOSSL here, Security.framework on Apple platforms) and fails with
/// ``SecureHTTPError/Code/invalidClientIdentity`` when they cannot be loaded.
/// Its description never shows the key or the passphrase.
public struct ClientIdentity: Sendable, CustomStringConvertible {
    enum Storage: Sendable {
        case pem(certificateChain: [UInt8], privateKey: [UInt8])
        case pkcs12(bundle: [UInt8], passphrase: [UInt8]?)
    }

    let storage: Storage

    /// An identity from PEM: the certificate chain (leaf first) and the private key.
    public static func pem(
        certificateChain: some Collection<UInt8>,
        privateKey: some Collection<UInt8>
    ) -> ClientIdentity {
        ClientIdentity(storage: .pem(certificateChain: Array(certificateChain), privateKey: Array(privateKey)))
    }

    /// An identity from PEM strings: the certificate chain (leaf first) and the private key.
    public static func pem(certificateChain: String, privateKey: String) -> ClientIdentity {
        .pem(certificateChain: Array(certificateChain.utf8), privateKey: Array(privateKey.utf8))
    }

    /// An identity from a PKCS#12 (`.p12`/`.pfx`) bundle and its passphrase.
    public static func pkcs12(_ bundle: some Collection<UInt8>, passphrase: String?) -> ClientIdentity {
        ClientIdentity(storage: .pkcs12(bundle: Array(bundle), passphrase: passphrase.map { Array($0.utf8) }))
    }

    /// The kind of identity, never its contents.
    public var description: String {
        switch self.storage {
        case .pem: "ClientIdentity(PEM, key redacted)"
        case .pkcs12: "ClientIdentity(PKCS#12, passphrase redacted)"
        }
    }
}

extension ClientIdentity: CustomReflectable {
    /// What `dump()`, debuggers and `Mirror` see: the kind of identity, never the key, the
    /// bundle or the passphrase.
    public var customMirror: Mirror {
        Mirror(self, children: ["kind": self.description], displayStyle: .struct)
    }
}
