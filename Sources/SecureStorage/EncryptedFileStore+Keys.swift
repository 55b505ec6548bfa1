import Crypto
import Foundation
import SecureNetworkingInternal
import _CryptoExtras

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// The last scrypt derivation, so a passphrase store pays for scrypt once, not per operation.
struct DerivedKeyCache: Sendable {
    var passphrase: Data
    var parameters: EncryptedFileStore.ScryptParameters
    var salt: Data
    var keys: StoreKeys
}

extension EncryptedFileStore {
    /// The keys that open an existing file whose header says `derivation`.
    ///
    /// - Throws: ``SecureStoreError/Code/wrongKey`` when the source is of the other kind (a
    ///   passphrase for a key-sealed store, or the reverse), ``SecureStoreError/Code/keyUnavailable``
    ///   when the key file is missing or unsafe.
    func keys(
        opening derivation: StoreFile.Derivation,
        with source: KeySource
    ) throws(SecureStoreError) -> StoreKeys {
        switch (derivation, source.kind) {
        case (.key, .keyFile(let path)):
            guard let key = try Self.readKeyFile(path) else {
                throw SecureStoreError(.keyUnavailable, "the key file \(path) is missing")
            }
            return StoreKeys(master: key)
        case (.key, .key(let key)):
            return StoreKeys(master: try Self.checkedKey(key))
        case (.scrypt(let parameters, let salt), .passphrase(let passphrase, _)):
            return try self.derive(passphrase, parameters: parameters, salt: salt)
        case (.key, .passphrase):
            throw SecureStoreError(.wrongKey, "the store is sealed with a key, not a passphrase")
        case (.scrypt, .keyFile), (.scrypt, .key):
            throw SecureStoreError(.wrongKey, "the store is sealed with a passphrase, not a key")
        }
    }

    /// The header derivation and keys for a new store (or a rotation) under `source`, creating
    /// the key file or a fresh salt as needed.
    func keysForNewStore(
        with source: KeySource
    ) throws(SecureStoreError) -> (StoreFile.Derivation, StoreKeys) {
        switch source.kind {
        case .keyFile(let path):
            if let key = try Self.readKeyFile(path) { return (.key, StoreKeys(master: key)) }
            return (.key, StoreKeys(master: try Self.createKeyFile(path)))
        case .key(let key):
            return (.key, StoreKeys(master: try Self.checkedKey(key)))
        case .passphrase(let passphrase, let parameters):
            let salt = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) })
            let keys = try self.derive(passphrase, parameters: parameters, salt: salt)
            return (.scrypt(parameters, salt: salt), keys)
        }
    }

    private func derive(
        _ passphrase: Data,
        parameters: ScryptParameters,
        salt: Data
    ) throws(SecureStoreError) -> StoreKeys {
        if let cached = self.derivedKeys.withLock({ $0 }),
            cached.parameters == parameters, cached.salt == salt, constantTimeEquals(cached.passphrase, passphrase)
        {
            return cached.keys
        }
        let master: SymmetricKey
        do {
            master = try KDF.Scrypt.deriveKey(
                from: passphrase,
                salt: salt,
                outputByteCount: 32,
                rounds: parameters.rounds,
                blockSize: parameters.blockSize,
                parallelism: parameters.parallelism
            )
        } catch {
            throw SecureStoreError(.unsupported, "scrypt failed with \(parameters)")
        }
        let keys = StoreKeys(master: master)
        self.derivedKeys.withLock {
            $0 = DerivedKeyCache(passphrase: passphrase, parameters: parameters, salt: salt, keys: keys)
        }
        return keys
    }

    private static func checkedKey(_ key: SymmetricKey) throws(SecureStoreError) -> SymmetricKey {
        guard key.bitCount == 256 else {
            throw SecureStoreError(.keyUnavailable, "the supplied key is \(key.bitCount) bits; the store needs 256")
        }
        return key
    }

    /// Reads a key file, or nil when there is none.
    ///
    /// - Throws: ``SecureStoreError/Code/keyUnavailable`` when it is not a regular file owned by
    ///   this user, is accessible by group or others, or is not 32 bytes.
    static func readKeyFile(_ path: String) throws(SecureStoreError) -> SymmetricKey? {
        let opened: Int32?
        do {
            opened = try POSIXFile.open(path, O_RDONLY, missingIsNil: true)
        } catch {
            throw SecureStoreError(.keyUnavailable, "the key file is unavailable: \(error.message)")
        }
        guard let fd = opened else { return nil }
        defer { POSIXFile.close(fd) }
        let info = try POSIXFile.status(fd, path: path)
        guard POSIXFile.isRegularFile(info) else {
            throw SecureStoreError(.keyUnavailable, "the key file \(path) is not a regular file")
        }
        guard info.st_uid == geteuid() else {
            throw SecureStoreError(.keyUnavailable, "the key file \(path) belongs to another user")
        }
        let mode = info.st_mode & mode_t(0o777)
        guard mode & mode_t(0o077) == 0 else {
            throw SecureStoreError(
                .keyUnavailable,
                "the key file \(path) has mode 0\(String(mode, radix: 8)); group and others must have no access (0600)"
            )
        }
        let bytes = try POSIXFile.readAll(fd, path: path)
        guard bytes.count == 32 else {
            throw SecureStoreError(.keyUnavailable, "the key file \(path) does not hold a 32-byte key")
        }
        return SymmetricKey(data: bytes)
    }

    /// Creates a key file with 32 random bytes and mode 0600; if another writer created it first,
    /// reads that one instead.
    ///
    /// The key is written to a temporary file (``PrivateFileWriter``: `O_EXCL | O_NOFOLLOW`, mode
    /// 0600 from its first byte, synced), then `link`ed into place, so the key file never exists
    /// half-written or readable by others, and an existing one is never replaced.
    static func createKeyFile(_ path: String) throws(SecureStoreError) -> SymmetricKey {
        let directory = (path as NSString).deletingLastPathComponent
        try POSIXFile.createDirectory(directory.isEmpty ? "." : directory)
        let temporary = "\(path).\(POSIXFile.uniqueSuffix()).tmp"
        let key = SymmetricKey(size: .bits256)
        do {
            try PrivateFileWriter.create(temporary, contents: key.withUnsafeBytes { Data($0) }, mode: 0o600)
        } catch {
            throw SecureStoreError(.ioFailure, "cannot create the key file \(path): \(error.reason)")
        }
        defer { try? POSIXFile.remove(temporary) }
        guard try POSIXFile.linkIfAbsent(temporary, at: path) else {
            guard let existing = try Self.readKeyFile(path) else {
                throw SecureStoreError(.keyUnavailable, "the key file \(path) vanished while being created")
            }
            return existing
        }
        try POSIXFile.synchronizeDirectory(directory.isEmpty ? "." : directory)
        return key
    }
}
