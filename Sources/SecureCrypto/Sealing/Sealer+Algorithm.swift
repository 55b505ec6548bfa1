extension Sealer {
    /// An authenticated cipher for ``Sealer``, identified by one byte in the envelope.
    ///
    /// Both take a 256-bit key and a 96-bit random nonce and produce a 128-bit tag.
    public struct Algorithm: Hashable, Sendable, CustomStringConvertible {
        /// The byte that names the algorithm in an envelope.
        public let identifier: UInt8

        private init(identifier: UInt8) {
            self.identifier = identifier
        }

        /// AES-256 in Galois/Counter Mode (NIST SP 800-38D). Identifier `0x01`.
        public static let aesGCM256 = Algorithm(identifier: 0x01)
        /// ChaCha20-Poly1305 (RFC 8439). Identifier `0x02`.
        public static let chaChaPoly = Algorithm(identifier: 0x02)

        /// Every algorithm this version of the library reads.
        public static let all: Set<Algorithm> = [.aesGCM256, .chaChaPoly]

        /// The known algorithm with this identifier, or `nil`.
        public init?(knownIdentifier identifier: UInt8) {
            guard let known = Self.all.first(where: { $0.identifier == identifier }) else { return nil }
            self = known
        }

        /// `AES-256-GCM` or `ChaCha20-Poly1305`.
        public var description: String {
            switch self.identifier {
            case Self.aesGCM256.identifier: return "AES-256-GCM"
            case Self.chaChaPoly.identifier: return "ChaCha20-Poly1305"
            default: return "algorithm 0x\(String(self.identifier, radix: 16))"
            }
        }

        /// Bytes of nonce in the envelope: 12 for both algorithms.
        var nonceByteCount: Int { 12 }
        /// Bytes of authentication tag in the envelope: 16 for both algorithms.
        var tagByteCount: Int { 16 }
    }
}
