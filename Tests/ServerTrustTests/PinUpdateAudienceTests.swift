import Foundation
import ServerTrust
import Testing

/// Issue 51 item 6: with one update key for several apps, or for staging and production, a
/// document for one must not be applied by another (nor move its version): every document names
/// its audience, and a verifier accepts only its own.
@Suite("Pin-set updates: the audience")
struct PinUpdateAudienceTests {
    typealias World = PinSetUpdateTests.World

    @Test func aDocumentForAnotherAudienceIsRefusedWhateverItsVersion() throws {
        let world = try World()
        #expect(world.verifier.audience == "com.example.app")
        for audience in ["com.example.other", "com.example.app/staging", "com.example.ap", "Com.example.app"] {
            let foreign = try world.signed(try world.update(audience: audience, version: 1_000))
            let error = PinSetUpdateTests.refusal { () throws(ServerTrustError) in try world.verify(foreign) }
            #expect(error?.code == .pinUpdateWrongAudience, "\(audience)")
            #expect(error?.message.contains("\"\(audience)\"") == true, "\(String(describing: error))")
        }
        // Judged before the version: an older document for another audience is refused as such,
        // not as a rollback.
        let old = try world.signed(try world.update(audience: "com.example.other", version: 1))
        let error = PinSetUpdateTests.refusal { () throws(ServerTrustError) in
            try world.verify(old, appliedVersion: 5)
        }
        #expect(error?.code == .pinUpdateWrongAudience)
        // The verifier's own audience: accepted, and the document says whose it is.
        let own = try world.verify(try world.signed(try world.update(version: 6)), appliedVersion: 5)
        #expect(own.audience == "com.example.app")
    }

    @Test func aSignedDocumentWithoutAnAudienceIsRefused() throws {
        let world = try World()
        let document = Data(
            """
            {"format":"securenet-pin-set-update/1","version":2,"issuedAt":"2026-11-01T00:00:00Z",
             "notAfter":"2027-02-01T00:00:00Z","pinnedDomains":{"a.com":{"unpin":true}}}
            """.utf8
        )
        let envelope = try SignedPinSetUpdate(signing: document, with: world.signing).envelope()
        let error = PinSetUpdateTests.refusal { () throws(ServerTrustError) in try world.verify(envelope) }
        #expect(error?.code == .malformedPinUpdate)
        #expect(error?.keyPath == "$.audience")
    }

    @Test(arguments: [
        "", "com.example.app production", "com.example.app\n", "ünicode", String(repeating: "a", count: 129),
    ])
    func anAudienceOutsideItsCharactersIsRefused(audience: String) throws {
        let key = PinUpdateSigningKey.generate().publicKey
        #expect(throws: ServerTrustError(.invalidPinUpdateAudience, "")) {
            try PinUpdateVerifier(trustedKeys: [key], audience: audience)
        }
        do {
            _ = try PinSetUpdate(
                audience: audience,
                version: 1,
                issuedAt: PinSetUpdateTests.now,
                notAfter: PinSetUpdateTests.now.addingTimeInterval(60),
                entries: [try HostPattern("a.com"): .unpinned]
            )
            Issue.record("accepted the audience \(audience.debugDescription)")
        } catch {
            #expect(error.code == .malformedPinUpdate)
            #expect(error.keyPath == "$.audience")
        }
    }

    @Test func theAudienceIsWrittenAndReadBack() throws {
        let audience = String(repeating: "a", count: 100) + "/Prod_1.2-x:y"
        let world = try World()
        let update = try world.update(audience: audience)
        let written = String(decoding: update.jsonData(), as: UTF8.self)
        #expect(written.contains(#""audience" : "\#(audience)""#), "\(written)")
        #expect(try PinSetUpdate(json: update.jsonData()) == update)
        #expect(try PinSetUpdate(json: update.jsonData()).audience == audience)
    }
}
