#if Tools
import SwiftSyntax

// Network rules for Swift sources: SN005 cleartext URLs, SN008 trust evaluation, SN011 response caching.
extension SwiftRuleVisitor {
    // MARK: SN005 cleartext-http-url

    /// Reports string literals that start with `http://` and a literal, non-local host. Only the literal
    /// text up to the first interpolation is examined, so `"http://api.example.com/\(path)"` is reported
    /// but `"http://\(host)/"` is not: its host is unknown (and may well be local), and a bare `"http://"`
    /// (used in prefix checks and rewrites) is not either.
    func checkCleartextURL(_ node: StringLiteralExprSyntax) {
        var prefix = ""
        var interpolated = false
        for segment in node.segments {
            if let text = segment.as(StringSegmentSyntax.self) {
                prefix += text.content.text
            } else {
                interpolated = true
                break
            }
        }
        // With an interpolation, the host must be complete before it: `http://host/\(…)` or `http://host:\(…)`.
        if interpolated, !prefix.dropFirst(7).contains(where: { $0 == "/" || $0 == ":" || $0 == "?" }) { return }
        guard prefix.utf8.count >= 7, let host = CleartextURL.nonLocalHost(in: prefix) else { return }
        report(
            .cleartextHTTPURL,
            at: node,
            message: "cleartext URL to \(host) can be read and altered on the network"
        )
    }

    // MARK: SN008 trust-evaluation-disabled

    /// Alamofire's disabled evaluators and `SecTrustSetExceptions`.
    func checkTrustShortcuts(_ node: FunctionCallExprSyntax, callee: Callee) {
        switch callee.name {
        case "DisabledTrustEvaluator", "DisabledEvaluator":
            report(
                .trustEvaluationDisabled,
                at: node,
                message: "\(callee.name) accepts any certificate for the host, disabling TLS authentication"
            )
        case "SecTrustSetExceptions":
            // Exceptions the user approved earlier, then a real evaluation (home-assistant's
            // trust-on-first-use), are a decision, not a bypass; copying the failing trust's own
            // exceptions back onto it is.
            let copiesItsOwn = node.arguments.trimmedDescription.containsUTF8("SecTrustCopyExceptions")
            if !copiesItsOwn, Self.isEvaluatedLater(node) { return }
            report(
                .trustEvaluationDisabled,
                at: node,
                message: "SecTrustSetExceptions makes a failed trust evaluation succeed"
            )
        default:
            break
        }
    }

    /// `validateHost: false` and `allowsExpiredCertificates: true` passed as arguments.
    func checkTrustArgument(_ node: LabeledExprSyntax) {
        guard let label = node.label?.text, let literal = node.expression.as(BooleanLiteralExprSyntax.self)
        else { return }
        let value = literal.literal.tokenKind == .keyword(.true)
        if label == "validateHost", !value {
            report(
                .trustEvaluationDisabled,
                at: node,
                message: "validateHost: false accepts a valid certificate issued for any other host"
            )
        } else if label == "allowsExpiredCertificates", value {
            report(
                .trustEvaluationDisabled,
                at: node,
                message: "allowsExpiredCertificates: true accepts expired (possibly revoked) certificates"
            )
        }
    }

    /// Assignments: `allowsExpiredCertificates = true` (SN008) and `urlCache = …` (SN011 candidate).
    func checkAssignment(target: ExprSyntax, value: ExprSyntax) {
        guard let name = SyntaxHelpers.trailingName(target) else { return }
        if name == "allowsExpiredCertificates",
            value.as(BooleanLiteralExprSyntax.self)?.literal.tokenKind == .keyword(.true)
        {
            report(
                .trustEvaluationDisabled,
                at: target,
                message: "allowsExpiredCertificates = true accepts expired (possibly revoked) certificates"
            )
        }
        if name == "urlCache", !value.is(NilLiteralExprSyntax.self) {
            cacheCandidates.append(Syntax(target))
        }
    }

    /// Whether a `SecTrustEvaluate…` call follows `node` in its function.
    static func isEvaluatedLater(_ node: FunctionCallExprSyntax) -> Bool {
        guard let function = SyntaxHelpers.enclosing(FunctionDeclSyntax.self, of: node)?.body else { return false }
        let after = node.endPosition
        return function.tokens(viewMode: .sourceAccurate).contains { token in
            token.position >= after && token.text.hasPrefix("SecTrustEvaluate")
        }
    }

    /// A function that answers an authentication challenge — `urlSession(_:didReceive:completionHandler:)`
    /// (and the task-level and async variants), or any function of the app that takes a
    /// `URLAuthenticationChallenge` (a WebDAV client's `handle(challenge:completion:)`) — judged by what it
    /// does: answering with `URLCredential(trust:)` with no evaluation in the function and no check of the
    /// challenge guarding that answer, and `.performDefaultHandling` in the failure branch of a pin/trust
    /// check.
    func checkTrustDelegate(_ node: FunctionDeclSyntax) {
        guard let body = node.body else { return }
        let isChallengeHandler = node.signature.parameterClause.parameters.contains { parameter in
            parameter.type.trimmedDescription.contains("URLAuthenticationChallenge")
        }
        guard isChallengeHandler else { return }
        let scanner = TrustDelegateScanner()
        scanner.walk(body)
        if !scanner.evaluates {
            for call in scanner.trustCredentials where !TrustDelegateScanner.isGuardedByCheck(call) {
                report(
                    .trustEvaluationDisabled,
                    at: call,
                    message: "URLCredential(trust:) is returned without evaluating the server trust in this method"
                )
            }
        }
        for member in scanner.defaultHandlings where TrustDelegateScanner.isInFailedCheckBranch(member) {
            report(
                .trustEvaluationDisabled,
                at: member,
                message: ".performDefaultHandling after a failed pin/trust check lets the connection proceed",
                fix: "Answer a failed pin or trust check with .cancelAuthenticationChallenge."
            )
        }
    }

    // MARK: SN011 cached-authenticated-response

    /// `URLCache.shared` and cache-preferring request policies become candidates.
    func checkCacheMember(_ node: MemberAccessExprSyntax) {
        let name = node.declName.baseName.text
        switch name {
        case "returnCacheDataElseLoad", "returnCacheDataDontLoad":
            cacheCandidates.append(Syntax(node))
        case "shared" where node.base?.trimmedDescription == "URLCache":
            // Clearing the shared cache is the fix, not the problem.
            if let outer = node.parent?.as(MemberAccessExprSyntax.self),
                outer.declName.baseName.text.hasPrefix("remove")
            {
                return
            }
            cacheCandidates.append(Syntax(node))
        default:
            break
        }
    }

    /// The name in `scope` (the innermost function or type around a cache-preferring request policy)
    /// that says the request goes to the app's own API: `apiBaseURL`, `APIClient`, `baseURL`,
    /// `endpoint`. Requests there carry the user's tokens even when the header is set in another file.
    static func appAPIName(_ scope: Syntax) -> String? {
        for (name, _) in NameCollector.collect(scope).names {
            let words = NameWords.split(name)
            if words.contains("api") || words.contains("endpoint")
                || zip(words, words.dropFirst()).contains(where: { $0 == "base" && $1 == "url" })
            {
                return name
            }
        }
        return nil
    }

    /// Reports each cache candidate whose enclosing function or type also sets an Authorization header
    /// (a `"Authorization"` string literal or a `"Bearer …"` literal anywhere in that scope), and each
    /// cache-preferring request policy on a request to the app's API (``appAPIName(_:)``).
    func finishCacheCandidates() {
        var cache: [SyntaxIdentifier: Bool] = [:]
        func hasAuthorization(_ scope: Syntax) -> Bool {
            if let known = cache[scope.id] { return known }
            let literals = NameCollector.collect(scope).literals
            let found = literals.contains { literal in
                let lowered = literal.lowercased()
                return lowered == "authorization" || lowered.hasPrefix("bearer ")
            }
            cache[scope.id] = found
            return found
        }
        var reportedLines: Set<Int> = []
        for candidate in cacheCandidates {
            // `c.urlCache = URLCache.shared` holds two candidates; one finding per line is enough.
            let line = converter.location(for: candidate.positionAfterSkippingLeadingTrivia).line
            guard !reportedLines.contains(line) else { continue }
            var scopes: [Syntax] = []
            var current = candidate.parent
            while let node = current {
                if node.is(FunctionDeclSyntax.self) || node.is(InitializerDeclSyntax.self)
                    || node.is(AccessorDeclSyntax.self) || node.is(ClassDeclSyntax.self)
                    || node.is(StructDeclSyntax.self) || node.is(EnumDeclSyntax.self)
                    || node.is(ActorDeclSyntax.self) || node.is(ExtensionDeclSyntax.self)
                {
                    scopes.append(node)
                }
                current = node.parent
            }
            let policyName = candidate.as(MemberAccessExprSyntax.self)?.declName.baseName.text
            let isRequestPolicy = policyName == "returnCacheDataElseLoad" || policyName == "returnCacheDataDontLoad"
            let apiName = isRequestPolicy ? scopes.first.flatMap(Self.appAPIName) : nil
            guard scopes.contains(where: hasAuthorization) || apiName != nil else { continue }
            reportedLines.insert(line)
            let what: String
            switch candidate.as(MemberAccessExprSyntax.self)?.declName.baseName.text
                ?? candidate.as(DeclReferenceExprSyntax.self)?.baseName.text
            {
            case "shared": what = "URLCache.shared"
            case "urlCache": what = "urlCache = URLCache(…)"
            case let name?: what = ".\(name)"
            case nil: what = "a URLCache"
            }
            let message =
                apiName.map {
                    "\(what) serves cached responses to requests to the app's API ('\($0)'), which carry its tokens"
                }
                ?? "\(what) caches responses to requests that carry an Authorization header in this scope"
            report(.cachedAuthenticatedResponse, at: candidate, message: message)
        }
    }
}

/// The calls inside a subtree.
final class CallCollector: SyntaxVisitor {
    var calls: [FunctionCallExprSyntax] = []

    static func collect(_ node: some SyntaxProtocol) -> [FunctionCallExprSyntax] {
        let collector = CallCollector(viewMode: .sourceAccurate)
        collector.walk(node)
        return collector.calls
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        calls.append(node)
        return .visitChildren
    }
}

/// Looks inside an authentication-challenge delegate method.
final class TrustDelegateScanner: SyntaxVisitor {
    var trustCredentials: [FunctionCallExprSyntax] = []
    var defaultHandlings: [MemberAccessExprSyntax] = []
    var evaluates = false

    init() { super.init(viewMode: .sourceAccurate) }

    /// Whether a call or name counts as evaluating or checking the trust: it mentions evaluate / validate /
    /// verify, or a pin (`pin`, `pins`, `pinned`, `pinning` as a word).
    static func isCheckName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        if ["evaluat", "validat", "verif"].contains(where: lowered.contains) { return true }
        return NameWords.split(name).contains { ["pin", "pins", "pinned", "pinning"].contains($0) }
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        let callee = Callee(node)
        if callee.name == "URLCredential", node.arguments.first?.label?.text == "trust" {
            trustCredentials.append(node)
        }
        if Self.isCheckName(callee.name) { evaluates = true }
        return .visitChildren
    }

    override func visit(_ node: MemberAccessExprSyntax) -> SyntaxVisitorContinueKind {
        if node.declName.baseName.text == "performDefaultHandling" { defaultHandlings.append(node) }
        return .visitChildren
    }

    /// Whether `node` runs only when a call that was given the challenge or its trust returned true:
    /// in the body of `if check(challenge) { … }`, or after `guard check(trust) else { … }` (talk-ios
    /// compares the leaf with the certificates the user accepted through such a helper, whatever its
    /// name).
    static func isGuardedByCheck(_ node: some SyntaxProtocol) -> Bool {
        func checksTheChallenge(_ conditions: ConditionElementListSyntax) -> Bool {
            conditions.contains { element in
                let calls = CallCollector.collect(element)
                return calls.contains { call in
                    let text = call.arguments.trimmedDescription.lowercased()
                    return text.contains("challenge") || text.contains("trust")
                }
            }
        }
        var child = Syntax(node)
        var current = node.parent
        while let parent = current, !parent.is(FunctionDeclSyntax.self) {
            if let ifExpr = parent.as(IfExprSyntax.self), Syntax(ifExpr.body).id == child.id,
                checksTheChallenge(ifExpr.conditions)
            {
                return true
            }
            if let items = parent.as(CodeBlockItemListSyntax.self) {
                for item in items {
                    if item.id == child.id { break }
                    if let guardStmt = item.item.as(GuardStmtSyntax.self), checksTheChallenge(guardStmt.conditions) {
                        return true
                    }
                }
            }
            child = parent
            current = parent.parent
        }
        return false
    }

    /// Whether a condition list contains a pin or trust check (a call or name that ``isCheckName(_:)``).
    static func isCheck(_ conditions: ConditionElementListSyntax) -> Bool {
        NameCollector.collect(conditions).names.contains { isCheckName($0.name) }
    }

    /// Whether `node` runs only when a pin/trust check failed: in a `guard <check> else { … }` body, the
    /// `else` of `if <check>`, or the body of `if !<check>` / `if <check> == false`.
    static func isInFailedCheckBranch(_ node: some SyntaxProtocol) -> Bool {
        var child = Syntax(node)
        var current = node.parent
        while let parent = current, !parent.is(FunctionDeclSyntax.self) {
            if let guardStmt = parent.as(GuardStmtSyntax.self), Syntax(guardStmt.body).id == child.id {
                if isCheck(guardStmt.conditions) { return true }
            }
            if let ifExpr = parent.as(IfExprSyntax.self) {
                if let elseBody = ifExpr.elseBody, Syntax(elseBody).id == child.id {
                    if isCheck(ifExpr.conditions) { return true }
                } else if Syntax(ifExpr.body).id == child.id {
                    let text = ifExpr.conditions.trimmedDescription
                    let negated = text.hasPrefix("!") || text.hasSuffix("== false")
                    if negated, isCheck(ifExpr.conditions) { return true }
                }
            }
            child = parent
            current = parent.parent
        }
        return false
    }
}
#endif
