import Crypto
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import SecureHTTP
import SecureNetworking
import SecureNetworkingTesting
import SecureStorage
import ServerTrust
import TokenAuth
import X509

/// The network workloads: path, request count, warm-up and whether every request needs a new
/// connection.
struct NetworkWorkload: Sendable {
    let name: String
    let path: String
    let requests: Int
    let concurrency: Int
    let fresh: Bool
    let warmUp: Int

    static func named(_ name: String, concurrency: Int, requests: Int?) throws -> NetworkWorkload {
        switch name {
        case "keepalive":
            NetworkWorkload(
                name: name,
                path: "/small",
                requests: requests ?? 10_000,
                concurrency: concurrency,
                fresh: false,
                warmUp: max(100, concurrency * 8)
            )
        case "newconn":
            NetworkWorkload(
                name: name,
                path: "/small",
                requests: requests ?? 500,
                concurrency: concurrency,
                fresh: true,
                warmUp: 10
            )
        case "large":
            NetworkWorkload(
                name: name,
                path: "/large",
                requests: requests ?? 1_000,
                concurrency: concurrency,
                fresh: false,
                warmUp: concurrency * 4
            )
        default:
            throw BenchError("unknown network workload \(name)")
        }
    }
}

/// Runs `total` requests from `concurrency` workers (worker w takes requests w, w+c, w+2c…);
/// returns the latencies in microseconds, the body bytes and the failures.
func drive(
    _ client: any BenchClient,
    path: String,
    fresh: Bool,
    total: Int,
    concurrency: Int
) async -> (latencies: [Double], bytes: Int, failures: Int, firstError: String?) {
    await withTaskGroup(of: ([Double], Int, Int, String?).self) { group in
        for worker in 0..<concurrency {
            group.addTask(executorPreference: client.makeTaskExecutor()) {
                var latencies: [Double] = []
                latencies.reserveCapacity(total / concurrency + 1)
                var bytes = 0
                var failures = 0
                var firstError: String?
                var index = worker
                while index < total {
                    let start = nowNanoseconds()
                    do {
                        bytes += try await client.get(path, fresh: fresh)
                        latencies.append(Double(nowNanoseconds() - start) / 1_000)
                    } catch {
                        failures += 1
                        if firstError == nil { firstError = "\(error)" }
                    }
                    index += concurrency
                }
                return (latencies, bytes, failures, firstError)
            }
        }
        var all: [Double] = []
        all.reserveCapacity(total)
        var bytes = 0
        var failures = 0
        var firstError: String?
        for await (latencies, workerBytes, workerFailures, error) in group {
            all += latencies
            bytes += workerBytes
            failures += workerFailures
            firstError = firstError ?? error
        }
        return (all, bytes, failures, firstError)
    }
}

func runNetworkWorkload(
    _ workload: NetworkWorkload,
    kind: ClientKind,
    endpoint: ServerEndpoint,
    http2: Bool = false
) async throws -> RunResult {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let client: any BenchClient
    switch kind {
    case .project: client = try ProjectClient(endpoint: endpoint, group: group, connections: workload.concurrency)
    case .projectOnPool:
        client = try ProjectClient(endpoint: endpoint, group: group, connections: workload.concurrency, onLoop: false)
    case .asyncHTTPClient:
        client = try AHCClient(endpoint: endpoint, group: group, connections: workload.concurrency, http2: http2)
    case .limit:
        client =
            http2
            ? try await HTTP2LimitClient(endpoint: endpoint, group: group)
            : try LimitClient(endpoint: endpoint, group: group)
    case .limitOnPool:
        client =
            http2
            ? try await HTTP2LimitClient(endpoint: endpoint, group: group, onLoop: false)
            : try LimitClient(endpoint: endpoint, group: group, onLoop: false)
    case .wire:
        let result: RunResult
        do {
            result = try await runWireWorkload(workload, endpoint: endpoint, group: group)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
        return result
    }
    let warm = await drive(
        client,
        path: workload.path,
        fresh: workload.fresh,
        total: workload.warmUp,
        concurrency: workload.concurrency
    )
    if warm.failures > 0 { throw BenchError("warm-up failed: \(warm.firstError ?? "?")") }

    let cpuBefore = processCPUMicroseconds()
    let start = nowNanoseconds()
    let run = await drive(
        client,
        path: workload.path,
        fresh: workload.fresh,
        total: workload.requests,
        concurrency: workload.concurrency
    )
    let wall = Double(nowNanoseconds() - start) / 1e9
    let cpu = processCPUMicroseconds() - cpuBefore
    if run.failures > 0 {
        FileHandle.standardError.write(
            Data("\(kind.rawValue) \(workload.name): \(run.failures) failures, first: \(run.firstError ?? "?")\n".utf8)
        )
    }

    try await client.shutdown()
    try await group.shutdownGracefully()
    var result = networkResult(
        workload,
        kind: kind,
        latencies: run.latencies,
        bytes: run.bytes,
        failures: run.failures,
        wall: wall,
        cpu: cpu
    )
    if let transport = (client as? ProjectClient)?.transport {
        let statistics = transport.statistics
        result.extra["clientConnectionsOpened"] = Double(statistics.connectionsOpened)
        result.extra["trustEvaluations"] = Double(statistics.trustEvaluations)
        result.extra["clientHTTP2Connections"] = Double(statistics.http2ConnectionsOpened)
    }
    return result
}

/// The wire limit's run: the same counts as the other clients, measured on the event loop.
private func runWireWorkload(
    _ workload: NetworkWorkload,
    endpoint: ServerEndpoint,
    group: any EventLoopGroup
) async throws -> RunResult {
    guard !workload.fresh else { throw BenchError("the wire limit runs keep-alive workloads only") }
    let (tally, wall, cpu) = try await WireClient.run(
        endpoint: endpoint,
        group: group,
        path: workload.path,
        warmUp: workload.warmUp,
        total: workload.requests,
        concurrency: workload.concurrency
    )
    return networkResult(
        workload,
        kind: .wire,
        latencies: tally.latencies,
        bytes: tally.bytes,
        failures: tally.failures,
        wall: wall,
        cpu: cpu
    )
}

/// A network workload's result from what its measured phase recorded.
private func networkResult(
    _ workload: NetworkWorkload,
    kind: ClientKind,
    latencies: [Double],
    bytes: Int,
    failures: Int,
    wall: Double,
    cpu: Double
) -> RunResult {
    let sorted = latencies.sorted()
    var result = RunResult(
        client: kind.rawValue,
        workload: workload.name,
        concurrency: workload.concurrency,
        requests: workload.requests - failures,
        failures: failures,
        wallSeconds: wall,
        cpuMicroseconds: cpu,
        p50Microseconds: percentile(sorted, 0.50),
        p99Microseconds: percentile(sorted, 0.99),
        bytes: bytes,
        peakRSSKiB: peakRSSKiB()
    )
    result.extra["warmUpRequests"] = Double(workload.warmUp)
    return result
}

// MARK: - Token storm (project only)

/// `requests` concurrent authenticated requests through `SecureAPIClient` with a token that is
/// expired locally (`expired`) or rejected by the server with 401 (`rejected`).
func runTokenStorm(endpoint: ServerEndpoint, requests: Int, variant: String) async throws -> RunResult {
    let root = try Certificate(pemEncoded: endpoint.rootPEM)
    var policy = TransportSecurityPolicy(trustAnchors: .only([root]))
    policy.pinning.pin(try HostPattern(endpoint.host), to: try PinSet(endpoint.pins))
    let transportConfiguration = HTTPTransportConfiguration(policy: policy)
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let transport = try NIOHTTPTransport(configuration: transportConfiguration, eventLoopGroup: group)
    let configuration = SecureAPIClient.Configuration(
        baseURL: URL(string: "https://\(endpoint.authority)/")!,
        transport: transportConfiguration,
        authentication: .oauth(client: .publicClient(id: "bench"), store: InMemoryStore())
    )
    let client = try SecureAPIClient(configuration: configuration, transport: transport)
    guard let tokens = client.tokens else { throw BenchError("no token manager") }
    switch variant {
    case "expired":
        try await tokens.signIn(TokenBundle(accessToken: "access-0", refreshToken: "refresh-0", expiresAt: Date() - 60))
    case "rejected":
        try await tokens.signIn(
            TokenBundle(accessToken: "stale-access", refreshToken: "refresh-0", expiresAt: Date() + 3600)
        )
    default:
        throw BenchError("unknown token storm variant \(variant)")
    }

    let cpuBefore = processCPUMicroseconds()
    let start = nowNanoseconds()
    let outcomes = await withTaskGroup(of: (Double, Bool).self) { group in
        for _ in 0..<requests {
            group.addTask {
                let begin = nowNanoseconds()
                do {
                    let data = try await client.send(Request<Data>.get("protected"))
                    return (Double(nowNanoseconds() - begin) / 1_000, data.count == 1024)
                } catch {
                    return (Double(nowNanoseconds() - begin) / 1_000, false)
                }
            }
        }
        var all: [(Double, Bool)] = []
        for await outcome in group { all.append(outcome) }
        return all
    }
    let wall = Double(nowNanoseconds() - start) / 1e9
    let cpu = processCPUMicroseconds() - cpuBefore
    let failures = outcomes.filter { !$0.1 }.count
    await client.shutdown()
    try await group.shutdownGracefully()
    let sorted = outcomes.map(\.0).sorted()
    var result = RunResult(
        client: ClientKind.project.rawValue,
        workload: "tokens-\(variant)",
        concurrency: requests,
        requests: requests - failures,
        failures: failures,
        wallSeconds: wall,
        cpuMicroseconds: cpu,
        p50Microseconds: percentile(sorted, 0.5),
        p99Microseconds: percentile(sorted, 0.99),
        bytes: 0,
        peakRSSKiB: peakRSSKiB()
    )
    result.extra["clientConnectionsOpened"] = Double(transport.statistics.connectionsOpened)
    return result
}

// MARK: - ServerTrust in process

func runTrustEvaluation(endpoint: ServerEndpoint, chainPEM: String, iterations: Int) async throws -> RunResult {
    let root = try Certificate(pemEncoded: endpoint.rootPEM)
    var policy = TransportSecurityPolicy(trustAnchors: .only([root]))
    policy.pinning.pin(try HostPattern(endpoint.host), to: try PinSet(endpoint.pins))
    let requirements = try policy.requirements(for: URL(string: "https://\(endpoint.authority)/")!)
    let presented = try NIOSSLCertificate.fromPEMBytes(Array(chainPEM.utf8)).map { try $0.toDERBytes() }
    let evaluator = ServerTrust()
    let now = Date()

    // Cold: a full evaluation (parse, path building, Web PKI rules, pins) every time.
    let coldIterations = max(iterations / 10, 50)
    var cold: [Double] = []
    for _ in 0..<coldIterations {
        let start = nowNanoseconds()
        let decision = await evaluator.evaluate(presentedChain: presented, requirements: requirements, now: now)
        cold.append(Double(nowNanoseconds() - start) / 1_000)
        guard decision.isTrusted else {
            throw BenchError("cold evaluation rejected: \(String(describing: decision.failure))")
        }
    }

    // Cached: the decision cache a repeat handshake consults.
    let cache = TrustDecisionCache()
    let first = await evaluator.evaluate(presentedChain: presented, requirements: requirements, now: now, cache: cache)
    guard first.isTrusted else { throw BenchError("evaluation rejected") }
    var hits = 0
    let start = nowNanoseconds()
    for _ in 0..<iterations {
        if cache.lookup(presentedChain: presented, requirements: requirements, now: now) != nil { hits += 1 }
    }
    let cachedTotal = Double(nowNanoseconds() - start) / 1_000
    guard hits == iterations else { throw BenchError("cache missed \(iterations - hits) times") }

    var result = RunResult(
        client: ClientKind.project.rawValue,
        workload: "trust",
        concurrency: 1,
        requests: iterations,
        failures: 0,
        wallSeconds: cachedTotal / 1e6,
        cpuMicroseconds: 0,
        p50Microseconds: nil,
        p99Microseconds: nil,
        bytes: 0,
        peakRSSKiB: peakRSSKiB()
    )
    let coldSorted = cold.sorted()
    result.extra["coldMedianMicroseconds"] = percentile(coldSorted, 0.5)
    result.extra["coldP99Microseconds"] = percentile(coldSorted, 0.99)
    result.extra["cachedMicroseconds"] = cachedTotal / Double(iterations)
    for (index, (_, milliseconds)) in try await measureHostileInputs().enumerated() {
        result.extra["hostile\(index)Milliseconds"] = milliseconds
    }
    for (key, value) in try await measureTransparency(iterations: iterations) {
        result.extra[key] = value
    }
    return result
}

/// Certificate Transparency on a TestPKI chain whose leaf embeds 2 ECDSA SCTs from two operators'
/// logs: the CT check alone (read the SCT list, rebuild the precertificate TBS, hash the issuer
/// key, verify 2 ECDSA P-256 signatures, apply Apple's policy), a whole cold evaluation with and
/// without CT required (the difference is what CT adds to a cold handshake), and the cached lookup.
func measureTransparency(iterations: Int) async throws -> [String: Double] {
    let pki = try TestPKI()
    let logs = [
        TestPKI.CTLog(description: "Bench A", operatorName: "A"),
        TestPKI.CTLog(description: "Bench B", operatorName: "B"),
    ]
    let chain = try pki.leafWithSCTs(scts: logs.map { TestPKI.SCTSpec($0) }).chain
    let presented = chain.derChain  // as the TLS handshake delivers it (the property encodes every time)
    let list = try TestPKI.logList(logs)
    let now = pki.referenceTime
    let verifier = CertificateTransparencyVerifier(logList: list, policy: .apple)
    let issuer = chain.certificates[1]

    var plain = ConnectionRequirements(host: "localhost", trustAnchors: pki.trustAnchors)
    plain.pins = nil
    var withCT = plain
    withCT.certificateTransparency = CertificateTransparencySettings(logList: list, policy: .apple)
    let evaluator = ServerTrust()
    guard
        await evaluator.evaluate(presentedChain: presented, requirements: withCT, now: now).transparencyReport?.result
            == .compliant
    else {
        throw BenchError("the CT chain is not compliant")
    }

    // The floor: the two P-256 verifications alone (swift-crypto, SHA-256 of the signed data
    // included), over exactly the data the logs signed.
    let scts = try SignedCertificateTimestamp.embedded(in: chain.leaf)
    let tbs = try SignedCertificateTimestamp.precertificateTBS(of: chain.leaf)
    // The issuer key hash is SHA-256 of the issuer's SubjectPublicKeyInfo: its SPKI pin.
    let keyHash = Pin(certificate: issuer).digest
    let signed = scts.map {
        SignedCertificateTimestamp.signedData(
            timestamp: $0.timestamp,
            extensions: $0.extensions,
            issuerKeyHash: keyHash,
            precertificateTBS: tbs
        )
    }
    let keys = try logs.map { try P256.Signing.PublicKey(derRepresentation: $0.entry.key) }
    let signatures = try scts.map { try P256.Signing.ECDSASignature(derRepresentation: $0.signature) }
    guard zip(zip(keys, signatures), signed).allSatisfy({ $0.0.isValidSignature($0.1, for: $1) }) else {
        throw BenchError("the SCT signatures do not verify")
    }

    let rounds = max(iterations / 10, 50)
    var floor: [Double] = []
    var check: [Double] = []
    var coldWith: [Double] = []
    var coldWithout: [Double] = []
    for _ in 0..<rounds {
        var start = nowNanoseconds()
        var valid = 0
        for index in 0..<2 where keys[index].isValidSignature(signatures[index], for: signed[index]) { valid += 1 }
        floor.append(Double(nowNanoseconds() - start) / 1_000)
        guard valid == 2 else { throw BenchError("verification failed") }
        start = nowNanoseconds()
        let (report, _) = verifier.check(leaf: chain.leaf, issuer: issuer, now: now)
        check.append(Double(nowNanoseconds() - start) / 1_000)
        guard report.result == .compliant else { throw BenchError("CT check failed") }
        start = nowNanoseconds()
        _ = await evaluator.evaluate(presentedChain: presented, requirements: withCT, now: now)
        coldWith.append(Double(nowNanoseconds() - start) / 1_000)
        start = nowNanoseconds()
        _ = await evaluator.evaluate(presentedChain: presented, requirements: plain, now: now)
        coldWithout.append(Double(nowNanoseconds() - start) / 1_000)
    }
    let cache = TrustDecisionCache()
    _ = await evaluator.evaluate(presentedChain: presented, requirements: withCT, now: now, cache: cache)
    var hits = 0
    let start = nowNanoseconds()
    for _ in 0..<iterations where cache.lookup(presentedChain: presented, requirements: withCT, now: now) != nil {
        hits += 1
    }
    let cached = Double(nowNanoseconds() - start) / 1_000 / Double(iterations)
    guard hits == iterations else { throw BenchError("the CT decision was not cached") }
    return [
        "ctCheckMedianMicroseconds": median(check),
        "ctSignaturesMedianMicroseconds": median(floor),
        "ctColdWithMedianMicroseconds": median(coldWith),
        "ctColdWithoutMedianMicroseconds": median(coldWithout),
        "ctCachedMicroseconds": cached,
    ]
}

// MARK: - EncryptedFileStore

func runStore(items: Int) async throws -> RunResult {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "securenet-bench-store-\(UUID().uuidString)"
    )
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = EncryptedFileStore(directory: directory, keySource: .key(SymmetricKey(size: .bits256)))
    let value = Data(repeating: 0x5A, count: 256)

    var start = nowNanoseconds()
    for index in 0..<items {
        try await store.set(value, forKey: "item-\(index)")
    }
    let setSeconds = Double(nowNanoseconds() - start) / 1e9

    start = nowNanoseconds()
    var found = 0
    for index in 0..<items {
        if try await store.data(forKey: "item-\(index)") == value { found += 1 }
    }
    let getSeconds = Double(nowNanoseconds() - start) / 1e9
    guard found == items else { throw BenchError("store returned \(found) of \(items) items") }

    var result = RunResult(
        client: ClientKind.project.rawValue,
        workload: "store",
        concurrency: 1,
        requests: items * 2,
        failures: 0,
        wallSeconds: setSeconds + getSeconds,
        cpuMicroseconds: 0,
        p50Microseconds: nil,
        p99Microseconds: nil,
        bytes: 0,
        peakRSSKiB: peakRSSKiB()
    )
    result.extra["setOpsPerSecond"] = Double(items) / setSeconds
    result.extra["getOpsPerSecond"] = Double(items) / getSeconds
    return result
}
