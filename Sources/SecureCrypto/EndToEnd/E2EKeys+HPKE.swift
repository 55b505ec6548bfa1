import Crypto
public import Foundation

@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
extension E2EEnvelope {
    /// The one HPKE suite of envelope version 1.
    static var ciphersuite: HPKE.Ciphersuite { .Curve25519_SHA256_ChachaPoly }
}

extension E2EPublicKey {
    /// Encrypts `message` to the holder of this key's private key with HPKE (RFC 9180, base
    /// mode, DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305).
    ///
    /// Each call uses a fresh ephemeral key, so sealing the same message twice gives unrelated
    /// envelopes.
    ///
    /// - Important: Base mode does not say who sent the message: anyone with the public key can
    ///   seal to it. Sign the envelope, or use a session key from
    ///   ``E2EPrivateKey/sessionKey(with:context:byteCount:)``, when the sender matters. There
    ///   is no replay protection; put a message id or time in `associatedData` or the message.
    ///
    /// - Parameters:
    ///   - message: The plaintext.
    ///   - info: Application context bound into the key schedule (an app and protocol name);
    ///     the recipient must pass the same.
    ///   - associatedData: Data authenticated but not encrypted or stored; must match on open.
    /// - Returns: The ``E2EEnvelope`` bytes, 49 bytes longer than the message.
    /// - Throws: ``SecureCryptoError/Code/internalFailure`` if HPKE fails.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
    public func seal(
        _ message: some DataProtocol,
        info: some DataProtocol = Data(),
        authenticating associatedData: some DataProtocol = Data()
    ) throws(SecureCryptoError) -> Data {
        do {
            var sender = try HPKE.Sender(
                recipientKey: self.curve25519Key,
                ciphersuite: E2EEnvelope.ciphersuite,
                info: Data(info)
            )
            let ciphertext = try sender.seal(message, authenticating: associatedData)
            return E2EEnvelope(encapsulatedKey: sender.encapsulatedKey, ciphertext: ciphertext).bytes
        } catch {
            throw SecureCryptoError(.internalFailure, "HPKE sealing failed")
        }
    }
}

extension E2EPrivateKey {
    /// Decrypts an envelope from ``E2EPublicKey/seal(_:info:authenticating:)`` sealed to this
    /// key's public key.
    ///
    /// - Parameters:
    ///   - envelope: The envelope bytes.
    ///   - info: The `info` given when sealing.
    ///   - associatedData: The associated data given when sealing.
    /// - Returns: The message.
    /// - Throws: ``SecureCryptoError/Code/truncated`` or
    ///   ``SecureCryptoError/Code/unsupportedVersion`` for a structural problem;
    ///   ``SecureCryptoError/Code/authenticationFailed`` for a wrong private key, other `info`
    ///   or associated data, or any modified byte (HPKE cannot tell these apart), including an
    ///   encapsulated key that is a low-order point (RFC 9180 §7.1.4).
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
    public func open(
        _ envelope: some DataProtocol,
        info: some DataProtocol = Data(),
        authenticating associatedData: some DataProtocol = Data()
    ) throws(SecureCryptoError) -> Data {
        let parsed = try E2EEnvelope(parsing: envelope)
        let failure = SecureCryptoError(
            .authenticationFailed,
            "end-to-end envelope failed authentication (wrong key, modified data, other info or associated data)"
        )
        // swift-crypto does not refuse an all-zero X25519 result in DHKEM; E2EPublicKey does.
        guard (try? E2EPublicKey(rawRepresentation: parsed.encapsulatedKey)) != nil else {
            throw failure
        }
        do {
            var recipient = try HPKE.Recipient(
                privateKey: self.curve25519Key,
                ciphersuite: E2EEnvelope.ciphersuite,
                info: Data(info),
                encapsulatedKey: parsed.encapsulatedKey
            )
            return try recipient.open(parsed.ciphertext, authenticating: associatedData)
        } catch {
            throw failure
        }
    }
}
