import Foundation

/// Xcode's Info.plist preprocessor (`INFOPLIST_PREPROCESS = YES`): the build runs the C
/// preprocessor over the Info.plist, so the source file may hold `#ifdef DEBUG`, `#if`, `#else`,
/// `#endif`, `#define` and `#include` lines that no property-list reader accepts.
///
/// This evaluator reads the file as `cpp -P -traditional` does (issue 51 item 11), or refuses
/// it with a ``Failure`` naming the line; it never guesses:
///
/// - A directive is the whole logical line: backslash-newlines join lines, and a `/* … */`
///   comment is a space that ends at `*/` (on a later line too, which then belongs to the
///   directive). `//` starts no comment in traditional mode (so that URLs survive), and `"…"` or
///   `'…'` on a line hides a `/*` as cpp's string and character constants do. Comments are
///   removed from the text as well, and a directive inside one is no directive. A `#` must be in
///   the first column: an indented directive, which cpp leaves in the text, is refused.
/// - `#if` and `#elif` take C's integer expressions: decimal, octal and hexadecimal integers,
///   `defined NAME` and `defined(NAME)`, `!`, `~`, unary `-` and `+`, `* / %`, `+ -`, `<< >>`,
///   `< > <= >=`, `== !=`, `& ^ |`, `&&`, `||`, `?:` and parentheses, in 64-bit signed
///   arithmetic; an undefined name is 0. A name defined by `-D` or `#define` is replaced by its
///   definition's tokens, as cpp replaces it.
/// - Refused: a name defined as something other than an integer expression (`#define X foo`
///   used in an `#if`), a function-like macro, a name the compiler predefines (`__APPLE__`:
///   give it with `-D`), unsigned literals, character constants, an operator C has not, overflow
///   and division by zero, `#include`, `#import` and `#error`.
///
/// Directive and skipped lines become empty lines, so line numbers stay those of the source.
package enum InfoPlistPreprocessor {
    /// A directive line: its 1-based line and its text (trimmed, whole).
    package struct Directive: Equatable, Sendable {
        package let line: Int
        package let text: String
        /// The directive's name: `if`, `ifdef`, `ifndef`, `elif`, `else`, `endif`, `define`,
        /// `undef`, `include`, `import`, `error`, `warning`, `pragma` or `line`.
        package let name: String
    }

    /// Why the directives could not be evaluated, with the line.
    package struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        package let line: Int
        package let reason: String

        package var description: String { "line \(self.line): \(self.reason)" }

        package init(line: Int, reason: String) {
            self.line = line
            self.reason = reason
        }
    }

    /// One conditional branch and whether it was read.
    package struct Branch: Equatable, Sendable, CustomStringConvertible {
        /// The line of the `#if…`, `#elif` or `#else` that opens the branch.
        package let line: Int
        /// The directive, as written.
        package let directive: String
        /// Whether the lines of this branch were read.
        package let taken: Bool

        package var description: String { "line \(self.line) \(self.directive): \(self.taken ? "read" : "skipped")" }
    }

    /// The text with directives evaluated, and which branch of each conditional was read.
    package struct Result: Sendable {
        /// The source with every directive line and every line of a branch not taken emptied.
        package let text: String
        /// Every branch, in source order.
        package let branches: [Branch]
    }

    static let names: Set<String> = [
        "if", "ifdef", "ifndef", "elif", "else", "endif", "define", "undef", "include", "import", "error",
        "warning", "pragma", "line",
    ]

    /// The directive a line holds, if any: `#` (after spaces) and one of the preprocessor's
    /// directive names, then the end of the line, a space or a `(`.
    package static func directive(_ line: Substring, number: Int) -> Directive? {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        guard trimmed.first == "#" else { return nil }
        let rest = trimmed.dropFirst().drop { $0 == " " || $0 == "\t" }
        let name = rest.prefix { $0.isLetter }
        guard Self.names.contains(String(name)) else { return nil }
        let after = rest.dropFirst(name.count).first
        guard
            after == nil || after == " " || after == "\t" || after == "(" || after == "\r" || after == "<"
                || after == "\""
        else { return nil }
        let text = trimmed.trimmingCharacters(in: .whitespacesAndNewlines)
        return Directive(line: number, text: text, name: String(name))
    }

    /// The first directive of a text property list, or nil (binary ones have none).
    package static func firstDirective(in bytes: [UInt8]) -> Directive? {
        guard !bytes.starts(with: Array("bplist".utf8)) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        for (index, line) in Self.lines(of: text).enumerated() {
            if let directive = Self.directive(line, number: index + 1) { return directive }
        }
        return nil
    }

    /// The lines of `text`, split at every line feed byte, a carriage return before it kept in
    /// its line (so the lines joined with `\n` are the text again, and line numbers are those an
    /// editor shows for LF and CRLF files alike). Split on UTF-8 bytes: `String.split(separator:
    /// "\n")` would walk grapheme clusters (slow on a large file) and never split a CRLF file,
    /// whose `\r\n` is one `Character`.
    package static func lines(of text: String) -> [Substring] {
        text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Substring($0) }
    }

    /// Whether any line of `lines` is a directive.
    package static func hasDirective(_ lines: [Substring]) -> Bool {
        lines.enumerated().contains { Self.directive($1, number: $0 + 1) != nil }
    }

    /// Evaluates the conditionals with `definitions` (a name and its value; `-D NAME` is 1).
    /// - Throws: ``Failure`` for what `cpp -P -traditional` would read differently or this
    ///   evaluator cannot read (see the type's summary): `#include` or `#import` (not followed:
    ///   preprocess the file with `cpp`), `#error`, an expression it does not evaluate, an
    ///   indented directive, an unclosed comment, an `#else` or `#endif` without `#if`, and an
    ///   `#if` without `#endif`.
    package static func evaluate(_ text: String, definitions: [String: Int]) throws(Failure) -> Result {
        try Self.evaluate(lines: Self.lines(of: text), text: text, definitions: definitions)
    }

    /// ``evaluate(_:definitions:)`` on the text's ``lines(of:)``, split once by the caller.
    package static func evaluate(
        lines: [Substring],
        text: String,
        definitions: [String: Int]
    ) throws(Failure) -> Result {
        // A property list without directives (nearly all of them) is its own result.
        guard Self.hasDirective(lines) else { return Result(text: text, branches: []) }
        var macros = Macros(definitions)
        struct Open {
            let line: Int
            /// Whether the enclosing lines are read.
            let outerActive: Bool
            /// Whether a branch of this conditional was taken already.
            var anyTaken: Bool
            var active: Bool
            var sawElse = false
        }
        var stack: [Open] = []
        var branches: [Branch] = []
        var output: [String] = []
        output.reserveCapacity(lines.count)
        for unit in try Self.logicalLines(lines) {
            let number = unit.line
            let active = stack.last?.active ?? true
            if !unit.startsInComment, lines[number - 1].first != "#",
                Self.directive(lines[number - 1], number: number) != nil
            {
                throw Failure(
                    line: number,
                    reason:
                        "'\(unit.written.prefix(40))' is not a directive for cpp -traditional, which reads one only with its # in the first column (Xcode's preprocessor leaves the line in the Info.plist)"
                )
            }
            guard let (name, argument) = Self.directive(in: unit) else {
                output.append(active ? unit.text : "")
                output.append(contentsOf: repeatElement("", count: unit.count - 1))
                continue
            }
            output.append(contentsOf: repeatElement("", count: unit.count))
            switch name {
            case "if", "ifdef", "ifndef":
                var taken = false
                if active {
                    switch name {
                    case "ifdef":
                        taken = try macros.isDefined(try Self.name(argument, name, line: number), line: number)
                    case "ifndef":
                        taken = try !macros.isDefined(try Self.name(argument, name, line: number), line: number)
                    default: taken = try Self.value(argument, macros, line: number) != 0
                    }
                }
                stack.append(Open(line: number, outerActive: active, anyTaken: taken, active: taken))
                branches.append(Branch(line: number, directive: unit.written, taken: taken))
            case "elif", "else":
                guard var open = stack.popLast() else {
                    throw Failure(line: number, reason: "#\(name) without #if")
                }
                guard !open.sawElse else {
                    throw Failure(line: number, reason: "#\(name) after #else (the #if is on line \(open.line))")
                }
                var taken = false
                if open.outerActive, !open.anyTaken {
                    taken = name == "else" ? true : try Self.value(argument, macros, line: number) != 0
                }
                open.sawElse = name == "else"
                open.anyTaken = open.anyTaken || taken
                open.active = taken
                stack.append(open)
                branches.append(Branch(line: number, directive: unit.written, taken: taken))
            case "endif":
                guard stack.popLast() != nil else { throw Failure(line: number, reason: "#endif without #if") }
            case "define" where active:
                try macros.define(argument, line: number)
            case "undef" where active:
                macros.undefine(try Self.name(argument, name, line: number))
            case "include", "import":
                // (A `where` after two patterns would guard the second only.)
                guard active else { break }
                throw Failure(
                    line: number,
                    reason: "\(unit.written) is not followed here; preprocess the file with cpp -P -traditional"
                )
            case "error" where active:
                throw Failure(line: number, reason: unit.written)
            default:
                // #warning, #pragma, #line, and directives in a branch not taken: nothing to do.
                break
            }
        }
        if let open = stack.last {
            throw Failure(line: open.line, reason: "#if without #endif")
        }
        return Result(text: output.joined(separator: "\n"), branches: branches)
    }

    /// For each line inside a conditional, the branch it is in, as written: `#ifdef DEBUG`, or
    /// `#else of #ifdef DEBUG` (the innermost conditional). Lines outside every
    /// conditional, and directive lines, have no entry. Unbalanced directives are read as far as
    /// they go.
    package static func conditions(in text: String) -> [Int: String] {
        Self.conditions(lines: Self.lines(of: text))
    }

    /// ``conditions(in:)`` on the text's ``lines(of:)``.
    package static func conditions(lines: [Substring]) -> [Int: String] {
        var stack: [(opening: Directive, branch: Directive)] = []
        var result: [Int: String] = [:]
        for (index, line) in lines.enumerated() {
            let number = index + 1
            if let directive = Self.directive(line, number: number) {
                switch directive.name {
                case "if", "ifdef", "ifndef": stack.append((directive, directive))
                case "elif", "else":
                    if let open = stack.popLast() { stack.append((open.opening, directive)) }
                case "endif": _ = stack.popLast()
                default: break
                }
                continue
            }
            guard let (opening, branch) = stack.last else { continue }
            result[number] = opening == branch ? opening.text : "\(branch.text) of \(opening.text)"
        }
        return result
    }

    /// The source with only the directive lines emptied: every branch read at once, for a
    /// scan that reports what each branch holds.
    package static func withoutDirectives(_ text: String) -> String {
        Self.withoutDirectives(lines: Self.lines(of: text), text: text)
    }

    /// ``withoutDirectives(_:)`` on the text's ``lines(of:)``.
    package static func withoutDirectives(lines: [Substring], text: String) -> String {
        guard Self.hasDirective(lines) else { return text }
        return lines.enumerated()
            .map { index, line in Self.directive(line, number: index + 1) == nil ? line : "" }
            .joined(separator: "\n")
    }

    // MARK: Names

    static func isName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic)
        else { return false }
        return text.unicodeScalars.allSatisfy {
            $0 == "_" || ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0)
        }
    }

    /// The name `#ifdef`, `#ifndef` or `#undef` takes: the first word of `argument` (cpp warns
    /// about words after it and ignores them).
    static func name(_ argument: Substring, _ directive: String, line: Int) throws(Failure) -> String {
        let name = String(argument.prefix { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) })
        guard Self.isName(name) else {
            throw Failure(line: line, reason: "#\(directive) needs one name, found '\(argument.prefix(40))'")
        }
        return name
    }
}
