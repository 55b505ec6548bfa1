import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing
import X509

@Suite("Pins")
struct PinTests {
    static let digest = Array(0..<32).map(UInt8.init)
    static let base64 = Data(digest).base64EncodedString()

    @Test func parsesThePrefixedForm() throws {
        let pin = try Pin("sha256/" + Self.base64)
        #expect(pin.digest == Self.digest)
        #expect(pin.description == "sha256/" + Self.base64)
        #expect(pin.base64 == Self.base64)
    }

    @Test func parsesBareBase64AsTrustKitAndATSWriteIt() throws {
        #expect(try Pin(Self.base64) == Pin("sha256/" + Self.base64))
    }

    @Test(arguments: [
        ("sha1/" + Data(repeating: 1, count: 20).base64EncodedString(), "unsupported pin prefix 'sha1/'"),
        ("md5:" + Data(repeating: 1, count: 16).base64EncodedString(), "unsupported pin prefix 'md5:'"),
        ("sha256/" + Data(repeating: 1, count: 20).base64EncodedString(), "decodes to 20 bytes"),
        ("sha256/not*base64!", "is not valid base64"),
        ("sha256/", "the pin is empty"),
        (Data(repeating: 1, count: 48).base64EncodedString(), "decodes to 48 bytes"),
    ])
    func refusesBadPins(text: String, expected: String) {
        #expect {
            try Pin(text)
        } throws: { error in
            let error = error as? ServerTrustError
            return error?.code == .invalidPin && error?.message.contains(expected) == true
        }
    }

    @Test func sameKeyGivesTheSamePinFromCertificateDERAndPEM() throws {
        let chain = try Fixtures.pki.validChain()
        let fromCertificate = Pin(certificate: chain.leaf)
        #expect(try Pin(certificateDER: chain.derChain[0]) == fromCertificate)
        #expect(try Pin.pins(inPEM: chain.pem) == chain.pins)
        #expect(chain.pins[0] == fromCertificate)
        #expect(chain.pins[0] != chain.pins[1])
    }

    @Test func pinOfNonCertificateIsATypedError() {
        #expect { try Pin(certificateDER: [0x30, 0x03, 0x02, 0x01, 0x01]) } throws: {
            ($0 as? ServerTrustError)?.code == .notACertificate
        }
        #expect {
            try Pin.pins(inPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        } throws: { ($0 as? ServerTrustError)?.code == .notACertificate }
    }

    @Test func knownAnswerMatchesTheCommittedOpenSSLValue() throws {
        let pins = try Pin.pins(inPEM: KnownAnswer.certificatePEM)
        #expect(pins == [try Pin(KnownAnswer.opensslPin)])
    }

    /// Recomputes the expected pin with openssl when it is installed (.ci/run installs it).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")))
    func knownAnswerMatchesOpenSSLForAFreshTestPKICertificate() throws {
        let chain = try Fixtures.pki.leaf { $0.key = .rsa(bits: 2048) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("leaf.pem")
        try chain.leafIdentity.pem.write(to: file, atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c",
            "openssl x509 -in '\(file.path)' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64",
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0)
        #expect(try Pin(text.trimmingCharacters(in: .whitespacesAndNewlines)) == chain.pins[0])
    }
}
