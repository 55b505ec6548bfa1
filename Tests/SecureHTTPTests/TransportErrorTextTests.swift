import Foundation
import NIOCore
import NIOSSL
import SecureNetworkingTesting
import Testing

@testable import SecureHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// NIO, BoringSSL and OS errors become sentences in one place (issue 38, item 4).
@Suite struct TransportErrorTextTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let error: any Error & Sendable
        let peer: String?
        let expected: String
        var testDescription: String { self.name }
    }

    static let rows: [Row] = [
        Row(
            name: "refused",
            error: IOError(errnoCode: ECONNREFUSED, reason: "connection reset (error set)"),
            peer: "127.0.0.1:4433",
            expected: "connection refused by 127.0.0.1:4433"
        ),
        Row(
            name: "reset",
            error: IOError(errnoCode: ECONNRESET, reason: "read(descriptor:pointer:size:)"),
            peer: nil,
            expected: "the connection was reset by the server"
        ),
        Row(
            name: "broken pipe",
            error: IOError(errnoCode: EPIPE, reason: "write"),
            peer: nil,
            expected: "the server closed the connection"
        ),
        Row(
            name: "no route",
            error: IOError(errnoCode: EHOSTUNREACH, reason: "connect"),
            peer: "10.0.0.9:443",
            expected: "no route to 10.0.0.9:443"
        ),
        Row(
            name: "network unreachable",
            error: IOError(errnoCode: ENETUNREACH, reason: "connect"),
            peer: "10.0.0.9:443",
            expected: "the network is unreachable"
        ),
        Row(
            name: "OS timeout",
            error: IOError(errnoCode: ETIMEDOUT, reason: "connect"),
            peer: "10.0.0.9:443",
            expected: "the connection to 10.0.0.9:443 timed out"
        ),
        Row(
            name: "other errno",
            error: IOError(errnoCode: EACCES, reason: "connect"),
            peer: nil,
            expected: "permission denied (errno \(EACCES))"
        ),
        Row(
            name: "connect timeout",
            error: ChannelError.connectTimeout(.milliseconds(2500)),
            peer: "127.0.0.1:4433",
            expected: "connecting to 127.0.0.1:4433 timed out after 2.5 s"
        ),
        Row(name: "eof", error: ChannelError.eof, peer: nil, expected: "the server closed the connection"),
        Row(
            name: "closed channel",
            error: ChannelError.ioOnClosedChannel,
            peer: nil,
            expected: "the connection was already closed"
        ),
        Row(
            name: "unclean TLS shutdown",
            error: NIOSSLError.uncleanShutdown,
            peer: nil,
            expected: "the server ended the TLS connection without closing it properly"
        ),
        Row(
            name: "something else",
            error: CancellationError(),
            peer: nil,
            expected: "an unexpected CancellationError"
        ),
    ]

    @Test(arguments: rows)
    func sentence(_ row: Row) {
        let text = TransportErrorText.sentence(for: row.error, peer: row.peer)
        #expect(text == row.expected)
        #expect(!text.contains("error set"))
        #expect(!text.contains("errno:"))
    }

    @Test(arguments: [
        (
            "error:10000410:SSL routines:OPENSSL_internal:SSLV3_ALERT_HANDSHAKE_FAILURE",
            "the server sent a handshake failure alert"
        ),
        (
            "error:1000045c:SSL routines:OPENSSL_internal:TLSV1_ALERT_CERTIFICATE_REQUIRED",
            "the server sent a certificate required alert"
        ),
        ("error:100000f7:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER", "wrong version number"),
        ("no code here", nil),
    ])
    func boringSSLReasons(_ text: String, _ expected: String?) {
        #expect(TransportErrorText.reason(boringSSLText: text) == expected)
    }

    /// The portable causes (URLSession's errors map to them too).
    @Test func causes() {
        #expect(TransportErrorText.Cause.hostNotFound("nowhere.invalid").sentence == "host not found: nowhere.invalid")
        #expect(TransportErrorText.Cause.offline.sentence == "this device is not connected to a network")
        #expect(
            TransportErrorText.Cause.timedOut(what: "the request", after: .seconds(30)).sentence
                == "the request timed out after 30 s"
        )
        #expect(
            TransportErrorText.Cause.tlsHandshake(reason: "the server sent a handshake failure alert").sentence
                == "the TLS handshake failed: the server sent a handshake failure alert"
        )
    }

    @Test(arguments: [
        (Duration.seconds(5), "5 s"), (.milliseconds(250), "0.25 s"), (.seconds(90), "90 s"),
        (.milliseconds(1500), "1.5 s"),
    ])
    func seconds(_ duration: Duration, _ expected: String) {
        #expect(TransportErrorText.seconds(duration) == expected)
    }

    @Test func addresses() throws {
        #expect(TransportErrorText.text(try SocketAddress(ipAddress: "127.0.0.1", port: 8443)) == "127.0.0.1:8443")
        #expect(TransportErrorText.text(try SocketAddress(ipAddress: "::1", port: 8443)) == "[::1]:8443")
    }

    /// A closed port, live: the message says "refused" and names the address, with none of
    /// NIO's debug text.
    @Test func aRefusedConnectionSaysSoInASentence() async throws {
        try await withRefusingLoopbackPort { port in
            try await withTransport { transport in
                let error = await expectFailure(transport, get(URL(string: "https://127.0.0.1:\(port)/")!))
                #expect(error?.code == .connectFailed)
                let message = error?.message ?? ""
                #expect(message.contains("connection refused by 127.0.0.1:\(port)"), "\(message)")
                #expect(!message.contains("error set"), "\(message)")
                #expect(!message.contains("errno"), "\(message)")
            }
        }
    }

    // No live unknown-host test: resolving a name sends a query to the system's DNS server, and
    // network tests talk only to loopback addresses. NIO's resolver errors (NIOConnectionError,
    // SocketAddressError.UnknownHost) cannot be made outside NIO, so "host not found" is checked by
    // Cause.sentence in causes() only.
}
