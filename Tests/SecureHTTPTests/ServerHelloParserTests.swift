import Foundation
import NIOConcurrencyHelpers
import NIOSSL
import SecureNetworkingTesting
import ServerTrust
import Testing

@testable import SecureHTTP

/// The ServerHello reader under observed handshakes: byte-exact records, then the real thing.
@Suite("ServerHello parser")
struct ServerHelloParserTests {
    /// A handshake record holding one ServerHello (RFC 5246 §7.4.1.3 / RFC 8446 §4.1.3).
    static func serverHello(
        legacyVersion: UInt16 = 0x0303,
        suite: UInt16,
        supportedVersion: UInt16? = nil,
        sessionID: Int = 32
    ) -> [UInt8] {
        var body: [UInt8] = [UInt8(legacyVersion >> 8), UInt8(legacyVersion & 0xFF)]
        body += [UInt8](repeating: 0xAB, count: 32)  // random
        body += [UInt8(sessionID)] + [UInt8](repeating: 0x11, count: sessionID)
        body += [UInt8(suite >> 8), UInt8(suite & 0xFF), 0x00]  // suite, null compression
        var extensions: [UInt8] = [0xFF, 0x01, 0x00, 0x01, 0x00]  // renegotiation_info, empty
        if let supportedVersion {
            extensions += [0x00, 0x2B, 0x00, 0x02, UInt8(supportedVersion >> 8), UInt8(supportedVersion & 0xFF)]
        }
        body += [UInt8(extensions.count >> 8), UInt8(extensions.count & 0xFF)] + extensions
        let message: [UInt8] = [0x02, 0x00, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
        return [0x16, 0x03, 0x03, UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
    }

    @Test func aTLS12ServerHelloGivesItsVersionAndSuite() {
        var parser = ServerHelloParser()
        let outcome = parser.feed(Self.serverHello(suite: 0xC02B))
        #expect(outcome == .serverHello(NegotiatedTLS(version: .v1_2, cipherSuite: 0xC02B)))
        #expect(
            NegotiatedTLS(version: .v1_2, cipherSuite: 0xC02B).cipherSuiteName
                == "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"
        )
        #expect(parser.isDone)
        #expect(parser.feed([0x17, 0x03, 0x03]) == nil)
    }

    @Test func tls13ReadsSupportedVersionsNotTheLegacyField() {
        var parser = ServerHelloParser()
        let outcome = parser.feed(Self.serverHello(suite: 0x1302, supportedVersion: 0x0304))
        #expect(outcome == .serverHello(NegotiatedTLS(version: .v1_3, cipherSuite: 0x1302)))
    }

    @Test func bytesArrivingOneAtATimeAndAcrossRecordsAreReassembled() {
        // The ServerHello message split over two handshake records, delivered byte by byte.
        let record = Self.serverHello(legacyVersion: 0x0301, suite: 0xC009, sessionID: 0)
        let message = Array(record[5...])
        let first = Array(message[..<10])
        let second = Array(message[10...])
        let split =
            [0x16, 0x03, 0x01, 0x00, UInt8(first.count)] + first
            + [0x16, 0x03, 0x01, UInt8(second.count >> 8), UInt8(second.count & 0xFF)] + second
        var parser = ServerHelloParser()
        var outcomes: [ServerHelloParser.Outcome] = []
        for byte in split {
            if let outcome = parser.feed([byte]) { outcomes.append(outcome) }
        }
        #expect(outcomes == [.serverHello(NegotiatedTLS(version: .v1_0, cipherSuite: 0xC009))])
    }

    @Test func anAlertOrBytesThatAreNotTLSGiveNothing() {
        var alert = ServerHelloParser()
        #expect(alert.feed([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x46]) == ServerHelloParser.Outcome.none)
        var http = ServerHelloParser()
        #expect(http.feed(Array("HTTP/1.1 400 Bad Request\r\n".utf8)) == ServerHelloParser.Outcome.none)
        // A truncated ServerHello body (its declared length is a lie) is no ServerHello.
        var truncated = ServerHelloParser()
        let message: [UInt8] = [0x02, 0x00, 0x00, 0x04, 0x03, 0x03, 0x00, 0x00]
        #expect(
            truncated.feed([0x16, 0x03, 0x03, 0x00, UInt8(message.count)] + message) == ServerHelloParser.Outcome.none
        )
    }

    @Test func handshakeRecordsWithoutAServerHelloAreBounded() {
        var parser = ServerHelloParser()
        // A first handshake message that claims 16 MiB: the parser gives up at its limit.
        let header: [UInt8] = [0x16, 0x03, 0x03, 0x40, 0x00, 0x02, 0xFF, 0xFF, 0xFF]
        var outcome = parser.feed(header + [UInt8](repeating: 0, count: 0x4000 - 4))
        var fed = 1
        while outcome == nil, fed < 10 {
            outcome = parser.feed([0x16, 0x03, 0x03, 0x40, 0x00] + [UInt8](repeating: 0, count: 0x4000))
            fed += 1
        }
        #expect(outcome == ServerHelloParser.Outcome.none)
        #expect(fed <= 2)
    }

    /// Live: the observers see what the server negotiated, for TLS 1.3, 1.2 and a 1.0 exception.
    @Test(arguments: [
        (NIOSSL.TLSVersion.tlsv13, "TLSv1.3", "TLS_AES_128_GCM_SHA256"),
        (.tlsv12, "TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"),
        (.tlsv1, "TLSv1.0", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"),
    ])
    func observersSeeTheNegotiatedVersionAndSuite(
        server: NIOSSL.TLSVersion,
        version: String,
        suite: String
    ) async throws {
        let tls = Live.tls(try Live.pki.validChain()) {
            $0.minimumVersion = server
            $0.maximumVersion = server
            if server == .tlsv1 { $0.cipherSuites = [.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA] }
        }
        var policy = Live.policy
        policy.setException(DomainException(minimumTLSVersion: .v1_0), for: "localhost")
        let handshakes = Recorder<HandshakeObservation>()
        let connections = Recorder<ConnectionObservation>()
        let configuration = Live.configuration(policy: policy) {
            $0.handshakeObserver = { handshakes.append($0) }
            $0.connectionObserver = { connections.append($0) }
        }
        try await withLoopbackHTTPServer(tls) { server in
            try await withTransport(configuration) { transport in
                _ = try await transport.send(get(url(server)))
                _ = try await transport.send(get(url(server)))
            }
        }
        let negotiated = try #require(handshakes.values.first?.negotiated)
        #expect(handshakes.values.count == 1)
        #expect(negotiated.version.description == version)
        #expect(negotiated.cipherSuiteName == suite)
        let expected = negotiated
        // One connection, reused: observed once, with its timings and protocol.
        let connection = try #require(connections.values.first)
        #expect(connections.values.count == 1)
        #expect(connection.negotiated == expected)
        #expect(connection.httpVersion == "HTTP/1.1")
        #expect(connection.connect > .zero && (connection.tlsHandshake ?? .zero) > .zero)
    }
}

/// Values appended from any thread.
final class Recorder<Value: Sendable>: Sendable {
    private let box = NIOLockedValueBox<[Value]>([])
    func append(_ value: Value) { self.box.withLockedValue { $0.append(value) } }
    var values: [Value] { self.box.withLockedValue { $0 } }
}
