#if Tools
public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Audits an app project (or a single file) for the security mistakes described in <doc:AuditRules>.
///
/// ```swift
/// let report = try SecurityAuditor().audit(path: "MyApp")
/// print(report.text())
/// ```
///
/// What is audited: `*.swift` (parsed with swift-syntax), `*.m`, `*.mm` and `*.h` (Objective-C, for the
/// high-severity rules), `*.plist` including `Info.plist` (XML or binary),
/// `*.entitlements`, `*.xcconfig`, and `*.json` files that are SecureNetworking transport-security policies
/// (other JSON files are neither audited nor counted). Directories named `.git`, `.build`, `.build-*`,
/// `DerivedData`, `Pods`, `Carthage`, `node_modules`, `.swiftpm`, every hidden directory and the
/// ``excludedPaths`` are skipped; symbolic links are not followed (so a linked directory cannot lead the walk
/// out of the tree). A file larger than 8 MiB is not read: it is listed in ``AuditReport/unreadableFiles``.
/// Files are audited concurrently; the report is deterministic. Findings in test, preview and mock code
/// (``CodeContext/test``) are set aside in ``AuditReport/testCodeFindings`` unless ``includesTestCode``.
public struct SecurityAuditor: Sendable {
    /// Paths relative to the audited root (with `/` separators, e.g. `"Tests"` or `"App/Generated"`) whose
    /// files and subdirectories are not audited.
    public let excludedPaths: [String]
    /// Whether findings in test, preview and mock code (``CodeContext/test``) are reported with
    /// the others. When false (the default) they are only counted, in
    /// ``AuditReport/testCodeFindings``.
    public let includesTestCode: Bool

    /// Creates an auditor with every rule in ``AuditRule/all`` enabled.
    /// - Parameters:
    ///   - excludedPaths: Relative paths to leave out of directory audits (for example generated
    ///     code). A trailing `/` is ignored.
    ///   - includesTestCode: Whether findings in test, preview and mock code are reported with
    ///     the others (each marked ``CodeContext/test``) rather than set aside.
    public init(excludedPaths: [String] = [], includesTestCode: Bool = false) {
        self.excludedPaths = excludedPaths.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.includesTestCode = includesTestCode
    }

    /// Audits the directory tree or single file at `path`.
    ///
    /// Paths in findings are relative to `path` (for a single file: its file name), with `/` separators.
    /// - Throws: ``AuditError`` with code `.pathNotFound` or `.pathUnreadable`.
    public func audit(path: String) throws(AuditError) -> AuditReport {
        var isDirectory: ObjCBool = false
        let manager = FileManager.default
        guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw AuditError(code: .pathNotFound, path: path)
        }
        guard manager.isReadableFile(atPath: path) else {
            throw AuditError(code: .pathUnreadable, path: path)
        }
        let url = URL(fileURLWithPath: path)
        let files: [SourceFile]
        if isDirectory.boolValue {
            guard (try? manager.contentsOfDirectory(atPath: path)) != nil else {
                throw AuditError(code: .pathUnreadable, path: path)
            }
            files = FileWalker.candidates(in: url, excluding: Set(excludedPaths))
        } else {
            let name = url.lastPathComponent
            files =
                FileKind(fileName: name).map {
                    [SourceFile(url: url, relativePath: name, kind: $0, isNamedByUser: true)]
                } ?? []
        }
        return Self.audit(files, includesTestCode: self.includesTestCode)
    }

    /// Audits Swift source text as if it were the file `path` (for tests, editors and previews).
    public func audit(swiftSource: String, path: String = "Source.swift") -> AuditReport {
        Self.report(for: [FileAuditor.auditSwift(text: swiftSource, path: path)], includesTestCode: includesTestCode)
    }

    /// Audits property-list bytes (XML or binary) as if they were the file `path`. A malformed property list
    /// is reported in ``AuditReport/unreadableFiles``.
    public func audit(propertyList: Data, path: String = "Info.plist") -> AuditReport {
        Self.report(
            for: [FileAuditor.auditPropertyList(data: propertyList, path: path)],
            includesTestCode: includesTestCode
        )
    }

    /// Audits `.xcconfig` text as if it were the file `path`.
    public func audit(xcconfig: String, path: String = "Config.xcconfig") -> AuditReport {
        Self.report(for: [FileAuditor.auditXCConfig(text: xcconfig, path: path)], includesTestCode: includesTestCode)
    }

    /// Audits Objective-C source text (`.m`, `.mm` or `.h`) as if it were the file `path`.
    public func audit(objectiveCSource: String, path: String = "Source.m") -> AuditReport {
        Self.report(
            for: [FileAuditor.auditObjectiveC(text: objectiveCSource, path: path)],
            includesTestCode: includesTestCode
        )
    }

    // MARK: Scheduling

    static func audit(_ files: [SourceFile], includesTestCode: Bool = false) -> AuditReport {
        guard !files.isEmpty else { return AuditReport(findings: [], filesScanned: 0) }
        let collected = ChunkResults()
        // Chunks keep the per-task overhead low while still balancing uneven file sizes across cores.
        let chunkCount = min(files.count, max(1, ProcessInfo.processInfo.activeProcessorCount * 8))
        DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
            var mine: [(Int, FileResult)] = []
            var index = chunk
            while index < files.count {
                mine.append((index, FileAuditor.audit(files[index])))
                index += chunkCount
            }
            collected.append(mine)
        }
        let results = collected.inFileOrder
        return report(for: results, includesTestCode: includesTestCode)
    }

    static func report(for results: [FileResult], includesTestCode: Bool) -> AuditReport {
        var findings: [AuditFinding] = []
        var testCode: [AuditFinding] = []
        var suppressed: [AuditFinding] = []
        var unreadable: [UnreadableFile] = []
        var scanned = 0
        for result in results {
            if case .skipped = result { continue }
            scanned += 1
            switch result {
            case .audited(let active, let quiet):
                for finding in active {
                    if finding.context == .test, !includesTestCode {
                        testCode.append(finding)
                    } else {
                        findings.append(finding)
                    }
                }
                suppressed += quiet
            case .unreadable(let file):
                unreadable.append(file)
            case .skipped:
                break
            }
        }
        return AuditReport(
            findings: findings,
            suppressed: suppressed,
            testCodeFindings: testCode,
            filesScanned: scanned,
            unreadableFiles: unreadable
        )
    }
}

/// The kinds of files the auditor reads.
enum FileKind: Sendable {
    case swift
    case propertyList
    case xcconfig
    /// `*.json`; audited only when it is a SecureNetworking transport-security policy.
    case jsonPolicy
    /// `*.m`, `*.mm` and `*.h`: Objective-C, for the high-severity rules.
    case objectiveC

    init?(fileName: String) {
        let lowered = fileName.lowercased()
        if lowered.hasSuffix(".swift") {
            self = .swift
        } else if lowered.hasSuffix(".plist") || lowered.hasSuffix(".entitlements") {
            self = .propertyList
        } else if lowered.hasSuffix(".xcconfig") {
            self = .xcconfig
        } else if lowered.hasSuffix(".json") {
            self = .jsonPolicy
        } else if lowered.hasSuffix(".m") || lowered.hasSuffix(".mm") || lowered.hasSuffix(".h") {
            self = .objectiveC
        } else {
            return nil
        }
    }
}

/// A file to audit.
struct SourceFile: Sendable {
    let url: URL
    let relativePath: String
    let kind: FileKind
    /// The single file given to ``SecurityAuditor/audit(path:)``: read through a symbolic link,
    /// as the user named it; a file found in the tree never is.
    var isNamedByUser = false
}

/// The outcome for one file.
enum FileResult: Sendable {
    case audited(active: [AuditFinding], suppressed: [AuditFinding])
    case unreadable(UnreadableFile)
    /// Not a file the rules apply to after all (a JSON file that is not a policy); not counted.
    case skipped
}

/// Finds candidate files below a root directory.
enum FileWalker {
    static let skippedDirectories: Set<String> = [
        "DerivedData", "Pods", "Carthage", "node_modules",
    ]

    static func isSkipped(directory name: String) -> Bool {
        name.hasPrefix(".") || skippedDirectories.contains(name)
    }

    /// Candidate files below `root`, in a stable order, with relative paths, leaving out `excluded`
    /// relative paths.
    ///
    /// It reads directories with `readdir` and takes each entry's type from `d_type` (an `lstat` only
    /// where the file system does not say): Foundation's per-entry resource values cost a `stat` and
    /// an object each, and made the walk a third of a whole audit.
    static func candidates(in root: URL, excluding excluded: Set<String> = []) -> [SourceFile] {
        var result: [SourceFile] = []
        var pending: [(path: String, prefix: String)] = [(root.path, "")]
        while let (directory, prefix) = pending.popLast() {
            var subdirectories: [(String, String)] = []
            for (name, type) in Self.entries(of: directory) {
                if !excluded.isEmpty, excluded.contains(prefix + name) { continue }
                let path = directory + "/" + name
                switch type {
                case .directory:
                    if !isSkipped(directory: name) { subdirectories.append((path, prefix + name + "/")) }
                case .regularFile:
                    if let kind = FileKind(fileName: name) {
                        result.append(
                            SourceFile(url: URL(fileURLWithPath: path), relativePath: prefix + name, kind: kind)
                        )
                    }
                case .other:
                    break  // symbolic links (never followed), sockets, devices
                }
            }
            // Depth first, in name order.
            pending.append(contentsOf: subdirectories.reversed())
        }
        return result
    }

    enum EntryType { case directory, regularFile, other }

    /// The entries of `directory` (without `.` and `..`), sorted by name; none if it cannot be read.
    static func entries(of directory: String) -> [(String, EntryType)] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var entries: [(String, EntryType)] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            let type: EntryType
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_DIR): type = .directory
            case Int32(DT_REG): type = .regularFile
            case Int32(DT_UNKNOWN): type = Self.lstatType(directory + "/" + name)
            default: type = .other
            }
            entries.append((name, type))
        }
        return entries.sorted { $0.0 < $1.0 }
    }

    private static func lstatType(_ path: String) -> EntryType {
        var status = stat()
        guard lstat(path, &status) == 0 else { return .other }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFREG: return .regularFile
        default: return .other
        }
    }
}

/// Reads and audits one file.
enum FileAuditor {
    /// Audits one file and marks every finding of a file in a test location as test code.
    static func audit(_ file: SourceFile) -> FileResult {
        let result = auditContents(file)
        guard TestCodeDetection.isTestPath(file.relativePath), case .audited(let active, let quiet) = result else {
            return result
        }
        return .audited(
            active: active.map { $0.inContext(.test, condition: $0.condition) },
            suppressed: quiet.map { $0.inContext(.test, condition: $0.condition) }
        )
    }

    static func auditContents(_ file: SourceFile) -> FileResult {
        let data: Data
        switch SourceFileReader.read(file.url.path, followingLinks: file.isNamedByUser) {
        case .contents(let contents):
            data = contents
        case .tooLarge:
            return .unreadable(UnreadableFile(path: file.relativePath, reason: SourceFileReader.tooLargeReason))
        case .unreadable(let reason):
            return .unreadable(UnreadableFile(path: file.relativePath, reason: reason))
        }
        switch file.kind {
        case .swift:
            guard let text = String(data: data, encoding: .utf8) else {
                return .unreadable(UnreadableFile(path: file.relativePath, reason: "not valid UTF-8"))
            }
            return auditSwift(text: text, path: file.relativePath)
        case .propertyList:
            return auditPropertyList(data: data, path: file.relativePath)
        case .xcconfig:
            guard let text = String(data: data, encoding: .utf8) else {
                return .unreadable(UnreadableFile(path: file.relativePath, reason: "not valid UTF-8"))
            }
            return auditXCConfig(text: text, path: file.relativePath)
        case .objectiveC:
            guard let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) else {
                return .unreadable(UnreadableFile(path: file.relativePath, reason: "not valid UTF-8"))
            }
            return auditObjectiveC(text: text, path: file.relativePath)
        case .jsonPolicy:
            guard JSONPolicyRules.isPolicy(data) else { return .skipped }
            do {
                let findings = try JSONPolicyRules.audit(data: data, path: file.relativePath)
                return .audited(
                    active: Fingerprint.assign(findings, text: String(decoding: data, as: UTF8.self)),
                    suppressed: []
                )
            } catch {
                return .unreadable(UnreadableFile(path: file.relativePath, reason: error.reason))
            }
        }
    }

    static func auditSwift(text: String, path: String) -> FileResult {
        guard SwiftBracketNesting.depth(of: text) <= SwiftBracketNesting.maximumDepth else {
            return .unreadable(UnreadableFile(path: path, reason: SwiftBracketNesting.tooDeep))
        }
        let (active, suppressed) = SwiftRuleVisitor.audit(source: text, path: path)
        return .audited(
            active: Fingerprint.assign(active, text: text),
            suppressed: Fingerprint.assign(suppressed, text: text)
        )
    }

    static func auditPropertyList(data: Data, path: String) -> FileResult {
        do {
            let (active, suppressed) = try PropertyListRules.audit(data: data, path: path)
            let text = data.starts(with: Array("bplist".utf8)) ? "" : String(decoding: data, as: UTF8.self)
            return .audited(
                active: Fingerprint.assign(active, text: text),
                suppressed: Fingerprint.assign(suppressed, text: text)
            )
        } catch {
            return .unreadable(UnreadableFile(path: path, reason: error.reason))
        }
    }

    static func auditObjectiveC(text: String, path: String) -> FileResult {
        let (active, suppressed) = ObjectiveCRules.audit(text: text, path: path)
        return .audited(
            active: Fingerprint.assign(active, text: text),
            suppressed: Fingerprint.assign(suppressed, text: text)
        )
    }

    static func auditXCConfig(text: String, path: String) -> FileResult {
        let (active, suppressed) = XCConfigRules.audit(text: text, path: path)
        return .audited(
            active: Fingerprint.assign(active, text: text),
            suppressed: Fingerprint.assign(suppressed, text: text)
        )
    }
}

/// What the concurrent chunks of one audit found, put back in file order at the end.
// SAFETY: `results` is only read and written under `lock`; each chunk appends once.
private final class ChunkResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [(Int, FileResult)] = []

    func append(_ chunk: [(Int, FileResult)]) {
        self.lock.lock()
        defer { self.lock.unlock() }
        self.results += chunk
    }

    var inFileOrder: [FileResult] {
        self.lock.lock()
        defer { self.lock.unlock() }
        return self.results.sorted { $0.0 < $1.0 }.map(\.1)
    }
}
#endif
