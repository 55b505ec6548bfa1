#if TestServers
import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Testing

@testable import TokenAuth

/// Issue 51 item 17: a signer keeps the nonces of the origins it used most recently, a bounded
/// number of them.
@Suite("DPoP nonce table")
struct DPoPNonceTableTests {
    @Test func theTableKeepsTheMostRecentlyUsedOrigins() {
        var table = DPoPNonceTable()
        let limit = DPoPNonceTable.maximumOrigins
        for index in 0..<limit { table.record("n\(index)", for: "https://o\(index).example") }
        #expect(table.count == limit)
        // Reading o0 makes it the most recent: a new origin then forgets o1, the least recent.
        #expect(table.nonce(for: "https://o0.example") == "n0")
        table.record("new", for: "https://new.example")
        #expect(table.count == limit)
        #expect(table.nonce(for: "https://o1.example") == nil)
        #expect(table.nonce(for: "https://o0.example") == "n0")
        #expect(table.nonce(for: "https://new.example") == "new")
        // A new nonce of a known origin replaces its own and forgets no other.
        table.record("n2-again", for: "https://o2.example")
        #expect(table.count == limit)
        #expect(table.nonce(for: "https://o2.example") == "n2-again")
        #expect(table.nonce(for: "https://o3.example") == "n3")
    }

    @Test func aSignerThatMeetsManyOriginsKeepsABoundedTable() throws {
        let key = DPoPKey()
        let signer = DPoPSigner(key: key)
        var response = HTTPResponse(status: .ok)
        for index in 0..<1000 {
            response.headerFields[DPoPSigner.nonceHeaderName] = "nonce-\(index)"
            #expect(signer.noteNonce(in: response, from: URL(string: "https://host\(index).example/")!))
        }
        #expect(String(describing: signer).hasSuffix("nonces: \(DPoPNonceTable.maximumOrigins))"))
        // The latest origins keep their nonce; the first ones were forgotten.
        let latest = HTTPRequest(method: .get, url: URL(string: "https://host999.example/items")!)
        #expect(try DPoPTests.decode(try signer.proof(for: latest), key: key).claims["nonce"] as? String == "nonce-999")
        let oldest = HTTPRequest(method: .get, url: URL(string: "https://host0.example/items")!)
        #expect(try DPoPTests.decode(try signer.proof(for: oldest), key: key).claims["nonce"] == nil)
    }
}
#endif
