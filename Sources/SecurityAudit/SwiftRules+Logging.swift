import SwiftSyntax

// SN007 secret-in-logs for Swift sources.
extension SwiftRuleVisitor {
    static let printFunctions: Set<String> = ["print", "debugPrint", "NSLog", "dump"]
    static let loggerMethods: Set<String> = [
        "log", "trace", "debug", "info", "notice", "warning", "error", "critical", "fault",
    ]

    /// `print`, `debugPrint`, `NSLog`, `dump`, `os_log` and `Logger`/`logger` methods whose arguments
    /// reference a secret-named identifier, `allHTTPHeaderFields`, or read an `"Authorization"` header.
    /// Logger interpolations marked `privacy: .private` or `.sensitive` are not reported; `os_log` calls
    /// whose format string only uses `%{private}` / `%{sensitive}` placeholders are not reported.
    func checkLogging(_ node: FunctionCallExprSyntax, callee: Callee) {
        let isPrint = callee.base == nil && Self.printFunctions.contains(callee.name)
        let isOSLog = callee.base == nil && callee.name == "os_log"
        let isLogger =
            callee.base != nil && Self.loggerMethods.contains(callee.name)
            && callee.baseText.lowercased().containsUTF8("log")
        guard isPrint || isOSLog || isLogger else { return }
        if isOSLog, let format = node.arguments.lazy.compactMap({ SyntaxHelpers.literalValue($0.expression) }).first,
            format.contains("%{"), !format.contains("%{public}")
        {
            return
        }
        for argument in node.arguments {
            let finder = LoggedSecretFinder(root: Syntax(argument.expression))
            finder.walk(argument.expression)
            if let secret = finder.secret {
                report(
                    .secretInLogs,
                    at: node,
                    message: "\(callee.base == nil ? callee.name : "\(callee.baseText).\(callee.name)") writes "
                        + "'\(secret)' to the log",
                    fix: isLogger
                        ? "Remove the secret from the message or interpolate it with privacy: .private."
                        : AuditRule.secretInLogs.fix
                )
                return
            }
        }
    }
}

/// Finds the first secret reference inside one logged argument.
final class LoggedSecretFinder: SyntaxVisitor {
    let root: Syntax
    var secret: String?
    /// Member names that read harmless facts about a secret.
    static let harmlessMembers: Set<String> = [
        "count", "isEmpty", "hashValue", "isValid", "isExpired", "expiresAt", "expirationDate", "username",
        "userName", "email", "scope", "scopes", "type", "kind", "length",
    ]
    /// Calls whose result no longer contains the secret.
    static let redactingWords = ["redact", "mask", "hash", "obfuscat", "sanitiz", "sha", "digest", "fingerprint"]

    init(root: Syntax) {
        self.root = root
        super.init(viewMode: .sourceAccurate)
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        let name = Callee(node).name.lowercased()
        return Self.redactingWords.contains(where: name.contains) ? .skipChildren : .visitChildren
    }

    override func visit(_ node: ExpressionSegmentSyntax) -> SyntaxVisitorContinueKind {
        let privacy = node.expressions.first { $0.label?.text == "privacy" }
        let value = privacy?.expression.trimmedDescription ?? ""
        if value.hasPrefix(".private") || value.hasPrefix(".sensitive") { return .skipChildren }
        return .visitChildren
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
        guard secret == nil else { return .skipChildren }
        let name = node.baseName.text
        if name == "allHTTPHeaderFields" {
            secret = name
        } else if SecretNames.isSecret(name, includeAuthorization: true) {
            if let member = node.parent?.as(MemberAccessExprSyntax.self),
                let base = member.base, Syntax(base).id == Syntax(node).id,
                Self.harmlessMembers.contains(member.declName.baseName.text)
            {
                return .visitChildren
            }
            secret = name
        }
        return .visitChildren
    }

    override func visit(_ node: StringLiteralExprSyntax) -> SyntaxVisitorContinueKind {
        // `"Authorization"` read through a header API or subscript, not a top-level message literal.
        if secret == nil, Syntax(node).id != root.id, node.representedLiteralValue?.lowercased() == "authorization" {
            secret = "Authorization header"
        }
        return .visitChildren
    }
}
