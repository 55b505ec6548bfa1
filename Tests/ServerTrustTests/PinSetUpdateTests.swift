import Crypto
import Foundation
import SecureNetworkingInternal
import ServerTrust
import Testing

/// Signed pin-set updates: the format, the signatures (checked against vectors OpenSSL made and
/// RFC 8032's), and every refusal of ``PinUpdateVerifier``.
@Suite("Pin-set updates: format, signatures, verification")
struct PinSetUpdateTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/PinUpdates")

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Self.directory.appendingPathComponent(name))
    }

    static func text(_ name: String) throws -> String {
        String(decoding: try Self.fixture(name), as: UTF8.self)
    }

    /// The pin of SHA-256("name"), as the fixture document's pins are made.
    static func pin(_ name: String) throws -> Pin {
        try Pin(sha256Digest: SHA256.hash(data: Array(name.utf8)))
    }

    static let now = ISO8601DateFormatter().date(from: "2026-11-27T00:00:00Z")!

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    // MARK: Vectors made by OpenSSL and RFC 8032

    @Test func anEd25519SignatureMadeByOpenSSLVerifies() throws {
        let key = try PinUpdateKey(pemEncoded: try Self.text("ed25519-public.pem"))
        #expect(key.algorithm == .ed25519)
        // `openssl pkey -pubin -in ed25519-public.pem -outform DER | sha256sum`
        #expect(key.id.digest == Self.hex("e2a185c7127ce765d6559225f74f5d4393bab4352c594976227dd5e2b05d4855"))
        let document = try Self.fixture("document-v2.json")
        let signature = try Self.fixture("document-v2.ed25519.sig")
        #expect(key.isValidSignature(signature, for: document))
        var tampered = document
        tampered[tampered.startIndex + 40] ^= 0x01
        #expect(!key.isValidSignature(signature, for: tampered))
    }

    @Test func aP256SignatureMadeByOpenSSLVerifies() throws {
        let key = try PinUpdateKey(pemEncoded: try Self.text("p256-public.pem"))
        #expect(key.algorithm == .p256)
        #expect(key.id.digest == Self.hex("7bc763b68da6207bcd30c1bc525f39e554eafaff64e25dd57eabf463156ad46c"))
        let document = try Self.fixture("document-v2.json")
        let signature = try Self.fixture("document-v2.p256.sig")
        #expect(key.isValidSignature(signature, for: document))
        // The Ed25519 signature is not a P-256 one, and the keys do not stand in for each other.
        #expect(!key.isValidSignature(try Self.fixture("document-v2.ed25519.sig"), for: document))
    }

    /// RFC 8032 §7.1, TEST 1 and TEST 2, with the public keys wrapped in a SubjectPublicKeyInfo
    /// (RFC 8410 §4: SEQUENCE { SEQUENCE { id-Ed25519 }, BIT STRING key }).
    @Test(arguments: [
        (
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        ),
        (
            "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
        ),
    ])
    func rfc8032Vectors(publicKey: String, message: String, signature: String) throws {
        let key = try PinUpdateKey(subjectPublicKeyInfoDER: Self.hex("302a300506032b6570032100") + Self.hex(publicKey))
        #expect(key.isValidSignature(Self.hex(signature), for: Self.hex(message)))
        #expect(!key.isValidSignature(Self.hex(signature), for: Self.hex(message) + [0]))
    }

    @Test func privateKeysMadeByOpenSSLSignWhatTheirPublicKeysVerify() throws {
        for (privateName, publicName) in [
            ("ed25519-private.pem", "ed25519-public.pem"), ("p256-private.pem", "p256-public.pem"),
        ] {
            let signing = try PinUpdateSigningKey(pemEncoded: try Self.text(privateName))
            let key = try PinUpdateKey(pemEncoded: try Self.text(publicName))
            #expect(signing.publicKey == key)
            let bytes = Data("the exact bytes".utf8)
            #expect(key.isValidSignature(try signing.signature(for: bytes), for: bytes))
        }
    }

    @Test func aSigningKeyNeverShowsItsSecret() throws {
        let key = PinUpdateSigningKey.generate(.p256)
        let pem = key.pemEncoded
        let body = pem.split(separator: "\n").dropFirst().first.map(String.init) ?? ""
        #expect(body.count > 20)
        var dumped = ""
        dump(key, to: &dumped)
        for shown in [String(describing: key), String(reflecting: key), dumped] {
            #expect(!shown.contains(body))
            #expect(shown.contains(key.publicKey.id.description))
        }
        // And it reads back.
        #expect(try PinUpdateSigningKey(pemEncoded: pem).publicKey == key.publicKey)
    }

    @Test func keysOfOtherKindsAreRefused() throws {
        #expect(throws: ServerTrustError(.invalidPinUpdateKey, "")) {
            try PinUpdateKey(pemEncoded: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----")
        }
        // An RSA key (from OpenSSL's test material shape): not an update key.
        #expect(throws: ServerTrustError(.invalidPinUpdateKey, "")) {
            try PinUpdateSigningKey(pemEncoded: "not a key")
        }
        #expect(throws: ServerTrustError(.invalidPinUpdateKey, "")) {
            try PinUpdateVerifier(trustedKeys: [], audience: "com.example.app")
        }
    }

    // MARK: The document

    @Test func theFixtureDocumentReads() throws {
        let update = try PinSetUpdate(json: try Self.fixture("document-v2.json"))
        #expect(update.version == 2)
        #expect(update.issuedAt == ISO8601DateFormatter().date(from: "2026-11-01T00:00:00Z"))
        #expect(update.notAfter == ISO8601DateFormatter().date(from: "2027-02-01T00:00:00Z"))
        #expect(update.entries.count == 3)
        #expect(update.entries[try HostPattern("legacy.example.com")] == .unpinned)
        guard case .pinned(let api)? = update.entries[try HostPattern("api.example.com")] else {
            Issue.record("api.example.com is not pinned")
            return
        }
        #expect(api.groups.map(\.scope) == [.certificateAuthority])
        #expect(api.pins == [try Self.pin("ca-1"), try Self.pin("ca-2")])
        guard case .pinned(let cdn)? = update.entries[try HostPattern("**.cdn.example.com")] else {
            Issue.record("**.cdn.example.com is not pinned")
            return
        }
        #expect(cdn.expiration == ISO8601DateFormatter().date(from: "2027-06-30T00:00:00Z"))
        // Written back and read again: the same document.
        #expect(try PinSetUpdate(json: update.jsonData()) == update)
    }

    @Test(arguments: [
        ("not json", "$"),
        (#"{"format":"securenet-pin-set-update/2","version":1}"#, "$.format"),
        (#"{"version":1}"#, "$.format"),
        (
            #"{"format":"securenet-pin-set-update/1","audience":"com.example.app","version":0,"issuedAt":"2026-01-01T00:00:00Z","notAfter":"2027-01-01T00:00:00Z","pinnedDomains":{}}"#,
            "$.version"
        ),
        (
            #"{"format":"securenet-pin-set-update/1","audience":"com.example.app","version":1.5,"issuedAt":"2026-01-01T00:00:00Z","notAfter":"2027-01-01T00:00:00Z","pinnedDomains":{}}"#,
            "$.version"
        ),
        (
            #"{"format":"securenet-pin-set-update/1","audience":"com.example.app","version":1,"issuedAt":"yesterday","notAfter":"2027-01-01T00:00:00Z","pinnedDomains":{}}"#,
            "$.issuedAt"
        ),
        (
            #"{"format":"securenet-pin-set-update/1","audience":"com.example.app","version":1,"issuedAt":"2027-01-01T00:00:00Z","notAfter":"2026-01-01T00:00:00Z","pinnedDomains":{"a.com":{"unpin":true}}}"#,
            "$.notAfter"
        ),
        (
            #"{"format":"securenet-pin-set-update/1","audience":"com.example.app","version":1,"issuedAt":"2026-01-01T00:00:00Z","notAfter":"2027-01-01T00:00:00Z","pinnedDomains":{}}"#,
            "$.pinnedDomains"
        ),
        (
            #"{"format":"securenet-pin-set-update/1","audience":"com.example.app","version":1,"issuedAt":"2026-01-01T00:00:00Z","notAfter":"2027-01-01T00:00:00Z","pinnedDomains":{"a.com":{"unpin":false}}}"#,
            "$.pinnedDomains[\"a.com\"].unpin"
        ),
        (
            #"{"format":"securenet-pin-set-update/1","audience":"com.example.app","version":1,"issuedAt":"2026-01-01T00:00:00Z","notAfter":"2027-01-01T00:00:00Z","pinnedDomains":{"a.com":{"unpin":true,"pins":[]}}}"#,
            "$.pinnedDomains[\"a.com\"].unpin"
        ),
        (
            #"{"format":"securenet-pin-set-update/1","audience":"com.example.app","version":1,"issuedAt":"2026-01-01T00:00:00Z","notAfter":"2027-01-01T00:00:00Z","pinnedDomains":{"*":{"unpin":true}}}"#,
            "$.pinnedDomains[\"*\"]"
        ),
        (
            #"{"format":"securenet-pin-set-update/1","audience":"com.example.app","version":1,"issuedAt":"2026-01-01T00:00:00Z","notAfter":"2027-01-01T00:00:00Z","pinnedDomains":{"a.com":{"pins":["md5/abc","sha256/abc"]}}}"#,
            "$.pinnedDomains[\"a.com\"].pins[0]"
        ),
        (
            #"{"format":"securenet-pin-set-update/1","audience":"com.example.app","version":1,"issuedAt":"2026-01-01T00:00:00Z","notAfter":"2027-01-01T00:00:00Z","pinnedDomains":{"a.com":{"unpin":true}},"extra":1}"#,
            "$.extra"
        ),
    ])
    func malformedDocumentsAreRefusedWithTheirKeyPath(json: String, keyPath: String) {
        do {
            _ = try PinSetUpdate(json: Data(json.utf8))
            Issue.record("accepted: \(json)")
        } catch {
            #expect(error.code == .malformedPinUpdate)
            #expect(error.keyPath == keyPath, "\(error)")
        }
    }

    static func document(issuedAt: String, notAfter: String, expiration: String) -> Data {
        Data(
            """
            {"format":"securenet-pin-set-update/1","audience":"com.example.app","version":1,"issuedAt":"\(issuedAt)","notAfter":"\(notAfter)",
             "pinnedDomains":{"a.com":{"pins":["sha256/qhCIv6kRQWcU+RTua3irSxjnEXcvgQ2bUfZjEo0bZhI=",
             "sha256/uPIsrh8JFNi/0K3jc0eBZ7uyAyFpg1CRInNT382GeO8="],"expiration":"\(expiration)"}}}
            """.utf8
        )
    }

    /// Found by the pin-set-update fuzz target: `ISO8601DateFormatter` read year 0000 and wrote
    /// it back as 0001, so the document no longer read back as itself. Dates before the
    /// Gregorian reform and at the ends of the four-digit years now do.
    @Test(arguments: [
        ("0000-01-01T00:00:00Z", "0000-03-01T00:00:00Z", "0000-02-29T00:00:00Z"),
        ("1582-10-10T00:00:00Z", "1582-10-20T00:00:00Z", "0400-02-29T00:00:00Z"),
        ("2026-11-01T00:00:00+14:00", "9999-12-31T23:59:59Z", "9999-12-31T23:59:59-00:00"),
    ])
    func documentsAtTheEdgesOfTheCalendarReadBackAsThemselves(
        issuedAt: String,
        notAfter: String,
        expiration: String
    )
        throws
    {
        let update = try PinSetUpdate(
            json: Self.document(issuedAt: issuedAt, notAfter: notAfter, expiration: expiration)
        )
        let written = String(decoding: update.jsonData(), as: UTF8.self)
        #expect(try PinSetUpdate(json: update.jsonData()) == update, "\(written)")
        #expect(update.issuedAt == InternetDateTime.parse(issuedAt))
        #expect(
            written.contains(#""expiration" : "\#(InternetDateTime.format(InternetDateTime.parse(expiration)!)!)""#)
        )
    }

    /// `ISO8601DateFormatter` read each of these as another day or time; a signed document
    /// must say what it means.
    @Test(arguments: [
        ("2027-02-29T00:00:00Z", "$.issuedAt"),
        ("2026-11-01T24:00:00Z", "$.issuedAt"),
        ("2026-11-01T00:00:00+25:00", "$.issuedAt"),
        ("0100-02-29T00:00:00Z", "$.issuedAt"),  // a Julian leap day; not one in the Gregorian calendar
    ])
    func aLenientDateIsRefused(issuedAt: String, keyPath: String) {
        // The same text as a document's issuedAt and as a pin set's expiration.
        for (document, path) in [
            (
                Self.document(issuedAt: issuedAt, notAfter: "2027-06-30T00:00:00Z", expiration: "2027-06-30T00:00:00Z"),
                keyPath
            ),
            (
                Self.document(issuedAt: "2026-11-01T00:00:00Z", notAfter: "2027-06-30T00:00:00Z", expiration: issuedAt),
                #"$.pinnedDomains["a.com"].expiration"#
            ),
        ] {
            do {
                _ = try PinSetUpdate(json: document)
                Issue.record("accepted: \(issuedAt) at \(path)")
            } catch {
                #expect(error.code == .malformedPinUpdate)
                #expect(error.keyPath == path)
            }
        }
    }

    /// A document made in code is written in whole seconds: `notAfter` rounded down (it stops
    /// being applied no later than asked), an expiration up (pins are not dropped earlier), and
    /// it reads back as itself; a date RFC 3339 cannot write is refused with its key path.
    @Test func aDocumentMadeInCodeReadsBackAsItself() throws {
        let pins = try PinSet(
            pins: [try Self.pin("a"), try Self.pin("b")],
            expiration: Date(timeIntervalSince1970: 1_900_000_000.25)
        )
        let update = try PinSetUpdate(
            audience: "com.example.app",
            version: 3,
            issuedAt: Date(timeIntervalSince1970: 1_800_000_000.75),
            notAfter: Date(timeIntervalSince1970: 1_810_000_000.75),
            entries: [try HostPattern("a.com"): .pinned(pins)]
        )
        #expect(update.issuedAt.timeIntervalSince1970 == 1_800_000_000)
        #expect(update.notAfter.timeIntervalSince1970 == 1_810_000_000)
        guard case .pinned(let written)? = update.entries[try HostPattern("a.com")] else {
            Issue.record("a.com is not pinned")
            return
        }
        #expect(written.expiration?.timeIntervalSince1970 == 1_900_000_001)
        #expect(written.pins == pins.pins)
        #expect(try PinSetUpdate(json: update.jsonData()) == update)

        for (issuedAt, notAfter, expiration, keyPath) in [
            (Date(timeIntervalSince1970: -70_000_000_000), Date(), nil, "$.issuedAt"),
            (Date(), Date(timeIntervalSince1970: 300_000_000_000), nil, "$.notAfter"),
            (Date(), Date() + 60, Date.distantFuture + 1e12, #"$.pinnedDomains["a.com"].expiration"#),
            (Date(timeIntervalSince1970: 5.25), Date(timeIntervalSince1970: 5.75), nil, "$.notAfter"),
        ] as [(Date, Date, Date?, String)] {
            do {
                _ = try PinSetUpdate(
                    audience: "com.example.app",
                    version: 1,
                    issuedAt: issuedAt,
                    notAfter: notAfter,
                    entries: [try HostPattern("a.com"): .pinned(try PinSet(pins: pins.pins, expiration: expiration))]
                )
                Issue.record("accepted: \(keyPath)")
            } catch {
                #expect(error.code == .malformedPinUpdate)
                #expect(error.keyPath == keyPath)
            }
        }
    }

    @Test func anEnforcedSetWithoutABackupIsRefusedAsSuch() throws {
        let json = """
            {"format":"securenet-pin-set-update/1","audience":"com.example.app","version":1,"issuedAt":"2026-01-01T00:00:00Z",
             "notAfter":"2027-01-01T00:00:00Z","pinnedDomains":{"a.com":{"caPins":["\(try Self.pin("ca-1"))"]}}}
            """
        do {
            _ = try PinSetUpdate(json: Data(json.utf8))
            Issue.record("accepted a set without a backup pin")
        } catch {
            #expect(error.code == .missingBackupPin)
            #expect(error.keyPath == "$.pinnedDomains[\"a.com\"]")
        }
    }

    // MARK: The verifier

    struct World {
        let signing = PinUpdateSigningKey.generate(.ed25519)
        let backup = PinUpdateSigningKey.generate(.p256)
        let stranger = PinUpdateSigningKey.generate(.ed25519)
        var verifier: PinUpdateVerifier
        let compiled: PinningPolicy

        init() throws {
            self.verifier = try PinUpdateVerifier(
                trustedKeys: [self.signing.publicKey, self.backup.publicKey],
                audience: "com.example.app"
            )
            self.compiled = PinningPolicy([
                try HostPattern("api.example.com"): try PinSet([
                    try PinSetUpdateTests.pin("old-1").description, try PinSetUpdateTests.pin("old-2").description,
                ])
            ])
        }

        func update(
            audience: String = "com.example.app",
            version: UInt64 = 2,
            issuedAt: Date = PinSetUpdateTests.now.addingTimeInterval(-86_400),
            notAfter: Date = PinSetUpdateTests.now.addingTimeInterval(30 * 86_400),
            entries: [String: PinSetUpdate.Entry]? = nil
        ) throws -> PinSetUpdate {
            let chosen =
                try entries
                ?? [
                    "api.example.com": .pinned(
                        try PinSet(
                            certificateAuthorityPins: [PinSetUpdateTests.pin("new-1"), PinSetUpdateTests.pin("new-2")],
                            leafPins: []
                        )
                    )
                ]
            var made: [HostPattern: PinSetUpdate.Entry] = [:]
            for (pattern, entry) in chosen { made[try HostPattern(pattern)] = entry }
            return try PinSetUpdate(
                audience: audience,
                version: version,
                issuedAt: issuedAt,
                notAfter: notAfter,
                entries: made
            )
        }

        func signed(_ update: PinSetUpdate, by key: PinUpdateSigningKey? = nil) throws -> Data {
            try SignedPinSetUpdate(signing: update.jsonData(), with: key ?? self.signing).envelope()
        }

        func verify(
            _ envelope: Data,
            current: PinningPolicy? = nil,
            appliedVersion: UInt64? = 1,
            now: Date = PinSetUpdateTests.now
        ) throws(ServerTrustError) -> PinSetUpdate {
            try self.verifier.verify(
                envelope,
                current: current ?? self.compiled,
                compiled: self.compiled,
                appliedVersion: appliedVersion,
                now: now
            )
        }
    }

    static func refusal(_ body: () throws(ServerTrustError) -> PinSetUpdate) -> ServerTrustError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    @Test func aGoodUpdateIsVerifiedAndAppliesToTheCompiledPins() throws {
        let world = try World()
        let update = try world.update()
        let verified = try world.verify(try world.signed(update))
        #expect(verified == update)
        let applied = world.compiled.applying(verified)
        #expect(applied.rule(for: "api.example.com")?.pins.pins == [try Self.pin("new-1"), try Self.pin("new-2")])
        // Signed with the backup key (P-256): accepted too, so the update key can rotate.
        #expect(try world.verify(try world.signed(update, by: world.backup)) == update)
        // With nothing applied yet, any version is new.
        #expect(try world.verify(try world.signed(update), appliedVersion: nil) == update)
    }

    @Test func theOpenSSLSignedFixtureVerifiesWithItsKey() throws {
        let key = try PinUpdateKey(pemEncoded: try Self.text("ed25519-public.pem"))
        let envelope = SignedPinSetUpdate(
            document: try Self.fixture("document-v2.json"),
            keyID: key.id,
            signature: try Self.fixture("document-v2.ed25519.sig")
        ).envelope()
        let compiled = PinningPolicy([
            try HostPattern("legacy.example.com"): try PinSet([
                try Self.pin("legacy-1").description, try Self.pin("legacy-2").description,
            ])
        ])
        let update = try PinUpdateVerifier(trustedKeys: [key], audience: "com.example.app").verify(
            envelope,
            current: compiled,
            compiled: compiled,
            appliedVersion: 1,
            now: Self.now
        )
        let applied = compiled.applying(update)
        #expect(applied.rule(for: "legacy.example.com") == nil)
        #expect(applied.rule(for: "img.cdn.example.com")?.pattern == (try HostPattern("**.cdn.example.com")))
    }

    @Test func aLargeEnvelopeIsRefusedBeforeParsing() throws {
        var world = try World()
        world.verifier.maximumSize = 1_000
        // Not even JSON: refused for its size, not its form.
        let error = Self.refusal { () throws(ServerTrustError) in
            try world.verify(Data(repeating: 0x20, count: 1_001))
        }
        #expect(error?.code == .pinUpdateTooLarge)
        #expect(
            Self.refusal { () throws(ServerTrustError) in try world.verify(Data("{".utf8)) }?.code
                == .malformedPinUpdate
        )
    }

    @Test func anUnknownKeyABadSignatureAndAMalformedEnvelopeAreRefused() throws {
        let world = try World()
        let update = try world.update()
        let byStranger = try world.signed(update, by: world.stranger)
        #expect(
            Self.refusal { () throws(ServerTrustError) in try world.verify(byStranger) }?.code == .unknownPinUpdateKey
        )

        // The stranger's signature under the trusted key's id: the signature does not verify.
        let forged = SignedPinSetUpdate(
            document: update.jsonData(),
            keyID: world.signing.publicKey.id,
            signature: Data(try world.stranger.signature(for: update.jsonData()))
        ).envelope()
        #expect(
            Self.refusal { () throws(ServerTrustError) in try world.verify(forged) }?.code == .invalidPinUpdateSignature
        )

        // A document changed after signing.
        let signed = try SignedPinSetUpdate(signing: update.jsonData(), with: world.signing)
        var document = signed.document
        document.append(0x20)
        let altered = SignedPinSetUpdate(document: document, keyID: signed.keyID, signature: signed.signature)
        #expect(
            Self.refusal { () throws(ServerTrustError) in try world.verify(altered.envelope()) }?.code
                == .invalidPinUpdateSignature
        )

        for bad in [
            #"{"format":"securenet-signed-pin-set-update/1","document":"AAAA","keyId":"sha256/AAAA"}"#,
            #"{"format":"other","document":"AAAA","keyId":"sha256/AAAA","signature":"AAAA"}"#,
            #"{"format":"securenet-signed-pin-set-update/1","document":"!!","keyId":"sha256/AAAA","signature":"AAAA"}"#,
            #"{"format":"securenet-signed-pin-set-update/1","document":"AAAA","keyId":"sha256/AAAA","signature":"AAAA","x":1}"#,
        ] {
            #expect(
                Self.refusal { () throws(ServerTrustError) in try world.verify(Data(bad.utf8)) }?.code
                    == .malformedPinUpdate,
                "\(bad)"
            )
        }
    }

    @Test func aSignedButMalformedDocumentIsRefusedAfterItsSignature() throws {
        let world = try World()
        let document = Data(
            #"{"format":"securenet-pin-set-update/1","audience":"com.example.app","version":"two"}"#.utf8
        )
        let envelope = try SignedPinSetUpdate(signing: document, with: world.signing).envelope()
        let error = Self.refusal { () throws(ServerTrustError) in try world.verify(envelope) }
        #expect(error?.code == .malformedPinUpdate)
        #expect(error?.keyPath == "$.version")
    }

    @Test func anOlderOrReplayedVersionIsRefused() throws {
        let world = try World()
        let version2 = try world.signed(try world.update(version: 2))
        #expect(
            Self.refusal { () throws(ServerTrustError) in try world.verify(version2, appliedVersion: 2) }?.code
                == .pinUpdateRollback
        )
        #expect(
            Self.refusal { () throws(ServerTrustError) in try world.verify(version2, appliedVersion: 5) }?.code
                == .pinUpdateRollback
        )
        #expect(try world.verify(version2, appliedVersion: 1).version == 2)
    }

    @Test func aDocumentOutsideItsValidityIsRefused() throws {
        var world = try World()
        let future = try world.signed(try world.update(issuedAt: Self.now.addingTimeInterval(3_600)))
        #expect(Self.refusal { () throws(ServerTrustError) in try world.verify(future) }?.code == .pinUpdateNotYetValid)
        // Within the clock-skew tolerance: accepted.
        let soon = try world.signed(try world.update(issuedAt: Self.now.addingTimeInterval(120)))
        #expect(try world.verify(soon).version == 2)
        world.verifier.clockSkewTolerance = 0
        #expect(Self.refusal { () throws(ServerTrustError) in try world.verify(soon) }?.code == .pinUpdateNotYetValid)

        let expired = try world.signed(
            try world.update(
                issuedAt: Self.now.addingTimeInterval(-90 * 86_400),
                notAfter: Self.now.addingTimeInterval(-1)
            )
        )
        #expect(Self.refusal { () throws(ServerTrustError) in try world.verify(expired) }?.code == .pinUpdateExpired)
    }

    @Test func droppingAPinnedHostNeedsAnExplicitUnpin() throws {
        let world = try World()
        let other = PinSetUpdate.Entry.pinned(
            try PinSet([try Self.pin("o-1").description, try Self.pin("o-2").description])
        )
        // The compiled pattern left out: the compiled pins stay, nothing is dropped.
        #expect(
            try world.verify(try world.signed(try world.update(entries: ["other.example.com": other]))).version == 2
        )

        // A pattern added by the update applied now, left out of the next one: dropped.
        let current = world.compiled.applying(try world.update(entries: ["other.example.com": other]))
        let next = try world.signed(try world.update(version: 3, entries: ["api.example.com": .unpinned]))
        let error = Self.refusal { () throws(ServerTrustError) in
            try world.verify(next, current: current, appliedVersion: 2)
        }
        #expect(error?.code == .pinUpdateDropsHost)
        #expect(error?.message.contains("other.example.com") == true)

        // Unpinned explicitly: accepted, and the pattern has no pins after it.
        let unpinning = try world.signed(
            try world.update(version: 3, entries: ["other.example.com": .unpinned, "api.example.com": .unpinned])
        )
        let verified = try world.verify(unpinning, current: current, appliedVersion: 2)
        #expect(world.compiled.applying(verified).rules.isEmpty)
    }
}
