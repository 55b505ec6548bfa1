import Foundation
import SecureNetworkingInternal
import ServerTrust
import Testing

/// Issue 51 item 5: a key given twice in one JSON object is read as the first by
/// `JSONDecoder` and as the last by `jq` and Python, so a signed document, an envelope or a
/// policy file that names one twice is refused, with the key's path.
@Suite("Strict JSON: a key given twice is refused")
struct DuplicateKeyTests {
    typealias World = PinSetUpdateTests.World

    static let pinA = "sha256/qhCIv6kRQWcU+RTua3irSxjnEXcvgQ2bUfZjEo0bZhI="
    static let pinB = "sha256/uPIsrh8JFNi/0K3jc0eBZ7uyAyFpg1CRInNT382GeO8="

    /// The review's document: an unpin first (what `JSONDecoder` applied), new pins second
    /// (what a reviewer reading it with `jq` sees).
    static func document(pinnedDomainsKey: String) -> Data {
        Data(
            """
            {"format":"securenet-pin-set-update/1","audience":"com.example.app","version":2,
             "issuedAt":"2026-11-01T00:00:00Z","notAfter":"2027-02-01T00:00:00Z",
             "pinnedDomains":{"api.example.com":{"unpin":true}},
             "\(pinnedDomainsKey)":{"api.example.com":{"caPins":["\(pinA)","\(pinB)"]}}}
            """.utf8
        )
    }

    static func refusal(_ body: () throws(ServerTrustError) -> Void) -> ServerTrustError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: ["pinnedDomains", #"pinned\u0044omains"#, #"\u0070innedDomains"#])
    func aDocumentThatNamesPinnedDomainsTwiceIsRefused(key: String) throws {
        let error = Self.refusal { () throws(ServerTrustError) in
            _ = try PinSetUpdate(json: Self.document(pinnedDomainsKey: key))
        }
        #expect(error?.code == .malformedPinUpdate)
        #expect(error?.keyPath == "$.pinnedDomains", "\(String(describing: error))")
        #expect(
            error?.message.contains(#"the key "pinnedDomains" appears twice"#) == true,
            "\(String(describing: error))"
        )
    }

    @Test func aSignedDocumentWithADuplicateKeyIsRefusedByTheVerifier() throws {
        let world = try World()
        let envelope = try SignedPinSetUpdate(
            signing: Self.document(pinnedDomainsKey: "pinnedDomains"),
            with: world.signing
        ).envelope()
        let error = PinSetUpdateTests.refusal { () throws(ServerTrustError) in try world.verify(envelope) }
        #expect(error?.code == .malformedPinUpdate)
        #expect(error?.keyPath == "$.pinnedDomains")
    }

    @Test func aHostPatternOrAPinSetKeyGivenTwiceIsRefusedAtItsPath() {
        let json = """
            {"format":"securenet-pin-set-update/1","audience":"com.example.app","version":2,
             "issuedAt":"2026-11-01T00:00:00Z","notAfter":"2027-02-01T00:00:00Z",
             "pinnedDomains":{"a.com":{"pins":["\(Self.pinA)","\(Self.pinB)"],"reportOnly":false,"reportOnly":true}}}
            """
        let error = Self.refusal { () throws(ServerTrustError) in _ = try PinSetUpdate(json: Data(json.utf8)) }
        #expect(error?.code == .malformedPinUpdate)
        #expect(error?.keyPath == #"$.pinnedDomains["a.com"].reportOnly"#, "\(String(describing: error))")
    }

    @Test func anEnvelopeThatNamesAFieldTwiceIsRefused() throws {
        let world = try World()
        let signed = try SignedPinSetUpdate(signing: try world.update().jsonData(), with: world.signing)
        let other = try SignedPinSetUpdate(
            signing: try world.update(version: 9).jsonData(),
            with: world.signing
        )
        let envelope = """
            {"format":"securenet-signed-pin-set-update/1","document":"\(other.document.base64EncodedString())",
             "keyId":"\(signed.keyID)","signature":"\(signed.signature.base64EncodedString())",
             "document":"\(signed.document.base64EncodedString())"}
            """
        let error = Self.refusal { () throws(ServerTrustError) in
            _ = try SignedPinSetUpdate(envelope: Data(envelope.utf8))
        }
        #expect(error?.code == .malformedPinUpdate)
        #expect(error?.keyPath == "$.document")
    }

    @Test func aPolicyFileThatNamesAKeyTwiceIsRefused() {
        for (json, keyPath) in [
            (#"{"allowsArbitraryLoads": false, "allowsArbitraryLoads": true}"#, "$.allowsArbitraryLoads"),
            (
                #"{"exceptionDomains": {"a.com": {"minimumTLSVersion": "TLSv1.2"}, "a.com": {"minimumTLSVersion": "TLSv1.0"}}}"#,
                #"$.exceptionDomains["a.com"]"#
            ),
            (
                #"{"trustAnchors": {"system": false, "certificates": [{"x": 1, "x": 2}]}}"#,
                "$.trustAnchors.certificates[0].x"
            ),
        ] {
            let error = Self.refusal { () throws(ServerTrustError) in
                _ = try TransportSecurityPolicy(json: Data(json.utf8))
            }
            #expect(error?.code == .invalidPolicyFile, "\(json)")
            #expect(error?.keyPath == keyPath, "\(String(describing: error))")
        }
    }

    @Test func aKeyThatIsTheSameStringToSwiftIsTheSameKey() {
        // "é" precomposed and as e + combining acute: one key to a Swift dictionary.
        let json = "{\"caf\u{E9}\": 1, \"cafe\u{301}\": 2}"
        #expect(JSONDuplicateKeys.scan(Data(json.utf8)) == .duplicate([.key("caf\u{E9}")]))
    }

    @Test func theScannerFindsDuplicatesAnywhereAndOnlyDuplicates() {
        let cases: [(String, JSONDuplicateKeys.Finding?)] = [
            (#"{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}"#, nil),
            (#"{"a": [1, {"x": "\"", "y": 2, "x": 3}]}"#, .duplicate([.key("a"), .index(1), .key("x")])),
            (#"[{}, [], {"k": {"k": 1, "k": 2}}]"#, .duplicate([.index(2), .key("k"), .key("k")])),
            (#"  {"a\nb": 1, "a\u000Ab": 2}  "#, .duplicate([.key("a\nb")])),
            (#"{"\uD83D\uDE00": 1, "😀": 2}"#, .duplicate([.key("😀")])),
            (#"{"a": "x", "A": "y", "": 1, " ": 2}"#, nil),
            (#""text""#, nil),
            ("\u{FEFF}{\"a\": true, \"b\": null, \"c\": -1.5e+3}", nil),
            // Not JSON, or a key that is not Unicode: refused.
            (#"{"a": 1,}"#, .malformed),
            (#"{"\uD800": 1}"#, .malformed),
            (#"{"a" 1}"#, .malformed),
            (#"{"a": 1} x"#, .malformed),
            ("", .malformed),
        ]
        for (json, expected) in cases {
            #expect(JSONDuplicateKeys.scan(Data(json.utf8)) == expected, "\(json)")
        }
        // Invalid UTF-8 in a key.
        #expect(JSONDuplicateKeys.scan(Data([0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D])) == .malformed)
    }

    /// The scanner keeps its own stack: nesting far deeper than a thread's stack allows is
    /// scanned, not a crash.
    @Test func deepNestingDoesNotOverflowTheStack() {
        let depth = 200_000
        let deep = Data(repeating: UInt8(ascii: "["), count: depth) + Data(repeating: UInt8(ascii: "]"), count: depth)
        #expect(JSONDuplicateKeys.scan(deep) == nil)
        let objects =
            Data(String(repeating: #"{"a":"#, count: depth).utf8) + Data(repeating: UInt8(ascii: "1"), count: 1)
            + Data(repeating: UInt8(ascii: "}"), count: depth)
        #expect(JSONDuplicateKeys.scan(objects) == nil)
    }

    /// An object of many keys is scanned in linear time (the key set is not copied per key).
    @Test func anObjectOfManyKeysIsScanned() {
        let members = (0..<100_000).map { "\"k\($0)\": \($0)" }.joined(separator: ",")
        #expect(JSONDuplicateKeys.scan(Data("{\(members)}".utf8)) == nil)
        #expect(JSONDuplicateKeys.scan(Data("{\(members), \"k99999\": 0}".utf8)) == .duplicate([.key("k99999")]))
    }
}
