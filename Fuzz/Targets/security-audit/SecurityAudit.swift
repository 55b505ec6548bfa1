import Foundation
import FuzzSupport

@testable import SecurityAudit

/// `securenet audit`'s parsers on one file of a hostile tree: the first byte picks a JSON
/// policy (`LineTrackingJSONParser` and the SN001–SN004/SN014 rules), a property list (XML
/// through `XMLParser`, binary through the object-table walk and CoreFoundation), Swift source
/// (swift-syntax and the heuristics) or an `.xcconfig`. A report must come back for any bytes,
/// and its text must stay one line per entry that no CI log can read as a command.
@_cdecl("security_audit_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// Each file gets this much of the input at most. The audit's cost is linear in a file, and
/// its slope under AddressSanitizer is steep: about 3 ms per KB for a file that is nothing but
/// distinct findings (7,500 cleartext URLs in 134 KB of OpenStep took 450 ms, the report text
/// and its checks included), so a longer input only costs time against the replay's 100 ms
/// per input. What is worse than linear still shows within 16 KB (the fingerprint that hashed
/// a long line once per finding took 28 s at 130 KB: a few hundred findings on one 16 KB line
/// hash megabytes); the seeds hold such shapes at that size.
let fileLimit = 16 * 1024

/// One input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let auditor = SecurityAuditor()
    let path: String
    let report: AuditReport
    let kind = input.byte() % 4
    let file = input.rest.prefix(fileLimit)
    switch kind {
    case 0:
        path = "policy.json"
        let findings = (try? JSONPolicyRules.audit(data: Data(file), path: path)) ?? []
        report = AuditReport(findings: findings, filesScanned: 1)
    case 1:
        path = "Info.plist"
        report = auditor.audit(propertyList: Data(file), path: path)
    case 2:
        path = "Source.swift"
        report = auditor.audit(
            swiftSource: String(decoding: file, as: UTF8.self),
            path: path
        )
    default:
        path = "Config.xcconfig"
        report = auditor.audit(xcconfig: String(decoding: file, as: UTF8.self), path: path)
    }
    for finding in report.findings + report.suppressed {
        require(finding.path == path, "a finding in another file")
        require(finding.line >= 1 && finding.column >= 1, "a finding before the first line or column")
        require(finding.rule != nil, "a finding of an unknown rule")
    }
    require(report.unreadableFiles.allSatisfy { $0.path == path }, "another file unreadable")
    // Read as bytes: a check by `Character` and Foundation's `contains` cost more than the audit.
    let text = report.text()
    let lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
    // A finding and its fix, each unreadable file, the line that counts the findings in test
    // and debug-only code (when there are any), and the summary.
    let hiddenLine = report.testCodeFindings.isEmpty ? 0 : 1
    require(
        lines.count == 2 * report.findings.count + report.unreadableFiles.count + hiddenLine + 1,
        "a report line split"
    )
    for line in lines {
        let bytes = Array(line)
        require(!bytes.contains { $0 < 0x20 || $0 == 0x7F }, "a control character")
        let oldCommand = bytes.indices.dropLast(2).contains {
            bytes[$0] == 0x23 && bytes[$0 + 1] == 0x23 && bytes[$0 + 2] == 0x5B  // ##[
        }
        require(!bytes.drop { $0 == 0x20 }.starts(with: [0x3A, 0x3A]) && !oldCommand, "a workflow command")
    }
    return 0
}
