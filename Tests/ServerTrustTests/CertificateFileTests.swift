import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing

@Suite("Certificate files and securenet pins")
struct CertificateFileTests {
    let pki = Fixtures.pki

    final class TemporaryDirectory {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("securenet-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: self.url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: self.url) }

        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let file = self.url.appendingPathComponent(name)
            try Data(bytes).write(to: file)
            return file.path
        }
    }

    @Test func readsEveryCertificateOfAPEMChainAndADERFile() throws {
        let directory = try TemporaryDirectory()
        let chain = try pki.validChain()
        let pem = try CertificateFile(path: directory.write("chain.pem", Array(chain.pem.utf8)))
        #expect(pem.entries.map(\.pin) == chain.pins)
        #expect(pem.entries.map(\.certificate) == chain.certificates)
        let der = try CertificateFile(path: directory.write("leaf.der", chain.derChain[0]))
        #expect(der.entries.map(\.pin) == [chain.pins[0]])
    }

    @Test func weakRSACertificateStillHasItsPinAndKeySize() throws {
        let chain = try pki.rsa1024Chain()
        let file = try CertificateFile(bytes: chain.derChain[0])
        #expect(file.entries[0].rsaKeyBits == 1024)
        #expect(file.entries[0].pin == chain.pins[0])
        #expect(file.entries[0].certificate == nil)  // swift-certificates refuses RSA-1024
    }

    @Test func unreadableAndNonCertificateFilesAreTypedErrors() throws {
        let directory = try TemporaryDirectory()
        #expect {
            try CertificateFile(path: directory.url.appendingPathComponent("missing.pem").path)
        } throws: { ($0 as? ServerTrustError)?.code == .unreadableFile }
        let text = try directory.write("notes.txt", Array("hello, not a certificate\n".utf8))
        #expect {
            try CertificateFile(path: text)
        } throws: { ($0 as? ServerTrustError)?.code == .notACertificate }
        let key = try directory.write("key.pem", Array(pki.root.privateKeyPEM.utf8))
        #expect {
            try CertificateFile(path: key)
        } throws: { error in
            let error = error as? ServerTrustError
            return error?.code == .notACertificate && error?.message.contains("no CERTIFICATE block") == true
        }
    }

    @Test func securenetPinsPrintsEachCertificateAndFailsOnBadFiles() throws {
        let path = try Self.securenet()
        let directory = try TemporaryDirectory()
        let chain = try pki.validChain()
        let pem = try directory.write("chain.pem", Array(chain.pem.utf8))

        let good = try Self.run(path, [pem])
        #expect(good.status == 0)
        for pin in chain.pins { #expect(good.output.contains("pin:        \(pin)")) }
        #expect(good.output.contains("subject:    CN=localhost,O=SecureNetworking Tests"))
        #expect(good.output.contains("issuer:     CN=SecureNetworking Test Intermediate CA"))
        #expect(good.output.contains("not after:"))

        let bad = try Self.run(path, [pem, directory.url.appendingPathComponent("nope.pem").path])
        #expect(bad.status == 1)
        #expect(bad.error.contains("cannot read"))
        #expect(bad.output.contains(chain.pins[0].description))  // the good file is still printed
    }

    /// The built `securenet` executable.
    static func securenet() throws -> String {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "securenet"
        )
        let candidates = [binary.path, FileManager.default.currentDirectoryPath + "/.build/debug/securenet"]
        return try #require(
            candidates.first(where: FileManager.default.isExecutableFile(atPath:)),
            "securenet was not built"
        )
    }

    /// ``run(_:_:subcommand:environment:)`` on a thread of its own, for async tests: waiting for
    /// a child process on one of Swift's cooperative threads (as many as cores) would starve every
    /// other test's tasks for as long as the child runs, and their deadlines with them.
    static func runOffThePool(
        _ path: String,
        _ arguments: [String],
        subcommand: String = "pins",
        environment: [String: String] = [:]
    ) async throws -> (status: Int32, output: String, error: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result { try Self.run(path, arguments, subcommand: subcommand, environment: environment) }
                )
            }
        }
    }

    /// Runs `securenet pins` (or, with `subcommand`, another subcommand) with `arguments`.
    static func run(
        _ path: String,
        _ arguments: [String],
        subcommand: String = "pins",
        environment: [String: String] = [:]
    ) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = subcommand.split(separator: " ").map(String.init) + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
