#if Tools
import SwiftParser
import SwiftSyntax

/// Audits one Swift source file in a single pass over its syntax tree.
///
/// The `visit` overrides only dispatch; each rule family lives in its own extension file
/// (`SwiftRules+Network.swift`, `SwiftRules+Storage.swift`, `SwiftRules+Logging.swift`,
/// `SwiftRules+Crypto.swift`, `SwiftRules+Concurrency.swift`).
final class SwiftRuleVisitor: SyntaxVisitor {
    let path: String
    let tree: SourceFileSyntax
    let converter: SourceLocationConverter
    private(set) var findings: [AuditFinding] = []
    /// `urlCache =`, `URLCache.shared` and cache-preferring policies, checked against their scope at the end.
    var cacheCandidates: [Syntax] = []
    /// Computed on first use by `stringConstants` (SwiftRules+DataFlow.swift).
    var cachedStringConstants: [String: String]?
    var cachedSecretTypes: Set<String>?
    /// Whether the whole file is test code: by its location or by what it imports.
    let isTestFile: Bool

    init(path: String, tree: SourceFileSyntax) {
        self.path = path
        self.tree = tree
        self.converter = SourceLocationConverter(fileName: path, tree: tree)
        self.isTestFile = TestCodeDetection.isTestPath(path) || TestCodeDetection.importsTestModule(tree)
        super.init(viewMode: .sourceAccurate)
    }

    /// Parses and audits `source`, returning active and suppressed findings.
    static func audit(source: String, path: String) -> (active: [AuditFinding], suppressed: [AuditFinding]) {
        let tree = Parser.parse(source: source)
        let visitor = SwiftRuleVisitor(path: path, tree: tree)
        visitor.walk(tree)
        visitor.finishCacheCandidates()
        let comments = source.containsUTF8(SuppressionParser.marker) ? visitor.suppressionComments() : []
        return SuppressionParser.apply(comments, to: visitor.findings, path: path)
    }

    // MARK: Reporting

    func report(
        _ rule: AuditRule,
        at node: some SyntaxProtocol,
        severity: AuditSeverity? = nil,
        message: String,
        fix: String? = nil
    ) {
        let location = converter.location(for: node.positionAfterSkippingLeadingTrivia)
        let isTest =
            isTestFile || TestCodeDetection.isInTestDeclaration(node) || TestCodeDetection.isDebugOnly(node)
        findings.append(
            AuditFinding(
                ruleID: rule.id,
                severity: severity ?? rule.severity,
                path: path,
                line: location.line,
                column: location.column,
                message: message,
                fix: fix ?? rule.fix
            ).inContext(isTest ? .test : .shipping, condition: TestCodeDetection.condition(of: node))
        )
    }

    /// `// securenet:ignore …` line comments, read from token trivia so that `//` in strings never counts.
    func suppressionComments() -> [SuppressionParser.Parsed] {
        var result: [SuppressionParser.Parsed] = []
        for token in tree.tokens(viewMode: .sourceAccurate) {
            for (trivia, start) in [
                (token.leadingTrivia, token.position),
                (token.trailingTrivia, token.endPositionBeforeTrailingTrivia),
            ] {
                var offset = start
                for piece in trivia {
                    if case .lineComment(let text) = piece, text.contains(SuppressionParser.marker) {
                        let location = converter.location(for: offset)
                        if let parsed = SuppressionParser.parse(
                            comment: String(text.dropFirst(2)),
                            line: location.line,
                            column: location.column
                        ) {
                            result.append(parsed)
                        }
                    }
                    offset += piece.sourceLength
                }
            }
        }
        return result
    }

    // MARK: Dispatch

    override func visit(_ node: StringLiteralExprSyntax) -> SyntaxVisitorContinueKind {
        checkCleartextURL(node)
        checkHardcodedCredential(node)
        return .visitChildren
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        let callee = Callee(node)
        checkUserDefaultsWrite(node, callee: callee)
        checkPlistWrite(node, callee: callee)
        checkLogging(node, callee: callee)
        checkTrustShortcuts(node, callee: callee)
        checkWeakPasswordHash(node, callee: callee)
        checkInsecureRandom(node, callee: callee)
        checkIsolatedCompletionHandler(node, callee: callee)
        return .visitChildren
    }

    override func visit(_ node: LabeledExprSyntax) -> SyntaxVisitorContinueKind {
        checkTrustArgument(node)
        return .visitChildren
    }

    override func visit(_ node: SequenceExprSyntax) -> SyntaxVisitorContinueKind {
        let elements = Array(node.elements)
        for index in elements.indices where elements[index].is(AssignmentExprSyntax.self) {
            guard index > 0, index + 1 < elements.count else { continue }
            checkAssignment(target: elements[index - 1], value: elements[index + 1])
        }
        return .visitChildren
    }

    override func visit(_ node: MemberAccessExprSyntax) -> SyntaxVisitorContinueKind {
        checkCacheMember(node)
        return .visitChildren
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
        checkKeychainAccessibility(node)
        return .visitChildren
    }

    override func visit(_ node: AttributeSyntax) -> SyntaxVisitorContinueKind {
        checkAppStorage(node)
        return .visitChildren
    }

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        checkTrustDelegate(node)
        checkIsolatedDelegateMethod(node)
        return .visitChildren
    }

    override func visit(_ node: DictionaryElementSyntax) -> SyntaxVisitorContinueKind {
        checkTrustKitPins(node)
        return .visitChildren
    }
}

/// The name and receiver of a call: `a.b.set(…)` → name `set`, base `a.b`; `print(…)` → name `print`.
struct Callee {
    let name: String
    let base: ExprSyntax?

    init(_ call: FunctionCallExprSyntax) {
        self.init(call.calledExpression)
    }

    init(name: String, base: ExprSyntax?) {
        self.name = name
        self.base = base
    }

    init(_ expression: ExprSyntax) {
        if let reference = expression.as(DeclReferenceExprSyntax.self) {
            self.init(name: reference.baseName.text, base: nil)
        } else if let member = expression.as(MemberAccessExprSyntax.self) {
            self.init(name: member.declName.baseName.text, base: member.base)
        } else if let generic = expression.as(GenericSpecializationExprSyntax.self) {
            self.init(generic.expression)
        } else {
            self.init(name: "", base: nil)
        }
    }

    /// The receiver's source text without trivia, or "" for a free function.
    var baseText: String { base?.trimmedDescription ?? "" }
}

/// Small syntax helpers shared by the rule extensions.
enum SyntaxHelpers {
    /// The value of a string literal without interpolation.
    static func literalValue(_ expression: some SyntaxProtocol) -> String? {
        expression.as(StringLiteralExprSyntax.self)?.representedLiteralValue
    }

    /// The final name of a reference or member chain: `Keys.authToken` → `authToken`, `token` → `token`.
    static func trailingName(_ expression: some SyntaxProtocol) -> String? {
        if let reference = expression.as(DeclReferenceExprSyntax.self) { return reference.baseName.text }
        if let member = expression.as(MemberAccessExprSyntax.self) { return member.declName.baseName.text }
        if let optional = expression.as(OptionalChainingExprSyntax.self) { return trailingName(optional.expression) }
        if let forced = expression.as(ForceUnwrapExprSyntax.self) { return trailingName(forced.expression) }
        if let subscriptCall = expression.as(SubscriptCallExprSyntax.self) {
            return trailingName(subscriptCall.calledExpression)
        }
        return nil
    }

    /// The nearest enclosing node of type `T`, stopping at function and closure boundaries if `withinFunction`.
    static func enclosing<T: SyntaxProtocol>(
        _ type: T.Type,
        of node: some SyntaxProtocol,
        stopAtFunction: Bool = false
    ) -> T? {
        var current = node.parent
        while let candidate = current {
            if let match = candidate.as(T.self) { return match }
            if stopAtFunction, candidate.is(FunctionDeclSyntax.self) || candidate.is(ClosureExprSyntax.self) {
                return nil
            }
            current = candidate.parent
        }
        return nil
    }

    /// The names a value is bound to in its statement, innermost first: argument labels, then a `let`/`var`
    /// pattern, the target of an assignment, a dictionary key or a parameter name. With
    /// `throughExpressions`, walks up through wrapping expressions (calls, conversions) to the statement;
    /// without, only the immediate context counts.
    static func boundNames(of node: some SyntaxProtocol, throughExpressions: Bool) -> [String] {
        var names: [String] = []
        var child = Syntax(node)
        var current = node.parent
        while let parent = current {
            if let initializer = parent.as(InitializerClauseSyntax.self) {
                if let binding = initializer.parent?.as(PatternBindingSyntax.self),
                    let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
                {
                    names.append(name)
                } else if let parameter = initializer.parent?.as(FunctionParameterSyntax.self) {
                    names.append((parameter.secondName ?? parameter.firstName).text)
                }
                return names
            }
            if parent.is(ExprListSyntax.self), let sequence = parent.parent?.as(SequenceExprSyntax.self) {
                let elements = Array(sequence.elements)
                if let index = elements.firstIndex(where: { Syntax($0).id == child.id }), index >= 2,
                    elements[index - 1].is(AssignmentExprSyntax.self)
                {
                    if let name = trailingName(elements[index - 2]) { names.append(name) }
                    return names
                }
                // An operand of another operator (`rand() % 256`): keep walking when allowed.
                if !throughExpressions { return names }
                child = Syntax(sequence)
                current = sequence.parent
                continue
            }
            if let element = parent.as(DictionaryElementSyntax.self) {
                if Syntax(element.value).id == child.id,
                    let name = literalValue(element.key) ?? trailingName(element.key)
                {
                    names.append(name)
                }
                return names
            }
            if let labeled = parent.as(LabeledExprSyntax.self) {
                if let label = labeled.label { names.append(label.text) }
                if !throughExpressions { return names }
            }
            // With `throughExpressions`, a single-expression closure (`(0..<16).map { _ in rand() }`) is part
            // of its statement.
            let closureStatement =
                parent.is(CodeBlockItemSyntax.self)
                && parent.parent?.parent?.is(ClosureExprSyntax.self) == true
            let inClosure = throughExpressions && (parent.is(ClosureExprSyntax.self) || closureStatement)
            let isStatementBoundary =
                parent.is(CodeBlockItemSyntax.self) || parent.is(MemberBlockItemSyntax.self)
                || parent.is(ClosureExprSyntax.self) || parent.is(CodeBlockSyntax.self)
            if isStatementBoundary, !inClosure { return names }
            if !throughExpressions, !parent.is(LabeledExprListSyntax.self) { return names }
            child = parent
            current = parent.parent
        }
        return names
    }
}

/// Collects identifiers and string literals inside a subtree.
final class NameCollector: SyntaxVisitor {
    var names: [(name: String, node: Syntax)] = []
    var literals: [String] = []

    init() { super.init(viewMode: .sourceAccurate) }

    static func collect(_ node: some SyntaxProtocol) -> NameCollector {
        let collector = NameCollector()
        collector.walk(node)
        return collector
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
        names.append((node.baseName.text, Syntax(node)))
        return .visitChildren
    }

    override func visit(_ node: StringLiteralExprSyntax) -> SyntaxVisitorContinueKind {
        if let value = node.representedLiteralValue { literals.append(value) }
        return .visitChildren
    }
}
#endif
