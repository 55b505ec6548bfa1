import Crypto
public import Foundation
import _CryptoExtras

/// A public key that signs pin-set updates: compiled into the app, so that the app accepts an
/// update (``SignedPinSetUpdate``) only from whoever holds the private half.
///
/// An Ed25519 key (RFC 8032) or an ECDSA P-256 key, given as a PEM `PUBLIC KEY`
/// (SubjectPublicKeyInfo, what `openssl pkey -pubout` and `securenet pins keygen` write). Its
/// ``id`` is the SHA-256 digest of that SubjectPublicKeyInfo, written like a pin
/// (`sha256/BASE64`): a signed update names the key it was signed with by this id.
///
/// Give the verifier at least two keys (the one in use and a backup kept offline), so that the
/// update key itself can rotate: sign with the backup, then ship an app that trusts a new one.
public struct PinUpdateKey: Hashable, Sendable, CustomStringConvertible {
    /// A signature algorithm of pin-set updates.
    public struct Algorithm: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case ed25519 = "Ed25519"
            case p256 = "ECDSA P-256 SHA-256"
        }
        fileprivate let base: Base

        /// Ed25519 (RFC 8032): a 64-byte signature over the exact bytes.
        public static let ed25519 = Algorithm(base: .ed25519)
        /// ECDSA over P-256 with SHA-256 (FIPS 186-5): a DER `ECDSA-Sig-Value` over the exact
        /// bytes, as `openssl dgst -sha256 -sign` writes it.
        public static let p256 = Algorithm(base: .p256)

        public var description: String { self.base.rawValue }
    }

    /// The SHA-256 digest of the key's SubjectPublicKeyInfo DER, which a signed update names.
    public let id: Pin
    /// The key's algorithm.
    public let algorithm: Algorithm
    /// The key's SubjectPublicKeyInfo, DER-encoded.
    public let subjectPublicKeyInfoDER: [UInt8]

    /// Reads a PEM `PUBLIC KEY` (SubjectPublicKeyInfo) of an Ed25519 or P-256 key.
    /// - Throws: ``ServerTrustError/Code/invalidPinUpdateKey`` when the text is not such a key.
    public init(pemEncoded pem: String) throws(ServerTrustError) {
        let trimmed = pem.trimmingCharacters(in: .whitespacesAndNewlines)
        if let key = try? Curve25519.Signing.PublicKey(pemRepresentation: trimmed) {
            self.init(algorithm: .ed25519, der: Array(key.derRepresentation))
        } else if let key = try? P256.Signing.PublicKey(pemRepresentation: trimmed) {
            self.init(algorithm: .p256, der: Array(key.derRepresentation))
        } else {
            throw ServerTrustError(
                .invalidPinUpdateKey,
                "not a PEM PUBLIC KEY of an Ed25519 or ECDSA P-256 key"
            )
        }
    }

    /// Reads a DER SubjectPublicKeyInfo of an Ed25519 or P-256 key.
    /// - Throws: ``ServerTrustError/Code/invalidPinUpdateKey`` when the bytes are not such a key.
    public init(subjectPublicKeyInfoDER der: some Sequence<UInt8>) throws(ServerTrustError) {
        let bytes = Array(der)
        if let key = try? Curve25519.Signing.PublicKey(derRepresentation: bytes) {
            self.init(algorithm: .ed25519, der: Array(key.derRepresentation))
        } else if let key = try? P256.Signing.PublicKey(derRepresentation: bytes) {
            self.init(algorithm: .p256, der: Array(key.derRepresentation))
        } else {
            throw ServerTrustError(
                .invalidPinUpdateKey,
                "not the SubjectPublicKeyInfo of an Ed25519 or ECDSA P-256 key"
            )
        }
    }

    fileprivate init(algorithm: Algorithm, der: [UInt8]) {
        self.algorithm = algorithm
        self.subjectPublicKeyInfoDER = der
        self.id = Pin(subjectPublicKeyInfoDER: der)
    }

    /// The key as a PEM `PUBLIC KEY`.
    public var pemEncoded: String {
        let body = Data(self.subjectPublicKeyInfoDER).base64EncodedString(options: [.lineLength64Characters])
        return "-----BEGIN PUBLIC KEY-----\n\(body)\n-----END PUBLIC KEY-----"
    }

    /// `Ed25519 key sha256/…`.
    public var description: String { "\(self.algorithm) key \(self.id)" }

    /// Whether `signature` is this key's signature over exactly `bytes`. ECDSA signatures are
    /// DER; a signature of another form, or of another length for Ed25519, is not valid.
    public func isValidSignature(_ signature: some DataProtocol, for bytes: some DataProtocol) -> Bool {
        switch self.algorithm.base {
        case .ed25519:
            guard let key = try? Curve25519.Signing.PublicKey(derRepresentation: self.subjectPublicKeyInfoDER) else {
                return false
            }
            return key.isValidSignature(signature, for: bytes)
        case .p256:
            guard let key = try? P256.Signing.PublicKey(derRepresentation: self.subjectPublicKeyInfoDER),
                let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature)
            else {
                return false
            }
            return key.isValidSignature(parsed, for: bytes)
        }
    }
}

/// The private half of a ``PinUpdateKey``: what `securenet pins sign` and a server that
/// publishes pin-set updates sign with. It never belongs in an app.
///
/// Its ``description`` and `dump()` show the algorithm and the public key's id, never the key.
public struct PinUpdateSigningKey: Sendable, CustomStringConvertible, CustomReflectable {
    private enum Storage: Sendable {
        case ed25519(Curve25519.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
    }

    private let storage: Storage
    /// The public half, to compile into the app.
    public let publicKey: PinUpdateKey

    /// A new random key.
    public static func generate(_ algorithm: PinUpdateKey.Algorithm = .ed25519) -> PinUpdateSigningKey {
        switch algorithm.base {
        case .ed25519: PinUpdateSigningKey(.ed25519(Curve25519.Signing.PrivateKey()))
        case .p256: PinUpdateSigningKey(.p256(P256.Signing.PrivateKey()))
        }
    }

    /// Reads a PEM `PRIVATE KEY` (PKCS #8) of an Ed25519 or P-256 key, or a P-256
    /// `EC PRIVATE KEY` (SEC 1), as `openssl genpkey` and `securenet pins keygen` write them.
    /// - Throws: ``ServerTrustError/Code/invalidPinUpdateKey`` when the text is not such a key
    ///   (the message never repeats the text).
    public init(pemEncoded pem: String) throws(ServerTrustError) {
        let trimmed = pem.trimmingCharacters(in: .whitespacesAndNewlines)
        if let key = try? Curve25519.Signing.PrivateKey(pemRepresentation: trimmed) {
            self.init(.ed25519(key))
        } else if let key = try? P256.Signing.PrivateKey(pemRepresentation: trimmed) {
            self.init(.p256(key))
        } else {
            throw ServerTrustError(
                .invalidPinUpdateKey,
                "not a PEM PRIVATE KEY of an Ed25519 or ECDSA P-256 key"
            )
        }
    }

    private init(_ storage: Storage) {
        self.storage = storage
        switch storage {
        case .ed25519(let key):
            self.publicKey = PinUpdateKey(algorithm: .ed25519, der: Array(key.publicKey.derRepresentation))
        case .p256(let key):
            self.publicKey = PinUpdateKey(algorithm: .p256, der: Array(key.publicKey.derRepresentation))
        }
    }

    /// The key as a PEM `PRIVATE KEY` (PKCS #8). Secret: write it only where the key belongs.
    public var pemEncoded: String {
        switch self.storage {
        case .ed25519(let key): key.pemRepresentation
        case .p256(let key): key.pemRepresentation
        }
    }

    /// The signature over exactly `bytes` (Ed25519: 64 bytes; P-256: DER).
    /// - Throws: ``ServerTrustError/Code/invalidPinUpdateKey`` if the platform cannot sign.
    public func signature(for bytes: some DataProtocol) throws(ServerTrustError) -> [UInt8] {
        do {
            switch self.storage {
            case .ed25519(let key): return Array(try key.signature(for: bytes))
            case .p256(let key): return Array(try key.signature(for: bytes).derRepresentation)
            }
        } catch {
            throw ServerTrustError(.invalidPinUpdateKey, "the key could not sign")
        }
    }

    /// `PinUpdateSigningKey(Ed25519, public key sha256/…)`: never the private key.
    public var description: String {
        "PinUpdateSigningKey(\(self.publicKey.algorithm), public key \(self.publicKey.id))"
    }

    /// Shows what ``description`` shows, so that `dump()` does not reach the key.
    public var customMirror: Mirror {
        Mirror(self, children: ["publicKey": self.publicKey.description], displayStyle: .struct)
    }
}
