import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if os(Linux)
private let rusageSelf = RUSAGE_SELF.rawValue
#else
private let rusageSelf = RUSAGE_SELF
#endif

/// CPU time used by this process so far (user + system), in microseconds.
func processCPUMicroseconds() -> Double {
    var usage = rusage()
    getrusage(rusageSelf, &usage)
    let user = Double(usage.ru_utime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec)
    let system = Double(usage.ru_stime.tv_sec) * 1e6 + Double(usage.ru_stime.tv_usec)
    return user + system
}

/// Peak resident set size of this process in KiB (VmHWM on Linux, ru_maxrss elsewhere).
func peakRSSKiB() -> Int {
    #if os(Linux)
    if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.filter(\.isNumber)
            if let value = Int(digits) { return value }
        }
    }
    #endif
    var usage = rusage()
    getrusage(rusageSelf, &usage)
    #if canImport(Darwin)
    return Int(usage.ru_maxrss) / 1024
    #else
    return Int(usage.ru_maxrss)
    #endif
}

/// Resident anonymous memory (heap, stacks) and file-backed memory (code, mapped files) of this
/// process now, in KiB (Linux; zero elsewhere).
func residentSplitKiB() -> (anonymous: Int, file: Int) {
    #if os(Linux)
    var anonymous = 0
    var file = 0
    if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
        for line in status.split(separator: "\n") {
            if line.hasPrefix("RssAnon:") { anonymous = Int(line.filter(\.isNumber)) ?? 0 }
            if line.hasPrefix("RssFile:") { file = Int(line.filter(\.isNumber)) ?? 0 }
        }
    }
    return (anonymous, file)
    #else
    return (0, 0)
    #endif
}

/// Monotonic nanoseconds.
@inline(__always)
func nowNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// The value at `fraction` (0…1) of sorted samples (nearest rank).
func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// What one client process reports for one workload run (one JSON line on stdout).
struct RunResult: Codable, Sendable {
    var client: String
    var workload: String
    var concurrency: Int
    var requests: Int
    var failures: Int
    var wallSeconds: Double
    var cpuMicroseconds: Double
    var p50Microseconds: Double?
    var p99Microseconds: Double?
    var bytes: Int
    var peakRSSKiB: Int
    /// Workload-specific figures (refresh calls, µs per evaluation, operations/s…).
    var extra: [String: Double] = [:]

    var requestsPerSecond: Double { Double(self.requests) / self.wallSeconds }
    var cpuMicrosecondsPerRequest: Double { self.cpuMicroseconds / Double(max(self.requests, 1)) }
}
