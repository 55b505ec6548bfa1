#if Tools
import SwiftSyntax

// SN007 secret-in-logs for Swift sources.
extension SwiftRuleVisitor {
    static let printFunctions: Set<String> = [
        "print", "debugPrint", "NSLog", "dump", "DDLogVerbose", "DDLogDebug", "DDLogInfo", "DDLogWarn", "DDLogError",
    ]
    static let loggerMethods: Set<String> = [
        "log", "trace", "debug", "info", "notice", "warning", "error", "critical", "fault", "verbose", "warn",
    ]

    /// `print`, `debugPrint`, `NSLog`, `dump`, CocoaLumberjack's `DDLog…`, `os_log` and
    /// `Logger`/`logger`/`Log` methods (including `verbose` and `trace`) whose arguments
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
        // os.Logger (`Logger(…)`, `Logger.someCategory`) redacts interpolated values by default: only
        // `privacy: .public` publishes them. Known only when the file imports os and not swift-log.
        let redactsByDefault =
            isLogger && callee.baseText.hasPrefix("Logger") && importsOSLogOnly
        for argument in node.arguments {
            let finder = LoggedSecretFinder(
                root: Syntax(argument.expression),
                visitor: self,
                onlyPublicInterpolations: redactsByDefault
            )
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
    unowned let visitor: SwiftRuleVisitor
    /// For os.Logger: only interpolations marked `privacy: .public` are written as they are.
    let onlyPublicInterpolations: Bool
    var secret: String?
    /// Member names that read harmless facts about a secret.
    static let harmlessMembers: Set<String> = [
        "count", "isEmpty", "hashValue", "hash", "hashString", "sha256", "fingerprint", "prefixHash", "isValid",
        "isExpired", "expiresAt", "expirationDate", "username",
        "userName", "email", "scope", "scopes", "type", "kind", "length",
    ]
    /// Calls whose result no longer contains the secret.
    static let redactingWords = ["redact", "mask", "hash", "obfuscat", "sanitiz", "sha", "digest", "fingerprint"]

    init(root: Syntax, visitor: SwiftRuleVisitor, onlyPublicInterpolations: Bool = false) {
        self.root = root
        self.visitor = visitor
        self.onlyPublicInterpolations = onlyPublicInterpolations
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
        if onlyPublicInterpolations, !value.hasPrefix(".public") { return .skipChildren }
        return .visitChildren
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
        guard secret == nil else { return .skipChildren }
        let name = node.baseName.text
        if name == "allHTTPHeaderFields" {
            secret = name
        } else if SecretNames.isSecret(name, includeAuthorization: true) {
            if SyntaxHelpers.isHarmlessRead(Syntax(node)) || SyntaxHelpers.isQualifiedByItsFunction(Syntax(node)) {
                return .visitChildren
            }
            secret = name
        } else if NameWords.split(name).contains(where: { $0 == "token" || $0 == "tokens" }),
            SyntaxHelpers.isUsedAsCredential(Syntax(node))
        {
            // A token whose name says sync or page but which the function signs in with.
            secret = name
        } else if !visitor.secretHoldingTypes.isEmpty,
            visitor.secretHoldingTypes.contains(name)
                || SyntaxHelpers.declaredTypeName(of: name, at: Syntax(node)).map(visitor.secretHoldingTypes.contains)
                    == true
        {
            // A value of a type of this file that holds a token (`print(session)` where
            // `struct Session { let accessToken: String }`): its description includes it.
            secret = name
        }
        return .visitChildren
    }

    override func visit(_ node: StringLiteralExprSyntax) -> SyntaxVisitorContinueKind {
        // `"Authorization"` read through a header API or subscript, not a top-level message literal.
        if secret == nil, Syntax(node).id != root.id,
            let header = node.representedLiteralValue?.lowercased(),
            ["authorization", "cookie", "set-cookie"].contains(header)
        {
            secret = header == "authorization" ? "Authorization header" : "Cookie header"
        }
        return .visitChildren
    }
}

extension SwiftRuleVisitor {
    /// Whether the file imports `os` or `OSLog` and not swift-log's `Logging`, so that `Logger` is
    /// os.Logger.
    var importsOSLogOnly: Bool {
        var os = false
        for item in tree.statements {
            guard let declaration = item.item.as(ImportDeclSyntax.self),
                let module = declaration.path.first?.name.text
            else { continue }
            if module == "Logging" { return false }
            if module == "os" || module == "OSLog" { os = true }
        }
        return os
    }
}
#endif
