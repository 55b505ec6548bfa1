// A helper for SecureStorage's crash and concurrency tests: it writes to an EncryptedFileStore
// from a separate process, so the tests can kill it mid-write or race two of them.
//
//   SecureStorageStress write-loop <directory> <keyfile> <count> <first-generation> [iterations]
//       Sets item-0…item-(count-1) over and over; generation g (counting up from
//       first-generation) writes every item once. Prints "ready" after the first item of the
//       first generation is stored. Runs forever without iterations.
//   SecureStorageStress writer <directory> <keyfile> <prefix> <n>
//       Sets <prefix>-0…<prefix>-(n-1), one write each.
//   SecureStorageStress hold-lock <directory> <keyfile> <marker> -
//       Takes the store's cross-process lock, creates the file <marker>, and holds the lock
//       until it is killed.
//
// Values are made by `stressValue(generation:index:)`; the tests decode them with the same
// layout. Nothing secret is printed.

import Foundation
import SecureStorage

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// generation (UInt64) · index (UInt32) · filler of varying length · FNV-1a 64 of all before.
/// A torn or mixed value fails the checksum.
func stressValue(generation: UInt64, index: Int) -> Data {
    var bytes: [UInt8] = []
    withUnsafeBytes(of: generation.bigEndian) { bytes.append(contentsOf: $0) }
    withUnsafeBytes(of: UInt32(index).bigEndian) { bytes.append(contentsOf: $0) }
    let length = Int((generation &* 31 &+ UInt64(index) &* 97) % 4096)
    for position in 0..<length {
        bytes.append(UInt8(truncatingIfNeeded: generation &+ UInt64(position) &* 13))
    }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    withUnsafeBytes(of: hash.bigEndian) { bytes.append(contentsOf: $0) }
    return Data(bytes)
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("SecureStorageStress: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count >= 6 else {
    fail(
        "usage: write-loop <directory> <keyfile> <count> <first-generation> [iterations] | writer <directory> <keyfile> <prefix> <n>"
    )
}
let store = EncryptedFileStore(
    directory: URL(fileURLWithPath: arguments[2]),
    keySource: .keyFile(at: URL(fileURLWithPath: arguments[3]))
)

do {
    switch arguments[1] {
    case "write-loop":
        guard let count = Int(arguments[4]), count > 0, let first = UInt64(arguments[5]) else {
            fail("write-loop needs a positive count and a first generation")
        }
        let iterations = arguments.count > 6 ? UInt64(arguments[6]) : nil
        var generation = first
        var announced = false
        while iterations.map({ generation - first < $0 }) ?? true {
            for index in 0..<count {
                try await store.set(stressValue(generation: generation, index: index), forKey: "item-\(index)")
                if !announced {
                    FileHandle.standardOutput.write(Data("ready\n".utf8))
                    announced = true
                }
            }
            generation += 1
        }
    case "writer":
        guard let n = Int(arguments[5]), n > 0 else { fail("writer needs a positive n") }
        let prefix = arguments[4]
        for index in 0..<n {
            try await store.set(stressValue(generation: 1, index: index), forKey: "\(prefix)-\(index)")
        }
    case "hold-lock":
        guard let lock = try await store.lockAcrossProcesses(timeout: .seconds(10)) else {
            fail("the store has no cross-process lock")
        }
        FileManager.default.createFile(atPath: arguments[4], contents: Data())
        while true { try await Task.sleep(for: .seconds(3600)) }
        lock.release()
    default:
        fail("unknown mode \(arguments[1])")
    }
} catch {
    fail("\(error)")
}
