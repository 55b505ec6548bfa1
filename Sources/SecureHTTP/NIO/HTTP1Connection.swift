import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
import NIOSSL
import ServerTrust

/// One HTTP/1.1 connection (over TLS unless the policy excepted plain HTTP), after its
/// handshake and ServerTrust evaluation succeeded.
final class HTTP1Connection: Sendable {
    typealias ID = Int

    let id: ID
    let channel: any Channel
    /// Why the connection ended, once it has (set by the handler).
    private let closeReason: NIOLockedValueBox<SecureHTTPError?>

    init(id: ID, channel: any Channel, closeReason: NIOLockedValueBox<SecureHTTPError?>) {
        self.id = id
        self.channel = channel
        self.closeReason = closeReason
    }

    var isActive: Bool { self.channel.isActive }

    /// Sends one request and reads the whole response (bounded by `maximumBodySize`), failing
    /// with `deadlineExceeded` (and closing the connection) if `deadline` passes first.
    ///
    /// Cancelling the calling task closes the connection, which fails the exchange at once.
    func execute(
        _ hop: PreparedHop,
        maximumBodySize: Int,
        deadline: ContinuousClock.Instant
    ) async throws(SecureHTTPError) -> (HTTPResponse, Data, reusable: Bool) {
        let request = try HTTP1RequestBytes(hop.request, body: hop.body, allocator: self.channel.allocator)
        let exchangeDeadline = NIODeadline.now() + TimeAmount(ContinuousClock.now.duration(to: deadline))
        let channel = self.channel
        let closeReason = self.closeReason
        do {
            let completed = try await withTaskCancellationHandler {
                // Resumed exactly once: by the handler, or here when the channel closed before
                // the exchange reached it (an unsafe continuation saves the checked one's
                // allocation on every exchange, and the handler resumes it directly, with no
                // promise in between).
                try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<HTTP1ClientHandler.Completed, any Error>) in
                    let exchange = HTTP1ClientHandler.Exchange(
                        request: request,
                        maximumBodySize: maximumBodySize,
                        deadline: exchangeDeadline,
                        continuation: continuation
                    )
                    // One hop onto the event loop for the whole exchange, and none for a task
                    // already on the connection's event loop.
                    let loop = channel.eventLoop
                    if loop.inEventLoop {
                        Self.send(exchange, on: channel, closeReason: closeReason)
                    } else {
                        loop.execute { Self.send(exchange, on: channel, closeReason: closeReason) }
                    }
                }
            } onCancel: {
                // The handler fails the exchange as soon as the close reaches it, without
                // waiting for the peer's close_notify.
                channel.close(promise: nil)
            }
            let response = completed.response
            // Copied out of the connection's receive buffer before the connection is released.
            return (response, Data(buffer: completed.body, byteTransferStrategy: .copy), completed.reusable)
        } catch {
            channel.close(promise: nil)
            if Task.isCancelled { throw SecureHTTPError(.cancelled, "the request was cancelled") }
            if let error = error as? SecureHTTPError { throw error }
            throw SecureHTTPError(.connectionClosed, "the exchange failed: \(error)")
        }
    }

    /// Writes `exchange` on the event loop; the handler resumes it.
    private static func send(
        _ exchange: HTTP1ClientHandler.Exchange,
        on channel: any Channel,
        closeReason: NIOLockedValueBox<SecureHTTPError?>
    ) {
        // A write to a channel that already closed never reaches the handler: fail the exchange
        // from here with the reason the handler recorded. On an open channel the handler takes
        // the exchange at once (this runs on the loop, and the handler is the pipeline's last)
        // and resumes it itself, whatever happens to the connection.
        guard channel.isActive else {
            exchange.fail(
                closeReason.withLockedValue { $0 }
                    ?? SecureHTTPError(.connectionClosed, "the connection closed before the request was sent")
            )
            return
        }
        channel.writeAndFlush(exchange, promise: nil)
    }

    func close() {
        // Closing from off the loop costs a hop; a channel that is already closed needs none.
        if self.channel.isActive { self.channel.close(promise: nil) }
    }

    /// The response for `head`, its field names checked (RFC 9110 §5.1) and canonicalised
    /// through `names`, which remembers the names a connection has seen.
    static func makeResponse(_ head: HTTPResponseHead, names: inout FieldNameCache) throws(SecureHTTPError) -> HTTPResponse {
        guard head.status.code >= 100, head.status.code <= 999 else {
            throw SecureHTTPError(.invalidResponse, "the response status \(head.status.code) is out of range")
        }
        var fields: [HTTPField] = []
        fields.reserveCapacity(head.headers.count)
        for (name, value) in head.headers {
            guard let fieldName = names.name(name) else {
                throw SecureHTTPError(.invalidResponse, "the response has an invalid header name")
            }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        var headerFields = HTTPFields()
        // One call for all fields (append(contentsOf:) would replace a range per field).
        headerFields.replaceSubrange(0..<0, with: fields)
        return HTTPResponse(
            status: HTTPResponse.Status(code: Int(head.status.code), reasonPhrase: head.status.reasonPhrase),
            headerFields: headerFields
        )
    }
}

/// The field names a connection has seen, so that the same names in the next response are not
/// validated and lower-cased again. Used on one connection's event loop only.
struct FieldNameCache {
    private var names: [HTTPField.Name] = []
    private static let capacity = 32

    /// The field name for `raw`, or nil when it is not a valid token.
    mutating func name(_ raw: String) -> HTTPField.Name? {
        for known in self.names where known.rawName == raw {
            return known
        }
        guard let name = HTTPField.Name(raw) else { return nil }
        if self.names.count < Self.capacity { self.names.append(name) }
        return name
    }
}

enum IPAddressLiteral {
    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
