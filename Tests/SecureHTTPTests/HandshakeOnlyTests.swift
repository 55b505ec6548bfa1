import Foundation
import NIOConcurrencyHelpers
import SecureHTTP
import SecureNetworkingTesting
import ServerTrust
import Testing

/// `NIOHTTPTransport.handshakeOnly`: one connection as a request would open it, closed after the
/// handshake with no HTTP written (what `securenet pins URL` needs).
@Suite("Handshake only")
struct HandshakeOnlyTests {
    /// Even to a server that offers HTTP/2 it sends nothing: ALPN offers http/1.1 only (an h2
    /// connection would send its preface and SETTINGS at once).
    @Test func theHandshakeCompletesAndNoHTTPIsSent() async throws {
        let chain = try Live.pki.validChain()
        try await withLoopbackHTTPServer(Live.tls(chain, over: .http2)) { server in
            let observed = NIOLockedValueBox<[HandshakeObservation]>([])
            let configuration = Live.configuration { configuration in
                configuration.handshakeObserver = { observation in observed.withLockedValue { $0.append(observation) } }
            }
            try await NIOHTTPTransport.handshakeOnly(with: url(server), configuration: configuration)
            let observations = observed.withLockedValue { $0 }
            #expect(observations.count == 1)
            #expect(observations.first?.decision.isTrusted == true)
            #expect(observations.first?.presentedChain == chain.derChain)
            #expect(server.statistics.handshakesCompleted == 1)
            #expect(server.statistics.http2Connections == 0)
            #expect(server.statistics.requests.isEmpty)
        }
    }

    /// A refused chain is the transport's error, and the observer still saw it.
    @Test func aRefusedChainIsThrownAfterItWasObserved() async throws {
        let chain = try Live.pki.untrustedRootChain()
        try await withLoopbackHTTPServer(Live.tls(chain)) { server in
            let observed = NIOLockedValueBox<HandshakeObservation?>(nil)
            let configuration = Live.configuration { configuration in
                configuration.handshakeObserver = { observation in observed.withLockedValue { $0 = observation } }
            }
            do throws(SecureHTTPError) {
                try await NIOHTTPTransport.handshakeOnly(with: url(server), configuration: configuration)
                Issue.record("an untrusted chain was accepted")
            } catch {
                #expect(error.code == .serverTrustFailure)
            }
            #expect(observed.withLockedValue { $0 }?.presentedChain == chain.derChain)
            #expect(observed.withLockedValue { $0 }?.decision.isTrusted == false)
            #expect(server.statistics.requests.isEmpty)
        }
    }

    @Test func aURLThatIsNotHTTPSIsRefusedBeforeConnecting() async throws {
        do {
            try await NIOHTTPTransport.handshakeOnly(
                with: URL(string: "http://127.0.0.1:1/")!,
                configuration: Live.configuration()
            )
            Issue.record("a plain http URL was accepted")
        } catch {
            #expect(error.code == .invalidRequest)
        }
    }
}
