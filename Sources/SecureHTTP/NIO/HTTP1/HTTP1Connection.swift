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

    init(id: ID, channel: any Channel, handler: NIOLoopBound<HTTP1ClientHandler>) {
        self.id = id
        self.channel = channel
        self.handler = handler
    }

    var isActive: Bool { self.channel.isActive }

    /// Sends one request and reads the whole response (bounded by `maximumBodySize`), failing
    /// with `deadlineExceeded` (and closing the connection) if `deadline` passes first.
    ///
    /// Cancelling the calling task closes the connection, which fails the exchange at once.
    ///
    /// `release`, if given, is called on the event loop when the response is complete, before
    /// this returns, with whether the connection may carry another request; it is not called
    /// when this throws.
    nonisolated(nonsending) func execute(
        _ hop: PreparedHop,
        maximumBodySize: Int,
        deadline: ContinuousClock.Instant,
        release: (@Sendable (_ reusable: Bool) -> Void)? = nil
    ) async throws(SecureHTTPError) -> (HTTPResponse, Data, reusable: Bool) {
        let exchangeDeadline = NIODeadline.now() + TimeAmount(ContinuousClock.now.duration(to: deadline))
        let channel = self.channel
        let handler = self.handler
        do {
            let completed = try await withTaskCancellationHandler {
                // Resumed exactly once, by the handler: with the response, or with why the
                // exchange failed, the connection's close reason included when it had already
                // closed (an unsafe continuation saves the checked one's allocation).
                try await withUnsafeThrowingContinuation {
                    (continuation: UnsafeContinuation<HTTP1ClientHandler.Completed, any Error>) in
                    let exchange = HTTP1ClientHandler.Exchange(
                        request: hop.request,
                        body: hop.body,
                        maximumBodySize: maximumBodySize,
                        deadline: exchangeDeadline,
                        onHead: hop.onResponseHead,
                        release: release,
                        continuation: continuation
                    )
                    // One hop onto the event loop for the whole exchange, and none for a task
                    // already on the connection's event loop.
                    let loop = channel.eventLoop
                    if loop.inEventLoop {
                        handler.value.start(exchange)
                    } else {
                        loop.execute { handler.value.start(exchange) }
                    }
                }
            } onCancel: {
                // The handler fails the exchange as soon as the close reaches it, without
                // waiting for the peer's close_notify.
                channel.close(promise: nil)
            }
            return (completed.response, completed.body, completed.reusable)
        } catch {
            channel.close(promise: nil)
            if Task.isCancelled { throw SecureHTTPError(.cancelled, "the request was cancelled") }
            if let error = error as? SecureHTTPError { throw error }
            throw SecureHTTPError(.connectionClosed, "the exchange failed: \(TransportErrorText.sentence(for: error))")
        }
    }

    func close() {
        // Closing from off the loop costs a hop; a channel that is already closed needs none.
        if self.channel.isActive { self.channel.close(promise: nil) }
    }

    /// The response for `head`, its field names checked (RFC 9110 §5.1) and canonicalised
    /// through `cache`, which remembers what a connection has seen.
    static func makeResponse(
        _ head: HTTPResponseHead,
        cache: inout ResponseFieldsCache
    ) throws(SecureHTTPError) -> HTTPResponse {
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
        if let last = self.lastRaw, FieldBytes.identical(last, raw, { ($0.name, $0.value) }) {
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

/// Byte-for-byte comparison of header fields, for the connections' response-fields reuse.
enum FieldBytes {
    /// The same names and values in the same order, byte for byte (`String`'s `==` would also
    /// equate canonically equivalent Unicode spelled with other bytes).
    static func identical<Fields: Collection>(
        _ lhs: Fields,
        _ rhs: Fields,
        _ field: (Fields.Element) -> (name: String, value: String)
    ) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (left, right) in zip(lhs, rhs) {
            let (leftField, rightField) = (field(left), field(right))
            guard Self.sameBytes(leftField.name, rightField.name), Self.sameBytes(leftField.value, rightField.value)
            else { return false }
        }
        return true
    }

    private static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        let same = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                left.count == right.count
                    && (left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
            }
        }
        if let same = same ?? nil { return same }
        return lhs.utf8.elementsEqual(rhs.utf8)
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
