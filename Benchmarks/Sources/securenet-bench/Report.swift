import Foundation

/// Turns the measured rounds into RESULTS.md.
struct Report {
    let specs: [RunSpec]
    let results: [String: [Measured]]
    let rounds: Int
    let scale: Double

    private func runs(_ spec: RunSpec, _ kind: ClientKind) -> [Measured] {
        self.results[spec.id + "/" + kind.rawValue] ?? []
    }

    /// median (min–max) of `values`, formatted.
    private func spread(_ values: [Double], _ digits: Int = 0) -> String {
        guard !values.isEmpty else { return "–" }
        let format = "%.\(digits)f"
        return
            "\(String(format: format, median(values))) (\(String(format: format, values.min()!))–\(String(format: format, values.max()!)))"
    }

    private func med(_ values: [Double]) -> Double { median(values) }

    func markdown() -> String {
        var out: [String] = []
        out.append("# Benchmark results")
        out.append("")
        out.append(
            "Written by `swift run -c release --package-path Benchmarks securenet-bench` on \(Self.timestamp()). Do not edit by hand: run the command again."
        )
        out.append("")
        out.append("## Machine and versions")
        out.append("")
        out += Self.machine().map { "- \($0)" }
        out.append("")
        out.append("## Method")
        out.append("")
        out.append(
            "- One server process (SwiftNIO + NIOSSL, one event-loop thread, HTTP/1.1 keep-alive, TLS 1.3, a TestPKI chain: ECDSA P-256 leaf, intermediate, root) on 127.0.0.1, port 0. It counts TLS handshakes; the runner reads the count before and after every run over the server's stdin/stdout, so \"connections opened\" is what the server saw. It listens twice: the HTTP/1.1 workloads use a port whose ALPN offers `http/1.1` only; the HTTP/2 ones (`h2-…`) a port offering `h2` then `http/1.1`, with up to 1,000 concurrent streams, where both the project and AsyncHTTPClient (`httpVersion = .automatic`) negotiate HTTP/2 and keep one connection."
        )
        out.append(
            "- One client process per run, with one event-loop thread. Every client talks to the same server in the same round; the order of the clients rotates every round (A B C, B C A, C A B, …)."
        )
        out.append(
            "- **project**: `NIOHTTPTransport` with the strict policy, the TestPKI root as the only anchor, the intermediate pinned with the root as backup: chain validation, Web PKI rules and pins all on, trusted decisions cached per (chain, host, policy); each worker task prefers `transport.makeTaskExecutor()` (an `EventLoopTaskExecutor` on the transport's event loop), as the transport's documentation recommends for request loops, so a keep-alive request is written and resumed on one thread. **project-pool**: the same transport called from tasks on Swift's global concurrent executor, with no executor preference (two thread hops per request), as AsyncHTTPClient is called here. **ahc**: AsyncHTTPClient with full verification against the same root (BoringSSL). **limit** (the async limit): a bare NIO + NIOSSL client (+ NIOHTTP2 on the `h2-…` workloads) with verification off, each request awaited from a task that prefers the event loop, like the project's, its continuation resumed directly by the handler (no promise): what awaiting a request costs and nothing else. **wire** (the wire limit, HTTP/1.1 keep-alive workloads): the same bare client sending each request from the previous response on the event loop, with no task at all; what the protocol costs and nothing more. Each may open as many connections as the concurrency."
        )
        out.append(
            "- Each run starts with an unmeasured warm-up (keep-alive: max(100, 8 × concurrency) requests; new connections: 10; large: 4 × concurrency). CPU is the client process's user + system time over the measured part (getrusage), divided by the requests. Latency percentiles are per request. Peak RSS is the client process's VmHWM at its end; its split into code (file-backed) and heap (anonymous) is read at the same moment (RssFile, RssAnon). All three clients are one executable, so they map the same binary and differ only in what they touch."
        )
        out.append(
            "- Every figure is the median of \(self.rounds) rounds, with min–max in brackets.\(self.scale != 1 ? " **Request counts scaled by \(self.scale)**: a quick run, not the reference one." : "")"
        )
        out.append(
            "- URLSession is not measured: on Linux, FoundationNetworking's URLSession can only trust CAs in the system bundle (no delegate-based trust evaluation), so it cannot trust the test CA without changing the machine's files."
        )
        out.append("")
        out.append("## Targets")
        out.append("")
        out.append("| Target | Measured | Met |")
        out.append("|---|---|---|")
        out += self.targets().map { "| \($0.0) | \($0.1) | \($0.2 ? "yes" : "**no**") |" }
        out.append("")
        for spec in self.specs {
            out.append("## \(spec.title)")
            out.append("")
            switch spec.workload {
            case "keepalive", "newconn", "large":
                out += self.networkTable(spec)
            case "tokens-expired", "tokens-rejected":
                out += self.tokenTable(spec)
            case "trust":
                out += self.trustTable(spec)
            case "store":
                out += self.storeTable(spec)
            default:
                break
            }
            out.append("")
        }
        return out.joined(separator: "\n")
    }

    private func networkTable(_ spec: RunSpec) -> [String] {
        let rateName = spec.workload == "newconn" ? "handshakes/s" : (spec.workload == "large" ? "MB/s" : "requests/s")
        var lines = [
            "| Client | \(rateName) | vs ahc | vs limit | vs wire | p50 µs | p99 µs | CPU µs/request | connections opened | peak RSS MiB | of it code (file) MiB | heap (anon) MiB | failures |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        let limit = self.rate(spec, .limit).isEmpty ? nil : self.med(self.rate(spec, .limit))
        let ahc = self.med(self.rate(spec, .asyncHTTPClient))
        let wire = self.rate(spec, .wire).isEmpty ? nil : self.med(self.rate(spec, .wire))
        for kind in spec.clients {
            let runs = self.runs(spec, kind)
            guard !runs.isEmpty else { continue }
            let rates = self.rate(spec, kind)
            let mine = self.med(rates)
            lines.append(
                "| \(kind.rawValue) | \(self.spread(rates, spec.workload == "large" ? 1 : 0)) | \(String(format: "%.2f×", mine / ahc)) | \(limit.map { String(format: "%.2f×", mine / $0) } ?? "—") | \(wire.map { String(format: "%.2f×", mine / $0) } ?? "—") "
                    + "| \(self.spread(runs.compactMap(\.result.p50Microseconds))) | \(self.spread(runs.compactMap(\.result.p99Microseconds))) "
                    + "| \(self.spread(runs.map(\.result.cpuMicrosecondsPerRequest), 1)) | \(self.spread(runs.map { Double($0.handshakes) })) "
                    + "| \(self.spread(runs.map { Double($0.result.peakRSSKiB) / 1024 }, 1)) "
                    + "| \(self.spread(runs.compactMap { $0.result.extra["rssFileKiB"].map { $0 / 1024 } }, 1)) "
                    + "| \(self.spread(runs.compactMap { $0.result.extra["rssAnonKiB"].map { $0 / 1024 } }, 1)) "
                    + "| \(runs.map(\.result.failures).reduce(0, +)) |"
            )
        }
        lines.append("")
        lines.append(
            "Connections opened count the warm-up too. "
                + ClientKind.allCases.map { "\($0.rawValue): \($0.title)" }.joined(separator: "; ") + "."
        )
        return lines
    }

    private func rate(_ spec: RunSpec, _ kind: ClientKind) -> [Double] {
        self.runs(spec, kind).map { run in
            spec.workload == "large"
                ? Double(run.result.bytes) / run.result.wallSeconds / 1e6 : run.result.requestsPerSecond
        }
    }

    private func tokenTable(_ spec: RunSpec) -> [String] {
        let runs = self.runs(spec, .project)
        return [
            "| Client | wall time ms | refresh calls per round | failed requests | CPU µs/request | connections opened | peak RSS MiB |",
            "|---|---|---|---|---|---|---|",
            "| project (SecureAPIClient + TokenManager) | \(self.spread(runs.map { $0.result.wallSeconds * 1000 }, 1)) | \(runs.map { String($0.tokenCalls) }.joined(separator: ", ")) "
                + "| \(runs.map(\.result.failures).reduce(0, +)) | \(self.spread(runs.map(\.result.cpuMicrosecondsPerRequest), 1)) "
                + "| \(self.spread(runs.map { Double($0.handshakes) })) | \(self.spread(runs.map { Double($0.result.peakRSSKiB) / 1024 }, 1)) |",
        ]
    }

    private func trustTable(_ spec: RunSpec) -> [String] {
        let runs = self.runs(spec, .project)
        return [
            "| Evaluation | µs per evaluation |",
            "|---|---|",
            "| cold: `ServerTrust.evaluate` (parse, path building, Web PKI rules, pins), median per round | \(self.spread(runs.compactMap { $0.result.extra["coldMedianMicroseconds"] }, 1)) |",
            "| cold, p99 per round | \(self.spread(runs.compactMap { $0.result.extra["coldP99Microseconds"] }, 1)) |",
            "| cached: `TrustDecisionCache.lookup(presentedChain:requirements:now:)`, the lookup a repeat handshake makes | \(self.spread(runs.compactMap { $0.result.extra["cachedMicroseconds"] }, 3)) |",
            "| Certificate Transparency, 2 embedded ECDSA SCTs: `CertificateTransparencyVerifier.check` (SCT list, precertificate TBS, issuer key hash, 2 signatures, Apple's policy), median | \(self.spread(runs.compactMap { $0.result.extra["ctCheckMedianMicroseconds"] }, 1)) |",
            "| the floor: the 2 P-256 signature verifications alone (swift-crypto, SHA-256 of the signed data included), median | \(self.spread(runs.compactMap { $0.result.extra["ctSignaturesMedianMicroseconds"] }, 1)) |",
            "| cold `ServerTrust.evaluate` of that chain with CT required, median | \(self.spread(runs.compactMap { $0.result.extra["ctColdWithMedianMicroseconds"] }, 1)) |",
            "| cold `ServerTrust.evaluate` of that chain without CT, median | \(self.spread(runs.compactMap { $0.result.extra["ctColdWithoutMedianMicroseconds"] }, 1)) |",
            "| cached CT decision: `TrustDecisionCache.lookup` under requirements with CT | \(self.spread(runs.compactMap { $0.result.extra["ctCachedMicroseconds"] }, 3)) |",
            "",
            "| Hostile input (slowest of 20 evaluations per round) | ms |",
            "|---|---|",
        ]
            + HostileTrustInput.names.enumerated().map { index, name in
                "| \(name) | \(self.spread(runs.compactMap { $0.result.extra["hostile\(index)Milliseconds"] }, 2)) |"
            }
    }

    private func storeTable(_ spec: RunSpec) -> [String] {
        let runs = self.runs(spec, .project)
        return [
            "| Operation | operations/s |",
            "|---|---|",
            "| set: 256-byte values, each one durable (exclusive flock, the store file re-read and verified, the new file written to a temporary name, fsync, rename, directory fsync) | \(self.spread(runs.compactMap { $0.result.extra["setOpsPerSecond"] })) |",
            "| get: the store file read and verified, the item opened (nothing decrypted is kept in memory between calls) | \(self.spread(runs.compactMap { $0.result.extra["getOpsPerSecond"] })) |",
        ]
    }

    private func targets() -> [(String, String, Bool)] {
        var rows: [(String, String, Bool)] = []
        func spec(_ id: String) -> RunSpec? { self.specs.first { $0.id == id } }
        for id in ["keepalive-c1", "keepalive-c32"] {
            guard let spec = spec(id) else { continue }
            let project = self.med(self.rate(spec, .project))
            let ahc = project / self.med(self.rate(spec, .asyncHTTPClient))
            let limit = project / self.med(self.rate(spec, .limit))
            let wire = project / self.med(self.rate(spec, .wire))
            rows.append(("\(id): ≥ 2.0× AsyncHTTPClient", String(format: "%.2f×", ahc), ahc >= 2.0))
            rows.append(("\(id): ≥ 0.9× the async limit", String(format: "%.2f×", limit), limit >= 0.9))
            rows.append(("\(id): ≥ 0.9× the wire limit", String(format: "%.2f×", wire), wire >= 0.9))
            if !self.rate(spec, .limitOnPool).isEmpty {
                let pool = self.med(self.rate(spec, .projectOnPool)) / self.med(self.rate(spec, .limitOnPool))
                rows.append(
                    ("\(id): project-pool ≥ 0.9× the global-executor floor", String(format: "%.2f×", pool), pool >= 0.9)
                )
            }
        }
        for id in ["h2-keepalive-c1", "h2-keepalive-c32", "h2-keepalive-c128"] {
            guard let spec = spec(id) else { continue }
            let project = self.med(self.rate(spec, .project))
            let limit = project / self.med(self.rate(spec, .limit))
            rows.append(("\(id): ≥ 0.9× the bare HTTP/2 client", String(format: "%.2f×", limit), limit >= 0.9))
            if !self.rate(spec, .limitOnPool).isEmpty {
                let pool = self.med(self.rate(spec, .projectOnPool)) / self.med(self.rate(spec, .limitOnPool))
                rows.append(
                    (
                        "\(id): project-pool ≥ 0.9× the bare HTTP/2 client on the global executor",
                        String(format: "%.2f×", pool), pool >= 0.9
                    )
                )
            }
            guard id != "h2-keepalive-c1" else { continue }
            let ahc = project / self.med(self.rate(spec, .asyncHTTPClient))
            let cpu = self.med(self.runs(spec, .project).map(\.result.cpuMicrosecondsPerRequest))
            let ahcCPU = self.med(self.runs(spec, .asyncHTTPClient).map(\.result.cpuMicrosecondsPerRequest))
            rows.append(("\(id): ≥ 1.3× AsyncHTTPClient's HTTP/2", String(format: "%.2f×", ahc), ahc >= 1.3))
            rows.append(
                (
                    "\(id): CPU µs/request ≤ AsyncHTTPClient's", String(format: "%.1f vs %.1f", cpu, ahcCPU),
                    cpu <= ahcCPU
                )
            )
        }
        for id in ["newconn-c1", "newconn-c8"] {
            guard let spec = spec(id) else { continue }
            let project = self.med(self.rate(spec, .project))
            let ahc = project / self.med(self.rate(spec, .asyncHTTPClient))
            let limit = project / self.med(self.rate(spec, .limit))
            rows.append(("\(id): ≥ 1.1× AsyncHTTPClient", String(format: "%.2f×", ahc), ahc >= 1.1))
            rows.append(("\(id): ≥ 0.85× the limit", String(format: "%.2f×", limit), limit >= 0.85))
        }
        if let spec = spec("trust") {
            let cached = self.med(self.runs(spec, .project).compactMap { $0.result.extra["cachedMicroseconds"] })
            rows.append(("cached trust evaluation < 5 µs", String(format: "%.3f µs", cached), cached < 5))
            let cold = self.med(self.runs(spec, .project).compactMap { $0.result.extra["coldMedianMicroseconds"] })
            rows.append(
                ("cold trust evaluation, 3-certificate chain < 200 µs", String(format: "%.1f µs", cold), cold < 200)
            )
            let hostile = self.runs(spec, .project).flatMap { run in
                HostileTrustInput.names.indices.compactMap { run.result.extra["hostile\($0)Milliseconds"] }
            }
            if let worst = hostile.max() {
                rows.append(("no hostile trust input > 50 ms", String(format: "%.2f ms", worst), worst < 50))
            }
            let ct = self.med(self.runs(spec, .project).compactMap { $0.result.extra["ctCheckMedianMicroseconds"] })
            rows.append(("CT verification, 2 ECDSA SCTs, cold < 100 µs", String(format: "%.1f µs", ct), ct < 100))
            let ctCached = self.med(self.runs(spec, .project).compactMap { $0.result.extra["ctCachedMicroseconds"] })
            rows.append(("cached decision with CT < 5 µs", String(format: "%.3f µs", ctCached), ctCached < 5))
        }
        for id in ["tokens-expired", "tokens-rejected"] {
            guard let spec = spec(id) else { continue }
            let calls = self.runs(spec, .project).map(\.tokenCalls)
            let failures = self.runs(spec, .project).map(\.result.failures).reduce(0, +)
            rows.append(
                (
                    "\(id): exactly one refresh per storm",
                    calls.map(String.init).joined(separator: ", ") + " (\(failures) failed requests)",
                    calls.allSatisfy { $0 == 1 } && failures == 0
                )
            )
        }
        var worst = -Double.infinity
        var worstID = ""
        for spec in self.specs where spec.clients.contains(.asyncHTTPClient) {
            let project = self.med(self.runs(spec, .project).map { Double($0.result.peakRSSKiB) })
            let ahc = self.med(self.runs(spec, .asyncHTTPClient).map { Double($0.result.peakRSSKiB) })
            let ratio = project / ahc - 1
            if ratio > worst {
                worst = ratio
                worstID = spec.id
            }
        }
        if !worstID.isEmpty {
            rows.append(
                (
                    "peak RSS within 10 % of AsyncHTTPClient (worst workload)",
                    String(format: "%+.1f %% (%@)", worst * 100, worstID), worst <= 0.10
                )
            )
        }
        // The same comparison for the heap alone (resident anonymous memory at the end of a run).
        var worstHeap = -Double.infinity
        var worstHeapID = ""
        for spec in self.specs where spec.clients.contains(.asyncHTTPClient) {
            let project = self.med(self.runs(spec, .project).compactMap { $0.result.extra["rssAnonKiB"] })
            let ahc = self.med(self.runs(spec, .asyncHTTPClient).compactMap { $0.result.extra["rssAnonKiB"] })
            let ratio = project / ahc - 1
            if ratio > worstHeap {
                worstHeap = ratio
                worstHeapID = spec.id
            }
        }
        if !worstHeapID.isEmpty {
            rows.append(
                (
                    "(for reference, not the target) heap within 10 % of AsyncHTTPClient (worst workload)",
                    String(format: "%+.1f %% (%@)", worstHeap * 100, worstHeapID), worstHeap <= 0.10
                )
            )
        }
        return rows
    }

    static func timestamp() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date())
    }

    static func machine() -> [String] {
        var lines: [String] = []
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "?" }
            ?? "unknown"
        lines.append("CPU: \(model), \(ProcessInfo.processInfo.activeProcessorCount) cores online")
        lines.append(String(format: "Memory: %.1f GiB", Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824))
        lines.append("OS: \(ProcessInfo.processInfo.operatingSystemVersionString)")
        #if compiler(>=6.3)
        lines.append("Compiler: Swift 6.3 or later, release build (-c release)")
        #else
        lines.append("Compiler: Swift 6, release build (-c release)")
        #endif
        let resolved = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Package.resolved")
        if let data = try? Data(contentsOf: resolved),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let pins = object["pins"] as? [[String: Any]]
        {
            let wanted = [
                "async-http-client", "swift-nio", "swift-nio-ssl", "swift-certificates", "swift-crypto", "swift-asn1",
            ]
            let versions = pins.compactMap { pin -> String? in
                guard let identity = pin["identity"] as? String, wanted.contains(identity),
                    let state = pin["state"] as? [String: Any], let version = state["version"] as? String
                else { return nil }
                return "\(identity) \(version)"
            }.sorted()
            lines.append("Packages: " + versions.joined(separator: ", "))
        }
        return lines
    }
}
