#if TestServers
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

@testable import SecureNetworkingTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback port in front of a server, with an outage the test ends: while it lasts, every
/// connection is refused (the port is bound and not listening, as a server that is not running
/// refuses); ``end()`` starts listening on the same port and relays each connection to the server
/// byte for byte, so TLS runs end to end and the client cannot tell the relay from the server.
///
/// The port is held from the start, so no other test can be given it in the meantime.
final class LoopbackOutage: Sendable {
    /// The port clients connect to (127.0.0.1).
    let port: Int
    private let upstreamPort: Int
    private let state: NIOLockedValueBox<State>

    private enum State {
        /// Bound, not listening: connections are refused.
        case down(descriptor: Int32)
        /// Listening and relaying.
        case up(any Channel)
        case closed
    }

    /// The URL of the server through the relay.
    var baseURL: URL { URL(string: "https://localhost:\(self.port)/")! }

    init(upstreamPort: Int) throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw RefusingPortError(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            _ = closeDescriptor(descriptor)
            throw RefusingPortError(description: "bind: errno \(code)")
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.upstreamPort = upstreamPort
        self.state = NIOLockedValueBox(.down(descriptor: descriptor))
    }

    /// Ends the outage: the port listens from now on, and relays to the server.
    func end() async throws {
        guard case .down(let descriptor) = self.state.withLockedValue({ $0 }) else { return }
        let upstreamPort = self.upstreamPort
        // NIO listens on the bound socket and owns it from here on.
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop)
                    .connect(host: "127.0.0.1", port: upstreamPort)
                    .flatMapThrowing { outbound in
                        let (toUpstream, toClient) = RelayHandler.pair()
                        try inbound.pipeline.syncOperations.addHandler(toUpstream)
                        try outbound.pipeline.syncOperations.addHandler(toClient)
                    }
            }
            .withBoundSocket(descriptor)
            .get()
        self.state.withLockedValue { $0 = .up(channel) }
    }

    /// Frees the port.
    func close() async {
        let state = self.state.withLockedValue { state -> State in
            defer { state = .closed }
            return state
        }
        switch state {
        case .down(let descriptor): _ = closeDescriptor(descriptor)
        case .up(let channel): try? await channel.close()
        case .closed: break
        }
    }
}

private func closeDescriptor(_ descriptor: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(descriptor)
    #elseif canImport(Musl)
    Musl.close(descriptor)
    #else
    Darwin.close(descriptor)
    #endif
}

/// Runs `body` with an outage in front of the server on `upstreamPort`, and frees the port
/// afterwards.
func withLoopbackOutage<R>(
    upstreamPort: Int,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (LoopbackOutage) async throws -> R
) async throws -> R {
    let outage = try LoopbackOutage(upstreamPort: upstreamPort)
    do {
        let result = try await body(outage)
        await outage.close()
        return result
    } catch {
        await outage.close()
        throw error
    }
}
#endif
