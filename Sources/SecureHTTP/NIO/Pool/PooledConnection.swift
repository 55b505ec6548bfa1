import NIOCore

/// A pooled connection: HTTP/1.1 (one exchange at a time) or HTTP/2 (many streams).
enum PooledConnection: Sendable {
    typealias ID = Int

    case http1(HTTP1Connection)
    case http2(HTTP2Connection, maximumStreams: Int)

    var id: ID {
        switch self {
        case .http1(let connection): connection.id
        case .http2(let connection, _): connection.id
        }
    }

    var isHTTP2: Bool {
        if case .http2 = self { return true }
        return false
    }

    var isActive: Bool {
        switch self {
        case .http1(let connection): connection.isActive
        case .http2(let connection, _): connection.isActive
        }
    }

    /// A request is granted this connection (an HTTP/2 stream of it) if it can take one: open,
    /// and for HTTP/2 neither closing nor gone away (then marked busy). False when it cannot.
    func beginExchange() -> Bool {
        switch self {
        case .http1(let connection): connection.isActive
        case .http2(let connection, _): connection.beginExchange()
        }
    }

    /// The event loop the connection runs on.
    var eventLoop: any EventLoop {
        switch self {
        case .http1(let connection): connection.channel.eventLoop
        case .http2(let connection, _): connection.channel.eventLoop
        }
    }

    var closeFuture: EventLoopFuture<Void> {
        switch self {
        case .http1(let connection): connection.channel.closeFuture
        case .http2(let connection, _): connection.channel.closeFuture
        }
    }

    func close() {
        switch self {
        case .http1(let connection): connection.close()
        case .http2(let connection, _): connection.close()
        }
    }
}
