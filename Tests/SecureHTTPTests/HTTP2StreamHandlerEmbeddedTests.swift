import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

@testable import SecureHTTP

/// ``HTTP2StreamHandler`` in an `EmbeddedChannel` standing for its stream: frame payloads in,
/// the request's frames out, and how the exchange ends, with no connection.
@Suite("HTTP/2 stream handler (embedded)", .timeLimit(.minutes(1)))
struct HTTP2StreamHandlerEmbeddedTests {
    final class Harness {
        let channel = EmbeddedChannel()
        let exchange = HTTP2Exchange()
        let heads = NIOLockedValueBox(0)
        let connection = HTTP2ConnectionState()

        /// A stream for a `method` request (with `body`, if any) under `limit`, started.
        init(
            method: String = "GET",
            body: String? = nil,
            limit: Int = 1000,
            deadline: NIODeadline = .now() + .seconds(60)
        ) throws {
            let heads = self.heads
            let handler = HTTP2StreamHandler(
                headers: [":method": method, ":scheme": "https", ":authority": "example.test", ":path": "/r"],
                body: body.map { ByteBuffer(string: $0) },
                maximumBodySize: limit,
                deadline: deadline,
                exchange: self.exchange,
                connection: self.connection,
                shared: HTTP2StreamsShared(loop: self.channel.eventLoop),
                onHead: { heads.withLockedValue { $0 += 1 } }
            )
            try self.channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
            try self.channel.pipeline.syncOperations.addHandler(handler)
        }

        func headers(_ fields: HPACKHeaders, endStream: Bool = false) throws {
            try self.channel.writeInbound(HTTP2Frame.FramePayload.headers(.init(headers: fields, endStream: endStream)))
        }

        func data(_ text: String, endStream: Bool = false) throws {
            try self.channel.writeInbound(
                HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(ByteBuffer(string: text)), endStream: endStream))
            )
        }

        func outcome() async -> Result<HTTP2StreamHandler.Completed, SecureHTTPError> {
            do {
                return .success(try await withUnsafeThrowingContinuation { self.exchange.wait($0) })
            } catch {
                return .failure(error as! SecureHTTPError)
            }
        }

        func written() throws -> [HTTP2Frame.FramePayload] {
            var frames: [HTTP2Frame.FramePayload] = []
            while let frame = try self.channel.readOutbound(as: HTTP2Frame.FramePayload.self) { frames.append(frame) }
            return frames
        }
    }

    static func failure(_ result: Result<HTTP2StreamHandler.Completed, SecureHTTPError>) -> SecureHTTPError? {
        if case .failure(let error) = result { return error }
        return nil
    }

    @Test func writesHeadersAndDataThenCompletesWithTheResponse() async throws {
        let harness = try Harness(method: "POST", body: "ping")
        let written = try harness.written()
        #expect(written.count == 2)
        guard case .headers(let head) = written.first, case .data(let data) = written.last else {
            Issue.record("expected HEADERS then DATA, got \(written)")
            return
        }
        #expect(head.headers.first(name: ":method") == "POST")
        #expect(!head.endStream)
        #expect(data.endStream)
        try harness.headers([":status": "200", "content-length": "5"])
        try harness.data("hel")
        try harness.data("lo", endStream: true)
        let completed = try await harness.outcome().get()
        #expect(completed.response.status == .ok)
        #expect(String(buffer: completed.body) == "hello")
        #expect(harness.heads.withLockedValue { $0 } == 1)
    }

    @Test func aRequestWithoutBodyEndsTheStreamWithItsHeaders() async throws {
        let harness = try Harness()
        let written = try harness.written()
        guard case .headers(let head) = written.first else {
            Issue.record("expected HEADERS, got \(written)")
            return
        }
        #expect(written.count == 1)
        #expect(head.endStream)
        try harness.headers([":status": "204"], endStream: true)
        #expect(try await harness.outcome().get().response.status == .noContent)
    }

    @Test func interimResponsesAreSkipped() async throws {
        let harness = try Harness()
        try harness.headers([":status": "100"])
        try harness.headers([":status": "103", "link": "</a>"])
        try harness.headers([":status": "200"])
        try harness.data("x", endStream: true)
        #expect(String(buffer: try await harness.outcome().get().body) == "x")
        #expect(harness.heads.withLockedValue { $0 } == 1)
    }

    @Test func aStreamEndingOnAnInterimResponseFailsAndIsReset() async throws {
        let harness = try Harness()
        try harness.headers([":status": "103"], endStream: true)
        #expect(Self.failure(await harness.outcome())?.message == "the stream ended with an interim response")
        #expect(!harness.channel.isActive)
    }

    @Test func aContentLengthOverTheLimitFailsBeforeTheBody() async throws {
        let harness = try Harness(limit: 10)
        try harness.headers([":status": "200", "content-length": "11"])
        #expect(Self.failure(await harness.outcome())?.code == .responseTooLarge)
        #expect(!harness.channel.isActive)
    }

    @Test func dataOverTheLimitFails() async throws {
        let harness = try Harness(limit: 10)
        try harness.headers([":status": "200"])
        try harness.data("123456")
        try harness.data("123456")
        #expect(Self.failure(await harness.outcome())?.code == .responseTooLarge)
    }

    @Test func trailersEndTheResponse() async throws {
        let harness = try Harness()
        try harness.headers([":status": "200"])
        try harness.data("abc")
        try harness.headers(["x-checksum": "1"], endStream: true)
        #expect(String(buffer: try await harness.outcome().get().body) == "abc")
    }

    @Test func trailersThatDoNotEndTheStreamFail() async throws {
        let harness = try Harness()
        try harness.headers([":status": "200"])
        try harness.headers(["x-checksum": "1"])
        let error = Self.failure(await harness.outcome())
        #expect(error?.code == .invalidResponse)
        #expect(error?.message == "the response has a header block after its body that does not end the stream")
    }

    @Test func dataBeforeTheHeadFails() async throws {
        let harness = try Harness()
        try harness.data("x")
        #expect(Self.failure(await harness.outcome())?.message == "the server sent a response frame out of order")
    }

    @Test func aHeadWithoutStatusFailsAsInvalid() async throws {
        let harness = try Harness()
        try harness.headers(["content-type": "text/plain"], endStream: true)
        #expect(Self.failure(await harness.outcome())?.code == .invalidResponse)
    }

    @Test func thePassedDeadlineFailsTheExchangeAndResetsTheStream() async throws {
        let harness = try Harness(deadline: .now())
        try harness.headers([":status": "200"])
        // The embedded loop's clock starts at zero: bring it to the real now.
        harness.channel.embeddedEventLoop.advanceTime(to: .now())
        #expect(Self.failure(await harness.outcome())?.code == .deadlineExceeded)
        #expect(!harness.channel.isActive)
    }

    @Test func theStreamClosingMidBodyFailsWithTheConnectionsReason() async throws {
        let harness = try Harness()
        try harness.headers([":status": "200"])
        harness.connection.fail(SecureHTTPError(.connectionClosed, "GOAWAY"))
        harness.channel.pipeline.fireChannelInactive()
        #expect(Self.failure(await harness.outcome())?.message == "GOAWAY")
    }

    @Test func aStreamRefusedWasNotProcessed() async throws {
        let harness = try Harness()
        harness.channel.pipeline.fireErrorCaught(NIOHTTP2Errors.streamClosed(streamID: 1, errorCode: .refusedStream))
        #expect(Self.failure(await harness.outcome())?.code == .requestNotProcessed)
    }

    @Test func aStreamAboveTheGoAwaysLastStreamWasNotProcessed() async throws {
        let harness = try Harness()
        harness.connection.goneAway(lastStreamID: 1)
        harness.channel.pipeline.fireErrorCaught(NIOHTTP2Errors.streamClosed(streamID: 3, errorCode: .cancel))
        #expect(Self.failure(await harness.outcome())?.code == .requestNotProcessed)
    }

    @Test func anRSTStreamFromTheServerIsAStreamReset() async throws {
        let harness = try Harness()
        try harness.headers([":status": "200"])
        try harness.channel.writeInbound(HTTP2Frame.FramePayload.rstStream(.internalError))
        harness.channel.pipeline.fireErrorCaught(NIOHTTP2Errors.streamClosed(streamID: 1, errorCode: .internalError))
        let error = Self.failure(await harness.outcome())
        #expect(error?.code == .streamReset)
        #expect(error?.message == "the server reset the HTTP/2 stream (HTTP2ErrorCode<0x2 Internal Error>)")
    }

    /// NIOHTTP2 resets a stream whose response breaks the protocol and closes it with the
    /// error code it sent; the server sent no RST_STREAM.
    @Test func aStreamClosedWithoutRSTStreamFromTheServerIsAnInvalidResponse() async throws {
        let harness = try Harness()
        try harness.headers([":status": "200", "content-length": "10"])
        harness.channel.pipeline.fireErrorCaught(NIOHTTP2Errors.streamClosed(streamID: 1, errorCode: .protocolError))
        let error = Self.failure(await harness.outcome())
        #expect(error?.code == .invalidResponse)
        #expect(error?.message.contains("the client reset the stream") == true)
    }

    @Test func theFirstOutcomeStands() async throws {
        let harness = try Harness()
        try harness.headers([":status": "200"], endStream: true)
        harness.channel.pipeline.fireErrorCaught(NIOHTTP2Errors.streamClosed(streamID: 1, errorCode: .cancel))
        harness.channel.pipeline.fireChannelInactive()
        #expect(try await harness.outcome().get().response.status == .ok)
    }
}
