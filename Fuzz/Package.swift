// swift-tools-version: 6.1
// The libFuzzer targets: a package of its own, never part of SecureNetworking's products.
// Build and run them with Fuzz/run.sh, which passes -sanitize=fuzzer,address and
// -enable-testing (several entry points are internal: the HTTP/1.1 handler, the redirect rules,
// the PHC record and the store file format).
import PackageDescription

/// The fuzz targets, one per parser entry point: (name, the library products it needs).
let targets: [(name: String, dependencies: [Target.Dependency])] = [
    ("policy-json", ["ServerTrust"]),
    ("pin-set-update", ["ServerTrust"]),
    ("info-plist", ["ServerTrust"]),
    ("certificate-file", ["ServerTrust", .product(name: "X509", package: "swift-certificates")]),
    ("trust-evaluate", ["ServerTrust", .product(name: "X509", package: "swift-certificates")]),
    ("sct-list", ["ServerTrust"]),
    ("bearer-challenge", ["TokenAuth"]),
    ("token-response", ["TokenAuth", "SecureHTTP", .product(name: "HTTPTypes", package: "swift-http-types")]),
    (
        "http1-response",
        [
            "SecureHTTP", .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ]
    ),
    ("redirect-location", ["SecureHTTP", .product(name: "HTTPTypes", package: "swift-http-types")]),
    ("phc-string", ["SecureCrypto"]),
    ("sealed-envelope", ["SecureCrypto", .product(name: "Crypto", package: "swift-crypto")]),
    ("e2e-envelope", ["SecureCrypto"]),
    ("store-file", ["SecureStorage", .product(name: "Crypto", package: "swift-crypto")]),
    ("email-address", ["SecureNetworking"]),
    ("text-input", ["SecureNetworking"]),
    ("content-sniffer", ["SecureNetworking"]),
    ("punycode", ["SecureNetworking"]),
    ("security-audit", ["SecurityAudit"]),
]

let package = Package(
    name: "SecureNetworkingFuzz",
    dependencies: [
        .package(name: "SecureNetworking", path: "..", traits: ["Tools"]),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        .target(name: "CFuzzDriver"),
        .target(
            name: "FuzzSupport",
            dependencies: ["CFuzzDriver", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]
        ),
    ]
        + targets.map { target in
            .executableTarget(
                name: target.name,
                dependencies: target.dependencies.map { dependency in
                    if case .byNameItem(let name, _) = dependency, name != "FuzzSupport" {
                        return .product(name: name, package: "SecureNetworking")
                    }
                    return dependency
                } + ["FuzzSupport"],
                path: "Targets/\(target.name)"
            )
        }
)
