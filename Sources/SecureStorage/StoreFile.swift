import Crypto
import Foundation
import SecureNetworkingInternal

/// The bytes of an ``EncryptedFileStore``'s file, version 1 (all integers big-endian):
///
/// ```
/// header   magic "SNSTORE\0" (8) · version UInt16 = 1 · key kind UInt8 (1 = key, 2 = scrypt)
///          [scrypt: log2 N UInt8 · r UInt8 · p UInt8 · salt length UInt8 (16…64) · salt]
///          key check (32) = HKDF-SHA256(master key, info "…key check")
///          header checksum (32) = SHA-256 of the header bytes before it
/// items    count UInt32 · for each item, sorted by key:
///          key length UInt16 (1…256) · key (UTF-8) · box length UInt32 · AES-GCM box
///          (nonce 12 · ciphertext · tag 16), sealed with the item key as authenticated data
/// trailer  HMAC-SHA256 (32) over every byte before it, under a key derived from the master key
/// ```
///
/// Reading checks, in this order, and stops at the first failure:
/// 1. the structure and the header checksum → ``SecureStoreError/Code/corrupted`` (a damaged
///    header is reported as damage, not mistaken for a wrong key);
/// 2. the key check against the caller's key → ``SecureStoreError/Code/wrongKey``;
/// 3. the trailer HMAC → ``SecureStoreError/Code/tampered`` (an item changed, removed, added,
///    swapped or rolled back on its own);
/// 4. the item's AES-GCM tag when it is opened → ``SecureStoreError/Code/tampered``.
struct StoreFile: Sendable {
    static let magic: [UInt8] = Array("SNSTORE".utf8) + [0]
    static let version: UInt16 = 1
    static let checkLength = 32
    static let macLength = 32
    static let minimumBoxLength = 12 + 16

    /// How the master key is obtained, as written in the header.
    enum Derivation: Sendable, Equatable {
        /// A 256-bit key from a key file or the app.
        case key
        /// scrypt over a passphrase.
        case scrypt(EncryptedFileStore.ScryptParameters, salt: Data)
    }

    var derivation: Derivation
    /// HKDF output proving which master key sealed the file (reveals nothing about the key).
    var keyCheck: Data
    /// Item key → AES-GCM combined box.
    var items: [String: Data]

    init(derivation: Derivation, keyCheck: Data, items: [String: Data] = [:]) {
        self.derivation = derivation
        self.keyCheck = keyCheck
        self.items = items
    }

    // MARK: - Writing

    /// The header bytes up to (not including) the key check.
    private func headerPrefix() -> Data {
        var out = Data(Self.magic)
        out.appendInteger(Self.version)
        switch self.derivation {
        case .key:
            out.append(1)
        case .scrypt(let parameters, let salt):
            out.append(2)
            out.append(UInt8(parameters.rounds.trailingZeroBitCount))
            out.append(UInt8(parameters.blockSize))
            out.append(UInt8(parameters.parallelism))
            out.append(UInt8(salt.count))
            out.append(salt)
        }
        return out
    }

    /// The whole file, authenticated with `keys`.
    func serialized(with keys: StoreKeys) -> Data {
        var out = self.headerPrefix()
        out.append(self.keyCheck)
        out.append(contentsOf: SHA256.hash(data: out))
        out.appendInteger(UInt32(self.items.count))
        for key in self.items.keys.sorted() {
            let keyBytes = Data(key.utf8)
            let box = self.items[key] ?? Data()
            out.appendInteger(UInt16(keyBytes.count))
            out.append(keyBytes)
            out.appendInteger(UInt32(box.count))
            out.append(box)
        }
        out.append(contentsOf: HMAC<SHA256>.authenticationCode(for: out, using: keys.authentication))
        return out
    }

    // MARK: - Reading

    /// A parsed file and the bytes its trailer authenticates.
    struct Parsed: Sendable {
        var file: StoreFile
        var authenticatedBytes: Data
        var mac: Data

        /// Checks the key, then the whole file; after this the items may be opened.
        ///
        /// - Throws: ``SecureStoreError/Code/wrongKey`` or ``SecureStoreError/Code/tampered``.
        func verify(with keys: StoreKeys) throws(SecureStoreError) {
            guard constantTimeEquals(keys.check, self.file.keyCheck) else {
                throw SecureStoreError(.wrongKey, "the store was sealed with another key")
            }
            guard
                HMAC<SHA256>.isValidAuthenticationCode(
                    self.mac,
                    authenticating: self.authenticatedBytes,
                    using: keys.authentication
                )
            else {
                throw SecureStoreError(.tampered, "the store file fails authentication: it was modified")
            }
        }
    }

    /// Parses a file's bytes.
    ///
    /// - Throws: ``SecureStoreError/Code/corrupted`` when they are not a store file (including a
    ///   header whose checksum does not match), ``SecureStoreError/Code/unsupported`` for a
    ///   newer format version.
    static func parse(_ data: Data) throws(SecureStoreError) -> Parsed {
        var reader = ByteReader(Array(data))
        guard let magic = reader.read(Self.magic.count), magic.elementsEqual(Self.magic) else {
            throw SecureStoreError(.corrupted, "the file is not a SecureStorage store (bad magic)")
        }
        guard let version = reader.readInteger(UInt16.self) else { throw Self.truncated() }
        guard version == Self.version else {
            throw SecureStoreError(.unsupported, "the store file has format version \(version); this build reads 1")
        }
        let derivation = try Self.parseDerivation(&reader)
        guard let keyCheck = reader.read(Self.checkLength) else { throw Self.truncated() }
        let headerBytes = reader.consumed
        guard let checksum = reader.read(32) else { throw Self.truncated() }
        guard checksum.elementsEqual(SHA256.hash(data: headerBytes)) else {
            throw SecureStoreError(.corrupted, "the store file's header is damaged (checksum mismatch)")
        }
        guard let count = reader.readInteger(UInt32.self) else { throw Self.truncated() }
        var items: [String: Data] = [:]
        for _ in 0..<count {
            guard let keyLength = reader.readInteger(UInt16.self),
                let keyBytes = reader.read(Int(keyLength)),
                let boxLength = reader.readInteger(UInt32.self),
                let box = reader.read(Int(boxLength))
            else { throw Self.truncated() }
            let key = String(decoding: keyBytes, as: UTF8.self)
            guard key.utf8.elementsEqual(keyBytes), (try? validateItemKey(key)) != nil,
                box.count >= Self.minimumBoxLength, items[key] == nil
            else {
                throw SecureStoreError(.corrupted, "the store file has a malformed item entry")
            }
            items[key] = Data(box)
        }
        let authenticated = reader.consumed
        guard let mac = reader.read(Self.macLength), reader.isAtEnd else {
            throw SecureStoreError(.corrupted, "the store file is truncated or has trailing bytes")
        }
        let file = StoreFile(derivation: derivation, keyCheck: Data(keyCheck), items: items)
        return Parsed(file: file, authenticatedBytes: Data(authenticated), mac: Data(mac))
    }

    private static func parseDerivation(_ reader: inout ByteReader) throws(SecureStoreError) -> Derivation {
        guard let kind = reader.read(1)?.first else { throw Self.truncated() }
        switch kind {
        case 1:
            return .key
        case 2:
            guard let fields = reader.read(4).map(Array.init) else { throw Self.truncated() }
            let log2N = Int(fields[0])
            let blockSize = Int(fields[1])
            let parallelism = Int(fields[2])
            let saltLength = Int(fields[3])
            guard log2N < 32,
                EncryptedFileStore.ScryptParameters.isValid(
                    rounds: 1 << log2N,
                    blockSize: blockSize,
                    parallelism: parallelism
                ),
                (16...64).contains(saltLength)
            else {
                throw SecureStoreError(.corrupted, "the store file's scrypt parameters are out of range")
            }
            guard let salt = reader.read(saltLength) else { throw Self.truncated() }
            let parameters = EncryptedFileStore.ScryptParameters(
                validRounds: 1 << log2N,
                blockSize: blockSize,
                parallelism: parallelism
            )
            return .scrypt(parameters, salt: Data(salt))
        default:
            throw SecureStoreError(.corrupted, "the store file names an unknown key kind")
        }
    }

    private static func truncated() -> SecureStoreError {
        SecureStoreError(.corrupted, "the store file is truncated")
    }

    // MARK: - Items

    /// Seals one item's value; the item key is authenticated with it, so boxes cannot be swapped.
    static func seal(_ value: Data, forKey key: String, with keys: StoreKeys) throws(SecureStoreError) -> Data {
        do {
            let box = try AES.GCM.seal(value, using: keys.sealing, authenticating: Self.itemAAD(key))
            guard let combined = box.combined else {
                throw SecureStoreError(.encodingFailed, "sealing the item '\(key)' failed")
            }
            return combined
        } catch {
            throw SecureStoreError(.encodingFailed, "sealing the item '\(key)' failed")
        }
    }

    /// Opens one item's box.
    ///
    /// - Throws: ``SecureStoreError/Code/tampered`` when the box fails authentication.
    static func open(_ box: Data, forKey key: String, with keys: StoreKeys) throws(SecureStoreError) -> Data {
        do {
            return try AES.GCM.open(
                AES.GCM.SealedBox(combined: box),
                using: keys.sealing,
                authenticating: Self.itemAAD(key)
            )
        } catch {
            throw SecureStoreError(.tampered, "the item '\(key)' fails authentication: it was modified")
        }
    }

    private static func itemAAD(_ key: String) -> Data {
        Data("SecureStorage v1 item\u{0}".utf8) + Data(key.utf8)
    }
}

/// The keys derived from a store's master key with HKDF-SHA256, one per purpose.
struct StoreKeys: Sendable {
    /// AES-256-GCM key for item values.
    let sealing: SymmetricKey
    /// HMAC-SHA256 key for the whole file.
    let authentication: SymmetricKey
    /// The value written in the header to recognise the master key.
    let check: Data

    init(master: SymmetricKey) {
        func derive(_ purpose: String) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: master,
                info: Data("SecureStorage v1 \(purpose)".utf8),
                outputByteCount: 32
            )
        }
        self.sealing = derive("item sealing")
        self.authentication = derive("file authentication")
        self.check = derive("key check").withUnsafeBytes { Data($0) }
    }
}

/// A cursor over bytes that returns nil instead of reading past the end.
struct ByteReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { self.offset == self.bytes.count }
    /// The bytes read so far.
    var consumed: ArraySlice<UInt8> { self.bytes[0..<self.offset] }

    mutating func read(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= self.bytes.count - self.offset else { return nil }
        defer { self.offset += count }
        return self.bytes[self.offset..<self.offset + count]
    }

    mutating func readInteger<T: FixedWidthInteger>(_ type: T.Type) -> T? {
        guard let slice = self.read(MemoryLayout<T>.size) else { return nil }
        return slice.reduce(T.zero) { ($0 << 8) | T($1) }
    }
}

extension Data {
    mutating func appendInteger<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { self.append(contentsOf: $0) }
    }
}
