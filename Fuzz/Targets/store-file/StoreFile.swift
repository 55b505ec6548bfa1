import Crypto
import Foundation
import FuzzSupport
import SecureStorage

#if canImport(Glibc)
import Glibc
#endif

/// `EncryptedFileStore`'s file format: the input is written as `store.sealed`, then opened with
/// one fixed key (the seeds were written under it). A file that cannot be read must fail with
/// a typed error, and a write must then leave it byte for byte as it was.
@_cdecl("store_file_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// One input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    let bytes = Data(input.rest)
    guard FileManager.default.createFile(atPath: storePath, contents: bytes) else {
        fatalError("cannot write \(storePath)")
    }
    let store = EncryptedFileStore(directory: directory, keySource: .key(key))
    let failure = runBlocking { () async -> SecureStoreError.Code? in
        do throws(SecureStoreError) {
            for item in try await store.itemKeys() {
                guard try await store.data(forKey: item) != nil else { fatalError("a listed item has no value") }
            }
            return nil
        } catch {
            return error.code
        }
    }
    guard let failure else { return 0 }
    require(
        ([.corrupted, .wrongKey, .tampered, .unsupported] as [SecureStoreError.Code]).contains(failure),
        "reading failed with \(failure)"
    )
    let written = runBlocking { () async -> SecureStoreError.Code? in
        do throws(SecureStoreError) {
            try await store.set(Data("new".utf8), forKey: "new")
            return nil
        } catch {
            return error.code
        }
    }
    require(written == failure, "a write to an unreadable store gave \(String(describing: written))")
    require(readFile(storePath) == bytes, "an unreadable store was overwritten")
    return 0
}

let key = SymmetricKey(data: [UInt8](repeating: 0x5A, count: 32))
let directory: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("securenet-fuzz-store-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()
let storePath = directory.appendingPathComponent("store.sealed").path

/// The file's bytes, read with POSIX calls (FoundationEssentials' `FileManager.contents(atPath:)`
/// leaks a 4 KiB buffer per call under LeakSanitizer, which would hide the store's own leaks).
func readFile(_ path: String) -> Data? {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(descriptor, &buffer, buffer.count)
        if count < 0 { return nil }
        if count == 0 { return data }
        data.append(contentsOf: buffer[..<count])
    }
}
