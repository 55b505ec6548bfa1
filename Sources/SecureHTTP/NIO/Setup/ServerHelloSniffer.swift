import NIOConcurrencyHelpers
import NIOCore
import ServerTrust

/// Reads the TLS version and cipher suite the server chose from its ServerHello, which is sent
/// in the clear (RFC 5246 §7.4.1.3, RFC 8446 §4.1.3): NIOSSL reports the version after the
/// handshake but never the cipher suite.
///
/// It sits below the TLS handler and forwards every byte unchanged, the moment it arrives; it only
/// copies the first handshake records aside until the ServerHello is complete, then stops
/// looking. It is added only to connections whose handshake someone observes
/// (``HTTPTransportConfiguration/handshakeObserver``, ``HTTPTransportConfiguration/connectionObserver``).
final class ServerHelloSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var parser = ServerHelloParser()
    private let found: NIOLockedValueBox<NegotiatedTLS?>

    init(found: NIOLockedValueBox<NegotiatedTLS?>) {
        self.found = found
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !self.parser.isDone {
            let bytes = self.unwrapInboundIn(data)
            if case .serverHello(let negotiated) = self.parser.feed(bytes.readableBytesView) {
                self.found.withLockedValue { $0 = negotiated }
            }
        }
        context.fireChannelRead(data)
    }
}

/// The parser behind ``ServerHelloSniffer``: TLS records in, the first ServerHello's version and
/// cipher suite out. Bounded: it gives up after 16 KiB without a ServerHello, at the first record
/// that is not a handshake record, or at the first handshake message that is not a ServerHello.
struct ServerHelloParser {
    enum Outcome: Equatable {
        /// The server's choice (a HelloRetryRequest's too: RFC 8446 §4.1.4 keeps the suite).
        case serverHello(NegotiatedTLS)
        /// Something else came first (an alert, bytes that are not TLS).
        case none
    }

    private var records: [UInt8] = []
    private var handshake: [UInt8] = []
    private(set) var isDone = false
    static let limit = 16 * 1024

    /// Adds bytes; returns the outcome once it is known, then nil for ever after.
    mutating func feed(_ bytes: some Collection<UInt8>) -> Outcome? {
        guard !self.isDone else { return nil }
        self.records.append(contentsOf: bytes)
        // Whole records: type (1), version (2), length (2), fragment.
        while self.records.count >= 5 {
            let length = Int(self.records[3]) << 8 | Int(self.records[4])
            guard self.records[0] == 22, self.records[1] == 3 else { return self.finish(.none) }
            guard self.records.count >= 5 + length else { break }
            self.handshake += self.records[5..<(5 + length)]
            self.records.removeFirst(5 + length)
            if let outcome = self.parseHandshake() { return self.finish(outcome) }
        }
        if self.records.count + self.handshake.count >= Self.limit { return self.finish(.none) }
        return nil
    }

    private mutating func finish(_ outcome: Outcome) -> Outcome {
        self.isDone = true
        self.records = []
        self.handshake = []
        return outcome
    }

    /// The first handshake message, once complete: ServerHello (type 2) or nothing.
    private func parseHandshake() -> Outcome? {
        guard self.handshake.count >= 4 else { return nil }
        guard self.handshake[0] == 2 else { return Outcome.none }
        let length = Int(self.handshake[1]) << 16 | Int(self.handshake[2]) << 8 | Int(self.handshake[3])
        guard self.handshake.count >= 4 + length else { return nil }
        var reader = Reader(bytes: self.handshake[4..<(4 + length)])
        guard let legacyVersion = reader.uint16(), reader.skip(32),  // random
            let sessionIDLength = reader.uint8(), reader.skip(Int(sessionIDLength)),
            let suite = reader.uint16(), reader.skip(1)  // compression method
        else { return Outcome.none }
        var version = legacyVersion
        // TLS 1.3 puts the real version in supported_versions (RFC 8446 §4.2.1).
        if let extensionsLength = reader.uint16(), var extensions = reader.take(Int(extensionsLength)) {
            while let type = extensions.uint16(), let size = extensions.uint16(), let body = extensions.take(Int(size))
            {
                var body = body
                if type == 43, let selected = body.uint16() { version = selected }
            }
        }
        guard let tlsVersion = TLSVersion.all.first(where: { $0.wireValue == version }) else { return Outcome.none }
        return .serverHello(NegotiatedTLS(version: tlsVersion, cipherSuite: suite))
    }

    private struct Reader {
        var bytes: ArraySlice<UInt8>

        mutating func uint8() -> UInt8? { self.bytes.popFirst() }

        mutating func uint16() -> UInt16? {
            guard self.bytes.count >= 2 else { return nil }
            defer { self.bytes.removeFirst(2) }
            return UInt16(self.bytes[self.bytes.startIndex]) << 8 | UInt16(self.bytes[self.bytes.startIndex + 1])
        }

        mutating func skip(_ count: Int) -> Bool { self.take(count) != nil }

        mutating func take(_ count: Int) -> Reader? {
            guard count >= 0, self.bytes.count >= count else { return nil }
            defer { self.bytes.removeFirst(count) }
            return Reader(bytes: self.bytes.prefix(count))
        }
    }
}
