// swift-tools-version: 6.1
import PackageDescription

// The benchmarks live in their own package so that the main package's build and CI never
// compile the peers (AsyncHTTPClient). Run: swift run -c release --package-path Benchmarks securenet-bench
let package = Package(
    name: "SecureNetworkingBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "SecureNetworking", path: "..", traits: ["Tools"]),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax.git", from: "602.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "securenet-bench",
            dependencies: [
                .product(name: "SecureNetworking", package: "SecureNetworking"),
                .product(name: "SecureNetworkingTesting", package: "SecureNetworking"),
                .product(name: "SecureHTTP", package: "SecureNetworking"),
                .product(name: "ServerTrust", package: "SecureNetworking"),
                .product(name: "SecureStorage", package: "SecureNetworking"),
                .product(name: "TokenAuth", package: "SecureNetworking"),
                .product(name: "SecurityAudit", package: "SecureNetworking"),
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        )
    ]
)
