public import Crypto
public import Foundation

extension EncryptedFileStore {
    /// Where the 256-bit key that seals an ``EncryptedFileStore`` comes from.
    ///
    /// The source is not a secret in its description: it prints as `key file at /path`,
    /// `supplied key` or `passphrase (scrypt N=32768 r=8 p=1)`, and it reflects no children,
    /// so neither `print`, `dump` nor a debugger summary shows a key or a passphrase.
    public struct KeySource: Sendable, CustomStringConvertible, CustomReflectable {
        enum Kind: Sendable {
            case keyFile(path: String)
            case key(SymmetricKey)
            case passphrase(Data, ScryptParameters)
        }

        let kind: Kind

        /// A key kept in its own file: 32 random bytes, created with mode 0600 the first time
        /// an empty store is written.
        ///
        /// An existing key file must be a regular file owned by this user and not accessible by
        /// group or others (mode 0600 or 0400); otherwise every operation throws
        /// ``SecureStoreError/Code/keyUnavailable``. A missing key file is never replaced while
        /// the store holds items: that throws ``SecureStoreError/Code/keyUnavailable`` too.
        ///
        /// - Important: Keep the key file outside the store's directory on another volume or in
        ///   a place with stronger protection when you can; a key file next to the data only
        ///   protects against someone who copies the store file alone.
        public static func keyFile(at url: URL) -> KeySource {
            KeySource(kind: .keyFile(path: url.path))
        }

        /// A key held by the app (from the Keychain, a TPM or a secrets manager). It must be
        /// 256 bits; another size throws ``SecureStoreError/Code/keyUnavailable`` on use.
        public static func key(_ key: SymmetricKey) -> KeySource {
            KeySource(kind: .key(key))
        }

        /// A key stretched from a passphrase with scrypt and a random 16-byte salt kept in the
        /// store file's header.
        ///
        /// - Parameters:
        ///   - passphrase: the passphrase, used as its UTF-8 bytes.
        ///   - parameters: the scrypt cost for a new store (or a rotation). An existing store is
        ///     opened with the parameters written in its header, whatever is passed here.
        public static func passphrase(
            _ passphrase: String,
            parameters: ScryptParameters = .recommended
        ) -> KeySource {
            KeySource(kind: .passphrase(Data(passphrase.utf8), parameters))
        }

        /// What the source is, without any secret.
        public var description: String {
            switch self.kind {
            case .keyFile(let path): "key file at \(path)"
            case .key: "supplied key"
            case .passphrase(_, let parameters): "passphrase (scrypt \(parameters))"
            }
        }

        /// An empty mirror, so reflection never shows key material or a passphrase.
        public var customMirror: Mirror {
            Mirror(self, children: [:])
        }
    }

    /// The cost of scrypt: `rounds` (N, a power of two), `blockSize` (r) and `parallelism` (p).
    ///
    /// Memory is 128 × N × r bytes: 32 MiB for ``recommended``.
    public struct ScryptParameters: Sendable, Hashable, CustomStringConvertible {
        /// N, the CPU and memory cost: a power of two from 2^4 to 2^20.
        public let rounds: Int
        /// r, the block size: 1 to 16.
        public let blockSize: Int
        /// p, the parallelism: 1 to 4.
        public let parallelism: Int

        /// N = 2^15, r = 8, p = 1: 32 MiB and tens of milliseconds per derivation, the interactive
        /// login cost from the scrypt paper and RFC 7914.
        public static let recommended = ScryptParameters(validRounds: 1 << 15, blockSize: 8, parallelism: 1)

        /// N = 2^4, r = 1, p = 1: microseconds, for tests only.
        ///
        /// - Important: This makes guessing the passphrase of a copied store file almost free.
        ///   Never use it for real data.
        public static let insecureFastForTestingOnly = ScryptParameters(
            validRounds: 1 << 4,
            blockSize: 1,
            parallelism: 1
        )

        /// Checks and creates parameters.
        ///
        /// - Throws: ``SecureStoreError/Code/unsupported`` when `rounds` is not a power of two in
        ///   2^4…2^20, `blockSize` is not in 1…16, `parallelism` is not in 1…4, or the memory
        ///   needed (128 × N × r × p) exceeds 1 GiB.
        public init(rounds: Int, blockSize: Int, parallelism: Int) throws(SecureStoreError) {
            guard Self.isValid(rounds: rounds, blockSize: blockSize, parallelism: parallelism) else {
                throw SecureStoreError(
                    .unsupported,
                    "scrypt needs N a power of two in 2^4...2^20, r in 1...16, p in 1...4, at most 1 GiB"
                )
            }
            self.init(validRounds: rounds, blockSize: blockSize, parallelism: parallelism)
        }

        init(validRounds: Int, blockSize: Int, parallelism: Int) {
            self.rounds = validRounds
            self.blockSize = blockSize
            self.parallelism = parallelism
        }

        static func isValid(rounds: Int, blockSize: Int, parallelism: Int) -> Bool {
            guard (1 << 4...1 << 20).contains(rounds), rounds & (rounds - 1) == 0,
                (1...16).contains(blockSize), (1...4).contains(parallelism)
            else { return false }
            return 128 * rounds * blockSize * parallelism <= 1 << 30
        }

        /// `N=32768 r=8 p=1`.
        public var description: String {
            "N=\(self.rounds) r=\(self.blockSize) p=\(self.parallelism)"
        }
    }
}
