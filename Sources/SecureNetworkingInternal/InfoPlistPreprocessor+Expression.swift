extension InfoPlistPreprocessor {
    /// The names defined while the file is read: `-D` ones and those of `#define`, as cpp keeps
    /// them (the tokens of an object-like macro, or the mark of a function-like one).
    struct Macros {
        enum Definition {
            /// An object-like macro and its replacement text.
            case object(String)
            /// A function-like macro (`#define F(x) …`): never expanded here.
            case function
        }

        private(set) var definitions: [String: Definition]
        /// Names `#undef` made undefined: a predefined name too is then known to be undefined.
        private var undefined: Set<String> = []

        init(_ values: [String: Int]) {
            self.definitions = values.mapValues { .object(String($0)) }
        }

        /// Whether `name` is defined; refuses a name the compiler may predefine and the file
        /// neither defined nor undefined, as its answer is not known here.
        func isDefined(_ name: String, line: Int) throws(Failure) -> Bool {
            if self.definitions[name] != nil { return true }
            if InfoPlistPreprocessor.isReserved(name), !self.undefined.contains(name) {
                throw Failure(line: line, reason: InfoPlistPreprocessor.predefinedReason(name))
            }
            return false
        }

        /// `#define NAME …` or `#define NAME(…) …`.
        mutating func define(_ argument: Substring, line: Int) throws(Failure) {
            let name = String(argument.prefix { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) })
            guard !name.isEmpty else {
                guard argument.isEmpty else {
                    throw Failure(line: line, reason: "'\(argument.prefix(40))' is not a name this evaluator defines")
                }
                throw Failure(line: line, reason: "#define without a name")
            }
            guard InfoPlistPreprocessor.isName(name) else {
                throw Failure(line: line, reason: "'\(name.prefix(40))' is not a name this evaluator defines")
            }
            let rest = argument.dropFirst(name.count)
            self.undefined.remove(name)
            if rest.first == "(" {
                self.definitions[name] = .function
            } else {
                self.definitions[name] = .object(rest.trimmingCharacters(in: .whitespaces))
            }
        }

        mutating func undefine(_ name: String) {
            self.definitions[name] = nil
            self.undefined.insert(name)
        }
    }

    /// A name C reserves for the implementation (`__APPLE__`, `_MSC_VER`): the compiler may
    /// predefine it, with a value only it knows.
    static func isReserved(_ name: String) -> Bool {
        let scalars = Array(name.unicodeScalars.prefix(2))
        guard scalars.first == "_", scalars.count == 2 else { return false }
        return scalars[1] == "_" || ("A"..."Z").contains(scalars[1])
    }

    static func predefinedReason(_ name: String) -> String {
        "'\(name.prefix(40))' is a name the compiler may predefine, and its value for Xcode's preprocessor is not known here: give it with -D"
    }

    /// A token of an `#if` expression.
    enum Token: Equatable, CustomStringConvertible {
        case number(Int64)
        case name(String)
        case symbol(String)

        var description: String {
            switch self {
            case .number(let value): return String(value)
            case .name(let name): return name
            case .symbol(let symbol): return symbol
            }
        }
    }

    /// The operators of C's `#if` expressions, longest first.
    static let symbols = [
        "||", "&&", "==", "!=", "<=", ">=", "<<", ">>", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "~", "!", "?",
        ":", "(", ")",
    ]

    /// The value of an `#if` or `#elif` expression, its names replaced as cpp replaces them.
    static func value(_ expression: Substring, _ macros: Macros, line: Int) throws(Failure) -> Int64 {
        let tokens = try Self.expand(try Self.tokens(expression, line: line), macros, line: line, within: [])
        guard !tokens.isEmpty else { throw Failure(line: line, reason: "#if without an expression") }
        var parser = ExpressionParser(tokens: tokens, macros: macros, line: line)
        let value = try parser.conditional(evaluated: true)
        guard parser.index == parser.tokens.count else {
            throw Failure(line: line, reason: "unexpected '\(parser.tokens[parser.index])' in the #if expression")
        }
        return value
    }

    static func tokens(_ expression: Substring, line: Int) throws(Failure) -> [Token] {
        var tokens: [Token] = []
        var rest = expression[...]
        while let first = rest.first {
            if first == " " || first == "\t" || first == "\r" || first == "\u{0B}" || first == "\u{0C}" {
                rest = rest.dropFirst()
                continue
            }
            if rest.hasPrefix("//") {
                throw Failure(
                    line: line,
                    reason:
                        "'//' starts no comment for cpp -traditional (Xcode's Info.plist preprocessor), so the #if expression goes on past it: write /* … */"
                )
            }
            if first.isASCII, first.isNumber {
                let word = rest.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
                tokens.append(.number(try Self.integer(String(word), line: line)))
                rest = rest.dropFirst(word.count)
            } else if first == "_" || (first.isASCII && first.isLetter) {
                let word = rest.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
                tokens.append(.name(String(word)))
                rest = rest.dropFirst(word.count)
            } else if let symbol = Self.symbols.first(where: { rest.hasPrefix($0) }) {
                tokens.append(.symbol(symbol))
                rest = rest.dropFirst(symbol.count)
            } else {
                throw Failure(
                    line: line,
                    reason:
                        "'\(first)' is not read in an #if expression (integers, names, defined, and C's operators but assignment and comma)"
                )
            }
        }
        return tokens
    }

    /// A decimal, octal (`010` is 8) or hexadecimal integer constant with an optional `l`/`ll`
    /// suffix; unsigned ones (`u`) are refused, as their arithmetic differs.
    static func integer(_ word: String, line: Int) throws(Failure) -> Int64 {
        var digits = Substring(word.lowercased())
        var lengthSuffix = 0
        while digits.hasSuffix("l"), lengthSuffix < 2 {
            digits = digits.dropLast()
            lengthSuffix += 1
        }
        if digits.contains("u") {
            throw Failure(
                line: line,
                reason: "'\(word.prefix(40))' is an unsigned constant, whose arithmetic this evaluator does not do"
            )
        }
        let value: Int64?
        if digits.hasPrefix("0x") {
            value = digits.count > 2 ? Int64(digits.dropFirst(2), radix: 16) : nil
        } else if digits.hasPrefix("0"), digits.count > 1 {
            value = Int64(digits.dropFirst(), radix: 8)
        } else {
            value = Int64(digits, radix: 10)
        }
        guard let value else {
            throw Failure(
                line: line,
                reason: "'\(word.prefix(40))' is not an integer constant this evaluator reads (or is beyond 64 bits)"
            )
        }
        return value
    }

    /// `tokens` with each defined name replaced by its definition's tokens (again and again, as
    /// cpp rescans), except the operand of `defined`. A definition must come down to integers and
    /// operators: a name left over (`#define X foo`) is refused, as is a function-like macro and
    /// a name that refers to itself.
    static func expand(_ tokens: [Token], _ macros: Macros, line: Int, within: [String]) throws(Failure) -> [Token] {
        var result: [Token] = []
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            guard case .name(let name) = token else {
                result.append(token)
                continue
            }
            if name == "defined" {
                guard within.isEmpty else {
                    throw Failure(
                        line: line,
                        reason:
                            "'\(within[0])' is defined with 'defined' in it, which cpp does not define a meaning for"
                    )
                }
                result.append(token)
                // The operand stays a name: `defined X` and `defined ( X )`.
                if index < tokens.count, tokens[index] == .symbol("(") {
                    result.append(contentsOf: tokens[index..<min(index + 3, tokens.count)])
                    index += 3
                } else if index < tokens.count {
                    result.append(tokens[index])
                    index += 1
                }
                continue
            }
            switch macros.definitions[name] {
            case .function:
                throw Failure(
                    line: line,
                    reason: "'\(name.prefix(40))' is a function-like macro, which this evaluator does not expand"
                )
            case .object(let body):
                guard !within.contains(name) else {
                    throw Failure(
                        line: line,
                        reason: "'\(name.prefix(40))' is defined in terms of itself, which this evaluator does not read"
                    )
                }
                let replacement: [Token]
                do {
                    replacement = try Self.tokens(body[...], line: line)
                } catch {
                    throw Failure(
                        line: line,
                        reason:
                            "'\(name.prefix(40))' is defined as '\(body.prefix(40))', which is not an #if expression this evaluator reads (\(error.reason))"
                    )
                }
                result.append(contentsOf: try Self.expand(replacement, macros, line: line, within: within + [name]))
            case nil:
                if let outer = within.first {
                    throw Failure(
                        line: line,
                        reason:
                            "'\(outer.prefix(40))' is defined as text ('\(name.prefix(40))'), not as an integer: cpp would read it as a name in the #if, and this evaluator does not guess what it stands for"
                    )
                }
                if index < tokens.count, tokens[index] == .symbol("(") {
                    throw Failure(
                        line: line,
                        reason:
                            "'\(name.prefix(40))(' is a function-like macro or a compiler builtin, which this evaluator does not read"
                    )
                }
                // A name the compiler may predefine is refused unless the file undefined it.
                if Self.isReserved(name) { _ = try macros.isDefined(name, line: line) }
                result.append(token)
            }
        }
        return result
    }

    /// C's `#if` expression grammar over expanded tokens, in 64-bit signed arithmetic. An
    /// operand that is not evaluated (the right of `0 &&`, the branch `?:` does not take) is
    /// parsed but its overflow or division by zero is no error, as in cpp.
    struct ExpressionParser {
        let tokens: [Token]
        let macros: Macros
        let line: Int
        var index = 0

        /// The binary operators by precedence, loosest first.
        static let levels: [Set<String>] = [
            ["||"], ["&&"], ["|"], ["^"], ["&"], ["==", "!="], ["<", ">", "<=", ">="], ["<<", ">>"], ["+", "-"],
            ["*", "/", "%"],
        ]

        var next: Token? { self.index < self.tokens.count ? self.tokens[self.index] : nil }

        func fail(_ reason: String) -> Failure { Failure(line: self.line, reason: reason) }

        mutating func expect(_ symbol: String) throws(Failure) {
            guard self.next == .symbol(symbol) else { throw self.fail("expected '\(symbol)' in the #if expression") }
            self.index += 1
        }

        /// `condition ? value : value`, or a binary expression.
        mutating func conditional(evaluated: Bool) throws(Failure) -> Int64 {
            let condition = try self.binary(level: 0, evaluated: evaluated)
            guard self.next == .symbol("?") else { return condition }
            self.index += 1
            let whenTrue = try self.conditional(evaluated: evaluated && condition != 0)
            try self.expect(":")
            let whenFalse = try self.conditional(evaluated: evaluated && condition == 0)
            return condition != 0 ? whenTrue : whenFalse
        }

        mutating func binary(level: Int, evaluated: Bool) throws(Failure) -> Int64 {
            guard level < Self.levels.count else { return try self.unary(evaluated: evaluated) }
            var left = try self.binary(level: level + 1, evaluated: evaluated)
            while case .symbol(let symbol) = self.next, Self.levels[level].contains(symbol) {
                self.index += 1
                let rightEvaluated =
                    switch symbol {
                    case "||": evaluated && left == 0
                    case "&&": evaluated && left != 0
                    default: evaluated
                    }
                let right = try self.binary(level: level + 1, evaluated: rightEvaluated)
                left = try self.apply(symbol, left, right, evaluated: rightEvaluated)
            }
            return left
        }

        func apply(_ symbol: String, _ left: Int64, _ right: Int64, evaluated: Bool) throws(Failure) -> Int64 {
            func checked(_ result: (partialValue: Int64, overflow: Bool)) throws(Failure) -> Int64 {
                guard !result.overflow || !evaluated else {
                    throw self.fail("'\(left) \(symbol) \(right)' overflows in the #if expression")
                }
                return result.partialValue
            }
            switch symbol {
            case "||": return left != 0 || right != 0 ? 1 : 0
            case "&&": return left != 0 && right != 0 ? 1 : 0
            case "|": return left | right
            case "^": return left ^ right
            case "&": return left & right
            case "==": return left == right ? 1 : 0
            case "!=": return left != right ? 1 : 0
            case "<": return left < right ? 1 : 0
            case ">": return left > right ? 1 : 0
            case "<=": return left <= right ? 1 : 0
            case ">=": return left >= right ? 1 : 0
            case "<<", ">>":
                guard (0..<64).contains(right) else {
                    guard evaluated else { return 0 }
                    throw self.fail("the shift '\(left) \(symbol) \(right)' is not evaluated here")
                }
                return symbol == "<<" ? try checked(left.multipliedReportingOverflow(by: 1 << right)) : left >> right
            case "+": return try checked(left.addingReportingOverflow(right))
            case "-": return try checked(left.subtractingReportingOverflow(right))
            case "*": return try checked(left.multipliedReportingOverflow(by: right))
            case "/", "%":
                guard right != 0 else {
                    guard evaluated else { return 0 }
                    throw self.fail("division by zero in the #if expression")
                }
                return try checked(
                    symbol == "/"
                        ? left.dividedReportingOverflow(by: right) : left.remainderReportingOverflow(dividingBy: right)
                )
            default: throw self.fail("unexpected '\(symbol)' in the #if expression")
            }
        }

        mutating func unary(evaluated: Bool) throws(Failure) -> Int64 {
            guard let token = self.next else { throw self.fail("the #if expression ends early") }
            self.index += 1
            switch token {
            case .number(let value):
                return value
            case .symbol("!"):
                return try self.unary(evaluated: evaluated) == 0 ? 1 : 0
            case .symbol("~"):
                return ~(try self.unary(evaluated: evaluated))
            case .symbol("+"):
                return try self.unary(evaluated: evaluated)
            case .symbol("-"):
                let value = try self.unary(evaluated: evaluated)
                guard value != .min || !evaluated else {
                    throw self.fail("'-(\(value))' overflows in the #if expression")
                }
                return value == .min ? value : -value
            case .symbol("("):
                let value = try self.conditional(evaluated: evaluated)
                try self.expect(")")
                return value
            case .name("defined"):
                let parenthesised = self.next == .symbol("(")
                if parenthesised { self.index += 1 }
                guard case .name(let name) = self.next else { throw self.fail("defined needs a name") }
                self.index += 1
                if parenthesised { try self.expect(")") }
                return try self.macros.isDefined(name, line: self.line) ? 1 : 0
            case .name:
                // Left after expansion: not a macro, so 0 (C11 §6.10.1p4).
                return 0
            case .symbol(let symbol):
                throw self.fail("unexpected '\(symbol)' in the #if expression")
            }
        }
    }
}
