import Crypto
import Foundation
import SecureNetworking
import SecureNetworkingTesting
import Testing
import X509

/// The fuzz targets' committed seeds (Fuzz/Corpus) and the inputs fuzzing found.
///
/// A seed is only worth its bytes if it reaches the far end of its parser: a chain that is
/// trusted, a store that opens, envelopes that open, hashes that verify. These tests keep the
/// seeds that way (a fixture key or anchor that drifts from the harness would leave the fuzzer
/// starting from inputs refused at the first check), with the harnesses' fixed keys and anchor.
@Suite("Fuzz corpus and regressions")
struct FuzzCorpusTests {
    static let fuzz = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    static func seed(_ target: String, _ name: String) throws -> Data {
        try Data(contentsOf: Self.fuzz.appendingPathComponent("Corpus/\(target)/\(name)"))
    }

    /// The trust-evaluate framing: each certificate as a 2-byte big-endian length and its DER.
    static func chain(_ name: String) throws -> [[UInt8]] {
        var bytes = try Array(Self.seed("trust-evaluate", name))[...]
        var chain: [[UInt8]] = []
        while bytes.count >= 2 {
            let length = Int(bytes.removeFirst()) << 8 | Int(bytes.removeFirst())
            chain.append(Array(bytes.prefix(length)))
            bytes = bytes.dropFirst(length)
        }
        return chain
    }

    static func evaluate(_ name: String) async throws -> TrustDecision {
        let anchor = try Certificate(
            derEncoded: Array(Data(contentsOf: Self.fuzz.appendingPathComponent("Fixtures/anchor.der")))
        )
        let requirements = ConnectionRequirements(
            host: "localhost",
            trustAnchors: .only([anchor]),
            pinScope: "localhost",
            pins: try PinSet([
                "sha256/pzYILsopQZ3x1y2ozoeY6vDR+8c+cu50RYnyPDYlpsk=",
                "sha256/VcniQpfmya8aSK4WsUKhO6v8YS9CoMNzczaTST1faJg=",
            ])
        )
        return await ServerTrust().evaluate(
            presentedChain: try Self.chain(name),
            requirements: requirements,
            now: TestPKI.referenceTime
        )
    }

    @Test func theTrustSeedsReachEveryOutcome() async throws {
        #expect(try await Self.evaluate("valid-chain").isTrusted)
        #expect(try await Self.evaluate("with-root").isTrusted)
        #expect(try await Self.evaluate("rsa").isTrusted)
        #expect(try await Self.evaluate("expired").failure?.code == .expired)
        #expect(try await Self.evaluate("wrong-host").failure?.code == .hostnameMismatch)
        #expect(try await Self.evaluate("leaf-only").isTrusted == false)
    }

    @Test func theStoreSeedOpensWithTheHarnessKey() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-seed-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.seed("store-file", "two-items").write(to: directory.appendingPathComponent("store.sealed"))
        let store = EncryptedFileStore(
            directory: directory,
            keySource: .key(SymmetricKey(data: [UInt8](repeating: 0x5A, count: 32)))
        )
        #expect(try await store.itemKeys().sorted() == ["access", "bin"])
        #expect(try await store.data(forKey: "access") == Data("access-token-value".utf8))
        #expect(try await store.data(forKey: "bin") == Data([0, 1, 2, 3]))
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
    @Test func theEnvelopeSeedsOpenWithTheHarnessKeys() throws {
        // The sealed-envelope target reads one choice byte (the associated data) first.
        let sealer = try Sealer(key: SymmetricKey(data: [UInt8](repeating: 0x42, count: 32)))
        #expect(try sealer.open(Self.seed("sealed-envelope", "aesgcm").dropFirst()) == Data("hello fuzz".utf8))
        #expect(try sealer.open(Self.seed("sealed-envelope", "chacha").dropFirst()) == Data("hello".utf8))
        let recipient = try E2EPrivateKey(rawRepresentation: [UInt8](repeating: 0x24, count: 32))
        #expect(try recipient.open(Self.seed("e2e-envelope", "message")) == Data("hello fuzz".utf8))
    }

    @Test func thePHCSeedsVerifyWithinTheHarnessLimits() throws {
        let limits = PasswordHasher.Limits(maximumPBKDF2Iterations: 2_000, maximumScryptMemoryBytes: 1 << 20)
        let hasher = try PasswordHasher(
            configuration: .init(algorithm: .pbkdf2SHA256, pbkdf2Iterations: 1_000, limits: limits)
        )
        for name in ["pbkdf2", "scrypt"] {
            let encoded = String(decoding: try Self.seed("phc-string", name), as: UTF8.self)
            #expect(try hasher.verify("password", against: encoded), "\(name)")
        }
    }

    @Test func theSCTSeedsParse() throws {
        // The sct-list target reads one choice byte (the origin) first.
        let list = try SignedCertificateTimestamp.parseList(Self.seed("sct-list", "two").dropFirst(), origin: .embedded)
        #expect(list.count == 2)
    }

    // MARK: - Found by fuzzing

    /// info-plist: CoreFoundation's property-list parser (behind PropertyListSerialization on
    /// Linux) leaked a CFError for each of these and took 150 ms (under ASan) to refuse `<?x`.
    /// The reader now uses PropertyListDecoder; the refusal stays a typed error at `$`.
    @Test(arguments: [
        Array("<?x".utf8),
        Array("<?xml version=\"1.0\"?><plist><dict><key>a</key>".utf8),
        Array("bplist00".utf8) + [0xD1, 0x01, 0x02],
        [],
    ])
    func malformedPropertyListsAreRefusedAtTheRoot(bytes: [UInt8]) throws {
        let error = #expect(throws: ServerTrustError.self) {
            try TransportSecurityPolicy.readInfoPlist(Data(bytes))
        }
        #expect(error?.code == .invalidPolicyFile)
        #expect(error?.keyPath == "$")
    }

    /// A binary property list whose array contains itself: PropertyListDecoder recursed on it
    /// until the stack overflowed (found while moving the reader to it); it must be refused.
    @Test func aSelfReferentialBinaryPropertyListIsRefused() throws {
        // bplist00, object 0 = array of one element referring to object 0; offset table; trailer.
        var bytes = Array("bplist00".utf8) + [0xA1, 0x00]
        let offsetTable = bytes.count
        bytes += [0x08]
        bytes += [0, 0, 0, 0, 0, 0]  // unused, sort version
        bytes += [1, 1]  // offset size, object reference size
        bytes += [0, 0, 0, 0, 0, 0, 0, 1]  // number of objects
        bytes += [0, 0, 0, 0, 0, 0, 0, 0]  // top object
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(offsetTable)]  // offset table offset
        let error = #expect(throws: ServerTrustError.self) {
            try TransportSecurityPolicy.readInfoPlist(Data(bytes))
        }
        #expect(error?.code == .invalidPolicyFile)
        #expect(error?.keyPath == "$")
    }

    /// XML nested deeper than the decoder should recurse is refused before it is parsed; an
    /// Info.plist nested to the limit still reads.
    @Test func deeplyNestedXMLIsRefusedBeforeParsing() throws {
        func plist(depth: Int) -> Data {
            let inner = String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
            return Data("<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>X</key>\(inner)</dict></plist>".utf8)
        }
        let error = #expect(throws: ServerTrustError.self) {
            try TransportSecurityPolicy.readInfoPlist(plist(depth: 100_000))
        }
        #expect(error?.keyPath == "$")
        // The root dictionary is one level, so 63 arrays inside it reach the limit of 64.
        #expect(throws: Never.self) { try TransportSecurityPolicy.readInfoPlist(plist(depth: 63)) }
        #expect(throws: ServerTrustError.self) { try TransportSecurityPolicy.readInfoPlist(plist(depth: 64)) }
    }

    /// certificate-file: `HostPattern("::..")` was accepted, as the address `::` (the pattern
    /// dropped one trailing dot and the address parser another), and its description `::.` read
    /// back as a different pattern. A pattern carries one trailing dot at most.
    @Test func aHostPatternWithTwoTrailingDotsIsRefused() throws {
        for text in ["::..", "10.0.0.1..", "api.example.com.."] {
            let error = #expect(throws: ServerTrustError.self, "\(text)") { try HostPattern(text) }
            #expect(error?.code == .invalidHostPattern)
        }
        for (text, normal) in [("10.0.0.1.", "10.0.0.1"), ("[::1]", "::1"), ("API.Example.com.", "api.example.com")] {
            let pattern = try HostPattern(text)
            #expect(pattern.description == normal)
            #expect(try HostPattern(pattern.description) == pattern)
        }
    }
}
