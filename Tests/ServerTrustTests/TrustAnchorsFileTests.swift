import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing

@Suite("Trust anchors from PEM files and the policy file's trustAnchors key")
struct TrustAnchorsFileTests {
    let pki = Fixtures.pki

    /// A temporary folder removed when the test ends.
    final class Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("anchors-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: self.url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: self.url) }

        @discardableResult
        func write(_ name: String, _ text: String) throws -> String {
            let file = self.url.appendingPathComponent(name)
            try Data(text.utf8).write(to: file)
            return file.path
        }
    }

    /// A policy whose `trustAnchors` is `anchors`, as JSON text.
    static func policyJSON(_ anchors: Any) throws -> Data {
        try JSONSerialization.data(withJSONObject: ["trustAnchors": anchors])
    }

    /// The error `body` throws, which must be a ServerTrustError.
    static func failure(_ body: () throws -> Void) -> ServerTrustError? {
        do {
            try body()
            return nil
        } catch {
            return error as? ServerTrustError
        }
    }

    // MARK: - The PEM API

    @Test func aPEMFileAddsItsCAToTheSystemRootsOrReplacesThem() async throws {
        let folder = try Folder()
        let path = try folder.write("ca.pem", pki.root.pem)
        let added = try TrustAnchors.system(addingPEMFile: path)
        #expect(added.includesSystemRoots)
        #expect(added.certificates == [pki.root.certificate])
        #expect(added.profile == .webPKI)
        #expect(try await evaluate(pki.validChain(), anchors: added).isTrusted)

        let only = try TrustAnchors.only(pemFile: path, profile: .privatePKI)
        #expect(!only.includesSystemRoots)
        #expect(only.profile == .privatePKI)
        #expect(try await evaluate(pki.validChain(), anchors: only).isTrusted)

        let bundle = try folder.write("bundle.pem", pki.root.pem + "\n" + pki.interceptionCA.pem)
        #expect(
            try TrustAnchors.loadCertificates(pemFile: bundle) == [
                pki.root.certificate, pki.interceptionCA.certificate,
            ]
        )
        #expect(try TrustAnchors.loadCertificates(pem: pki.root.pem) == [pki.root.certificate])
    }

    @Test func aBadPEMFileIsATypedErrorThatNamesTheFile() throws {
        let folder = try Folder()
        let missing = folder.url.appendingPathComponent("absent.pem").path
        let unreadable = Self.failure { _ = try TrustAnchors.system(addingPEMFile: missing) }
        #expect(unreadable?.code == .unreadableFile)
        #expect(unreadable?.message.contains("absent.pem") == true)

        let text = try folder.write("notes.txt", "not a certificate")
        #expect(Self.failure { _ = try TrustAnchors.only(pemFile: text) }?.code == .notACertificate)

        let key = try folder.write("key.pem", pki.root.privateKeyPEM)
        let keyOnly = Self.failure { _ = try TrustAnchors.loadCertificates(pemFile: key) }
        #expect(keyOnly?.code == .notACertificate)
        #expect(keyOnly?.message.contains("no CERTIFICATE block") == true)

        let leaf = try folder.write("leaf.pem", try pki.validChain().pem)
        let notCA = Self.failure { _ = try TrustAnchors.system(addingPEMFile: leaf) }
        #expect(notCA?.code == .notACertificate)
        #expect(notCA?.message.contains("not a CA certificate") == true)
        #expect(notCA?.message.contains("CN=localhost") == true)

        let huge = try folder.write(
            "huge.pem",
            String(repeating: "A", count: TrustAnchors.maximumCertificateFileSize + 1)
        )
        let tooLarge = Self.failure { _ = try TrustAnchors.system(addingPEMFile: huge) }
        #expect(tooLarge?.code == .unreadableFile)
        #expect(tooLarge?.message.contains("at most") == true)

        // A device is read no further than the limit.
        if FileManager.default.fileExists(atPath: "/dev/zero") {
            #expect(Self.failure { _ = try TrustAnchors.system(addingPEMFile: "/dev/zero") }?.code == .unreadableFile)
        }
        #expect(Self.failure { _ = try TrustAnchors.system(addingPEMFile: folder.url.path) }?.code == .unreadableFile)
        let empty = try folder.write("empty.pem", "")
        #expect(Self.failure { _ = try TrustAnchors.system(addingPEMFile: empty) }?.code == .notACertificate)

        #expect(Self.failure { _ = try TrustAnchors.loadCertificates(pem: "ca.pem") }?.code == .notACertificate)
    }

    // MARK: - The policy file

    @Test func aRelativePathResolvesAgainstThePolicyFilesFolder() async throws {
        let folder = try Folder()
        try folder.write("ca.pem", pki.root.pem)
        let policyFile = try folder.write(
            "policy.json",
            #"{"trustAnchors": {"certificates": ["ca.pem"]}}"#
        )
        // Loaded from another working directory: only the policy file's folder matters.
        let policy = try TransportSecurityPolicy(contentsOfFile: policyFile)
        #expect(policy.trustAnchors.includesSystemRoots)  // "system" defaults to true
        #expect(policy.trustAnchors.certificates == [pki.root.certificate])
        #expect(policy.trustAnchors.profile == .webPKI)
        #expect(try await evaluate(pki.validChain(), anchors: policy.trustAnchors).isTrusted)

        let json = try Self.policyJSON(["certificates": ["ca.pem"]])
        let relative = try TransportSecurityPolicy(json: json, relativeTo: folder.url)
        #expect(relative.trustAnchors == policy.trustAnchors)
    }

    @Test func inlinePEMAndAbsolutePathsNeedNoFolder() throws {
        let folder = try Folder()
        let absolute = try folder.write("interception.pem", pki.interceptionCA.pem)
        let json = try Self.policyJSON([
            "system": false, "profile": "privatePKI", "certificates": [pki.root.pem, absolute],
        ])
        let policy = try TransportSecurityPolicy(json: json)
        #expect(!policy.trustAnchors.includesSystemRoots)
        #expect(policy.trustAnchors.profile == .privatePKI)
        #expect(policy.trustAnchors.certificates == [pki.root.certificate, pki.interceptionCA.certificate])
        // Without the key, the system roots as before.
        #expect(try TransportSecurityPolicy(json: Data("{}".utf8)).trustAnchors == .system)
    }

    @Test func eachBadTrustAnchorsEntryIsRefusedWithItsKeyPath() throws {
        let folder = try Folder()
        try folder.write("leaf.pem", try pki.validChain().pem)
        try folder.write("notes.txt", "not a certificate")
        try folder.write("ca.pem", pki.root.pem)
        try folder.write("huge.pem", String(repeating: "A", count: TrustAnchors.maximumCertificateFileSize + 1))
        let cases: [(anchors: Any, keyPath: String, says: String)] = [
            ("ca.pem", "$.trustAnchors", "expected an object"),
            (["roots": ["ca.pem"]], "$.trustAnchors.roots", "unknown key"),
            (["system": "yes"], "$.trustAnchors.system", "expected a boolean"),
            (["certificates": "ca.pem"], "$.trustAnchors.certificates", "expected an array"),
            (["certificates": ["ca.pem", 7]], "$.trustAnchors.certificates[1]", "found a number"),
            (["certificates": [""]], "$.trustAnchors.certificates[0]", "empty string"),
            (["certificates": ["ca.pem", "absent.pem"]], "$.trustAnchors.certificates[1]", "cannot read"),
            (["certificates": ["notes.txt"]], "$.trustAnchors.certificates[0]", "not a DER certificate"),
            (["certificates": ["leaf.pem"]], "$.trustAnchors.certificates[0]", "not a CA certificate"),
            (["certificates": ["huge.pem"]], "$.trustAnchors.certificates[0]", "at most"),
            (
                ["certificates": ["-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"]],
                "$.trustAnchors.certificates[0]", "not a DER certificate"
            ),
            (["certificates": Array(repeating: "ca.pem", count: 65)], "$.trustAnchors.certificates", "at most 64"),
            (["profile": "enterprise"], "$.trustAnchors.profile", "unknown profile"),
            (["profile": "privatePKI", "certificates": ["ca.pem"]], "$.trustAnchors.profile", "\"system\": false"),
            (["system": false], "$.trustAnchors.certificates", "at least one CA certificate"),
            (["system": false, "certificates": []], "$.trustAnchors.certificates", "at least one CA certificate"),
        ]
        for (anchors, keyPath, says) in cases {
            let json = try Self.policyJSON(anchors)
            let error = Self.failure { _ = try TransportSecurityPolicy(json: json, relativeTo: folder.url) }
            #expect(error?.code == .invalidPolicyFile, "\(keyPath)")
            #expect(error?.keyPath == keyPath, "\(String(describing: error))")
            #expect(error?.message.contains(says) == true, "\(keyPath): \(String(describing: error))")
        }
    }

    @Test func aRelativePathWithoutAFolderIsRefused() throws {
        let json = try Self.policyJSON(["certificates": ["ca.pem"]])
        let error = Self.failure { _ = try TransportSecurityPolicy(json: json) }
        #expect(error?.code == .invalidPolicyFile)
        #expect(error?.keyPath == "$.trustAnchors.certificates[0]")
        #expect(error?.message.contains("relative path") == true)
        #expect(error?.message.contains("contentsOfFile") == true)
    }

    // MARK: - The untrusted root, named

    @Test func aPresentedRootThatIsNotAnAnchorIsNamedWithHowToTrustIt() async throws {
        let decision = try await evaluate(pki.untrustedRootChain())
        #expect(decision.failure?.code == .untrustedRoot)
        #expect(decision.failure?.message.contains("CN=Untrusted Test Root CA") == true)
        #expect(decision.failure?.message.contains("\"trustAnchors\" in the policy file") == true)
        #expect(decision.failure?.message.contains("TrustAnchors.system(adding:)") == true)
    }

    @Test func aRootTheServerDoesNotSendIsNamedFromTheTopIntermediate() async throws {
        // The development server sends leaf and intermediate; the root stays with the client.
        let decision = try await evaluate(pki.validChain(), anchors: .only([pki.interceptionCA.certificate]))
        #expect(decision.failure?.code == .untrustedRoot)
        #expect(decision.failure?.message.contains("CN=SecureNetworking Test Root CA") == true)
        #expect(decision.failure?.message.contains("\"trustAnchors\"") == true)
        #expect(decision.failure?.message.contains("if it is an intermediate, the server must send it") == true)
    }

    @Test func aLeafWhoseIssuerIsAbsentIsStillAMissingIntermediate() async throws {
        let decision = try await evaluate(pki.missingIntermediateChain())
        #expect(decision.failure?.code == .missingIntermediate)
        #expect(decision.failure?.message.contains("CN=SecureNetworking Test Intermediate CA") == true)
    }

    @Test func aCAMintedAgainWithTheSameNameIsPointedOut() async throws {
        // A stale copy of a development CA: same name, another key.
        let other = try TestPKI()
        let decision = try await evaluate(pki.validChain(), anchors: .only([other.root.certificate]))
        #expect(decision.failure?.code == .untrustedRoot)
        #expect(decision.failure?.message.contains("did not sign") == true)
    }
}
