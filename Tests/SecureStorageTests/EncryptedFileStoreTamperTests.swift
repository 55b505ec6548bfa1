import Foundation
import SecureStorage
import Testing

/// Damage to the store file, and the code each kind of damage gets:
/// a changed item, MAC or swapped/rolled-back box → `tampered`; a damaged header (bad magic, key
/// check or header checksum), truncation or garbage → `corrupted`; a newer version → `unsupported`.
@Suite("EncryptedFileStore: tampering and damage")
struct EncryptedFileStoreTamperTests {
    // Key-file store layout: magic 0..<8, version 8..<10, kind 10, key check 11..<43,
    // header checksum 43..<75, item count 75..<79, then the items, then a 32-byte HMAC.
    static let keyCheckOffset = 11
    static let headerChecksumOffset = 43

    /// A store with two items; returns the directory and the file's bytes.
    func makeStore() async throws -> (TemporaryDirectory, Data) {
        let directory = try TemporaryDirectory()
        let store = directory.store()
        try await store.set(Data("first value".utf8), forKey: "alpha-item")
        try await store.set(Data("other value".utf8), forKey: "bravo-item")
        return (directory, try Data(contentsOf: directory.storeFile))
    }

    /// Expects `code` from every operation, and the file unchanged after the writes.
    func expectUnusable(_ directory: TemporaryDirectory, _ code: SecureStoreError.Code) async throws {
        let damaged = try Data(contentsOf: directory.storeFile)
        let store = directory.store()
        #expect(await errorCode { try await store.data(forKey: "alpha-item") } == code)
        #expect(await errorCode { try await store.data(forKey: "bravo-item") } == code)
        #expect(await errorCode { try await store.contains("alpha-item") } == code)
        #expect(await errorCode { try await store.set(Data("new".utf8), forKey: "charlie") } == code)
        #expect(await errorCode { try await store.removeValue(forKey: "alpha-item") } == code)
        #expect(try Data(contentsOf: directory.storeFile) == damaged)
        // destroyAll is the way out; the key file is kept and reused.
        try await store.destroyAll()
        #expect(try await store.data(forKey: "alpha-item") == nil)
        try await store.set(Data("fresh".utf8), forKey: "alpha-item")
        #expect(try await directory.store().data(forKey: "alpha-item") == Data("fresh".utf8))
    }

    @Test func aFlippedCiphertextByteIsTampering() async throws {
        let (directory, _) = try await self.makeStore()
        // key bytes, box length (4), nonce (12), then the ciphertext.
        let ciphertext = try offset(of: "alpha-item", in: directory.storeFile) + "alpha-item".utf8.count + 4 + 12
        try flipByte(in: directory.storeFile, at: ciphertext + 2)
        try await self.expectUnusable(directory, .tampered)
    }

    @Test func aFlippedTrailerByteIsTampering() async throws {
        let (directory, _) = try await self.makeStore()
        try flipByte(in: directory.storeFile, at: -1)
        try await self.expectUnusable(directory, .tampered)
    }

    @Test func aChangedItemKeyIsTampering() async throws {
        let (directory, _) = try await self.makeStore()
        // "alpha-item" → "alpha-itel": still a valid, sorted key, but not the one sealed.
        try flipByte(in: directory.storeFile, at: try offset(of: "alpha-item", in: directory.storeFile) + 9)
        try await self.expectUnusable(directory, .tampered)
    }

    @Test func aDamagedHeaderIsCorruptionNotAWrongKey() async throws {
        let (first, _) = try await self.makeStore()
        try flipByte(in: first.storeFile, at: Self.keyCheckOffset + 5)
        try await self.expectUnusable(first, .corrupted)

        let (second, _) = try await self.makeStore()
        try flipByte(in: second.storeFile, at: Self.headerChecksumOffset)
        try await self.expectUnusable(second, .corrupted)

        let (third, _) = try await self.makeStore()
        try flipByte(in: third.storeFile, at: 0)  // magic
        try await self.expectUnusable(third, .corrupted)
    }

    @Test func truncationAndGarbageAreCorruption() async throws {
        for keep in [0, 5, 40, 80, 100, -1] {
            let (directory, original) = try await self.makeStore()
            let length = keep >= 0 ? keep : original.count - 1
            try original.prefix(length).write(to: directory.storeFile)
            try await self.expectUnusable(directory, .corrupted)
        }
        let (appended, original) = try await self.makeStore()
        try (original + Data([0])).write(to: appended.storeFile)
        try await self.expectUnusable(appended, .corrupted)

        let (garbage, _) = try await self.makeStore()
        var generator = SystemRandomNumberGenerator()
        try Data((0..<2048).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: garbage.storeFile)
        try await self.expectUnusable(garbage, .corrupted)
    }

    @Test func aNewerFormatVersionIsUnsupported() async throws {
        let (directory, _) = try await self.makeStore()
        var bytes = [UInt8](try Data(contentsOf: directory.storeFile))
        bytes[9] = 2  // version 1 → 2
        try Data(bytes).write(to: directory.storeFile)
        try await self.expectUnusable(directory, .unsupported)
    }

    @Test func anItemRolledBackOnItsOwnIsTampering() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.store()
        try await store.set(Data("balance=0100".utf8), forKey: "alpha-item")
        try await store.set(Data("x".utf8), forKey: "bravo-item")
        let old = [UInt8](try Data(contentsOf: directory.storeFile))
        try await store.set(Data("balance=0000".utf8), forKey: "alpha-item")
        var current = [UInt8](try Data(contentsOf: directory.storeFile))
        #expect(old.count == current.count)

        // Put the old, validly sealed box of alpha-item back into the new file.
        let start = try offset(of: "alpha-item", in: directory.storeFile) + "alpha-item".utf8.count + 4
        let boxLength = 12 + "balance=0000".utf8.count + 16
        current.replaceSubrange(start..<(start + boxLength), with: old[start..<(start + boxLength)])
        try Data(current).write(to: directory.storeFile)
        try await self.expectUnusable(directory, .tampered)
    }

    @Test func swappedItemsAreTampering() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.store()
        try await store.set(Data("value-one".utf8), forKey: "alpha-item")
        try await store.set(Data("value-two".utf8), forKey: "bravo-item")
        var bytes = [UInt8](try Data(contentsOf: directory.storeFile))
        let boxLength = 12 + 9 + 16
        let alpha = try offset(of: "alpha-item", in: directory.storeFile) + 10 + 4
        let bravo = try offset(of: "bravo-item", in: directory.storeFile) + 10 + 4
        let alphaBox = Array(bytes[alpha..<(alpha + boxLength)])
        bytes.replaceSubrange(alpha..<(alpha + boxLength), with: bytes[bravo..<(bravo + boxLength)])
        bytes.replaceSubrange(bravo..<(bravo + boxLength), with: alphaBox)
        try Data(bytes).write(to: directory.storeFile)
        try await self.expectUnusable(directory, .tampered)
    }

    @Test func strayTemporaryFilesDoNotBreakReadingAndAreCleanedUp() async throws {
        let (directory, original) = try await self.makeStore()
        // What a writer killed mid-write leaves behind: a partial copy under a temporary name.
        let stray = directory.store.appendingPathComponent(".store-12345-abc.tmp")
        try original.prefix(50).write(to: stray)
        #expect(try await directory.store().data(forKey: "alpha-item") == Data("first value".utf8))
        try await directory.store().set(Data("v".utf8), forKey: "charlie")
        #expect(directory.storeDirectoryContents == ["store.lock", "store.sealed"])
    }
}
