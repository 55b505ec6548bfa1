import Foundation
import NIOConcurrencyHelpers
import NIOPosix
import SecureNetworkingTesting
import ServerTrust
import SwiftASN1
import Testing
import X509

@testable import SecureHTTP

/// Stands in for Security.framework, which this machine cannot have: a root store of its own (the
/// "system roots") plus the roots the policy adds, the path validated by swift-certificates, and
/// the verdict reported as `SecTrustEvaluateWithError` reports it (a validated chain with its
/// anchor, or an OSStatus).
final class SecurityFrameworkStandIn: PlatformChainValidator {
    struct Call: Sendable, Equatable {
        var host: String
        var presented: Int
        var addedRoots: Int
    }

    let systemRoots: [Certificate]
    private let forced: PlatformTrustEvaluation?
    private let recorded = NIOLockedValueBox<[Call]>([])

    init(systemRoots: [Certificate], forcing forced: PlatformTrustEvaluation? = nil) {
        self.systemRoots = systemRoots
        self.forced = forced
    }

    var calls: [Call] { self.recorded.withLockedValue { $0 } }

    func validate(
        _ presentedChain: [[UInt8]],
        for requirements: ConnectionRequirements
    ) async -> PlatformTrustEvaluation {
        self.recorded.withLockedValue {
            $0.append(
                Call(
                    host: requirements.host,
                    presented: presentedChain.count,
                    addedRoots: requirements.trustAnchors.certificates.count
                )
            )
        }
        if let forced = self.forced { return forced }
        // Path, dates and host only: the rest (key rules, CT, pins) is the post-validation step's.
        var path = requirements
        path.pins = nil
        path.certificateTransparency = nil
        let roots = requirements.trustAnchors.includesSystemRoots ? self.systemRoots : []
        path.trustAnchors = .only(roots + requirements.trustAnchors.certificates, profile: .privatePKI)
        let decision = await ServerTrust().evaluate(presentedChain: presentedChain, requirements: path, now: Date())
        if let failure = decision.failure {
            let status: Int32 =
                switch failure.code {
                case .expired: -67818
                case .notYetValid: -67819
                case .hostnameMismatch: -67602
                case .untrustedRoot, .selfSigned, .missingIntermediate: -67843
                default: -67808
                }
            return .refused(PlatformTrustRefusal(status: status), status: status)
        }
        return .validated(
            decision.chain.map { certificate in
                var serializer = DER.Serializer()
                try? serializer.serialize(certificate)
                return serializer.serializedBytes
            }
        )
    }
}

/// `NIOHTTPTransport` where ServerTrust cannot read the system roots (Apple platforms): a policy
/// that trusts them has the platform's verifier validate the path inside the handshake, then
/// ServerTrust's key rules and pins run on the chain it validated. Real TLS on loopback; only
/// Security.framework is a stand-in.
@Suite("NIOHTTPTransport: chains validated by the platform")
struct PlatformValidatedNIOTests {
    static func transport(
        _ policy: TransportSecurityPolicy,
        _ standIn: SecurityFrameworkStandIn,
        _ body: (NIOHTTPTransport) async throws -> Void
    ) async throws {
        let transport = try NIOHTTPTransport(
            configuration: Live.configuration(policy: policy),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            platformTrust: PlatformTrust(rootStoreIsReadable: false, validator: standIn)
        )
        do {
            try await body(transport)
        } catch {
            await transport.shutdown()
            throw error
        }
        await transport.shutdown()
    }

    /// A device whose root store holds an unrelated root only: the test root reaches it through
    /// `.system(adding:)`.
    static let standInRoots = [Live.pki.untrustedRoot.certificate]

    @Test(arguments: WireProtocol.allCases)
    func systemAddingAnAppRootIsValidatedByThePlatform(over wire: WireProtocol) async throws {
        let chain = try Live.pki.validChain()
        let standIn = SecurityFrameworkStandIn(systemRoots: Self.standInRoots)
        let policy = TransportSecurityPolicy(trustAnchors: .system(adding: [Live.pki.root.certificate]))
        try await withLoopbackHTTPServer(Live.tls(chain, over: wire)) { server in
            try await Self.transport(policy, standIn) { transport in
                let response = try await transport.send(get(url(server)))
                #expect(response.response.status == .ok)
                #expect(standIn.calls == [.init(host: "localhost", presented: 2, addedRoots: 1)])
                // A second request reuses the connection or the cached decision: one evaluation.
                _ = try await transport.send(get(url(server)))
                #expect(standIn.calls.count == 1)
            }
        }
    }

    @Test func aChainThePlatformDoesNotTrustIsRefusedWithItsReason() async throws {
        let chain = try Live.pki.validChain()
        let standIn = SecurityFrameworkStandIn(systemRoots: Self.standInRoots)
        try await withLoopbackHTTPServer(Live.tls(chain)) { server in
            try await Self.transport(TransportSecurityPolicy(trustAnchors: .system), standIn) { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.code == .serverTrustFailure)
                #expect(error?.serverTrustError?.code == .untrustedRoot)
                #expect(error?.serverTrustError?.message.contains("OSStatus -67843") == true)
                #expect(server.statistics.requests.isEmpty)
                #expect(standIn.calls.count == 1)
            }
        }
    }

    @Test func eachPlatformRefusalKeepsItsReason() async throws {
        let chain = try Live.pki.validChain()
        let cases: [(PlatformTrustEvaluation, ServerTrustError.Code)] = [
            (.refused(.expired, status: -67818), .expired),
            (.refused(.hostNameMismatch, status: -67602), .hostnameMismatch),
            (.refused(.other, status: -67820), .chainPolicyViolation),
            (.unusable("the trust anchors could not be set"), .chainPolicyViolation),
            (.validated([]), .emptyChain),
        ]
        try await withLoopbackHTTPServer(Live.tls(chain)) { server in
            for (verdict, code) in cases {
                let standIn = SecurityFrameworkStandIn(systemRoots: [], forcing: verdict)
                try await Self.transport(TransportSecurityPolicy(trustAnchors: .system), standIn) { transport in
                    let error = await expectFailure(transport, get(url(server)))
                    #expect(error?.serverTrustError?.code == code, "\(verdict)")
                }
            }
            #expect(server.statistics.requests.isEmpty)
        }
    }

    @Test(arguments: WireProtocol.allCases)
    func pinsApplyToThePlatformValidatedChain(over wire: WireProtocol) async throws {
        let chain = try Live.pki.validChain()
        let standIn = SecurityFrameworkStandIn(systemRoots: [Live.pki.root.certificate])
        // The root is pinned: it is in the chain Security.framework returns (anchor last), not
        // in the chain the server presented.
        var pinned = TransportSecurityPolicy(trustAnchors: .system)
        pinned.pinning.pin(
            try HostPattern("localhost"),
            to: try PinSet(pins: [Live.pki.root.pin, Live.pki.untrustedRoot.pin])
        )
        var mismatched = TransportSecurityPolicy(trustAnchors: .system)
        mismatched.pinning.pin(
            try HostPattern("localhost"),
            to: try PinSet(pins: [Live.pki.untrustedRoot.pin, Live.pki.untrustedIntermediate.pin])
        )
        try await withLoopbackHTTPServer(Live.tls(chain, over: wire)) { server in
            try await Self.transport(pinned, standIn) { transport in
                let response = try await transport.send(get(url(server)))
                #expect(response.response.status == .ok)
            }
            try await Self.transport(mismatched, standIn) { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.serverTrustError?.code == .pinMismatch)
                #expect(error?.pinReport?.result == .rejected)
            }
            #expect(server.statistics.requests.count == 1)
        }
    }

    @Test func weakKeysAreRefusedAfterThePlatformValidates() async throws {
        let chain = try Live.pki.rsa1024Chain()
        // A verifier that lets the path through (as an older or laxer one might): ServerTrust's key
        // rules still run on what it validated.
        let standIn = SecurityFrameworkStandIn(
            systemRoots: [],
            forcing: .validated(chain.derChain + [Live.pki.root.derBytes])
        )
        try await withLoopbackHTTPServer(Live.tls(chain)) { server in
            try await Self.transport(TransportSecurityPolicy(trustAnchors: .system), standIn) { transport in
                let error = await expectFailure(transport, get(url(server)))
                #expect(error?.serverTrustError?.code == .weakKey)
                #expect(standIn.calls.count == 1)
            }
        }
    }

    @Test func namedRootsKeepServerTrustsOwnValidation() async throws {
        let chain = try Live.pki.validChain()
        let standIn = SecurityFrameworkStandIn(systemRoots: [], forcing: .refused(.untrusted, status: -67843))
        try await withLoopbackHTTPServer(Live.tls(chain)) { server in
            try await Self.transport(Live.policy, standIn) { transport in
                let response = try await transport.send(get(url(server)))
                #expect(response.response.status == .ok)
                #expect(standIn.calls.isEmpty)
            }
        }
    }
}

/// Who validates a chain's path, as a value: the decision both transports' set-up follows.
@Suite("Chain path validation: the choice")
struct ChainPathValidationTests {
    static let root = Live.pki.root.certificate

    @Test func theChoiceFollowsTheAnchorsAndThePlatform() {
        let cases: [(TrustAnchors, Bool, Bool, ChainPathValidation)] = [
            // Linux: the CA bundle is read, ServerTrust validates everything.
            (.system, true, false, .serverTrust),
            (.system(adding: [Self.root]), true, false, .serverTrust),
            (.only([Self.root]), true, false, .serverTrust),
            // Apple platforms: the system roots go to Security.framework, named roots do not.
            (.system, false, true, .platform),
            (.system(adding: [Self.root]), false, true, .platform),
            (.only([Self.root]), false, true, .serverTrust),
            (.only([Self.root], profile: .privatePKI), false, true, .serverTrust),
            // Neither: refused when the transport is built.
            (.system, false, false, .impossible),
            (.only([Self.root]), false, false, .serverTrust),
        ]
        for (anchors, readable, hasValidator, expected) in cases {
            let choice = ChainPathValidation.choice(
                for: anchors,
                rootStoreIsReadable: readable,
                hasPlatformValidator: hasValidator
            )
            #expect(choice == expected, "\(anchors.includesSystemRoots) \(readable) \(hasValidator)")
        }
    }

    @Test func aPlatformWithNeitherRefusesTheSystemRootsWhenTheTransportIsBuilt() throws {
        let neither = PlatformTrust(rootStoreIsReadable: false, validator: nil)
        for anchors in [TrustAnchors.system, .system(adding: [Self.root])] {
            #expect(throws: SecureHTTPError(.policyViolation, "")) {
                try NIOHTTPTransport(
                    configuration: HTTPTransportConfiguration(policy: TransportSecurityPolicy(trustAnchors: anchors)),
                    eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
                    platformTrust: neither
                )
            }
        }
        let named = HTTPTransportConfiguration(policy: Live.policy)
        #expect(
            NIOHTTPTransport.rootStoreProblem(named.policy, platformTrust: neither) == nil
        )
    }

    @Test func thisPlatformReadsItsRootStore() async throws {
        #expect(PlatformTrust.current.rootStoreIsReadable)
        #expect(PlatformTrust.current.validator == nil)
        let transport = try NIOHTTPTransport(configuration: HTTPTransportConfiguration())
        await transport.shutdown()
    }

    @Test func securityFrameworkStatusesMapToServerTrustReasons() {
        #expect(PlatformTrustRefusal(status: -67818) == .expired)
        #expect(PlatformTrustRefusal(status: -67819) == .notYetValid)
        #expect(PlatformTrustRefusal(status: -67602) == .hostNameMismatch)
        #expect(PlatformTrustRefusal(status: -67843) == .untrusted)
        #expect(PlatformTrustRefusal(status: -25318) == .untrusted)
        #expect(PlatformTrustRefusal(status: -67820) == .other)
        #expect(PlatformTrustRefusal(status: 0) == .other)
    }
}
