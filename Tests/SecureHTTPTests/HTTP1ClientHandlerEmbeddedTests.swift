import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import SecureHTTP

/// ``HTTP1ClientHandler`` in an `EmbeddedChannel`: response bytes in, request bytes out, and how
/// the exchange ends, with no socket.
@Suite("HTTP/1.1 client handler (embedded)", .timeLimit(.minutes(1)))
struct HTTP1ClientHandlerEmbeddedTests {
    /// A channel with the response decoder and the handler, as connection setup builds it.
    final class Harness {
        let channel = EmbeddedChannel()
        let handler: HTTP1ClientHandler
        let closeReason = NIOLockedValueBox<SecureHTTPError?>(nil)
        let heads = NIOLockedValueBox(0)
        /// What each release reported (whether the connection may carry another request).
        let releases = NIOLockedValueBox<[Bool]>([])

        init() throws {
            let decoder = HTTP1ResponseDecoder()
            self.handler = HTTP1ClientHandler(
                handshakePromise: self.channel.eventLoop.makePromise(),
                awaitsTLSHandshake: false,
                closeReason: self.closeReason,
                idleTimeout: .seconds(60),
                responseDecoder: decoder,
                mapError: { _ in SecureHTTPError(.tlsFailure, "mapped") }
            )
            try self.channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(decoder))
            try self.channel.pipeline.syncOperations.addHandler(self.handler)
            try self.channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        }

        /// Starts a `method` request, feeds `response` (in pieces) in, runs `then`, and returns
        /// how the exchange ended (`then` must end an exchange that the response leaves open).
        func exchange(
            _ method: HTTPRequest.Method = .get,
            limit: Int = 1000,
            deadline: NIODeadline = .now() + .seconds(60),
            fields: HTTPFields = [:],
            response: [String],
            then: () -> Void = {}
        ) async -> Result<HTTP1ClientHandler.Completed, SecureHTTPError> {
            var request = HTTPRequest(method: method, scheme: "https", authority: "example.test", path: "/r")
            request.headerFields.append(contentsOf: fields)
            do {
                let heads = self.heads
                let releases = self.releases
                let completed = try await withUnsafeThrowingContinuation { continuation in
                    self.handler.start(
                        HTTP1ClientHandler.Exchange(
                            request: request,
                            body: nil,
                            maximumBodySize: limit,
                            deadline: deadline,
                            onHead: { heads.withLockedValue { $0 += 1 } },
                            release: { reusable in releases.withLockedValue { $0.append(reusable) } },
                            continuation: continuation
                        )
                    )
                    for piece in response {
                        try? self.channel.writeInbound(ByteBuffer(string: piece))
                    }
                    then()
                }
                return .success(completed)
            } catch {
                return .failure(error as! SecureHTTPError)
            }
        }

        func written() throws -> String? {
            try self.channel.readOutbound(as: ByteBuffer.self).map { String(buffer: $0) }
        }
    }

    @Test func writesTheRequestAndCompletesWithTheResponse() async throws {
        let harness = try Harness()
        let result = await harness.exchange(response: ["HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel", "lo"])
        let completed = try result.get()
        #expect(completed.response.status == .ok)
        #expect(completed.body == Data("hello".utf8))
        #expect(completed.reusable)
        #expect(try harness.written()?.hasPrefix("GET /r HTTP/1.1\r\n") == true)
        #expect(harness.heads.withLockedValue { $0 } == 1)
        #expect(harness.channel.isActive)
        // Given back once, before the task resumed, as reusable.
        #expect(harness.releases.withLockedValue { $0 } == [true])
    }

    @Test func aConnectionThatClosesIsReleasedAsNotReusableAndAFailureIsNotReleased() async throws {
        let closing = try Harness()
        _ = await closing.exchange(response: ["HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"])
        #expect(closing.releases.withLockedValue { $0 } == [false])
        // A failed exchange is left to the caller, which gives the connection back itself.
        let failing = try Harness()
        let result = await failing.exchange(limit: 10, response: ["HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n"])
        #expect(result.error?.code == .responseTooLarge)
        #expect(failing.releases.withLockedValue { $0 }.isEmpty)
    }

    @Test func aRequestThatCannotBeFramedFailsBeforeAByteIsWritten() async throws {
        let harness = try Harness()
        // RFC 9112 §6.1: a request's last transfer coding must be chunked.
        let result = await harness.exchange(
            .post,
            fields: [.transferEncoding: "gzip"],
            response: []
        )
        #expect(result.error?.code == .invalidRequest)
        #expect(try harness.written() == nil)
        #expect(harness.releases.withLockedValue { $0 }.isEmpty)
        // The handler took no exchange: the connection can still carry the next request.
        let next = await harness.exchange(response: ["HTTP/1.1 204 No Content\r\n\r\n"])
        #expect(try next.get().response.status == .noContent)
    }

    @Test func aKeepAliveConnectionCarriesTheNextExchange() async throws {
        let harness = try Harness()
        let first = await harness.exchange(response: ["HTTP/1.1 204 No Content\r\n\r\n"])
        #expect(try first.get().reusable)
        let second = await harness.exchange(response: ["HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"])
        #expect(try second.get().body == Data("ok".utf8))
    }

    @Test func interimResponsesAreSkipped() async throws {
        let harness = try Harness()
        let result = await harness.exchange(response: [
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
        ])
        #expect(try result.get().body == Data("x".utf8))
        #expect(harness.heads.withLockedValue { $0 } == 1)
    }

    @Test func aContentLengthOverTheLimitFailsAndClosesTheConnection() async throws {
        let harness = try Harness()
        let result = await harness.exchange(limit: 10, response: ["HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n"])
        #expect(result.error?.code == .responseTooLarge)
        #expect(!harness.channel.isActive)
        #expect(harness.closeReason.withLockedValue { $0 }?.code == .responseTooLarge)
    }

    @Test func aChunkedBodyOverTheLimitFails() async throws {
        let harness = try Harness()
        let result = await harness.exchange(
            limit: 10,
            response: [
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "8\r\n12345678\r\n", "8\r\n12345678\r\n",
            ]
        )
        #expect(result.error?.code == .responseTooLarge)
    }

    @Test func trailersEndTheResponse() async throws {
        let harness = try Harness()
        let result = await harness.exchange(response: [
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-Checksum: 1\r\n\r\n"
        ])
        #expect(try result.get().body == Data("abc".utf8))
    }

    @Test func connectionCloseMakesTheConnectionNotReusable() async throws {
        let harness = try Harness()
        let result = await harness.exchange(response: [
            "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
        ])
        #expect(try result.get().reusable == false)
        #expect(!harness.channel.isActive)
    }

    @Test func aResponseThatIsNotHTTPFailsAsInvalid() async throws {
        let harness = try Harness()
        let result = await harness.exchange(response: ["SMTP ready\r\n\r\n"])
        #expect(result.error?.code == .invalidResponse)
        #expect(!harness.channel.isActive)
    }

    /// The decoder sees the end of the stream first and reports the truncated message.
    @Test func theServerClosingMidBodyFailsAsATruncatedResponse() async throws {
        let harness = try Harness()
        let result = await harness.exchange(response: ["HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"]) {
            harness.channel.pipeline.fireChannelInactive()
        }
        #expect(result.error?.code == .invalidResponse)
        #expect(result.error?.message == "the response is not valid HTTP/1.1 (stream ended at an unexpected time)")
    }

    @Test func theConnectionEndingWithTheExchangeInFlightFailsIt() async throws {
        let harness = try Harness()
        let result = await harness.exchange(response: []) {
            harness.channel.pipeline.fireChannelInactive()
        }
        #expect(result.error?.code == .connectionClosed)
        #expect(result.error?.message == "the server closed the connection before the response was complete")
    }

    @Test func aCloseOnThisSideFailsTheExchangeAtOnce() async throws {
        let harness = try Harness()
        let result = await harness.exchange(response: ["HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"]) {
            harness.channel.pipeline.close(promise: nil)
        }
        #expect(result.error?.code == .connectionClosed)
        #expect(result.error?.message == "the connection was closed during the exchange")
    }

    @Test func thePassedDeadlineFailsTheExchangeAndClosesTheConnection() async throws {
        let harness = try Harness()
        let result = await harness.exchange(
            deadline: .now(),
            response: ["HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"]
        ) {
            // The embedded loop's clock starts at zero: bring it to the real now.
            harness.channel.embeddedEventLoop.advanceTime(to: .now())
        }
        #expect(result.error?.code == .deadlineExceeded)
        #expect(!harness.channel.isActive)
    }

    @Test func aConnectionThatClosedRefusesTheNextExchangeWithTheReason() async throws {
        let harness = try Harness()
        _ = await harness.exchange(limit: 1, response: ["HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n"])
        let next = await harness.exchange(response: [])
        #expect(next.error?.code == .responseTooLarge)
    }

    @Test func anErrorInThePipelineIsMappedAndFailsTheExchange() async throws {
        let harness = try Harness()
        let result = await harness.exchange(response: []) {
            harness.channel.pipeline.fireErrorCaught(ChannelError.ioOnClosedChannel)
        }
        #expect(result.error?.code == .tlsFailure)
        #expect(result.error?.message == "mapped")
    }
}
