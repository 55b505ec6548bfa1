#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body` with a loopback TCP port that refuses every connection: a socket bound to
/// 127.0.0.1 on a port the system chose, never listening, held until `body` returns.
///
/// A test that needs "nothing listens here" must not close a server and reuse its port: another
/// test running in parallel may be given the same port and answer. While this socket holds the
/// port, no other socket can bind it, and a connection to it is refused (RST).
///
/// - Throws: `RefusingPortError` when the socket cannot be made.
public func withRefusingLoopbackPort<Result>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (Int) async throws -> Result
) async throws -> Result {
    let port = try RefusingPort()
    defer { port.close() }
    return try await body(port.number)
}

/// The socket could not be created, bound or read back.
public struct RefusingPortError: Error, Sendable, CustomStringConvertible {
    /// The failing call and its errno.
    public let description: String
}

private struct RefusingPort {
    let descriptor: Int32
    let number: Int

    init() throws {
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
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            _ = closeDescriptor(descriptor)
            throw RefusingPortError(description: "bind: errno \(code)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            _ = closeDescriptor(descriptor)
            throw RefusingPortError(description: "getsockname: errno \(code)")
        }
        self.descriptor = descriptor
        self.number = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        _ = closeDescriptor(self.descriptor)
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
