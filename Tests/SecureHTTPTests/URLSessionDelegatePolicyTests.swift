import Foundation
import HTTPTypes
import HTTPTypesFoundation
import NIOConcurrencyHelpers
import SecureNetworkingTesting
import ServerTrust
import Testing

@testable import SecureHTTP

/// The decisions `URLSessionTransport`'s delegate makes, as values: what it does with each
/// challenge, how a Security.framework verdict and ServerTrust's pins combine, whether a
/// completed task's response may be used, and which session a request travels on.
@Suite("URLSession delegate policy")
struct URLSessionDelegatePolicyTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let pki: TestPKI = {
        do { return try TestPKI(referenceTime: now) } catch { preconditionFailure("TestPKI: \(error)") }
    }()

    static func requirements(
        host: String = "api.example.com",
        port: Int = 443,
        usesTLS: Bool = true,
        minimumTLSVersion: TLSVersion = .v1_2,
        pins: PinSet? = nil
    ) -> ConnectionRequirements {
        ConnectionRequirements(
            host: host,
            port: port,
            usesTLS: usesTLS,
            minimumTLSVersion: minimumTLSVersion,
            trustAnchors: pki.trustAnchors,
            pinScope: pins == nil ? nil : host,
            pins: pins
        )
    }

    static func policy(hasClientIdentity: Bool = true) -> URLSessionDelegatePolicy {
        URLSessionDelegatePolicy(evaluator: ServerTrust(), hasClientIdentity: hasClientIdentity, now: { now })
    }

    // MARK: Challenges

    enum Expected: Sendable, CustomStringConvertible {
        case evaluate
        case presentIdentity
        case defaultHandling
        case cancel(SecureHTTPError.Code)

        var description: String {
            switch self {
            case .evaluate: "evaluate"
            case .presentIdentity: "presentIdentity"
            case .defaultHandling: "defaultHandling"
            case .cancel(let code): "cancel(\(code))"
            }
        }
    }

    struct ChallengeCase: Sendable, CustomStringConvertible {
        let name: String
        let challenge: URLSessionDelegatePolicy.Challenge
        var task: ConnectionRequirements? = URLSessionDelegatePolicyTests.requirements()
        var hasClientIdentity = true
        let expected: Expected

        var description: String { self.name }
    }

    static func trust(
        _ host: String = "api.example.com",
        port: Int = 443,
        proxy: Bool = false,
        hasTrust: Bool = true
    )
        -> URLSessionDelegatePolicy.Challenge
    {
        .init(method: .serverTrust, host: host, port: port, isProxy: proxy, hasServerTrust: hasTrust)
    }

    static func clientCertificate(
        _ host: String = "api.example.com",
        port: Int = 443
    ) -> URLSessionDelegatePolicy.Challenge {
        .init(method: .clientCertificate, host: host, port: port, isProxy: false)
    }

    static let challengeCases: [ChallengeCase] = [
        ChallengeCase(name: "server trust for the task's origin", challenge: trust(), expected: .evaluate),
        ChallengeCase(
            name: "server trust, host in other case with a trailing dot",
            challenge: trust("API.Example.COM."),
            expected: .evaluate
        ),
        ChallengeCase(
            name: "server trust for another host",
            challenge: trust("cdn.example.net"),
            expected: .cancel(.serverTrustFailure)
        ),
        ChallengeCase(
            name: "server trust for a sibling host",
            challenge: trust("www.example.com"),
            expected: .cancel(.serverTrustFailure)
        ),
        ChallengeCase(
            name: "server trust for another port",
            challenge: trust(port: 8443),
            expected: .cancel(.serverTrustFailure)
        ),
        ChallengeCase(
            name: "server trust without a SecTrust",
            challenge: trust(hasTrust: false),
            expected: .cancel(.serverTrustFailure)
        ),
        ChallengeCase(
            name: "server trust for a task this transport is not waiting for",
            challenge: trust(),
            task: nil,
            expected: .cancel(.serverTrustFailure)
        ),
        ChallengeCase(
            name: "server trust for a plain-HTTP task",
            challenge: trust(port: 80),
            task: requirements(port: 80, usesTLS: false),
            expected: .cancel(.serverTrustFailure)
        ),
        ChallengeCase(
            name: "server trust of a proxy",
            challenge: trust("proxy.corp", port: 3128, proxy: true),
            expected: .defaultHandling
        ),
        ChallengeCase(
            name: "client certificate with an identity",
            challenge: clientCertificate(),
            expected: .presentIdentity
        ),
        ChallengeCase(
            name: "client certificate without an identity",
            challenge: clientCertificate(),
            hasClientIdentity: false,
            expected: .cancel(.clientCertificateRequired)
        ),
        ChallengeCase(
            name: "client certificate asked by another host",
            challenge: clientCertificate("cdn.example.net"),
            expected: .cancel(.serverTrustFailure)
        ),
        ChallengeCase(
            name: "HTTP Basic",
            challenge: .init(method: .other, host: "api.example.com", port: 443, isProxy: false),
            expected: .defaultHandling
        ),
    ]

    @Test(arguments: challengeCases)
    func challengeStep(_ testCase: ChallengeCase) {
        let step = Self.policy(hasClientIdentity: testCase.hasClientIdentity)
            .step(for: testCase.challenge, taskRequirements: testCase.task)
        switch (testCase.expected, step) {
        case (.evaluate, .evaluateServerTrust(let requirements)):
            #expect(requirements == testCase.task)
        case (.presentIdentity, .presentClientIdentity), (.defaultHandling, .performDefaultHandling):
            break
        case (.cancel(let code), .cancel(let error)):
            #expect(error.code == code)
        default:
            Issue.record("\(testCase.name): expected \(testCase.expected), got \(step)")
        }
    }

    @Test func aChallengeForAnotherHostNamesTheTaskOriginOnly() {
        let step = Self.policy().step(for: Self.trust("attacker.example"), taskRequirements: Self.requirements())
        guard case .cancel(let error) = step else {
            Issue.record("expected a cancellation, got \(step)")
            return
        }
        #expect(error.message.contains("api.example.com:443"))
        #expect(!error.message.contains("attacker.example"))
    }

    // MARK: Server-trust conclusions

    static func validated() throws -> [[UInt8]] {
        try pki.validChain().derChain + [pki.root.derBytes]
    }

    struct ConclusionCase: Sendable, CustomStringConvertible {
        let name: String
        let evaluation: @Sendable () throws -> URLSessionDelegatePolicy.PlatformEvaluation
        var pins: @Sendable () throws -> PinSet? = { nil }
        /// nil: accepted.
        let failure: SecureHTTPError.Code?
        /// The ServerTrust reason of the failure, when there is one.
        var reason: ServerTrustError.Code? = nil
        var report: PinValidationReport.Result? = nil

        var description: String { self.name }
    }

    static let otherPins: @Sendable () throws -> PinSet? = {
        try PinSet(pins: [pki.untrustedRoot.pin, pki.untrustedIntermediate.pin])
    }

    static let conclusionCases: [ConclusionCase] = [
        ConclusionCase(name: "validated, no pins", evaluation: { .validated(try validated()) }, failure: nil),
        ConclusionCase(
            name: "validated, root pinned",
            evaluation: { .validated(try validated()) },
            pins: { try PinSet(pins: [pki.root.pin, pki.untrustedRoot.pin]) },
            failure: nil
        ),
        ConclusionCase(
            name: "validated, pin mismatch",
            evaluation: { .validated(try validated()) },
            pins: otherPins,
            failure: .serverTrustFailure,
            reason: .pinMismatch,
            report: .rejected
        ),
        ConclusionCase(
            name: "validated, pin mismatch in report-only mode",
            evaluation: { .validated(try validated()) },
            pins: { try PinSet(pins: [pki.untrustedRoot.pin], mode: .reportOnly) },
            failure: nil,
            report: .reportOnly
        ),
        ConclusionCase(
            name: "validated, pin mismatch after the pin set expired",
            evaluation: { .validated(try validated()) },
            pins: {
                try PinSet(
                    pins: [pki.untrustedRoot.pin, pki.untrustedIntermediate.pin],
                    expiration: now.addingTimeInterval(-1)
                )
            },
            failure: nil,
            report: .expiredNotEnforced
        ),
        ConclusionCase(
            name: "validated, pin mismatch one second before the pin set expires",
            evaluation: { .validated(try validated()) },
            pins: {
                try PinSet(
                    pins: [pki.untrustedRoot.pin, pki.untrustedIntermediate.pin],
                    expiration: now.addingTimeInterval(1)
                )
            },
            failure: .serverTrustFailure,
            reason: .pinMismatch,
            report: .rejected
        ),
        ConclusionCase(
            name: "validated, RSA-1024 leaf",
            evaluation: { .validated(try pki.rsa1024Chain().derChain + [pki.root.derBytes]) },
            failure: .serverTrustFailure,
            reason: .weakKey
        ),
        ConclusionCase(
            name: "validated but empty",
            evaluation: { .validated([]) },
            failure: .serverTrustFailure,
            reason: .emptyChain
        ),
        ConclusionCase(
            name: "refused: expired",
            evaluation: { .refused(.expired, status: -67818) },
            failure: .serverTrustFailure,
            reason: .expired
        ),
        ConclusionCase(
            name: "refused: not yet valid",
            evaluation: { .refused(.notYetValid, status: -67819) },
            failure: .serverTrustFailure,
            reason: .notYetValid
        ),
        ConclusionCase(
            name: "refused: host name mismatch",
            evaluation: { .refused(.hostNameMismatch, status: -67602) },
            failure: .serverTrustFailure,
            reason: .hostnameMismatch
        ),
        ConclusionCase(
            name: "refused: no path to an anchor",
            evaluation: { .refused(.untrusted, status: -67843) },
            failure: .serverTrustFailure,
            reason: .untrustedRoot
        ),
        ConclusionCase(
            name: "refused: another status (revoked)",
            evaluation: { .refused(.other, status: -67820) },
            failure: .serverTrustFailure,
            reason: .chainPolicyViolation
        ),
        ConclusionCase(
            name: "evaluation error: trust object unusable",
            evaluation: { .unusable("the trust anchors could not be set") },
            failure: .serverTrustFailure,
            reason: .chainPolicyViolation
        ),
    ]

    @Test(arguments: conclusionCases)
    func serverTrustConclusion(_ testCase: ConclusionCase) throws {
        let requirements = Self.requirements(host: "localhost", pins: try testCase.pins())
        let conclusion = Self.policy().conclude(try testCase.evaluation(), requirements: requirements)
        #expect(conclusion.failure?.code == testCase.failure)
        #expect(conclusion.failure?.serverTrustError?.code == testCase.reason)
        #expect(conclusion.pinReport?.result == testCase.report)
        if let failure = conclusion.failure, testCase.reason == .pinMismatch {
            #expect(failure.pinReport?.result == .rejected)
        }
    }

    @Test func certificateTransparencyAppliesToPlatformValidatedChainsAndIsReported() throws {
        // ATS checks CT for publicly trusted certificates itself; a host the app's policy makes
        // require CT is checked here too, on the chain the platform validated.
        let logs = [
            TestPKI.CTLog(description: "A", operatorName: "A"), TestPKI.CTLog(description: "B", operatorName: "B"),
        ]
        var requirements = Self.requirements(host: "localhost")
        requirements.certificateTransparency = CertificateTransparencySettings(
            logList: try TestPKI.logList(logs, timestamp: Self.now.addingTimeInterval(-86_400))
        )
        let reports = LockedReports()
        var policy = Self.policy()
        policy.transparencyReporter = { reports.append($0) }

        let bare = policy.conclude(.validated(try Self.validated()), requirements: requirements)
        #expect(bare.failure?.serverTrustError?.code == .ctNoSCTs)
        #expect(reports.results == [.notCompliant])

        let chain = try Self.pki.leafWithSCTs(scts: logs.map { .init($0, time: Self.now.addingTimeInterval(-60)) })
            .chain
        let withSCTs = policy.conclude(
            .validated(chain.derChain + [Self.pki.root.derBytes]),
            requirements: requirements
        )
        #expect(withSCTs.failure == nil)
        #expect(reports.results == [.notCompliant])
    }

    final class LockedReports: Sendable {
        private let lock = NSLock()
        // SAFETY: `reports` is read and written only while `lock` is held.
        nonisolated(unsafe) private var reports: [CertificateTransparencyReport] = []

        func append(_ report: CertificateTransparencyReport) {
            self.lock.withLock { self.reports.append(report) }
        }

        var results: [CertificateTransparencyReport.Result] { self.lock.withLock { self.reports.map(\.result) } }
    }

    @Test func aPlatformRefusalCarriesTheStatus() {
        let conclusion = Self.policy().conclude(.refused(.other, status: -67820), requirements: Self.requirements())
        #expect(conclusion.failure?.serverTrustError?.message.contains("OSStatus -67820") == true)
    }

    // MARK: Completion and redirects

    struct CompletionCase: Sendable, CustomStringConvertible {
        let name: String
        var usesTLS = true
        var challengeAccepted = false
        let connection: URLSessionDelegatePolicy.Connection?
        var sessionAccepted = true
        let refused: Bool

        var description: String { self.name }
    }

    static let completionCases: [CompletionCase] = [
        CompletionCase(name: "plain HTTP", usesTLS: false, connection: nil, sessionAccepted: false, refused: false),
        CompletionCase(
            name: "own challenge accepted, new connection",
            challengeAccepted: true,
            connection: .init(isReused: false),
            refused: false
        ),
        CompletionCase(
            name: "own challenge accepted, no metrics yet",
            challengeAccepted: true,
            connection: nil,
            refused: false
        ),
        CompletionCase(
            name: "reused connection of a session that accepted one",
            connection: .init(isReused: true),
            refused: false
        ),
        CompletionCase(name: "no metrics, session accepted a connection", connection: nil, refused: false),
        CompletionCase(name: "new connection without a challenge", connection: .init(isReused: false), refused: true),
        CompletionCase(
            name: "new connection without a challenge, session accepted others",
            connection: .init(isReused: false),
            sessionAccepted: true,
            refused: true
        ),
        CompletionCase(
            name: "reused connection, session accepted none",
            connection: .init(isReused: true),
            sessionAccepted: false,
            refused: true
        ),
        CompletionCase(
            name: "neither a challenge nor metrics, session accepted none",
            connection: nil,
            sessionAccepted: false,
            refused: true
        ),
    ]

    @Test(arguments: completionCases)
    func completion(_ testCase: CompletionCase) {
        let failure = Self.policy().completionFailure(
            usesTLS: testCase.usesTLS,
            challengeAccepted: testCase.challengeAccepted,
            connection: testCase.connection,
            sessionAcceptedAConnection: testCase.sessionAccepted
        )
        #expect(failure?.code == (testCase.refused ? .serverTrustFailure : nil))
    }

    /// URLSession around the delegate's answer, as a model: when `followsRedirect` says yes,
    /// URLSession follows the 3xx itself and the task completes with the target's response; when
    /// no, the 3xx completes the task and goes back to the request driver. The driver then
    /// applies its rules: an https→http redirect is refused before its target is asked, and a
    /// same-origin one is followed as a second hop that the driver prepared.
    @Test(arguments: [301, 302, 303, 307, 308])
    func redirectsGoBackToTheDriver(status: Int) async throws {
        let policy = Self.policy()
        let driver = RequestDriver(
            configuration: HTTPTransportConfiguration(
                policy: TransportSecurityPolicy(trustAnchors: Self.pki.trustAnchors),
                redirects: .follow(maximum: 5)
            )
        )
        let asked = NIOLockedValueBox<[String]>([])
        let session: @Sendable (PreparedHop) async throws(SecureHTTPError) -> (HTTPResponse, Data) = { hop in
            asked.withLockedValue { $0.append(hop.url.absoluteString) }
            guard hop.request.path?.hasPrefix("/start") == true else { return (HTTPResponse(status: .ok), Data()) }
            let location =
                hop.request.path == "/start-insecure"
                ? "http://api.example.com/insecure" : "https://api.example.com/next"
            if policy.followsRedirect(status: status) {
                // URLSession's own redirect: no rule of the driver sees it.
                asked.withLockedValue { $0.append(location) }
                return (HTTPResponse(status: .ok), Data())
            }
            var redirect = HTTPResponse(status: .init(code: status))
            redirect.headerFields[.location] = location
            return (redirect, Data())
        }

        do {
            let response = try await driver.send(
                HTTPRequest(url: URL(string: "https://api.example.com/start-insecure")!),
                body: nil,
                options: HTTPRequestOptions(),
                exchange: session
            )
            Issue.record("an https→http redirect was followed: \(response.response.status)")
        } catch {
            #expect(error.code == .insecureRedirect)
        }
        #expect(asked.withLockedValue { $0 } == ["https://api.example.com/start-insecure"])

        asked.withLockedValue { $0 = [] }
        let followed = try await driver.send(
            HTTPRequest(url: URL(string: "https://api.example.com/start")!),
            body: nil,
            options: HTTPRequestOptions(),
            exchange: session
        )
        #expect(followed.redirectCount == 1)
        #expect(asked.withLockedValue { $0 } == ["https://api.example.com/start", "https://api.example.com/next"])
    }
}

/// The session rule: one URLSession per distinct requirements, bounded, least recently used
/// retired first.
@Suite("URLSession pool")
struct URLSessionPoolTests {
    final class FakeSession: Sendable {
        let requirements: ConnectionRequirements
        init(_ requirements: ConnectionRequirements) { self.requirements = requirements }
    }

    typealias Pool = URLSessionPool<FakeSession>

    static func lease(
        _ pool: inout Pool,
        _ requirements: ConnectionRequirements,
        made: inout Int
    ) -> (FakeSession, FakeSession?)? {
        let lease = pool.session(for: requirements) { requirements in
            made += 1
            return FakeSession(requirements)
        }
        switch lease {
        case .session(let session, let retired): return (session, retired)
        case .closed: return nil
        }
    }

    @Test func theSameRequirementsShareOneSession() throws {
        var pool = Pool(limit: 4)
        var made = 0
        let requirements = URLSessionDelegatePolicyTests.requirements()
        let first = try #require(Self.lease(&pool, requirements, made: &made))
        let second = try #require(
            Self.lease(&pool, URLSessionDelegatePolicyTests.requirements(host: "API.example.com."), made: &made)
        )
        #expect(first.0 === second.0)
        #expect(made == 1)
        #expect(pool.count == 1)
    }

    @Test func everyDistinctRequirementGetsItsOwnSession() throws {
        let pins = try PinSet(pins: [
            URLSessionDelegatePolicyTests.pki.root.pin, URLSessionDelegatePolicyTests.pki.untrustedRoot.pin,
        ])
        let variants = [
            URLSessionDelegatePolicyTests.requirements(),
            URLSessionDelegatePolicyTests.requirements(host: "www.example.com"),
            URLSessionDelegatePolicyTests.requirements(port: 8443),
            URLSessionDelegatePolicyTests.requirements(minimumTLSVersion: .v1_3),
            URLSessionDelegatePolicyTests.requirements(pins: pins),
            ConnectionRequirements(host: "api.example.com", trustAnchors: .system),
        ]
        var pool = Pool(limit: 16)
        var made = 0
        var sessions: [FakeSession] = []
        for requirements in variants {
            let (session, retired) = try #require(Self.lease(&pool, requirements, made: &made))
            #expect(retired == nil)
            #expect(session.requirements == requirements)
            sessions.append(session)
        }
        #expect(made == variants.count)
        #expect(Set(sessions.map(ObjectIdentifier.init)).count == variants.count)
    }

    @Test func theLeastRecentlyUsedSessionIsRetiredAtTheLimit() throws {
        var pool = Pool(limit: 2)
        var made = 0
        let a = URLSessionDelegatePolicyTests.requirements(host: "a.example")
        let b = URLSessionDelegatePolicyTests.requirements(host: "b.example")
        let c = URLSessionDelegatePolicyTests.requirements(host: "c.example")
        let sessionA = try #require(Self.lease(&pool, a, made: &made)).0
        let sessionB = try #require(Self.lease(&pool, b, made: &made)).0
        _ = try #require(Self.lease(&pool, a, made: &made))  // a is now the most recent
        let (sessionC, retired) = try #require(Self.lease(&pool, c, made: &made))
        #expect(retired === sessionB)
        #expect(sessionC.requirements == c)
        #expect(pool.count == 2)
        // a survived; b comes back as a new session.
        #expect(try #require(Self.lease(&pool, a, made: &made)).0 === sessionA)
        let (newB, retiredAgain) = try #require(Self.lease(&pool, b, made: &made))
        #expect(newB !== sessionB)
        #expect(retiredAgain === sessionC)
        #expect(made == 4)
    }

    /// After a pin update the sessions of requirements whose pins changed are retired (the
    /// same decision the NIO pool takes, ``PinningChange``); a later request makes a new one.
    @Test func aPinUpdateRetiresTheSessionsWhosePinsChanged() throws {
        let pki = URLSessionDelegatePolicyTests.pki
        let old = try PinSet(pins: [pki.root.pin, pki.untrustedRoot.pin])
        let new = try PinSet(pins: [pki.intermediate.pin, pki.untrustedRoot.pin])
        var pool = Pool(limit: 4)
        var made = 0
        let pinned = URLSessionDelegatePolicyTests.requirements(pins: old)
        let unpinned = URLSessionDelegatePolicyTests.requirements(host: "other.example.com")
        let pinnedSession = try #require(Self.lease(&pool, pinned, made: &made)).0
        let unpinnedSession = try #require(Self.lease(&pool, unpinned, made: &made)).0

        var policy = TransportSecurityPolicy(trustAnchors: pki.trustAnchors)
        policy.pinning.pin(try HostPattern("api.example.com"), to: new)
        let retired = pool.retire(where: PinningChange(policy: policy).isStale)
        #expect(retired.map(ObjectIdentifier.init) == [ObjectIdentifier(pinnedSession)])
        #expect(pool.count == 1)
        #expect(try #require(Self.lease(&pool, unpinned, made: &made)).0 === unpinnedSession)
        // Unchanged pins: nothing retired.
        policy.pinning.pin(try HostPattern("api.example.com"), to: old)
        _ = try #require(Self.lease(&pool, pinned, made: &made))
        #expect(pool.retire(where: PinningChange(policy: policy).isStale).isEmpty)
    }

    @Test func aClosedPoolMakesNoSession() throws {
        var pool = Pool(limit: 2)
        var made = 0
        _ = try #require(Self.lease(&pool, URLSessionDelegatePolicyTests.requirements(), made: &made))
        let all = pool.close()
        #expect(all.count == 1)
        #expect(pool.count == 0)
        #expect(Self.lease(&pool, URLSessionDelegatePolicyTests.requirements(), made: &made) == nil)
        #expect(made == 1)
    }
}
