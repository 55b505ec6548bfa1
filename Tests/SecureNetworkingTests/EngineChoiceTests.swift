import Foundation
import SecureHTTP
import SecureNetworkingTesting
import Testing

@testable import SecureNetworking

/// Which transport a configuration builds by default, per platform: a decision in portable code,
/// so every platform's answer is tested here.
@Suite("The default engine")
struct EngineChoiceTests {
    @Test func applePlatformsDefaultToURLSessionAndTheRestToNIO() {
        typealias Engine = SecureAPIClient.Engine
        let expected: [Engine.Platform: Engine.Kind] = [
            .iOS: .urlSession(maximumSessions: URLSessionTransportDefaults.maximumSessions),
            .macOS: .urlSession(maximumSessions: URLSessionTransportDefaults.maximumSessions),
            .tvOS: .urlSession(maximumSessions: URLSessionTransportDefaults.maximumSessions),
            .watchOS: .urlSession(maximumSessions: URLSessionTransportDefaults.maximumSessions),
            .visionOS: .urlSession(maximumSessions: URLSessionTransportDefaults.maximumSessions),
            .linux: .nio,
            .other: .nio,
        ]
        #expect(Set(expected.keys) == Set(Engine.Platform.allCases))
        for platform in Engine.Platform.allCases {
            #expect(Engine.defaultKind(on: platform) == expected[platform], "\(platform)")
        }
    }

    @Test func aNewConfigurationUsesThisPlatformsDefault() throws {
        let configuration = SecureAPIClient.Configuration(baseURL: try #require(URL(string: "https://api.example.com")))
        #expect(SecureAPIClient.Engine.Platform.current == .linux)
        #expect(configuration.engine == .nio)
        #expect(configuration.engine == .platformDefault)
    }

    /// The README's quick start builds its client with `.system(adding: [companyRoot])` and the
    /// default engine: that must work wherever the package builds (on Apple platforms the engine
    /// is URLSession, and NIO validates system-root chains with Security.framework).
    @Test func theQuickStartsPolicyBuildsAClientWithTheDefaultEngine() async throws {
        var policy = TransportSecurityPolicy()
        policy.trustAnchors = .system(adding: [try TestPKI(referenceTime: Date()).root.certificate])
        let configuration = SecureAPIClient.Configuration(
            baseURL: try #require(URL(string: "https://api.example.com")),
            policy: policy
        )
        let client = try SecureAPIClient(configuration: configuration)
        await client.shutdown()
    }
}
