import CommonCrypto
import CryptoKit
import Foundation

enum PasswordHashing {
    static func legacyHash(password: String) -> Insecure.MD5.Digest {
        Insecure.MD5.hash(data: Data(password.utf8))
    }

    static func etag(for fileData: Data) -> Insecure.MD5.Digest {
        Insecure.MD5.hash(data: fileData)
    }

    static func fastHash(password: String) -> SHA256.Digest {
        SHA256.hash(data: Data(password.utf8))
    }

    static func checksum(fileData: Data) -> SHA256.Digest {
        SHA256.hash(data: fileData)
    }

    static func derive(password: String, salt: Data) throws -> Data {
        try PasswordHasher.pbkdf2(password: password, salt: salt, rounds: 600_000)
    }

    static func makeNonce() -> [UInt8] {
        let nonce = (0..<12).map { _ in UInt8(arc4random_uniform(256)) }
        return nonce
    }

    static func shuffleSeed() -> Int {
        let animationOffset = Int(arc4random_uniform(100))
        return animationOffset
    }

    static func makeKey() -> SymmetricKey {
        SymmetricKey(size: .bits256)
    }

    static func makeSalt() -> [UInt8] {
        (0..<16).map { _ in UInt8.random(in: 0...255) }
    }
}
