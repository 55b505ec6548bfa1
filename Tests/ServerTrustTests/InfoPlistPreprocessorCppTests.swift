import Foundation
import SecureNetworkingInternal
import ServerTrust
import Testing

/// ``InfoPlistPreprocessor`` judged against `cpp -P -traditional`, the preprocessor Xcode runs
/// over an Info.plist (issue 51 item 11): the whole directive line, comments as cpp strips
/// them, C's `#if` expressions, and a refusal for what it cannot evaluate.
@Suite("Info.plist preprocessor: as cpp -traditional reads it")
struct InfoPlistPreprocessorCppTests {
    /// Snippets and the `-D` names they are read with. Lines of one word are the markers whose
    /// presence in the output tells which branches were read.
    static let corpus: [(text: String, definitions: [String: Int])] = [
        // The issue's two cases: a directive longer than 80 characters, and a comment that ends
        // before the expression does.
        (
            "#if defined(DEBUG) || defined(STAGING) || defined(QA) || defined(INTERNAL) || defined(BETA)\nA\n#else\nB\n#endif",
            ["BETA": 1]
        ),
        ("#if 0 /* strict */ || defined(BETA)\nA\n#else\nB\n#endif", ["BETA": 1]),
        ("#if 0 /* strict */ || defined(BETA)\nA\n#else\nB\n#endif", [:]),
        ("#if defined BETA && \\\n  !defined(DEBUG)\nA\n#else\nB\n#endif", ["BETA": 1]),
        ("#if defined BETA && \\\n  !defined(DEBUG)\nA\n#else\nB\n#endif", ["BETA": 1, "DEBUG": 1]),
        ("#if 0 /* a comment\n   on two lines */ || 1\nA\n#else\nB\n#endif", [:]),
        ("#if 1 /* a */ /* b */ && 2 > 1\nA\n#endif", [:]),
        ("#ifdef BETA /* note */\nA\n#else /* other */\nB\n#endif /* BETA */", ["BETA": 1]),
        // A directive inside a comment is none; text around a comment stays.
        ("/* start\n#if 0\n*/ after\nA\nB", [:]),
        ("x /* c */ y\nA\n#if 0\nB\n#endif", [:]),
        // Quotes hide a comment on their line.
        ("<s>\"/*\"</s>\n#if 1\nA\n#endif\n<s>\"*/\"</s>", [:]),
        ("<s>don't /* c */ x</s>\n#if 1\nA\n#endif", [:]),
        // `//` is no comment in traditional mode: URLs survive.
        ("<string>https://example.com/a</string>\n#if 1\nA\n#endif", [:]),
        // Integers: octal, hexadecimal, suffixes; C's operators and their precedence.
        ("#if 010 == 8 && 0x10 == 16 && 10L == 10\nA\n#else\nB\n#endif", [:]),
        ("#if 1 + 2 * 3 == 7 && (1 + 2) * 3 == 9 && 7 / 2 == 3 && 7 % 4 == 3\nA\n#else\nB\n#endif", [:]),
        ("#if -1 < 0 && ~0 == -1 && 1 << 4 == 16 && -16 >> 2 == -4\nA\n#else\nB\n#endif", [:]),
        ("#if (6 & 3) == 2 && (6 | 3) == 7 && (6 ^ 3) == 5 && !0 == 1\nA\n#else\nB\n#endif", [:]),
        ("#if 2 > 1 ? 0 : 1\nA\n#else\nB\n#endif", [:]),
        ("#if 1 ? 2 ? 0 : 1 : 1\nA\n#else\nB\n#endif", [:]),
        ("#if 0 && 1 / 0\nA\n#else\nB\n#endif", [:]),
        ("#if 1 || 1 / 0\nA\n#else\nB\n#endif", [:]),
        ("#if 1 < 2 == 1 && 3 >= 3 && 2 <= 1 == 0\nA\n#else\nB\n#endif", [:]),
        // Names: -D values, #define'd integers and expressions (replaced as text), undefined 0.
        ("#if VERSION >= 2\nA\n#elif VERSION == 1\nB\n#else\nC\n#endif", ["VERSION": 1]),
        ("#if VERSION >= 2\nA\n#elif VERSION == 1\nB\n#else\nC\n#endif", ["VERSION": 3]),
        ("#define LEVEL 010\n#if LEVEL == 8\nA\n#endif", [:]),
        ("#define SUM 1 + 1\n#if SUM * 2 == 3\nA\n#else\nB\n#endif", [:]),
        ("#define ON\n#if defined(ON) && defined ON\nA\n#endif", [:]),
        ("#define ON 1\n#define ALSO ON\n#if ALSO\nA\n#endif", [:]),
        ("#define ON 1\n#undef ON\n#if ON\nA\n#else\nB\n#endif", [:]),
        ("#if UNDEFINED\nA\n#else\nB\n#endif", [:]),
        ("#if !defined(RELEASE) && (A || B)\nA\n#else\nB\n#endif", ["B": 1]),
        ("#ifndef RELEASE\nA\n#endif", [:]),
        ("#if 1\nA\n#elif garbage $\n#endif", [:]),
        ("#if 0\n#if garbage $\n#endif\n#else\nB\n#endif", [:]),
    ]

    /// Snippets cpp refuses, or reads in a way this evaluator does not follow: refused here.
    static let refused: [(text: String, definitions: [String: Int], reason: String)] = [
        ("#if 1 // always\nA\n#endif", [:], "'//' starts no comment for cpp -traditional"),
        ("#define X foo\n#if X\nA\n#endif", [:], "'X' is defined as text ('foo'), not as an integer"),
        ("#define X\n#if X\nA\n#endif", [:], "#if without an expression"),
        ("#define F(x) x\n#if F(1)\nA\n#endif", [:], "'F' is a function-like macro"),
        ("#if __has_feature(x)\nA\n#endif", [:], "'__has_feature(' is a function-like macro or a compiler builtin"),
        ("#if __has_include(<a.h>)\nA\n#endif", [:], "'.' is not read in an #if expression"),
        ("#ifdef __APPLE__\nA\n#endif", [:], "'__APPLE__' is a name the compiler may predefine"),
        ("#if 1u\nA\n#endif", [:], "'1u' is an unsigned constant"),
        ("#if 'a'\nA\n#endif", [:], "''' is not read in an #if expression"),
        ("#if 1, 2\nA\n#endif", [:], "',' is not read in an #if expression"),
        ("#if 08\nA\n#endif", [:], "'08' is not an integer constant"),
        ("#if 1 / 0\nA\n#endif", [:], "division by zero in the #if expression"),
        ("#if 0x7fffffffffffffff + 1\nA\n#endif", [:], "overflows in the #if expression"),
        ("#if 99999999999999999999\nA\n#endif", [:], "is not an integer constant this evaluator reads"),
        ("  #if 1\nA\n#endif", [:], "is not a directive for cpp -traditional"),
        ("#if 1 /* never closed\nA\n#endif", [:], "a /* comment is not closed before the end of the file"),
        ("#if de/**/fined(A)\nA\n#endif", [:], "'fined(' is a function-like macro or a compiler builtin"),
        ("#if 1 2\nA\n#endif", [:], "unexpected '2' in the #if expression"),
    ]

    /// The marker lines of `text` read with `definitions`.
    static func evaluated(_ text: String, _ definitions: [String: Int]) throws -> [String] {
        let result = try InfoPlistPreprocessor.evaluate(text, definitions: definitions)
        return Self.markers(result.text)
    }

    static func markers(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    // MARK: - Expectations (no cpp needed)

    @Test func theIssuesDirectivesReadTheBranchCppReads() throws {
        #expect(try Self.evaluated(Self.corpus[0].text, ["BETA": 1]) == ["A"])
        #expect(try Self.evaluated(Self.corpus[0].text, [:]) == ["B"])
        #expect(try Self.evaluated(Self.corpus[1].text, ["BETA": 1]) == ["A"])
        #expect(try Self.evaluated(Self.corpus[1].text, [:]) == ["B"])
        // The branch names the whole directive, not its first 80 characters.
        let branches = try InfoPlistPreprocessor.evaluate(Self.corpus[0].text, definitions: ["BETA": 1]).branches
        #expect(branches.first?.directive.hasSuffix("|| defined(BETA)") == true)
    }

    @Test func theIssuesInfoPlistAllowsArbitraryLoadsForBeta() throws {
        for directive in [
            "#if defined(DEBUG) || defined(STAGING) || defined(QA) || defined(INTERNAL) || defined(BETA)",
            "#if 0 /* strict */ || defined(BETA)",
        ] {
            let plist = """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0">
                <dict>
                \t<key>NSAppTransportSecurity</key>
                \t<dict>
                \(directive)
                \t\t<key>NSAllowsArbitraryLoads</key>
                \t\t<true/>
                #endif
                \t</dict>
                </dict>
                </plist>
                """
            let beta = try TransportSecurityPolicy.readInfoPlist(Data(plist.utf8), preprocessorDefinitions: ["BETA": 1])
            #expect(beta.read.policy.allowsArbitraryLoads, "\(directive)")
            #expect(beta.branches.map(\.taken) == [true])
            let release = try TransportSecurityPolicy.readInfoPlist(Data(plist.utf8), preprocessorDefinitions: [:])
            #expect(!release.read.policy.allowsArbitraryLoads, "\(directive)")
        }
    }

    @Test func aNonIntegerDefineIsRefusedNotTakenAsOne() throws {
        #expect(throws: InfoPlistPreprocessor.Failure.self) {
            try InfoPlistPreprocessor.evaluate("#define MODE strict\n#if MODE\nA\n#endif", definitions: [:])
        }
        do {
            _ = try InfoPlistPreprocessor.evaluate("#define MODE strict\n#if MODE\nA\n#endif", definitions: [:])
        } catch {
            #expect(error.line == 2)
            #expect(error.reason.hasPrefix("'MODE' is defined as text ('strict'), not as an integer"))
        }
        // Defined is still defined, whatever the text.
        #expect(try Self.evaluated("#define MODE strict\n#ifdef MODE\nA\n#endif", [:]) == ["A"])
    }

    @Test(arguments: Self.refused.indices)
    func whatItCannotEvaluateIsRefusedWithTheLine(index: Int) {
        let (text, definitions, reason) = Self.refused[index]
        do {
            let result = try InfoPlistPreprocessor.evaluate(text, definitions: definitions)
            Issue.record("\(text.debugDescription) was read: \(result.text.debugDescription)")
        } catch {
            #expect(error.reason.contains(reason), "\(text.debugDescription): \(error.reason)")
        }
    }

    @Test func lineNumbersStayThoseOfTheSource() throws {
        let text = "a\n#if 1 \\\n  && 1 /* two\nlines */\nb\n#endif\nc /* x\ny */ d\ne"
        let result = try InfoPlistPreprocessor.evaluate(text, definitions: [:])
        #expect(result.text.split(separator: "\n", omittingEmptySubsequences: false).count == 9)
        #expect(result.text == "a\n\n\n\nb\n\nc \n d\ne")
        #expect(result.branches.map(\.line) == [2])
        #expect(result.branches.first?.directive == "#if 1 && 1 /* two lines */")
    }

    // MARK: - Against the real cpp

    /// `cpp` on PATH (gcc's or clang's), if there is one.
    static let cpp: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("cpp") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// What `cpp -P -traditional -D…` prints for `text`, or nil when it fails.
    static func preprocessed(_ text: String, _ definitions: [String: Int]) throws -> [String]? {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cpp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("Info.plist")
        try Data((text + "\n").utf8).write(to: file)
        let process = Process()
        guard let cpp = Self.cpp else { return nil }
        process.executableURL = cpp
        process.arguments =
            ["-P", "-traditional", "-undef"] + definitions.sorted { $0.key < $1.key }.map { "-D\($0.key)=\($0.value)" }
            + [file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return Self.markers(String(decoding: data, as: UTF8.self))
    }

    @Test(.enabled(if: Self.cpp != nil, "cpp is not on PATH"), arguments: Self.corpus.indices)
    func eachSnippetReadsAsCppReadsIt(index: Int) throws {
        let (text, definitions) = Self.corpus[index]
        let expected = try #require(try Self.preprocessed(text, definitions), "cpp refused \(text.debugDescription)")
        #expect(try Self.evaluated(text, definitions) == expected, "\(text.debugDescription) \(definitions)")
    }

    @Test(.enabled(if: Self.cpp != nil, "cpp is not on PATH"))
    func snippetsCppRefusesAreRefusedToo() throws {
        // Of the refused snippets, those cpp fails on too (the others it reads in ways this
        // evaluator does not follow, such as a name defined as text).
        for (text, definitions, _) in Self.refused {
            guard try Self.preprocessed(text, definitions) == nil else { continue }
            #expect(throws: InfoPlistPreprocessor.Failure.self, "\(text.debugDescription)") {
                try InfoPlistPreprocessor.evaluate(text, definitions: definitions)
            }
        }
        #expect(try Self.preprocessed("#if 1 // always\nA\n#endif", [:]) == nil)
        #expect(try Self.preprocessed("#if 1\nA\n#endif", [:]) == ["A"])
    }
}
