import Crypto
import Foundation
import SecureStorage
import Testing

@Suite("EncryptedFileStore: storage, keys and files")
struct EncryptedFileStoreTests {
    struct Profile: Codable, Equatable {
        var name: String
        var scopes: [String]
    }

    @Test func roundTripsManyItemsAcrossARestart() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.store()
        var expected: [String: Data] = [:]
        for index in 0..<198 {
            expected["item-\(index)"] =
                Data("value \(index) ".utf8) + Data(repeating: UInt8(index % 251), count: index * 7)
        }
        expected["empty"] = Data()
        expected["large"] = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        for key in expected.keys.sorted() where key != "large" {
            try await store.set(expected[key] ?? Data(), forKey: key)
        }
        try await store.set(expected["large"] ?? Data(), forKey: "large")
        try await store.set(Profile(name: "Ada", scopes: ["read", "write"]), forKey: "profile")

        // A new instance over the same directory is what a restarted process sees.
        let reopened = directory.store()
        #expect(try await reopened.itemKeys() == (Array(expected.keys) + ["profile"]).sorted())
        for (key, value) in expected {
            #expect(try await reopened.data(forKey: key) == value, "item \(key)")
        }
        #expect(try await reopened.data(forKey: "empty") == Data())
        #expect(try await reopened.data(forKey: "large")?.count == 1 << 20)
        #expect(
            try await reopened.value(Profile.self, forKey: "profile")
                == Profile(name: "Ada", scopes: ["read", "write"])
        )
        #expect(await errorCode { try await reopened.value([Int].self, forKey: "profile") } == .decodingFailed)
        #expect(try await reopened.data(forKey: "missing") == nil)
        #expect(try await reopened.contains("item-7"))
        #expect(try await !reopened.contains("missing"))

        try await reopened.removeValue(forKey: "item-7")
        try await reopened.removeValue(forKey: "never-there")
        #expect(try await store.data(forKey: "item-7") == nil)
        #expect(try await store.contains("item-8"))
    }

    @Test func rejectsInvalidItemKeysWithoutTouchingTheDisk() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.store()
        #expect(await errorCode { try await store.set(Data([1]), forKey: "") } == .invalidKey)
        #expect(await errorCode { try await store.data(forKey: String(repeating: "k", count: 257)) } == .invalidKey)
        #expect(await errorCode { try await store.removeValue(forKey: "a\u{0}b") } == .invalidKey)
        #expect(!FileManager.default.fileExists(atPath: directory.store.path))
        #expect(try await store.data(forKey: "absent") == nil)  // no store yet: nil, nothing created
        #expect(!FileManager.default.fileExists(atPath: directory.keyFile().path))
    }

    @Test func createsTheDirectoryStoreAndKeyFileWithPrivateModes() async throws {
        let directory = try TemporaryDirectory()
        try await directory.store().set(Data("secret".utf8), forKey: "token")
        #expect(try posixPermissions(directory.store) == 0o700)
        #expect(try posixPermissions(directory.storeFile) == 0o600)
        #expect(try posixPermissions(directory.store.appendingPathComponent("store.lock")) == 0o600)
        #expect(try posixPermissions(directory.keyFile()) == 0o600)
        #expect(try Data(contentsOf: directory.keyFile()).count == 32)
        #expect(directory.storeDirectoryContents == ["store.lock", "store.sealed"])
        // The value is not in the file in the clear.
        let file = try Data(contentsOf: directory.storeFile)
        #expect(file.range(of: Data("secret".utf8)) == nil)
        #expect(file.range(of: Data("token".utf8)) != nil)  // item keys are names, not secrets
    }

    @Test func refusesAKeyFileOthersCanRead() async throws {
        let directory = try TemporaryDirectory()
        try await directory.store().set(Data("v".utf8), forKey: "a")
        try setPosixPermissions(directory.keyFile(), 0o644)
        let before = try Data(contentsOf: directory.storeFile)
        let store = directory.store()
        #expect(await errorCode { try await store.data(forKey: "a") } == .keyUnavailable)
        #expect(await errorCode { try await store.set(Data("w".utf8), forKey: "a") } == .keyUnavailable)
        #expect(try Data(contentsOf: directory.storeFile) == before)

        // A fresh key file someone made group-readable is refused before any store exists.
        let other = try TemporaryDirectory()
        try writeKeyFile(other.keyFile(), Data(repeating: 7, count: 32))
        try setPosixPermissions(other.keyFile(), 0o640)
        #expect(await errorCode { try await other.store().set(Data("v".utf8), forKey: "a") } == .keyUnavailable)
        #expect(await errorCode { try await other.store().data(forKey: "a") } == .keyUnavailable)
        #expect(!FileManager.default.fileExists(atPath: other.storeFile.path))

        // A key file of the wrong size is refused too.
        try setPosixPermissions(other.keyFile(), 0o600)
        try Data(repeating: 7, count: 16).write(to: other.keyFile())
        #expect(await errorCode { try await other.store().set(Data("v".utf8), forKey: "a") } == .keyUnavailable)
    }

    @Test func neverCreatesANewKeyForAStoreThatHasItems() async throws {
        let directory = try TemporaryDirectory()
        try await directory.store().set(Data("v".utf8), forKey: "a")
        let before = try Data(contentsOf: directory.storeFile)
        try FileManager.default.removeItem(at: directory.keyFile())
        let store = directory.store()
        #expect(await errorCode { try await store.set(Data("w".utf8), forKey: "b") } == .keyUnavailable)
        #expect(await errorCode { try await store.data(forKey: "a") } == .keyUnavailable)
        #expect(!FileManager.default.fileExists(atPath: directory.keyFile().path))
        #expect(try Data(contentsOf: directory.storeFile) == before)
    }

    @Test func wrongKeyIsReportedAndTheFileIsLeftByteForByte() async throws {
        let directory = try TemporaryDirectory()
        try await directory.store(keyName: "right.key").set(Data("v".utf8), forKey: "a")
        let before = try Data(contentsOf: directory.storeFile)

        // Another valid key file does not open it.
        try writeKeyFile(directory.keyFile("wrong.key"), Data(repeating: 0x5a, count: 32))
        let wrong = directory.store(keyName: "wrong.key")
        #expect(await errorCode { try await wrong.set(Data("w".utf8), forKey: "b") } == .wrongKey)
        #expect(await errorCode { try await wrong.data(forKey: "a") } == .wrongKey)
        #expect(await errorCode { try await wrong.contains("a") } == .wrongKey)
        #expect(await errorCode { try await wrong.removeValue(forKey: "a") } == .wrongKey)
        #expect(await errorCode { try await wrong.rotateKey(to: .key(SymmetricKey(size: .bits256))) } == .wrongKey)
        let supplied = EncryptedFileStore(directory: directory.store, keySource: .key(SymmetricKey(size: .bits256)))
        #expect(await errorCode { try await supplied.set(Data("w".utf8), forKey: "a") } == .wrongKey)
        #expect(await errorCode { try await directory.store(passphrase: "pw").data(forKey: "a") } == .wrongKey)

        #expect(try Data(contentsOf: directory.storeFile) == before)
        #expect(directory.storeDirectoryContents == ["store.lock", "store.sealed"])
        #expect(try await directory.store(keyName: "right.key").data(forKey: "a") == Data("v".utf8))
    }

    @Test func passphraseStoresOpenOnlyWithThePassphrase() async throws {
        let directory = try TemporaryDirectory()
        try await directory.store(passphrase: "correct horse battery staple").set(Data("v".utf8), forKey: "a")
        let before = try Data(contentsOf: directory.storeFile)

        #expect(
            try await directory.store(passphrase: "correct horse battery staple").data(forKey: "a") == Data("v".utf8)
        )
        let wrong = directory.store(passphrase: "Tr0ub4dor&3")
        #expect(await errorCode { try await wrong.data(forKey: "a") } == .wrongKey)
        #expect(await errorCode { try await wrong.set(Data("w".utf8), forKey: "a") } == .wrongKey)
        #expect(await errorCode { try await wrong.removeValue(forKey: "a") } == .wrongKey)
        // A key file does not open a passphrase store either.
        #expect(await errorCode { try await directory.store().data(forKey: "a") } == .wrongKey)
        #expect(try Data(contentsOf: directory.storeFile) == before)

        // The salt and the cost are in the header: "N=16" is stored as log2 N = 4 after the kind.
        let header = [UInt8](before.prefix(16))
        #expect(Array(header[0..<8]) == Array("SNSTORE".utf8) + [0])
        #expect(Array(header[10..<15]) == [2, 4, 1, 1, 16])
    }

    @Test func theRecommendedScryptCostIsWrittenAndUsed() async throws {
        let directory = try TemporaryDirectory()
        let store = EncryptedFileStore(directory: directory.store, keySource: .passphrase("long passphrase"))
        try await store.set(Data("v".utf8), forKey: "a")
        #expect(try await store.data(forKey: "a") == Data("v".utf8))
        let header = [UInt8](try Data(contentsOf: directory.storeFile).prefix(15))
        #expect(Array(header[10..<15]) == [2, 15, 8, 1, 16])  // scrypt, N = 2^15, r = 8, p = 1, 16-byte salt
        // Opening uses the header's cost, not the caller's.
        let cheap = EncryptedFileStore(
            directory: directory.store,
            keySource: .passphrase("long passphrase", parameters: .insecureFastForTestingOnly)
        )
        #expect(try await cheap.data(forKey: "a") == Data("v".utf8))
    }

    @Test func describesKeySourcesWithoutTheirSecrets() throws {
        let passphrase = EncryptedFileStore.KeySource.passphrase("hunter2-passphrase")
        #expect(passphrase.description == "passphrase (scrypt N=32768 r=8 p=1)")
        #expect(!String(reflecting: passphrase).contains("hunter2"))
        var dumped = ""
        dump(passphrase, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        #expect(EncryptedFileStore.KeySource.key(SymmetricKey(size: .bits256)).description == "supplied key")
        #expect(EncryptedFileStore.KeySource.keyFile(at: URL(fileURLWithPath: "/k")).description == "key file at /k")
        #expect(throws: SecureStoreError(.unsupported, "")) {
            try EncryptedFileStore.ScryptParameters(rounds: 1000, blockSize: 8, parallelism: 1)
        }
        #expect(try EncryptedFileStore.ScryptParameters(rounds: 1 << 14, blockSize: 8, parallelism: 1).rounds == 16384)
    }

    @Test func rotationResealsEverythingUnderTheNewKey() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.store(keyName: "old.key")
        for index in 0..<20 { try await store.set(Data("value-\(index)".utf8), forKey: "item-\(index)") }
        let before = try Data(contentsOf: directory.storeFile)

        try await store.rotateKey(to: .keyFile(at: directory.keyFile("new.key")))
        #expect(try posixPermissions(directory.keyFile("new.key")) == 0o600)
        #expect(try Data(contentsOf: directory.storeFile) != before)
        #expect(await errorCode { try await directory.store(keyName: "old.key").data(forKey: "item-0") } == .wrongKey)
        let rotated = directory.store(keyName: "new.key")
        for index in 0..<20 { #expect(try await rotated.data(forKey: "item-\(index)") == Data("value-\(index)".utf8)) }
        try await store.set(Data("after".utf8), forKey: "item-20")  // the instance follows the rotation
        #expect(try await rotated.data(forKey: "item-20") == Data("after".utf8))

        // Key file → passphrase → supplied key.
        try await store.rotateKey(to: .passphrase("new passphrase", parameters: .insecureFastForTestingOnly))
        #expect(await errorCode { try await rotated.data(forKey: "item-0") } == .wrongKey)
        #expect(try await directory.store(passphrase: "new passphrase").data(forKey: "item-3") == Data("value-3".utf8))
        let key = SymmetricKey(size: .bits256)
        try await store.rotateKey(to: .key(key))
        #expect(
            await errorCode { try await directory.store(passphrase: "new passphrase").data(forKey: "item-0") }
                == .wrongKey
        )
        let supplied = EncryptedFileStore(directory: directory.store, keySource: .key(key))
        #expect(try await supplied.itemKeys().count == 21)
        #expect(directory.storeDirectoryContents == ["store.lock", "store.sealed"])
    }

    @Test func aSuppliedKeyMustBe256Bits() async throws {
        let directory = try TemporaryDirectory()
        let store = EncryptedFileStore(directory: directory.store, keySource: .key(SymmetricKey(size: .bits128)))
        #expect(await errorCode { try await store.set(Data("v".utf8), forKey: "a") } == .keyUnavailable)
        #expect(!FileManager.default.fileExists(atPath: directory.storeFile.path))
    }

    @Test func twoInstancesWritingConcurrentlyLoseNothing() async throws {
        let directory = try TemporaryDirectory()
        let first = directory.store()
        let second = directory.store()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<25 {
                group.addTask { try await first.set(Data("a\(index)".utf8), forKey: "a-\(index)") }
                group.addTask { try await second.set(Data("b\(index)".utf8), forKey: "b-\(index)") }
            }
            try await group.waitForAll()
        }
        let keys = try await directory.store().itemKeys()
        #expect(keys.count == 50)
        #expect(try await first.data(forKey: "b-24") == Data("b24".utf8))
        #expect(try await second.data(forKey: "a-0") == Data("a0".utf8))
    }
}
