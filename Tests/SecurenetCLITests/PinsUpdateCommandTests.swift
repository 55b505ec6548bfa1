#if Tools
import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing

/// `securenet pins keygen | sign | verify`, run as a user runs them (each child process waited
/// for off the cooperative pool, which other tests' tasks need meanwhile).
@Suite("securenet pins keygen, sign and verify")
struct PinsUpdateCommandTests {
    typealias TemporaryDirectory = CLI.TemporaryDirectory

    /// The vectors OpenSSL made (see Tests/ServerTrustTests/Fixtures/PinUpdates/README.md).
    static let openSSLFixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../ServerTrustTests/Fixtures/PinUpdates").standardized

    @Test func keygenSignAndVerifyRoundTrip() async throws {
        let path = try CLI.securenet()
        let directory = try TemporaryDirectory()
        let key = directory.url.appendingPathComponent("update-key.pem").path
        let made = try await CLI.run(path, ["keygen", "--out", key])
        #expect(made.status == 0, "\(made.error)")
        let publicKey = directory.url.appendingPathComponent("update-key.pub.pem").path
        let parsed = try PinUpdateKey(pemEncoded: String(contentsOfFile: publicKey, encoding: .utf8))
        #expect(made.output.contains("key id:      \(parsed.id)"))
        let attributes = try FileManager.default.attributesOfItem(atPath: key)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        // Not overwritten.
        let again = try await CLI.run(path, ["keygen", "--out", key])
        #expect(again.status == 1)
        #expect(again.error.contains("exists"))

        let pins = [Pin.digestPin(0x11), Pin.digestPin(0x22)].map(\.description).joined(separator: ",")
        let signed = directory.url.appendingPathComponent("pins.json").path
        let sign = try await CLI.run(
            path,
            [
                "sign", "--key", key, "--version", "7", "--ca-pins", "api.example.com=\(pins)", "--unpin",
                "old.example.com",
                "--out", signed,
            ]
        )
        #expect(sign.status == 0, "\(sign.error)")
        #expect(sign.error.contains("signed version 7 (2 host patterns)"))

        let verify = try await CLI.run(path, ["verify", signed, "--key", publicKey])
        #expect(verify.status == 0, "\(verify.error)")
        #expect(verify.output.contains("verified: version 7, signed by key \(parsed.id)"))
        #expect(verify.output.contains("after: ca-pins [\(Pin.digestPin(0x11)), \(Pin.digestPin(0x22))]"))
        #expect(verify.output.contains("after: not pinned (unpinned by this update)"))

        // Another key, an applied version as high, an instant past notAfter: refused, with the code.
        let other = directory.url.appendingPathComponent("other.pem").path
        #expect(try await CLI.run(path, ["keygen", "--out", other, "--algorithm", "p256"]).status == 0)
        let otherPublic = directory.url.appendingPathComponent("other.pub.pem").path
        let forged = try await CLI.run(path, ["verify", signed, "--key", otherPublic])
        #expect(forged.status == 1)
        #expect(forged.error.contains("refused: unknownPinUpdateKey"))
        let rollback = try await CLI.run(
            path,
            ["verify", signed, "--key", publicKey, "--applied-version", "7"]
        )
        #expect(rollback.status == 1)
        #expect(rollback.error.contains("refused: pinUpdateRollback"))
        let late = try await CLI.run(
            path,
            ["verify", signed, "--key", publicKey, "--at", "2099-01-01T00:00:00Z"]
        )
        #expect(late.status == 1)
        #expect(late.error.contains("refused: pinUpdateExpired"))

        // A policy whose pinned pattern the update leaves out without unpinning it.
        let policy = try directory.write(
            "policy.json",
            Array(
                #"{"pinnedDomains":{"pinned.example.com":{"pins":["\#(Pin.digestPin(0x33))","\#(Pin.digestPin(0x44))"]}}}"#
                    .utf8
            )
        )
        let compiled = try await CLI.run(
            path,
            ["verify", signed, "--key", publicKey, "--policy", policy, "--json"]
        )
        #expect(compiled.status == 0, "\(compiled.error)")
        #expect(compiled.output.contains(#""verified" : true"#))

        // Usage errors.
        #expect(
            try await CLI.run(path, ["sign", "--key", key, "--ca-pins", "api.example.com=\(pins)"]).status
                == 64
        )
        #expect(try await CLI.run(path, ["verify", signed]).status == 64)
    }

    /// `sign --document` signs the exact bytes: with OpenSSL's Ed25519 test key the signature is
    /// byte for byte the one `openssl pkeyutl -sign -rawin` made (Ed25519 is deterministic).
    @Test func signingADocumentGivesOpenSSLsSignature() async throws {
        let path = try CLI.securenet()
        let directory = try TemporaryDirectory()
        let signed = directory.url.appendingPathComponent("signed.json").path
        let sign = try await CLI.run(
            path,
            [
                "sign", "--key", Self.openSSLFixtures.appendingPathComponent("ed25519-private.pem").path,
                "--document", Self.openSSLFixtures.appendingPathComponent("document-v2.json").path, "--out", signed,
            ]
        )
        #expect(sign.status == 0, "\(sign.error)")
        let envelope = try SignedPinSetUpdate(envelope: Data(contentsOf: URL(fileURLWithPath: signed)))
        #expect(
            envelope.document == (try Data(contentsOf: Self.openSSLFixtures.appendingPathComponent("document-v2.json")))
        )
        #expect(
            envelope.signature
                == (try Data(contentsOf: Self.openSSLFixtures.appendingPathComponent("document-v2.ed25519.sig")))
        )
        let verify = try await CLI.run(
            path,
            [
                "verify", signed, "--key", Self.openSSLFixtures.appendingPathComponent("ed25519-public.pem").path,
                "--at", "2026-12-01T00:00:00Z",
            ]
        )
        #expect(verify.status == 0, "\(verify.error)")
        #expect(verify.output.contains("legacy.example.com:"))
    }
}

extension Pin {
    /// A pin whose digest is 32 copies of `byte`.
    static func digestPin(_ byte: UInt8) -> Pin {
        // 32 bytes: a valid digest.
        try! Pin(sha256Digest: [UInt8](repeating: byte, count: 32))
    }
}
#endif
