#if Tools
import Foundation
import SecurityAudit
import Testing

/// An audited tree may be hostile (a pull request, a downloaded project): deep nesting, shared
/// objects, huge files and file names built to rewrite the report are each refused or escaped,
/// never a crash.
@Suite("Hostile trees")
struct HostileTreeTests {
    /// Audits a directory holding `files` (name, bytes).
    static func audit(_ files: [(String, [UInt8])]) throws -> AuditReport {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, bytes) in files {
            try Data(bytes).write(to: directory.appendingPathComponent(name))
        }
        return try SecurityAuditor().audit(path: directory.path)
    }

    /// A binary property list: a root dictionary holding `X`, nested `arrays` deep, each array
    /// holding the next one `width` times (1: a chain; 2: every level doubles the values).
    static func nestedBinary(arrays: Int, width: Int = 1) -> Data {
        func big<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
        // Objects: 0 the root dictionary, 1 the key "X", 2... the arrays; references are 4 bytes.
        var objects: [[UInt8]] = [[0xD1] + big(UInt32(1)) + big(UInt32(2)), [0x51, UInt8(ascii: "X")]]
        for index in 0..<arrays {
            let next = big(UInt32(index + 3))
            objects.append(
                index == arrays - 1
                    ? [0xA0] : [0xA0 | UInt8(width)] + Array(repeating: next, count: width).flatMap { $0 }
            )
        }
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt32] = []
        for object in objects {
            offsets.append(UInt32(bytes.count))
            bytes += object
        }
        let table = bytes.count
        for offset in offsets { bytes += big(offset) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 4] + big(UInt64(objects.count)) + big(UInt64(0)) + big(UInt64(table))
        return Data(bytes)
    }

    // MARK: - Nesting

    /// `{"allowsArbitraryLoads":` and 200,000 `[` made `securenet audit` die with SIGSEGV: the
    /// JSON parser recursed once per bracket. It stops at 64 levels; 64 still read.
    @Test func aDeeplyNestedJSONPolicyIsUnreadableNotACrash() throws {
        let deep = #"{"allowsArbitraryLoads":"# + String(repeating: "[", count: 200_000)
        let report = try Self.audit([("policy.json", Array(deep.utf8))])
        #expect(report.unreadableFiles.map(\.path) == ["policy.json"])
        #expect(
            report.unreadableFiles.first?.reason
                == "malformed JSON policy: arrays and objects nested deeper than 64 levels at line 1"
        )
        // The root object is one level: 63 arrays inside it reach the limit.
        func policy(_ arrays: Int) -> [UInt8] {
            let nested = String(repeating: "[", count: arrays) + String(repeating: "]", count: arrays)
            return Array(#"{"allowsArbitraryLoads": true, "x": \#(nested)}"#.utf8)
        }
        let limit = try Self.audit([("policy.json", policy(63))])
        #expect(limit.unreadableFiles.isEmpty)
        #expect(limit.findings.map(\.ruleID) == ["SN001"])
        #expect(try Self.audit([("policy.json", policy(64))]).unreadableFiles.count == 1)
    }

    /// XML nesting is counted in the elements XMLParser reports, so a `</array>` in a comment
    /// closes nothing.
    @Test func deeplyNestedXMLPropertyListsAreUnreadable() {
        let commentTrick =
            "<?xml version=\"1.0\"?><plist version=\"1.0\">"
            + String(repeating: "<array><!--</array>-->", count: 100_000) + "</plist>"
        let plain =
            "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>X</key>"
            + String(repeating: "<array>", count: 64) + String(repeating: "</array>", count: 64) + "</dict></plist>"
        for (name, text) in [("comment trick", commentTrick), ("65 levels", plain)] {
            let report = SecurityAuditor().audit(propertyList: Data(text.utf8))
            #expect(report.unreadableFiles.count == 1, "\(name)")
            #expect(
                report.unreadableFiles.first?.reason.contains("arrays and dictionaries nested deeper than 64 levels")
                    == true,
                "\(name): \(report.unreadableFiles)"
            )
        }
    }

    /// Binary property lists are walked from their object table before CoreFoundation's
    /// recursive reader sees them: 64 levels read, 65 do not; shared objects that would expand
    /// to millions of values are refused (24 levels of them took 18 s and 2 GB).
    /// A set (marker 0xB or 0xC) crashed the audit in Swift's dynamic cast of CoreFoundation's
    /// set (found by the security-audit fuzz target): refused before decoding.
    @Test func aBinaryPropertyListHoldingASetIsUnreadable() {
        for marker: UInt8 in [0xB1, 0xC1] {
            var bytes = Array("bplist00".utf8) + [marker, 0x01, 0x51, UInt8(ascii: "X"), 8, 10]
            bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 2] + [0, 0, 0, 0, 0, 0, 0, 0]
            bytes += [0, 0, 0, 0, 0, 0, 0, 12]
            let report = SecurityAuditor().audit(propertyList: Data(bytes))
            #expect(
                report.unreadableFiles.map(\.reason) == [
                    "binary property list holds a set, which is not a property-list type"
                ]
            )
        }
    }

    @Test func binaryPropertyListsAreBoundedInDepthAndExpansion() {
        #expect(SecurityAuditor().audit(propertyList: Self.nestedBinary(arrays: 63)).unreadableFiles.isEmpty)
        let deep = SecurityAuditor().audit(propertyList: Self.nestedBinary(arrays: 64))
        #expect(deep.unreadableFiles.map(\.reason) == ["arrays and dictionaries nested deeper than 64 levels"])
        let wideFile = Self.nestedBinary(arrays: 22, width: 2)
        let wide = SecurityAuditor().audit(propertyList: wideFile)
        #expect(
            wide.unreadableFiles.map(\.reason) == [
                "binary property list expands to more values than its \(wideFile.count) bytes"
            ]
        )
        var cycle = Array("bplist00".utf8) + [0xA1, 0x00, 0x08, 0, 0, 0, 0, 0, 0, 1, 1]
        cycle += [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 10]
        let itself = SecurityAuditor().audit(propertyList: Data(cycle))
        #expect(itself.unreadableFiles.map(\.reason) == ["binary property list contains itself"])
    }

    /// `<` 0xFF `></` made FoundationXML trap (an element name that is not UTF-8; found by the
    /// security-audit fuzz target): XML that is not UTF-8 is unreadable and never parsed.
    @Test func xmlThatIsNotUTF8IsUnreadableNotACrash() {
        let report = SecurityAuditor().audit(propertyList: Data([0x3C, 0xFF, 0x3E, 0x3C, 0x2F]))
        #expect(report.unreadableFiles.map(\.reason) == ["malformed XML property list: not valid UTF-8"])
    }

    // MARK: - Size

    /// A file over 8 MiB is not read: it is listed as not audited, with the reason.
    @Test func aFileOver8MiBIsNotAudited() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let big = directory.appendingPathComponent("Big.swift")
        #expect(FileManager.default.createFile(atPath: big.path, contents: nil))
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: 8 << 20 + 1)
        try handle.close()
        try Data(#"let u = "http://backend.com/""#.utf8).write(to: directory.appendingPathComponent("Small.swift"))
        let report = try SecurityAuditor().audit(path: directory.path)
        #expect(report.unreadableFiles == [UnreadableFile(path: "Big.swift", reason: "larger than 8 MiB, not audited")])
        #expect(report.findings.map(\.path) == ["Small.swift"])
        #expect(report.filesScanned == 2)
    }

    // MARK: - The text report

    /// File names reach the text report: control characters are escaped, and a line cannot
    /// start a GitHub Actions workflow command (`::…`, or `##[…` anywhere).
    @Test func fileNamesCannotBreakOrCommandTheTextReport() throws {
        let source = Array(#"let u = "http://backend.com/""#.utf8)
        let report = try Self.audit([
            ("a\n::error file=x::pwned.swift", source),
            ("::warning::b.swift", source),
            ("c\u{1B}[2J##[add-mask]d.swift", source),
        ])
        #expect(report.findings.count == 3)
        let text = report.text()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 7)  // three findings with their fixes, and the summary
        for line in lines {
            #expect(!line.trimmingCharacters(in: .whitespaces).hasPrefix("::"), "\(line)")
            #expect(!line.contains("##["), "\(line)")
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(line)")
        }
        #expect(lines[0].hasPrefix(#"\u{3A}:warning::b.swift:1:9: "#), "\(lines[0])")
        #expect(lines[2].hasPrefix(#"a\u{A}::error file=x::pwned.swift:1:9: "#), "\(lines[2])")
        #expect(lines[4].hasPrefix(#"c\u{1B}[2J#\u{23}[add-mask]d.swift:1:9: "#), "\(lines[4])")
    }

    /// The Actions runner trims every Unicode white space before it looks for `::` (issue 51
    /// item 10): a file name that starts with U+3000, NBSP or U+2003 before `::` must not start
    /// a workflow command either.
    @Test func aUnicodeSpaceBeforeColonsCannotStartAWorkflowCommand() throws {
        let source = Array(#"let u = "http://backend.com/""#.utf8)
        let report = try Self.audit([
            ("\u{3000}::error::forged.swift", source),
            ("\u{A0}::warning::b.swift", source),
            ("\u{2003}::notice::c.swift", source),
        ])
        #expect(report.findings.count == 3)
        let lines = report.text().split(separator: "\n").map(String.init)
        for line in lines {
            // The runner's trim: every white space, Unicode's included.
            let trimmed = line.unicodeScalars.drop { $0.properties.isWhitespace }
            #expect(!String(String.UnicodeScalarView(trimmed)).hasPrefix("::"), "\(line)")
            #expect(!line.unicodeScalars.contains { $0.properties.isWhitespace && $0 != " " }, "\(line)")
        }
        #expect(lines.contains { $0.hasPrefix(#"\u{3000}::error::forged.swift:1:9: "#) }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix(#"\u{A0}::warning::b.swift:1:9: "#) }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix(#"\u{2003}::notice::c.swift:1:9: "#) }, "\(lines)")
    }

    @Test func textLineEscapesWhatATerminalWouldObey() {
        #expect(AuditReport.textLine("  ::set-output name=x::y") == #"  \u{3A}:set-output name=x::y"#)
        #expect(AuditReport.textLine("a\tb\u{7F}\u{85}\u{2028}\u{202E}c") == #"a\u{9}b\u{7F}\u{85}\u{2028}\u{202E}c"#)
        #expect(AuditReport.textLine("Info.plist:3:1: high: fine") == "Info.plist:3:1: high: fine")
    }

    // MARK: - Swift

    /// `let x = ` and 25 nested `[` kept swift-syntax's parser busy for minutes (its time
    /// doubles per level; found by the security-audit fuzz target). Deeper than 10 levels is not
    /// parsed, even when comments or strings hold the closing brackets; 10 levels are audited.
    @Test func deeplyNestedSquareBracketsAreNotParsed() {
        let cases = [
            "let x = " + String(repeating: "[", count: 25) + "1" + String(repeating: "]", count: 25),
            "let x = " + String(repeating: "[ /*]*/ ", count: 25),
            "let x = " + String(repeating: "[ \"]\", ", count: 25),
            "let x = " + String(repeating: "[ #\"\"]\"#, ", count: 25),
        ]
        for source in cases {
            let report = SecurityAuditor().audit(swiftSource: source, path: "Deep.swift")
            #expect(report.unreadableFiles.map(\.reason) == [SwiftBracketNestingReason.tooDeep], "\(source.prefix(40))")
        }
        let ten =
            "let u = \"http://backend.com/\"; let x = " + String(repeating: "[", count: 10) + "1"
            + String(repeating: "]", count: 10)
        let report = SecurityAuditor().audit(swiftSource: ten, path: "Ten.swift")
        #expect(report.unreadableFiles.isEmpty)
        #expect(report.findings.map(\.ruleID) == ["SN005"])
    }

    /// `[` in comments and in the text of string literals is not code: commented-out `[:]` and
    /// Markdown links in a string (issue 39's corpus: home-assistant's WidgetCustom.swift,
    /// IceCubesApp's AboutView.swift) no longer make a file unaudited. In an interpolation it is.
    @Test func bracketsInCommentsAndStringTextAreNotNesting() {
        let comments = String(repeating: "// let x: [String: Any] = [:\n", count: 30) + "let u = \"http://backend.com\""
        let markdown =
            "let about = \"\"\"\n" + String(repeating: "[link](https://a.io) ", count: 20) + "\n\"\"\"\n"
            + "let u = \"http://backend.com\""
        for source in [comments, markdown] {
            let report = SecurityAuditor().audit(swiftSource: source, path: "Fine.swift")
            #expect(report.unreadableFiles.isEmpty, "\(source.prefix(40))")
            #expect(report.findings.map(\.ruleID) == ["SN005"])
        }
        let interpolated =
            "let x = \"\\(" + String(repeating: "[", count: 25) + "1" + String(repeating: "]", count: 25) + ")\""
        let report = SecurityAuditor().audit(swiftSource: interpolated, path: "Deep.swift")
        #expect(report.unreadableFiles.map(\.reason) == [SwiftBracketNestingReason.tooDeep])
    }
}

/// The reason, spelled out as the report gives it.
enum SwiftBracketNestingReason {
    static let tooDeep =
        "[ nested deeper than 10 levels (swift-syntax's parser takes exponential time on it), not audited"
}
#endif
