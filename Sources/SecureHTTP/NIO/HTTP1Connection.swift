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
    /// The pipeline's last handler, which takes each exchange directly: the exchange goes
    /// through no `NIOAny` and no pipeline walk.
    private let handler: NIOLoopBound<HTTP1ClientHandler>
    /// Why the connection ended, once it has (set by the handler).
    private let closeReason: NIOLockedValueBox<SecureHTTPError?>

    init(id: ID, channel: any Channel, handler: NIOLoopBound<HTTP1ClientHandler>, closeReason: NIOLockedValueBox<SecureHTTPError?>) {
        self.id = id
        self.channel = channel
        self.handler = handler
        self.closeReason = closeReason
    }

    var isActive: Bool { self.channel.isActive }

    /// Sends one request and reads the whole response (bounded by `maximumBodySize`), failing
    /// with `deadlineExceeded` (and closing the connection) if `deadline` passes first.
    ///
    /// Cancelling the calling task closes the connection, which fails the exchange at once.
    nonisolated(nonsending) func execute(
        _ hop: PreparedHop,
        maximumBodySize: Int,
        deadline: ContinuousClock.Instant
    ) async throws(SecureHTTPError) -> (HTTPResponse, Data, reusable: Bool) {
        let request = try HTTP1RequestBytes(hop.request, body: hop.body, allocator: self.channel.allocator)
        let exchangeDeadline = NIODeadline.now() + TimeAmount(ContinuousClock.now.duration(to: deadline))
        let channel = self.channel
        let handler = self.handler
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
                        Self.send(exchange, on: channel, to: handler, closeReason: closeReason)
                    } else {
                        loop.execute { Self.send(exchange, on: channel, to: handler, closeReason: closeReason) }
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

    /// Hands `exchange` to the handler on the event loop; the handler resumes it.
    private static func send(
        _ exchange: HTTP1ClientHandler.Exchange,
        on channel: any Channel,
        to handler: NIOLoopBound<HTTP1ClientHandler>,
        closeReason: NIOLockedValueBox<SecureHTTPError?>
    ) {
        // A channel that already closed fails the exchange from here with the reason the
        // handler recorded. On an open channel the handler takes the exchange at once (this
        // runs on the loop) and resumes it itself, whatever happens to the connection.
        guard channel.isActive else {
            exchange.fail(
                closeReason.withLockedValue { $0 }
                    ?? SecureHTTPError(.connectionClosed, "the connection closed before the request was sent")
            )
            return
        }
        handler.value.start(exchange)
    }

    func close() {
        // Closing from off the loop costs a hop; a channel that is already closed needs none.
        if self.channel.isActive { self.channel.close(promise: nil) }
    }

    /// The response for `head`, its field names checked (RFC 9110 §5.1) and canonicalised
    /// through `cache`, which remembers what a connection has seen.
    static func makeResponse(_ head: HTTPResponseHead, cache: inout ResponseFieldsCache) throws(SecureHTTPError) -> HTTPResponse {
        guard head.status.code >= 100, head.status.code <= 999 else {
            throw SecureHTTPError(.invalidResponse, "the response status \(head.status.code) is out of range")
        }
        return HTTPResponse(
            status: HTTPResponse.Status(code: Int(head.status.code), reasonPhrase: head.status.reasonPhrase),
            headerFields: try cache.fields(head.headers)
        )
    }
}

/// What one connection remembers of the responses it read: the field names seen (validated and
/// lower-cased once), and the last response's fields, so that a response whose fields are
/// byte for byte those of the one before (an API answering the same way, within the same
/// `Date` second) shares them instead of building them again. Used on one connection's event
/// loop only.
struct ResponseFieldsCache {
    private var names: [HTTPField.Name] = []
    private static let capacity = 32
    private var lastRaw: HTTPHeaders?
    private var lastFields = HTTPFields()

    /// The fields of `raw`.
    ///
    /// - Throws: ``SecureHTTPError/Code/invalidResponse`` for a field name that is not a token.
    mutating func fields(_ raw: HTTPHeaders) throws(SecureHTTPError) -> HTTPFields {
        if let last = self.lastRaw, Self.identical(last, raw) {
            return self.lastFields
        }
        var fields: [HTTPField] = []
        fields.reserveCapacity(raw.count)
        for (name, value) in raw {
            guard let fieldName = self.name(name) else {
                throw SecureHTTPError(.invalidResponse, "the response has an invalid header name")
            }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        var headerFields = HTTPFields()
        // One call for all fields (append(contentsOf:) would replace a range per field).
        headerFields.replaceSubrange(0..<0, with: fields)
        self.lastRaw = raw
        self.lastFields = headerFields
        return headerFields
    }

    /// The same names and values in the same order, byte for byte (`String`'s `==` would
    /// also equate canonically equivalent Unicode spelled with other bytes).
    private static func identical(_ lhs: HTTPHeaders, _ rhs: HTTPHeaders) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (left, right) in zip(lhs, rhs) where !Self.sameBytes(left.name, right.name) || !Self.sameBytes(left.value, right.value) {
            return false
        }
        return true
    }

    static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        let same = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                left.count == right.count && (left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
            }
        }
        if let same = same ?? nil { return same }
        return lhs.utf8.elementsEqual(rhs.utf8)
    }

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
