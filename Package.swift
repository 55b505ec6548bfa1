// swift-tools-version: 6.2
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// SwiftNIO, NIOSSL and swift-http-types: what the transport, its test servers and their tests share.
let nioDependencies: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"),
    .product(name: "NIOTLS", package: "swift-nio"),
    .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
    .product(name: "NIOFoundationCompat", package: "swift-nio"),
    .product(name: "NIOSSL", package: "swift-nio-ssl"),
    .product(name: "HTTPTypes", package: "swift-http-types"),
]

let package = Package(
    name: "SecureNetworking",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "ServerTrust", targets: ["ServerTrust"]),
        .library(name: "SecureHTTP", targets: ["SecureHTTP"]),
        .library(name: "SecureStorage", targets: ["SecureStorage"]),
        .library(name: "TokenAuth", targets: ["TokenAuth"]),
        .library(name: "SecureCrypto", targets: ["SecureCrypto"]),
        .library(name: "SecureNetworking", targets: ["SecureNetworking"]),
        .library(name: "SecureNetworkingTesting", targets: ["SecureNetworkingTesting"]),
        .library(name: "SecurityAudit", targets: ["SecurityAudit"]),
        .library(name: "SecureNetworkingOpenAPI", targets: ["SecureNetworkingOpenAPI"]),
        .library(name: "SecureSession", targets: ["SecureSession"]),
        .executable(name: "securenet", targets: ["securenet"]),
    ],
    // An app pays only for what it imports. No trait is on by default, so an app that names this
    // package as usual resolves the library's dependencies only (Scripts/check-app-dependencies.sh
    // counts them); the packages that only the tools, the test servers and the OpenAPI door need are
    // named under a trait, and SwiftPM does not resolve them while it is off.
    traits: [
        .trait(
            name: "OpenAPI",
            description: "SecureNetworkingOpenAPI: a swift-openapi-runtime ClientTransport and token middleware."
        ),
        .trait(
            name: "TestServers",
            description:
                "SecureNetworkingTesting's reference auth server (Hummingbird, jwt-kit) and intercepting proxy."
        ),
        .trait(
            name: "Tools",
            description:
                "This repository's own commands: securenet (the demo, audit, serve, intercept, …) and every test.",
            enabledTraits: ["OpenAPI", "TestServers"]
        ),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.3.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        // securenet audit parses Swift sources (602.0.0 built as fast as 600.0.1 here, 603.0.1 slower).
        .package(url: "https://github.com/swiftlang/swift-syntax.git", from: "602.0.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        // `swift package generate-documentation`: the DocC catalogs of the public modules.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        // Helpers several modules share, visible to this package only (`package` access, no
        // product): the Info.plist readers (preprocessor, OpenStep, the binary shape walk),
        // constant-time comparison, base64url, `Duration` conversions.
        .target(
            name: "SecureNetworkingInternal",
            swiftSettings: strictSettings
        ),
        .target(
            name: "ServerTrust",
            dependencies: [
                "SecureNetworkingInternal",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SecureHTTP",
            dependencies: nioDependencies + [
                "SecureNetworkingInternal",
                "ServerTrust",
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                // The transport's counters, bumped on every exchange without a lock.
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SecureStorage",
            dependencies: [
                "SecureNetworkingInternal",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "SecureStorageStress",
            dependencies: ["SecureStorage"],
            swiftSettings: strictSettings
        ),
        // A helper for TokenAuth's cross-process tests: token managers in separate processes on
        // one encrypted store. Not a product.
        .executableTarget(
            name: "TokenAuthStress",
            dependencies: [
                "TokenAuth", "SecureHTTP", "SecureStorage", "ServerTrust",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "TokenAuth",
            dependencies: [
                "SecureNetworkingInternal",
                "SecureHTTP",
                "SecureStorage",
                .product(name: "Crypto", package: "swift-crypto"),
                // The loopback redirect receiver (RFC 8252 §7.3).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SecureCrypto",
            dependencies: [
                "SecureNetworkingInternal",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SecureNetworking",
            dependencies: [
                "SecureNetworkingInternal",
                "ServerTrust",
                "SecureCrypto",
                "SecureStorage",
                "SecureHTTP",
                "TokenAuth",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        // A swift-openapi-runtime ClientTransport and token middleware, in a target of its own so
        // that apps without generated OpenAPI clients do not build the runtime.
        .target(
            name: "SecureNetworkingOpenAPI",
            dependencies: [
                "SecureHTTP",
                "TokenAuth",
                .product(
                    name: "OpenAPIRuntime",
                    package: "swift-openapi-runtime",
                    condition: .when(traits: ["OpenAPI"])
                ),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        // The app's session as one @Observable model (the Observation module), in a target of its
        // own so that apps that do not want it do not link it.
        .target(
            name: "SecureSession",
            dependencies: [
                "SecureNetworkingInternal",
                "SecureNetworking",
                "SecureHTTP",
                "SecureStorage",
                "TokenAuth",
            ],
            swiftSettings: strictSettings
        ),
        // securenet audit's engine: Swift sources (swift-syntax), property lists and .xcconfig
        // files checked against the mistakes the security articles warn about.
        .target(
            name: "SecurityAudit",
            dependencies: [
                "SecureNetworkingInternal",
                // OutsideText: one escaping rule for file names in the text and annotation output.
                "ServerTrust",
                .product(name: "SwiftSyntax", package: "swift-syntax", condition: .when(traits: ["Tools"])),
                .product(name: "SwiftParser", package: "swift-syntax", condition: .when(traits: ["Tools"])),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SecureNetworkingTesting",
            dependencies: nioDependencies + [
                "SecureNetworkingInternal",
                "ServerTrust",
                "SecureCrypto",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["TestServers"])),
                .product(name: "HummingbirdTLS", package: "hummingbird", condition: .when(traits: ["TestServers"])),
                .product(name: "HummingbirdHTTP2", package: "hummingbird", condition: .when(traits: ["TestServers"])),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["TestServers"])),
                // The reference server stops gracefully (see ReferenceAuthServer.shutdown()).
                .product(
                    name: "ServiceLifecycle",
                    package: "swift-service-lifecycle",
                    condition: .when(traits: ["TestServers"])
                ),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: .when(traits: ["TestServers"])),
                // securenet intercept's decrypted side speaks HTTP/1.1 as HTTPTypes.
                .product(
                    name: "NIOHTTPTypesHTTP1",
                    package: "swift-nio-extras",
                    condition: .when(traits: ["TestServers"])
                ),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "JWTKit", package: "jwt-kit", condition: .when(traits: ["TestServers"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SecureNetworkingDemo",
            dependencies: nioDependencies + [
                // PrivateFileWriter and RegularFileReader: securenet serve's folder.
                "SecureNetworkingInternal",
                "SecureNetworking",
                "SecureSession",
                "SecureStorage",
                "SecureNetworkingTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "securenet",
            dependencies: nioDependencies + [
                "SecureNetworkingInternal",
                "ServerTrust",
                "SecureHTTP",
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                "SecureNetworking",
                "SecureNetworkingTesting",
                "SecureNetworkingDemo",
                "SecurityAudit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"])),
            ],
            swiftSettings: strictSettings
        ),
        // A stand-in for ASWebAuthenticationSession that completes on a thread of its own, compiled
        // in Swift 5 mode as Swift imports Apple's Objective-C frameworks; for TokenAuthTests'
        // WebAuthenticationIsolationTests. Not a product.
        .target(
            name: "WebAuthenticationStandIn",
            path: "Tests/WebAuthenticationStandIn",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "ServerTrustTests",
            dependencies: [
                "ServerTrust",
                "SecureNetworkingInternal",
                "SecureNetworkingTesting",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            // Real certificate chains (PEM) and their manifest, read at run time from the source tree.
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        // `securenet` run as a user runs it (the built executable, in a child process), against
        // servers the tests start. Support.swift and CTFixtures.swift are symbolic links to
        // ServerTrustTests' (the same test PKI and CT logs).
        .testTarget(
            name: "SecurenetCLITests",
            dependencies: [
                "ServerTrust",
                "SecureNetworkingTesting",
                // The tests configure the loopback servers' TLS versions and cipher suites.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SecureHTTPTests",
            dependencies: nioDependencies + [
                "ServerTrust",
                "SecureHTTP",
                "SecureNetworkingTesting",
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "X509", package: "swift-certificates"),
                // An HTTP/2 client of another stack, to check the test servers' HTTP/2.
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["Tools"])),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SecureStorageTests",
            dependencies: [
                "SecureStorage",
                "SecureNetworkingInternal",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TokenAuthTests",
            dependencies: nioDependencies + [
                "SecureNetworkingInternal",
                "TokenAuth",
                "SecureHTTP",
                "SecureStorage",
                "ServerTrust",
                "SecureNetworkingTesting",
                "WebAuthenticationStandIn",
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SecureCryptoTests",
            dependencies: [
                "SecureCrypto",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SecureNetworkingTests",
            dependencies: nioDependencies + [
                "SecureNetworking",
                "SecureNetworkingTesting",
                "SecureNetworkingDemo",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                // The OpenAPI client generated once from Tests/SecureNetworkingTests/OpenAPI.
                "SecureNetworkingOpenAPI",
                .product(
                    name: "OpenAPIRuntime",
                    package: "swift-openapi-runtime",
                    condition: .when(traits: ["OpenAPI"])
                ),
                "SecureSession",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            // The OpenAPI document the client in OpenAPI/Generated was generated from, once
            // (Scripts/regenerate-openapi-client.sh regenerates it).
            exclude: ["OpenAPI/openapi.yaml", "OpenAPI/openapi-generator-config.yaml"],
            swiftSettings: strictSettings
        ),
        // The README's examples and the articles' call shapes compiled as a project made by Xcode 26
        // compiles its app target: main-actor isolation by default (SE-0466) and the approachable-
        // concurrency features, then run against the reference server.
        .testTarget(
            name: "DefaultIsolationTests",
            dependencies: [
                "SecureNetworking",
                "SecureSession",
                "SecureNetworkingOpenAPI",
                "SecureNetworkingTesting",
                "SecureHTTP",
                "ServerTrust",
                "TokenAuth",
                .product(
                    name: "OpenAPIRuntime",
                    package: "swift-openapi-runtime",
                    condition: .when(traits: ["OpenAPI"])
                ),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: [
                .defaultIsolation(MainActor.self),
                .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
                .enableUpcomingFeature("InferIsolatedConformances"),
            ]
        ),
        .testTarget(
            name: "SecurityAuditTests",
            dependencies: ["SecurityAudit"],
            // A small app project written for the tests, and the SARIF 2.1.0 schema: audited and
            // read at run time, never compiled.
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
