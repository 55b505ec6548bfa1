import Foundation

extension TestPKI.Chain {
    /// The chain and its leaf's key as a PKCS#12 bundle, made with the `openssl` command as a
    /// user would export one from a keychain or a CA tool (`.ci/run` installs openssl).
    /// - Throws: ``PKCS12ExportError`` when openssl is missing or fails.
    public func pkcs12(passphrase: String) throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("p12-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("chain.pem")
        let key = directory.appendingPathComponent("key.pem")
        let output = directory.appendingPathComponent("identity.p12")
        try self.pem.write(to: certificate, atomically: true, encoding: .utf8)
        try self.leafIdentity.privateKeyPEM.write(to: key, atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "pkcs12", "-export", "-in", certificate.path, "-inkey", key.path,
            "-out", output.path, "-passout", "env:P12_PASSPHRASE",
        ]
        // The passphrase travels in the environment, never in argv.
        process.environment = ["P12_PASSPHRASE": passphrase, "PATH": "/usr/bin:/bin"]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PKCS12ExportError(status: process.terminationStatus) }
        return Array(try Data(contentsOf: output))
    }
}

/// `openssl pkcs12 -export` failed.
public struct PKCS12ExportError: Error, CustomStringConvertible {
    /// openssl's exit status.
    public let status: Int32

    public var description: String { "openssl pkcs12 exited with \(self.status)" }
}
