#if Tools
/// One token of an Objective-C source file, as byte offsets into the file's UTF-8 text.
struct ObjectiveCToken {
    enum Kind: UInt8 {
        case identifier, number, string, character, punctuation
    }

    var kind: Kind
    /// First byte of the token; for a string literal, the first byte of its contents (after the quote).
    var start: Int32
    /// One past the last byte; for a string literal, the closing quote.
    var end: Int32
    /// 1-based line.
    var line: Int32
    /// 1-based column in UTF-8 bytes of the token's first character (the `@` of `@"…"`).
    var column: Int32
    /// Index into ``ObjectiveCLexer/Output/conditions``, or -1 outside any conditional branch.
    var condition: Int32
}

/// A single pass over the UTF-8 bytes of an Objective-C (or Objective-C++) file: code tokens without
/// comments, string and character literals as single tokens, preprocessor lines read apart.
///
/// Comments and directive lines never produce tokens, so `// NSURLSessionAuthChallengeUseCredential` or a
/// name inside `@"…"` is never mistaken for code. The lexer keeps the `#if`/`#ifdef`/`#ifndef`/`#elif`/
/// `#else`/`#endif` nesting (an include guard — `#ifndef X` followed by `#define X` — is not a branch),
/// records `#define NAME @"value"` string constants, test-framework imports, and `// securenet:ignore`
/// comments.
struct ObjectiveCLexer {
    struct Output {
        var tokens: [ObjectiveCToken] = []
        /// The branch texts tokens refer to: `#ifdef DEBUG`, `#else of #if TARGET_OS_SIMULATOR`.
        var conditions: [String] = []
        /// `#define NAME @"value"` (or `"value"`): the literal's contents by name.
        var stringDefines: [String: String] = [:]
        /// `// securenet:ignore …` comments.
        var suppressions: [SuppressionParser.Parsed] = []
        /// Whether a `#import`/`#include` names a test framework (``TestCodeDetection/testModules``).
        var importsTestModule = false
    }

    private struct Frame {
        /// The opening directive as written, `#ifdef DEBUG`.
        var first: String
        /// The branch the lexer is in now, `#elif X` or `#else of #ifdef DEBUG`.
        var current: String
        /// The name an `#ifndef` tests, while it may still turn out to be an include guard.
        var guardCandidate: String?
        var tokenCountAtOpen: Int
        var isIncludeGuard = false
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let scansSuppressions: Bool
    private var output = Output()
    private var frames: [Frame] = []
    private var currentCondition: Int32 = -1
    private var line: Int32 = 1
    private var lineStart = 0
    /// Whether a token was read on the current line (a `#` after one is not a directive).
    private var codeOnLine = false

    private init(bytes: UnsafeBufferPointer<UInt8>, scansSuppressions: Bool) {
        self.bytes = bytes
        self.scansSuppressions = scansSuppressions
    }

    /// Lexes `bytes`. With `scansSuppressions`, line comments are parsed for suppression markers.
    static func lex(_ bytes: UnsafeBufferPointer<UInt8>, scansSuppressions: Bool) -> Output {
        var lexer = ObjectiveCLexer(bytes: bytes, scansSuppressions: scansSuppressions)
        lexer.output.tokens.reserveCapacity(bytes.count / 5)
        lexer.run()
        return lexer.output
    }

    // MARK: Character classes

    @inline(__always) static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || byte == 0x5F || byte == 0x24
            || byte >= 0x80
    }

    @inline(__always) static func isIdentifierContinuation(_ byte: UInt8) -> Bool {
        isIdentifierStart(byte) || (byte >= 0x30 && byte <= 0x39)
    }

    @inline(__always) private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    // MARK: The pass

    private mutating func run() {
        let count = bytes.count
        var index = 0
        while index < count {
            let byte = bytes[index]
            switch byte {
            case 0x0A:  // \n
                newLine(after: index)
                index += 1
            case 0x20, 0x09, 0x0D, 0x0C, 0x0B:
                index += 1
            case 0x2F:  // /
                let next = index + 1 < count ? bytes[index + 1] : 0
                if next == 0x2F {
                    index = lineComment(at: index)
                } else if next == 0x2A {
                    index = blockComment(at: index)
                } else {
                    index = punctuation(at: index)
                }
            case 0x23 where !codeOnLine:  // # at the start of a line
                index = directive(at: index)
            case 0x22:  // "
                index = stringLiteral(quoteAt: index, tokenStart: index, kind: .string)
            case 0x27:  // '
                index = stringLiteral(quoteAt: index, tokenStart: index, kind: .character)
            case 0x40 where index + 1 < count && bytes[index + 1] == 0x22:  // @"
                index = stringLiteral(quoteAt: index + 1, tokenStart: index, kind: .string)
            default:
                if Self.isIdentifierStart(byte) {
                    var end = index + 1
                    while end < count, Self.isIdentifierContinuation(bytes[end]) { end += 1 }
                    append(.identifier, start: index, end: end, at: index)
                    index = end
                } else if Self.isDigit(byte) || (byte == 0x2E && index + 1 < count && Self.isDigit(bytes[index + 1])) {
                    var end = index + 1
                    while end < count, Self.isIdentifierContinuation(bytes[end]) || bytes[end] == 0x2E { end += 1 }
                    append(.number, start: index, end: end, at: index)
                    index = end
                } else {
                    index = punctuation(at: index)
                }
            }
        }
    }

    @inline(__always) private mutating func newLine(after index: Int) {
        line += 1
        lineStart = index + 1
        codeOnLine = false
    }

    @inline(__always) private mutating func append(_ kind: ObjectiveCToken.Kind, start: Int, end: Int, at first: Int) {
        output.tokens.append(
            ObjectiveCToken(
                kind: kind,
                start: Int32(truncatingIfNeeded: start),
                end: Int32(truncatingIfNeeded: end),
                line: line,
                column: Int32(truncatingIfNeeded: first - lineStart + 1),
                condition: currentCondition
            )
        )
        codeOnLine = true
    }

    /// One punctuation byte, or one of `==`, `!=`, `&&`, `||`, `->`.
    private mutating func punctuation(at index: Int) -> Int {
        let byte = bytes[index]
        let next = index + 1 < bytes.count ? bytes[index + 1] : 0
        let pair =
            (byte == 0x3D && next == 0x3D) || (byte == 0x21 && next == 0x3D) || (byte == 0x26 && next == 0x26)
            || (byte == 0x7C && next == 0x7C) || (byte == 0x2D && next == 0x3E)
        let end = index + (pair ? 2 : 1)
        append(.punctuation, start: index, end: end, at: index)
        return end
    }

    /// A string or character literal: contents up to the unescaped closing quote or the end of the line.
    private mutating func stringLiteral(quoteAt quote: Int, tokenStart: Int, kind: ObjectiveCToken.Kind) -> Int {
        let closing = bytes[quote]
        var index = quote + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == closing || byte == 0x0A { break }
            if byte == 0x5C, index + 1 < bytes.count {  // backslash
                if bytes[index + 1] == 0x0A {
                    append(kind, start: quote + 1, end: index, at: tokenStart)
                    newLine(after: index + 1)
                    return index + 2
                }
                index += 2
                continue
            }
            index += 1
        }
        let end = min(index, bytes.count)
        append(kind, start: quote + 1, end: end, at: tokenStart)
        return end < bytes.count && bytes[end] == closing ? end + 1 : end
    }

    private mutating func lineComment(at index: Int) -> Int {
        var end = index + 2
        while end < bytes.count, bytes[end] != 0x0A { end += 1 }
        if scansSuppressions, contains("securenet:ignore", from: index + 2, to: end) {
            var text =
                end > index + 2
                ? String(decoding: UnsafeBufferPointer(rebasing: bytes[(index + 2)..<end]), as: UTF8.self) : ""
            if text.hasSuffix("\r") { text.removeLast() }
            if let parsed = SuppressionParser.parse(comment: text, line: Int(line), column: index - lineStart + 1) {
                output.suppressions.append(parsed)
            }
        }
        return end
    }

    private mutating func blockComment(at index: Int) -> Int {
        var end = index + 2
        while end + 1 < bytes.count {
            if bytes[end] == 0x2A && bytes[end + 1] == 0x2F { return end + 2 }
            if bytes[end] == 0x0A {
                line += 1
                lineStart = end + 1
            }
            end += 1
        }
        return bytes.count
    }

    private func contains(_ needle: StaticString, from start: Int, to end: Int) -> Bool {
        let length = needle.utf8CodeUnitCount
        guard end - start >= length else { return false }
        let pattern = needle.utf8Start
        var index = start
        while index + length <= end {
            if bytes[index] == pattern[0] {
                var offset = 1
                while offset < length, bytes[index + offset] == pattern[offset] { offset += 1 }
                if offset == length { return true }
            }
            index += 1
        }
        return false
    }

    // MARK: Preprocessor

    /// Reads a directive line (with `\` continuations and comments removed) and returns the index of its newline.
    private mutating func directive(at hash: Int) -> Int {
        var text: [UInt8] = []
        var index = hash + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0A { break }
            if byte == 0x5C, index + 1 < bytes.count, bytes[index + 1] == 0x0A || bytes[index + 1] == 0x0D {
                // Line continuation.
                var next = index + 1
                if bytes[next] == 0x0D, next + 1 < bytes.count, bytes[next + 1] == 0x0A { next += 1 }
                if bytes[next] == 0x0A { newLine(after: next) }
                text.append(0x20)
                index = next + 1
                continue
            }
            if byte == 0x2F, index + 1 < bytes.count, bytes[index + 1] == 0x2F {
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
                break
            }
            if byte == 0x2F, index + 1 < bytes.count, bytes[index + 1] == 0x2A {
                index = blockComment(at: index)
                text.append(0x20)
                continue
            }
            text.append(byte == 0x09 || byte == 0x0D ? 0x20 : byte)
            index += 1
        }
        handleDirective(String(decoding: text, as: UTF8.self))
        codeOnLine = false
        return index
    }

    private mutating func handleDirective(_ raw: String) {
        let words = raw.split(separator: " ", omittingEmptySubsequences: true)
        guard let keyword = words.first else { return }
        let rest = words.dropFirst().joined(separator: " ")
        switch keyword {
        case "if", "ifdef", "ifndef":
            let written = rest.isEmpty ? "#\(keyword)" : "#\(keyword) \(rest)"
            frames.append(
                Frame(
                    first: written,
                    current: written,
                    guardCandidate: keyword == "ifndef" ? words.dropFirst().first.map(String.init) : nil,
                    tokenCountAtOpen: output.tokens.count
                )
            )
        case "elif", "elifdef", "elifndef":
            guard !frames.isEmpty else { return }
            frames[frames.count - 1].current = rest.isEmpty ? "#\(keyword)" : "#\(keyword) \(rest)"
            frames[frames.count - 1].isIncludeGuard = false
            frames[frames.count - 1].guardCandidate = nil
        case "else":
            guard !frames.isEmpty else { return }
            frames[frames.count - 1].current = "#else of \(frames[frames.count - 1].first)"
            frames[frames.count - 1].isIncludeGuard = false
            frames[frames.count - 1].guardCandidate = nil
        case "endif":
            if !frames.isEmpty { frames.removeLast() }
        case "define":
            guard let name = words.dropFirst().first else { return }
            if let top = frames.last, top.guardCandidate == String(name), top.tokenCountAtOpen == output.tokens.count {
                frames[frames.count - 1].isIncludeGuard = true
                updateCondition()
            }
            if let value = Self.stringLiteralValue(words.dropFirst(2).joined(separator: " ")) {
                output.stringDefines[String(name)] = value
            }
            return
        case "import", "include":
            if let module = Self.importedModule(rest), TestCodeDetection.testModules.contains(module) {
                output.importsTestModule = true
            }
            return
        default:
            return
        }
        updateCondition()
    }

    private mutating func updateCondition() {
        guard let frame = frames.last(where: { !$0.isIncludeGuard }) else {
            currentCondition = -1
            return
        }
        if currentCondition >= 0, output.conditions[Int(currentCondition)] == frame.current { return }
        output.conditions.append(frame.current)
        currentCondition = Int32(output.conditions.count - 1)
    }

    /// `@"value"` or `"value"` alone → `value`.
    static func stringLiteralValue(_ text: String) -> String? {
        var body = Substring(text)
        if body.hasPrefix("@") { body = body.dropFirst() }
        guard body.count >= 2, body.hasPrefix("\""), body.hasSuffix("\"") else { return nil }
        let inner = body.dropFirst().dropLast()
        return inner.contains("\"") ? nil : String(inner)
    }

    /// `<XCTest/XCTest.h>` or `"XCTest/XCTest.h"` → `XCTest`.
    static func importedModule(_ text: String) -> String? {
        guard let first = text.first, first == "<" || first == "\"" else { return nil }
        let body = text.dropFirst()
        guard let slash = body.firstIndex(of: "/") else { return nil }
        return String(body[..<slash])
    }
}
#endif
