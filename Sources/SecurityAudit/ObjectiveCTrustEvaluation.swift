#if Tools
/// Decides, for the bodies of one file, which blocks check a server trust.
///
/// A check is: a `SecTrustEvaluateWithError`/`SecTrustEvaluate`/`SecTrustEvaluateAsync…` call whose result
/// is used (tested, assigned, returned, or its `&result` out-parameter read later); a call to a method or
/// function of the same file whose body checks; or a call to a method or function defined elsewhere that is
/// handed the trust or the challenge (`[self.securityPolicy evaluateServerTrust:serverTrust forDomain:…]`),
/// whose body this file cannot show. Passing the trust to the APIs that only read or answer with it
/// (`credentialForTrust:`, `useCredential:`, `SecTrustGetCertificateAtIndex`, logging) is not a check.
struct ObjectiveCTrustEvaluation {
    let scanner: ObjectiveCScanner
    /// For each body, the parent of each block id (nil for the body's own block).
    var parents: [Int: [Int: Int?]] = [:]
    private var blockOfToken: [Int: [Int: Int]] = [:]
    private var checkCache: [Int: Set<Int>] = [:]
    private var evaluatesCache: [String: Bool] = [:]
    private var inProgress: Set<String> = []

    init(scanner: ObjectiveCScanner) { self.scanner = scanner }

    static let evaluationFunctions: Set<String> = [
        "SecTrustEvaluateWithError", "SecTrustEvaluate", "SecTrustEvaluateAsync", "SecTrustEvaluateAsyncWithError",
    ]
    /// Calls that take a trust or challenge without judging it.
    static let nonCheckingCalls: Set<String> = [
        "credentialForTrust", "useCredential", "forAuthenticationChallenge", "completionHandler", "completion",
        "continueWithoutCredentialForAuthenticationChallenge", "performDefaultHandlingForAuthenticationChallenge",
        "cancelAuthenticationChallenge", "rejectProtectionSpaceAndContinueWithChallenge",
        "SecTrustGetCertificateCount", "SecTrustGetCertificateAtIndex", "SecTrustCopyCertificateChain",
        "SecTrustCopyPublicKey", "SecTrustCopyKey", "SecTrustSetPolicies", "SecTrustSetAnchorCertificates",
        "SecTrustSetAnchorCertificatesOnly", "SecTrustCopyExceptions", "SecTrustSetExceptions",
        "SecTrustGetTrustResult", "SecTrustCopyProperties", "SecTrustCopyResult", "CFRetain", "CFRelease",
        "CFBridgingRetain", "objc_setAssociatedObject", "setObject", "addObject", "stringWithFormat",
    ]
    static let controlKeywords: Set<String> = ["if", "while", "for", "switch", "return", "sizeof", "typeof", "@"]

    /// The block id of every token of a body (ids are the `{` token indices).
    mutating func blocks(of body: Int) -> [Int: Int] {
        if let known = blockOfToken[body] { return known }
        let range = scanner.allBodies[body]
        var result: [Int: Int] = [:]
        var parentOf: [Int: Int?] = [:]
        var stack: [Int] = []
        for index in range.open...range.close {
            if scanner.isPunctuation(index, 0x7B) {
                parentOf[index] = stack.last
                stack.append(index)
            } else if scanner.isPunctuation(index, 0x7D) {
                _ = stack.popLast()
            }
            if let top = stack.last { result[index] = top }
        }
        blockOfToken[body] = result
        parents[body] = parentOf
        return result
    }

    /// The ids of the blocks of `body` that hold a check.
    mutating func checks(inBody body: Int) -> Set<Int> {
        if let known = checkCache[body] { return known }
        let blockOf = blocks(of: body)
        let range = scanner.allBodies[body]
        var found: Set<Int> = []
        var index = range.open + 1
        while index < range.close {
            if isCheck(at: index), let block = blockOf[index] { found.insert(block) }
            index += 1
        }
        checkCache[body] = found
        return found
    }

    /// Whether the identifier at `index` makes a check.
    private mutating func isCheck(at index: Int) -> Bool {
        guard scanner.isIdentifier(index) else { return false }
        let s = scanner
        let isCall = s.isPunctuation(index + 1, 0x28)
        let isKeyword = s.isPunctuation(index + 1, 0x3A) && s.enclosingBracket(of: index) != nil
        let isUnary =
            s.isPunctuation(index + 1, 0x5D) && (s.isIdentifier(index - 1) || s.isPunctuation(index - 1, 0x5D))
        let name = s.text(index)
        if isCall, Self.evaluationFunctions.contains(name) { return isUsedEvaluation(at: index) }
        if isCall || isKeyword || isUnary, let indices = s.bodyIndicesByName[name], !indices.isEmpty {
            return evaluates(name)
        }
        if isTrustArgument(at: index) { return true }
        return false
    }

    /// Whether an identifier names the trust or the challenge and is passed as an argument to a call this
    /// file cannot see.
    private func isTrustArgument(at index: Int) -> Bool {
        let s = scanner
        let name = s.text(index)
        guard Self.isTrustName(name) else { return false }
        if s.isPunctuation(index + 1, 0x2E) || s.isOperator(index + 1, "->") || s.isPunctuation(index + 1, 0x3A) {
            return false
        }
        // A declaration (`SecTrustRef trust`, `NSURLAuthenticationChallenge *challenge`) is no argument.
        if s.isIdentifier(index - 1), !s.isIdentifier(index - 1, "return") { return false }
        if s.isPunctuation(index - 1, 0x2A), s.isIdentifier(index - 2) { return false }
        // Walk to the start of the chain (`challenge.protectionSpace.serverTrust`).
        var start = index
        while s.isPunctuation(start - 1, 0x2E) || s.isOperator(start - 1, "->"), s.isIdentifier(start - 2) {
            start -= 2
        }
        // The innermost open paren or bracket before the chain.
        var depth = 0
        var cursor = start - 1
        while cursor >= 0 {
            if s.isPunctuation(cursor, 0x29) || s.isPunctuation(cursor, 0x5D) || s.isPunctuation(cursor, 0x7D) {
                depth += 1
            } else if s.isPunctuation(cursor, 0x28) || s.isPunctuation(cursor, 0x5B) || s.isPunctuation(cursor, 0x7B) {
                if depth == 0 { break }
                depth -= 1
            } else if depth == 0, s.isPunctuation(cursor, 0x3B) {
                return false
            }
            cursor -= 1
        }
        guard cursor >= 0 else { return false }
        if s.isPunctuation(cursor, 0x28) {
            // name(…) but not a block's parameter list (`^(…)`, `^Type(…)`) or a control statement.
            guard s.isIdentifier(cursor - 1), !s.isPunctuation(cursor - 2, 0x5E) else { return false }
            return isOpaqueCallee(s.text(cursor - 1))
        }
        if s.isPunctuation(cursor, 0x5B) {
            let parts = s.selectorParts(ofBracket: cursor)
            // The chain must be an argument, after the first keyword.
            guard let first = parts.first, first < start, s.isPunctuation(first + 1, 0x3A) else { return false }
            let names = parts.map { s.text($0) }
            return isOpaqueCallee(names[0]) && !names.contains(where: Self.nonCheckingCalls.contains)
        }
        return false
    }

    /// A call defined elsewhere that may judge the trust it is handed: not a control keyword, not an API
    /// that only reads or answers with the trust, not an evaluation (judged by its use), not logging, and
    /// not a method or function of this file (judged by its body).
    private func isOpaqueCallee(_ name: String) -> Bool {
        !Self.controlKeywords.contains(name) && !Self.nonCheckingCalls.contains(name)
            && !Self.evaluationFunctions.contains(name) && !ObjectiveCScanner.isLogFunction(name)
            && scanner.bodyIndicesByName[name] == nil
    }

    /// `challenge`, `serverTrust`, `trust`, `protectionSpace`, `authenticationChallenge`, `secTrust`; not the
    /// constants `NSURLAuthenticationMethodServerTrust` or `NSURLSessionAuthChallenge…`.
    static func isTrustName(_ name: String) -> Bool {
        if name.hasPrefix("NSURL") || name.hasPrefix("kSec") || name.hasPrefix("kCF") { return false }
        let lowered = name.lowercased()
        if lowered == "protectionspace" { return true }
        return lowered.hasSuffix("trust") || lowered.hasSuffix("challenge")
    }

    /// Whether the result of the evaluation call at `index` is used: the call is not a bare statement, or
    /// its `&out` parameter is read after it.
    private func isUsedEvaluation(at index: Int) -> Bool {
        let s = scanner
        if s.text(index).hasPrefix("SecTrustEvaluateAsync") { return true }
        let bare =
            index == 0 || s.isPunctuation(index - 1, 0x3B) || s.isPunctuation(index - 1, 0x7B)
            || s.isPunctuation(index - 1, 0x7D) || s.isPunctuation(index - 1, 0x29) || s.isIdentifier(index - 1, "else")
        if !bare { return true }
        let close = s.matchingClose(index + 1)
        for ampersand in (index + 2)..<max(index + 2, close)
        where s.isPunctuation(ampersand, 0x26) && s.isIdentifier(ampersand + 1) {
            let out = s.text(ampersand + 1)
            var later = close + 1
            var depth = 0
            while later < s.tokens.count, depth >= 0 {
                if s.isPunctuation(later, 0x7B) { depth += 1 }
                if s.isPunctuation(later, 0x7D) { depth -= 1 }
                if s.isIdentifier(later), s.text(later) == out { return true }
                later += 1
            }
        }
        return false
    }

    /// Whether any body called `name` holds a check.
    private mutating func evaluates(_ name: String) -> Bool {
        if let known = evaluatesCache[name] { return known }
        if inProgress.contains(name) { return false }
        inProgress.insert(name)
        var result = false
        for body in scanner.bodyIndicesByName[name] ?? [] where !checks(inBody: body).isEmpty {
            result = true
            break
        }
        inProgress.remove(name)
        evaluatesCache[name] = result
        return result
    }
}
#endif
