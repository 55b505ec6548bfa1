import Foundation
import FuzzSupport
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded

@testable import SecureHTTP

/// The HTTP/1.1 response path as a connection runs it: NIO's response decoder and
/// `HTTP1ClientHandler` on an `EmbeddedChannel`, one request sent, then the input arriving in
/// two reads and the server closing. The first bytes choose the method, where the bytes split
/// and the body limit.
@_cdecl("http1_response_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// One input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let method = input.pick([HTTPRequest.Method.get, .head, .post, .delete])
    let split = Int(input.byte())
    let limit = input.pick([0, 7, 1024, 1 << 20])
    let payload = input.rest
    let outcome = runBlocking { await exchange(method: method, limit: limit, payload: payload, split: split) }
    switch outcome {
    case .success(let status, let bodyCount):
        require(bodyCount <= limit, "a body of \(bodyCount) bytes passed the limit of \(limit)")
        require(method != .head || bodyCount == 0, "a body on a HEAD response")
        require(status >= 100 && status <= 999, "status \(status) out of range")
        require(status >= 200 || status == 101, "an interim response \(status) returned as final")
    case .failure(let code):
        require(failureCodes.contains(code), "an unexpected failure \(code)")
    }
    return 0
}

/// How an exchange may end on hostile bytes.
let failureCodes: Set<SecureHTTPError.Code> = [.invalidResponse, .connectionClosed, .responseTooLarge]

enum Outcome: Sendable {
    case success(status: Int, bodyCount: Int)
    case failure(SecureHTTPError.Code)
}

func exchange(method: HTTPRequest.Method, limit: Int, payload: [UInt8], split: Int) async -> Outcome {
    do {
        let completed = try await withUnsafeThrowingContinuation {
            (continuation: UnsafeContinuation<HTTP1ClientHandler.Completed, any Error>) in
            let channel = EmbeddedChannel()
            let decoder = HTTP1ResponseDecoder()
            let handler = HTTP1ClientHandler(
                handshakePromise: channel.eventLoop.makePromise(),
                awaitsTLSHandshake: false,
                closeReason: NIOLockedValueBox(nil),
                idleTimeout: .seconds(60),
                responseDecoder: decoder,
                mapError: { _ in SecureHTTPError(.connectionClosed, "the connection failed") }
            )
            try! channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(decoder))
            try! channel.pipeline.syncOperations.addHandler(handler)
            _ = channel.connect(to: try! SocketAddress(ipAddress: "127.0.0.1", port: 443))
            let request = HTTPRequest(method: method, scheme: "https", authority: "api.example", path: "/items")
            let body = method == .post ? Data("{}".utf8) : nil
            handler.start(
                .init(
                    request: request,
                    body: body,
                    maximumBodySize: limit,
                    deadline: .now() + .seconds(60),
                    continuation: continuation
                )
            )
            let cut = min(split, payload.count)
            _ = try? channel.writeInbound(channel.allocator.buffer(bytes: payload[..<cut]))
            _ = try? channel.writeInbound(channel.allocator.buffer(bytes: payload[cut...]))
            // The server closes: a body delimited by the close ends here.
            channel.pipeline.fireChannelInactive()
            // Closed by the handler or not, the loop runs once more so that the pipeline is torn down
            // (an unfinished channel keeps its handlers in a cycle).
            _ = try? channel.finish(acceptAlreadyClosed: true)
        }
        return .success(status: completed.response.status.code, bodyCount: completed.body.count)
    } catch let error as SecureHTTPError {
        return .failure(error.code)
    } catch {
        fatalError("an error that is not a SecureHTTPError: \(type(of: error))")
    }
}
