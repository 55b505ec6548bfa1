/// The cryptography helpers: password hashing, authenticated sealing, end-to-end encryption.
public enum SecureCryptoModule {}
