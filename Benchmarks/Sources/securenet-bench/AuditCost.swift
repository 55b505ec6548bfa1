import ArgumentParser
import Dispatch
import Foundation
import SecurityAudit
import SwiftParser

/// `securenet audit` over a synthetic tree of small Swift files (`SyntheticProject`), against
/// its floor: reading and parsing every file with swift-syntax on every core, which no
/// syntax-based auditor can skip. Not part of `run`: the figures go into the notes.
struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract:
            "Time securenet audit's engine on a synthetic project against read + parse of the same files (the floor)."
    )

    @Option(help: "Swift files in the synthetic tree.")
    var files = 10_000
    @Option(help: "Rounds (the median is reported).")
    var rounds = 5

    func run() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "securenet-audit-bench-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: root) }
        let planted = try SyntheticProject.write(files: self.files, to: root)
        let paths = try Self.swiftFiles(under: root)
        var auditTimes: [Double] = []
        var floorTimes: [Double] = []
        for _ in 0..<self.rounds {
            var start = ContinuousClock.now
            let report = try SecurityAuditor().audit(path: root.path)
            auditTimes.append(Self.seconds(ContinuousClock.now - start))
            guard report.filesScanned == self.files, report.findings.count == planted else {
                throw ValidationError(
                    "the audit found \(report.findings.count) of \(planted) planted findings in \(report.filesScanned) files"
                )
            }
            start = ContinuousClock.now
            let nodes = Self.parseAll(paths)
            floorTimes.append(Self.seconds(ContinuousClock.now - start))
            guard nodes > 0 else { throw ValidationError("nothing parsed") }
        }
        let audit = auditTimes.sorted()[self.rounds / 2]
        let floor = floorTimes.sorted()[self.rounds / 2]
        print(
            String(
                format: "securenet audit, %d files: %.2f s (median of %d; %@ s)",
                self.files,
                audit,
                self.rounds,
                Self.list(auditTimes)
            )
        )
        print(
            String(
                format: "floor, reading + swift-syntax parsing the same files on %d cores (no walk): %.2f s (%@ s)",
                ProcessInfo.processInfo.activeProcessorCount,
                floor,
                Self.list(floorTimes)
            )
        )
        print(
            String(
                format: "rules, plist/xcconfig handling and reports beyond the floor: %.2f s (%.0f%%)",
                audit - floor,
                (audit / floor - 1) * 100
            )
        )
    }

    static func swiftFiles(under root: URL) throws -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map {
            root.appendingPathComponent($0).path
        }
    }

    /// Reads and parses every file, one chunk per core × 8 as the auditor schedules its work;
    /// returns the total count of top-level statements (so the parse is not optimised away).
    static func parseAll(_ paths: [String]) -> Int {
        let chunks = min(paths.count, ProcessInfo.processInfo.activeProcessorCount * 8)
        let total = Total()
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            var count = 0
            var index = chunk
            while index < paths.count {
                if let data = FileManager.default.contents(atPath: paths[index]) {
                    let tree = Parser.parse(source: String(decoding: data, as: UTF8.self))
                    count += tree.statements.count
                }
                index += chunks
            }
            total.add(count)
        }
        return total.value
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    static func list(_ values: [Double]) -> String { values.map { String(format: "%.2f", $0) }.joined(separator: ", ") }
}

/// A sum the parsing chunks add to.
// SAFETY: `sum` is only read and written under `lock`.
private final class Total: @unchecked Sendable {
    private let lock = NSLock()
    private var sum = 0
    func add(_ value: Int) { self.lock.withLock { self.sum += value } }
    var value: Int { self.lock.withLock { self.sum } }
}
