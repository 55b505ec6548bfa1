package import Foundation

/// Xcode's Info.plist preprocessor (`INFOPLIST_PREPROCESS = YES`): the build runs the C
/// preprocessor over the Info.plist, so the source file may hold `#ifdef DEBUG`, `#if`, `#else`,
/// `#endif`, `#define` and `#include` lines that no property-list reader accepts.
///
/// This evaluator reads the conditional lines as `cpp -P -traditional` does for the simple
/// expressions Info.plists use: `defined(NAME)` and `defined NAME`, `!`, `&&`, `||`,
/// parentheses, `==` and `!=`, integer literals, and names (a defined name is its value, 1 when
/// given without one; an undefined name is 0). It does not expand macros in the text and does
/// not follow `#include`. Directive and skipped lines become empty lines, so line numbers stay
/// those of the source.
package enum InfoPlistPreprocessor {
    /// A directive line: its 1-based line and its text (trimmed, at most 80 characters).
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
        return Directive(line: number, text: String(text.prefix(80)), name: String(name))
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
    /// - Throws: ``Failure`` for `#include` or `#import` (not followed: preprocess the file
    ///   with `cpp`), `#error`, an expression it does not read, an `#else` or `#endif` without
    ///   `#if`, and an `#if` without `#endif`.
    package static func evaluate(_ text: String, definitions: [String: Int]) throws(Failure) -> Result {
        try Self.evaluate(lines: Self.lines(of: text), text: text, definitions: definitions)
    }

    /// ``evaluate(_:definitions:)`` on the text's ``lines(of:)``, split once by the caller.
    package static func evaluate(
        lines: [Substring],
        text: String,
        definitions: [String: Int]
    ) throws(Failure) -> Result {
        var definitions = definitions
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
        var output: [Substring] = []
        // A property list without directives (nearly all of them) is its own result.
        guard Self.hasDirective(lines) else { return Result(text: text, branches: []) }
        for (index, line) in lines.enumerated() {
            let number = index + 1
            let active = stack.last?.active ?? true
            guard let directive = Self.directive(line, number: number) else {
                output.append(active ? line : "")
                continue
            }
            output.append("")
            let argument = Self.argument(of: directive)
            switch directive.name {
            case "if", "ifdef", "ifndef":
                var taken = false
                if active {
                    switch directive.name {
                    case "ifdef": taken = definitions[try Self.name(argument, directive)] != nil
                    case "ifndef": taken = definitions[try Self.name(argument, directive)] == nil
                    default: taken = try Self.value(argument, definitions, line: number) != 0
                    }
                }
                stack.append(Open(line: number, outerActive: active, anyTaken: taken, active: taken))
                branches.append(Branch(line: number, directive: directive.text, taken: taken))
            case "elif", "else":
                guard var open = stack.popLast() else {
                    throw Failure(line: number, reason: "#\(directive.name) without #if")
                }
                guard !open.sawElse else {
                    throw Failure(
                        line: number,
                        reason: "#\(directive.name) after #else (the #if is on line \(open.line))"
                    )
                }
                var taken = false
                if open.outerActive, !open.anyTaken {
                    taken = directive.name == "else" ? true : try Self.value(argument, definitions, line: number) != 0
                }
                open.sawElse = directive.name == "else"
                open.anyTaken = open.anyTaken || taken
                open.active = taken
                stack.append(open)
                branches.append(Branch(line: number, directive: directive.text, taken: taken))
            case "endif":
                guard stack.popLast() != nil else { throw Failure(line: number, reason: "#endif without #if") }
            case "define" where active:
                let parts = argument.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard let first = parts.first else { throw Failure(line: number, reason: "#define without a name") }
                let name = String(first)
                guard Self.isName(name) else {
                    throw Failure(line: number, reason: "'\(name.prefix(40))' is not a name this evaluator defines")
                }
                definitions[name] = parts.count > 1 ? Int(parts[1]) ?? 1 : 1
            case "undef" where active:
                definitions[try Self.name(argument, directive)] = nil
            case "include", "import":
                // (A `where` after two patterns would guard the second only.)
                guard active else { break }
                throw Failure(
                    line: number,
                    reason: "\(directive.text) is not followed here; preprocess the file with cpp -P -traditional"
                )
            case "error" where active:
                throw Failure(line: number, reason: directive.text)
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

    // MARK: Expressions

    static func argument(of directive: Directive) -> Substring {
        var text = Substring(directive.text).dropFirst().drop { $0 == " " || $0 == "\t" }.dropFirst(
            directive.name.count
        )
        // A `//` or `/* */` comment after the expression is not part of it.
        if let comment = text.range(of: "//") { text = text[..<comment.lowerBound] }
        if let comment = text.range(of: "/*") { text = text[..<comment.lowerBound] }
        return text.trimmingCharacters(in: .whitespaces)[...]
    }

    static func isName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic)
        else { return false }
        return text.unicodeScalars.allSatisfy {
            $0 == "_" || ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0)
        }
    }

    static func name(_ argument: Substring, _ directive: Directive) throws(Failure) -> String {
        let name = String(argument)
        guard Self.isName(name) else {
            throw Failure(line: directive.line, reason: "#\(directive.name) needs one name, found '\(name.prefix(40))'")
        }
        return name
    }

    /// The value of an `#if` or `#elif` expression.
    static func value(_ expression: Substring, _ definitions: [String: Int], line: Int) throws(Failure) -> Int {
        var parser = ExpressionParser(
            tokens: try Self.tokens(expression, line: line),
            definitions: definitions,
            line: line
        )
        let value = try parser.or()
        guard parser.index == parser.tokens.count else {
            throw Failure(line: line, reason: "unexpected '\(parser.tokens[parser.index])' in the #if expression")
        }
        return value
    }

    static func tokens(_ expression: Substring, line: Int) throws(Failure) -> [String] {
        var tokens: [String] = []
        var rest = expression[...]
        while let first = rest.first {
            if first == " " || first == "\t" || first == "\r" {
                rest = rest.dropFirst()
                continue
            }
            let two = String(rest.prefix(2))
            if ["&&", "||", "==", "!="].contains(two) {
                tokens.append(two)
                rest = rest.dropFirst(2)
            } else if "()!".contains(first) {
                tokens.append(String(first))
                rest = rest.dropFirst()
            } else if first.isLetter || first == "_" || first.isNumber {
                let word = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                tokens.append(String(word))
                rest = rest.dropFirst(word.count)
            } else {
                throw Failure(
                    line: line,
                    reason:
                        "'\(first)' is not read in an #if expression (defined, !, &&, ||, ==, !=, (), names and integers)"
                )
            }
        }
        guard !tokens.isEmpty else { throw Failure(line: line, reason: "#if without an expression") }
        return tokens
    }

    /// `or := and ('||' and)*`, `and := equality ('&&' equality)*`, `equality := unary (('=='|'!=') unary)*`,
    /// `unary := '!' unary | '(' or ')' | 'defined' ('(' NAME ')' | NAME) | INTEGER | NAME`.
    struct ExpressionParser {
        let tokens: [String]
        let definitions: [String: Int]
        let line: Int
        var index = 0

        var next: String? { self.index < self.tokens.count ? self.tokens[self.index] : nil }

        func fail(_ reason: String) -> Failure { Failure(line: self.line, reason: reason) }

        mutating func expect(_ token: String) throws(Failure) {
            guard self.next == token else { throw self.fail("expected '\(token)' in the #if expression") }
            self.index += 1
        }

        mutating func or() throws(Failure) -> Int {
            var value = try self.and()
            while self.next == "||" {
                self.index += 1
                let right = try self.and()
                value = (value != 0 || right != 0) ? 1 : 0
            }
            return value
        }

        mutating func and() throws(Failure) -> Int {
            var value = try self.equality()
            while self.next == "&&" {
                self.index += 1
                let right = try self.equality()
                value = (value != 0 && right != 0) ? 1 : 0
            }
            return value
        }

        mutating func equality() throws(Failure) -> Int {
            var value = try self.unary()
            while let token = self.next, token == "==" || token == "!=" {
                self.index += 1
                let right = try self.unary()
                value = (value == right) == (token == "==") ? 1 : 0
            }
            return value
        }

        mutating func unary() throws(Failure) -> Int {
            guard let token = self.next else { throw self.fail("the #if expression ends early") }
            self.index += 1
            switch token {
            case "!":
                return try self.unary() == 0 ? 1 : 0
            case "(":
                let value = try self.or()
                try self.expect(")")
                return value
            case "defined":
                let parenthesised = self.next == "("
                if parenthesised { self.index += 1 }
                guard let name = self.next, InfoPlistPreprocessor.isName(name) else {
                    throw self.fail("defined needs a name")
                }
                self.index += 1
                if parenthesised { try self.expect(")") }
                return self.definitions[name] != nil ? 1 : 0
            default:
                if let number = Int(token.hasSuffix("L") || token.hasSuffix("U") ? String(token.dropLast()) : token) {
                    return number
                }
                guard InfoPlistPreprocessor.isName(token) else {
                    throw self.fail("'\(token.prefix(40))' is not read in an #if expression")
                }
                return self.definitions[token] ?? 0
            }
        }
    }
}
