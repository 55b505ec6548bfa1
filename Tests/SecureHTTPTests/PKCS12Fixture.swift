import Foundation
import SecureNetworkingTesting
import Testing

/// Builds a PKCS#12 bundle with the openssl command (installed by .ci/run), as a user would
/// export one from a keychain or a CA tool.
enum PKCS12Fixture {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func make(_ chain: TestPKI.Chain, passphrase: String) throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("p12-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("chain.pem")
        let key = directory.appendingPathComponent("key.pem")
        let output = directory.appendingPathComponent("identity.p12")
        try chain.pem.write(to: certificate, atomically: true, encoding: .utf8)
        try chain.leafIdentity.privateKeyPEM.write(to: key, atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "pkcs12", "-export", "-in", certificate.path, "-inkey", key.path,
            "-out", output.path, "-passout", "env:P12_PASSPHRASE",
        ]
        process.environment = ["P12_PASSPHRASE": passphrase, "PATH": "/usr/bin:/bin"]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "openssl pkcs12 exited with \(process.terminationStatus)")
        }
        return Array(try Data(contentsOf: output))
    }
}
