import HTTPTypes
import NIOEmbedded
import NIOHPACK
import Testing

@testable import SecureHTTP

/// The response an HTTP/2 stream hands back: built from the header block, shared with the
/// connection's previous response only when the blocks are byte-identical.
@Suite("HTTP/2 response fields")
struct HTTP2ResponseFieldsTests {
    @Test func aByteIdenticalHeaderBlockSharesTheResponseAndAnyOtherBuildsItsOwn() throws {
        let shared = HTTP2StreamsShared(loop: EmbeddedEventLoop())
        let first = try shared.response(
            HPACKHeaders([(":status", "200"), ("content-type", "text/plain"), ("x-name", "caf\u{E9}")])
        )
        #expect(first.status.code == 200)
        #expect(first.headerFields[.contentType] == "text/plain")
        #expect(
            try shared.response(
                HPACKHeaders([(":status", "200"), ("content-type", "text/plain"), ("x-name", "caf\u{E9}")])
            ) == first
        )
        // Canonically equivalent, other bytes: a response of its own, with its own bytes.
        let decomposed = try shared.response(
            HPACKHeaders([(":status", "200"), ("content-type", "text/plain"), ("x-name", "cafe\u{301}")])
        )
        #expect(Array(decomposed.headerFields[HTTPField.Name("x-name")!]!.utf8) == Array("cafe\u{301}".utf8))
        let created = try shared.response(
            HPACKHeaders([(":status", "201"), ("content-type", "text/plain"), ("x-name", "cafe\u{301}")])
        )
        #expect(created.status.code == 201)
    }

    @Test func aHeaderBlockWithoutAValidStatusOrWithABadNameIsRefused() {
        let shared = HTTP2StreamsShared(loop: EmbeddedEventLoop())
        for block in [
            [("content-type", "text/plain")], [(":status", "20x")], [(":status", "1000")],
            [(":status", "200"), ("bad name", "x")],
        ] {
            do {
                _ = try shared.response(HPACKHeaders(block))
                Issue.record("accepted \(block)")
            } catch {
                #expect(error.code == .invalidResponse)
            }
        }
    }
}
