#if Tools
/// The high-severity rules for Objective-C sources (`.m`, `.mm`, `.h`), on the tokens of
/// ``ObjectiveCLexer``: SN005 cleartext URLs, SN006 secrets in `NSUserDefaults`, SN007 secrets in
/// `NSLog`/`os_log`/`DDLog…`, SN008 trust evaluation disabled, SN009 `kSecAttrAccessibleAlways…`.
///
/// The rules share their vocabulary and judgements with the Swift rules (``SecretNames``,
/// ``CleartextURL``, ``LoggedSecretFinder``'s harmless members and redacting words) and their wording.
enum ObjectiveCRules {
    /// Audits one Objective-C file, returning active and suppressed findings.
    static func audit(text: String, path: String) -> (active: [AuditFinding], suppressed: [AuditFinding]) {
        var source = text
        let scansSuppressions = text.containsUTF8(SuppressionParser.marker)
        let (findings, comments) = source.withUTF8 { bytes in
            let lexed = ObjectiveCLexer.lex(bytes, scansSuppressions: scansSuppressions)
            var scanner = ObjectiveCScanner(bytes: bytes, lexed: lexed, path: path)
            scanner.run()
            return (scanner.findings, lexed.suppressions)
        }
        return SuppressionParser.apply(comments, to: findings, path: path)
    }
}

/// The rule pass over one file's tokens. Lives only inside `String.withUTF8`.
struct ObjectiveCScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let tokens: [ObjectiveCToken]
    let lexed: ObjectiveCLexer.Output
    let path: String
    private(set) var findings: [AuditFinding] = []
    private var isTestFile: Bool
    /// `static NSString * const NAME = @"value";` and `#define NAME @"value"`.
    private var stringConstants: [String: String]
    /// Top-level brace blocks (method and function bodies), with the name they are called by.
    private var bodies: [Body] = []
    private var bodiesByName: [String: [Int]] = [:]
    /// Bodies holding `[NSURLCredential credentialForTrust:…]`, with the `[` of each.
    private var credentialSites: [(body: Int, bracket: Int)] = []

    struct Body {
        var name: String?
        /// Index of `{` and of the matching `}`.
        var open: Int
        var close: Int
    }

    init(bytes: UnsafeBufferPointer<UInt8>, lexed: ObjectiveCLexer.Output, path: String) {
        self.bytes = bytes
        self.tokens = lexed.tokens
        self.lexed = lexed
        self.path = path
        self.isTestFile = TestCodeDetection.isTestPath(path) || lexed.importsTestModule
        self.stringConstants = lexed.stringDefines
    }

    // MARK: Token helpers

    func text(_ index: Int) -> String {
        let token = tokens[index]
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[Int(token.start)..<Int(token.end)]), as: UTF8.self)
    }

    func isPunctuation(_ index: Int, _ byte: UInt8) -> Bool {
        guard index >= 0, index < tokens.count else { return false }
        let token = tokens[index]
        return token.kind == .punctuation && token.end - token.start == 1 && bytes[Int(token.start)] == byte
    }

    func isOperator(_ index: Int, _ text: StaticString) -> Bool {
        guard index >= 0, index < tokens.count, tokens[index].kind == .punctuation else { return false }
        return equals(index, text)
    }

    func isIdentifier(_ index: Int, _ text: StaticString) -> Bool {
        guard index >= 0, index < tokens.count, tokens[index].kind == .identifier else { return false }
        return equals(index, text)
    }

    func isIdentifier(_ index: Int) -> Bool {
        index >= 0 && index < tokens.count && tokens[index].kind == .identifier
    }

    private func equals(_ index: Int, _ text: StaticString) -> Bool {
        let token = tokens[index]
        let length = Int(token.end - token.start)
        guard length == text.utf8CodeUnitCount else { return false }
        let pattern = text.utf8Start
        let start = Int(token.start)
        for offset in 0..<length where bytes[start + offset] != pattern[offset] { return false }
        return true
    }

    /// The index of the bracket closing the one at `open` (`(`, `[` or `{`), or the last token.
    func matchingClose(_ open: Int) -> Int {
        let opening = bytes[Int(tokens[open].start)]
        let closing: UInt8 = opening == 0x28 ? 0x29 : opening == 0x5B ? 0x5D : 0x7D
        var depth = 0
        var index = open
        while index < tokens.count {
            if isPunctuation(index, opening) {
                depth += 1
            } else if isPunctuation(index, closing) {
                depth -= 1
                if depth == 0 { return index }
            }
            index += 1
        }
        return tokens.count - 1
    }

    /// The `[` of the message send that `index` is directly inside, stopping at a statement boundary.
    func enclosingBracket(of index: Int) -> Int? {
        var depth = 0
        var cursor = index - 1
        while cursor >= 0 {
            if isPunctuation(cursor, 0x5D) || isPunctuation(cursor, 0x29) {
                depth += 1
            } else if isPunctuation(cursor, 0x5B) || isPunctuation(cursor, 0x28) {
                if depth == 0 { return isPunctuation(cursor, 0x5B) ? cursor : nil }
                depth -= 1
            } else if depth == 0,
                isPunctuation(cursor, 0x3B) || isPunctuation(cursor, 0x7B) || isPunctuation(cursor, 0x7D)
            {
                return nil
            }
            cursor -= 1
        }
        return nil
    }

    /// The selector keywords (`name:`) and unary selector of the message send opened at `open`, at its depth.
    func selectorParts(ofBracket open: Int) -> [Int] {
        let close = matchingClose(open)
        var parts: [Int] = []
        var depth = 0
        var index = open + 1
        while index < close {
            if isPunctuation(index, 0x5B) || isPunctuation(index, 0x28) || isPunctuation(index, 0x7B) {
                depth += 1
            } else if isPunctuation(index, 0x5D) || isPunctuation(index, 0x29) || isPunctuation(index, 0x7D) {
                depth -= 1
            } else if depth == 0, isIdentifier(index) {
                let unary =
                    index + 1 == close && index > open + 1
                    && (isIdentifier(index - 1) || isPunctuation(index - 1, 0x5D) || isPunctuation(index - 1, 0x29))
                if isPunctuation(index + 1, 0x3A) || unary {
                    parts.append(index)
                }
            }
            index += 1
        }
        return parts
    }

    // MARK: Reporting

    mutating func report(
        _ rule: AuditRule,
        at index: Int,
        message: String,
        fix: String? = nil
    ) {
        let token = tokens[index]
        let condition = token.condition >= 0 ? lexed.conditions[Int(token.condition)] : nil
        findings.append(
            AuditFinding(
                ruleID: rule.id,
                severity: rule.severity,
                path: path,
                line: Int(token.line),
                column: Int(token.column),
                message: message,
                fix: fix ?? rule.fix
            )
            .inContext(
                TestCodeDetection.isDebugOnly(condition: condition) ? .test : .shipping,
                condition: condition
            )
        )
    }

    // MARK: The pass

    mutating func run() {
        collectStringConstants()
        var braceDepth = 0
        var bodyOpen: Int?
        var bodyName: String?
        var pendingMethodName: String?
        var pendingFunctionName: String?
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            switch token.kind {
            case .string:
                checkCleartextURL(index)
            case .punctuation:
                switch bytes[Int(token.start)] {
                case 0x7B where token.end - token.start == 1:  // {
                    if braceDepth == 0 {
                        bodyOpen = index
                        bodyName = pendingMethodName ?? pendingFunctionName
                    }
                    braceDepth += 1
                case 0x7D:  // }
                    braceDepth = max(0, braceDepth - 1)
                    if braceDepth == 0, let open = bodyOpen {
                        if let name = bodyName { bodiesByName[name, default: []].append(bodies.count) }
                        bodies.append(Body(name: bodyName, open: open, close: index))
                        bodyOpen = nil
                        pendingMethodName = nil
                        pendingFunctionName = nil
                    }
                case 0x3B where braceDepth == 0:  // ;
                    pendingMethodName = nil
                    pendingFunctionName = nil
                case 0x2D, 0x2B:  // - or + starting a method definition
                    if braceDepth == 0, token.end - token.start == 1, isPunctuation(index + 1, 0x28) {
                        let close = matchingClose(index + 1)
                        if isIdentifier(close + 1) { pendingMethodName = text(close + 1) }
                    }
                case 0x40:  // @interface X : XCTestCase, @import XCTest;
                    if isIdentifier(index + 1, "interface"), isPunctuation(index + 3, 0x3A),
                        isIdentifier(index + 4, "XCTestCase")
                    {
                        isTestFile = true
                    } else if isIdentifier(index + 1, "import"), isIdentifier(index + 2),
                        TestCodeDetection.testModules.contains(text(index + 2))
                    {
                        isTestFile = true
                    }
                default:
                    break
                }
            case .identifier:
                if braceDepth == 0, pendingMethodName == nil, isPunctuation(index + 1, 0x28) {
                    pendingFunctionName = text(index)
                }
                checkIdentifier(index, bodyIndex: bodyOpen == nil ? nil : bodies.count)
            default:
                break
            }
            index += 1
        }
        finishCredentialSites()
        if isTestFile {
            findings = findings.map { $0.inContext(.test, condition: $0.condition) }
        }
    }

    /// `static NSString * const NAME = @"value";`, `NSString *NAME = @"value";`: `NAME` → `value`.
    private mutating func collectStringConstants() {
        var index = 1
        while index + 3 < tokens.count {
            if isIdentifier(index), isPunctuation(index + 1, 0x3D), tokens[index + 2].kind == .string,
                isPunctuation(index + 3, 0x3B), isIdentifier(index - 1, "const") || isPunctuation(index - 1, 0x2A)
            {
                stringConstants[text(index)] = literal(index + 2)
            }
            index += 1
        }
    }

    func literal(_ index: Int) -> String { text(index) }

    // MARK: Identifiers

    private static let loggerLevels: Set<String> = [
        "", "Verbose", "Debug", "Info", "Warn", "Warning", "Error", "Trace", "Notice", "Fault", "Critical",
    ]
    private static let osLogFunctions: Set<String> = [
        "os_log", "os_log_info", "os_log_debug", "os_log_error", "os_log_fault", "os_log_with_type",
    ]

    /// `NSLog`, `NSLogv`, `os_log…`, and prefixed logging macros: one to five capitals, `Log`, and an
    /// optional level (`DDLogVerbose`, `DDLogError`, `CLSLog`, `RCTLogWarn`).
    static func isLogFunction(_ name: String) -> Bool {
        if name == "NSLogv" || osLogFunctions.contains(name) { return true }
        let scalars = Array(name.utf8)
        var capitals = 0
        while capitals < scalars.count, scalars[capitals] >= 0x41, scalars[capitals] <= 0x5A { capitals += 1 }
        // The run of capitals ends with the L of "Log": NSLog, DDLogInfo, MXLogDebug.
        guard (2...6).contains(capitals), scalars.count >= capitals + 2, scalars[capitals - 1] == 0x4C,
            scalars[capitals] == 0x6F, scalars[capitals + 1] == 0x67
        else { return false }
        return loggerLevels.contains(String(decoding: scalars[(capitals + 2)...], as: UTF8.self))
    }

    private mutating func checkIdentifier(_ index: Int, bodyIndex: Int?) {
        let token = tokens[index]
        let length = token.end - token.start
        // Every name below is at least 5 bytes; most identifiers are shorter or start otherwise.
        guard length >= 5 else { return }
        let name = text(index)
        switch name {
        case "kSecAttrAccessibleAlways", "kSecAttrAccessibleAlwaysThisDeviceOnly":
            report(
                .keychainAccessibleAlways,
                at: index,
                message: "\(name) keeps the Keychain item readable while the device is locked"
            )
        case "allowInvalidCertificates", "setAllowInvalidCertificates":
            if assignedValue(after: index) == true {
                report(
                    .trustEvaluationDisabled,
                    at: index,
                    message: "allowInvalidCertificates = YES accepts any certificate, disabling TLS authentication"
                )
            }
        case "validatesDomainName", "setValidatesDomainName":
            if assignedValue(after: index) == false {
                report(
                    .trustEvaluationDisabled,
                    at: index,
                    message: "validatesDomainName = NO accepts a valid certificate issued for any other host"
                )
            }
        case "setAllowsAnyHTTPSCertificate":
            if assignedValue(after: index) == true {
                report(
                    .trustEvaluationDisabled,
                    at: index,
                    message: "setAllowsAnyHTTPSCertificate:YES accepts any certificate for the host, "
                        + "disabling TLS authentication"
                )
            }
        case "kCFStreamSSLValidatesCertificateChain":
            if streamSettingIsFalse(index) {
                report(
                    .trustEvaluationDisabled,
                    at: index,
                    message: "kCFStreamSSLValidatesCertificateChain = false accepts any certificate chain, "
                        + "disabling TLS authentication"
                )
            }
        case "SecTrustSetExceptions":
            if isPunctuation(index + 1, 0x28) {
                report(
                    .trustEvaluationDisabled,
                    at: index,
                    message: "SecTrustSetExceptions makes a failed trust evaluation succeed"
                )
            }
        case "credentialForTrust":
            if isPunctuation(index + 1, 0x3A), let body = bodyIndex, let bracket = enclosingBracket(of: index) {
                credentialSites.append((body, bracket))
            }
        case "setObject", "setValue":
            if isPunctuation(index + 1, 0x3A) { checkUserDefaultsWrite(index) }
        default:
            if isPunctuation(index + 1, 0x28), Self.isLogFunction(name) { checkLogging(index, name: name) }
        }
    }

    /// The boolean after `= ` or `:` (`YES`/`true`/`1` or `NO`/`false`/`0`), nil for anything else.
    private func assignedValue(after index: Int) -> Bool? {
        guard isPunctuation(index + 1, 0x3D) || isPunctuation(index + 1, 0x3A) else { return nil }
        var value = index + 2
        if isPunctuation(value, 0x40) { value += 1 }  // @YES
        guard value < tokens.count else { return nil }
        switch text(value) {
        case "YES", "true", "TRUE", "1", "kCFBooleanTrue": return true
        case "NO", "false", "FALSE", "0", "kCFBooleanFalse": return false
        default: return nil
        }
    }

    /// `kCFStreamSSLValidatesCertificateChain` bound to `kCFBooleanFalse`, `@NO`, `NO` or `false` in a
    /// dictionary literal (`key: value`), `CFDictionarySetValue(d, key, value)` or `setObject:@NO forKey:key`.
    private func streamSettingIsFalse(_ index: Int) -> Bool {
        func isFalse(_ candidate: Int) -> Bool {
            isIdentifier(candidate, "kCFBooleanFalse") || isIdentifier(candidate, "NO")
                || isIdentifier(candidate, "false")
        }
        if isPunctuation(index + 1, 0x3A) || isPunctuation(index + 1, 0x2C) {
            var cursor = index + 2
            while cursor < min(tokens.count, index + 10) {
                if isPunctuation(cursor, 0x2C) || isPunctuation(cursor, 0x3B) || isPunctuation(cursor, 0x7D)
                    || isPunctuation(cursor, 0x5D)
                {
                    break
                }
                if isFalse(cursor) { return true }
                cursor += 1
            }
        }
        // [settings setObject:@NO forKey:(id)kCFStreamSSLValidatesCertificateChain]
        var cursor = index - 1
        var sawForKey = false
        while cursor >= max(0, index - 10) {
            if isPunctuation(cursor, 0x3B) || isPunctuation(cursor, 0x7B) || isPunctuation(cursor, 0x7D) { break }
            if isIdentifier(cursor, "forKey") { sawForKey = true }
            if sawForKey, isFalse(cursor) { return true }
            cursor -= 1
        }
        return false
    }

    // MARK: SN005

    /// `@"http://host/…"` and `"http://host/…"`, with the host judged by ``CleartextURL/nonLocalHost(in:)``.
    /// A format directive (`%@`) stands for an interpolation: the host must be complete before it.
    private mutating func checkCleartextURL(_ index: Int) {
        let token = tokens[index]
        let start = Int(token.start)
        guard token.end - token.start >= 8 else { return }
        let lowered = (0..<7).map { bytes[start + $0] | 0x20 }
        guard lowered.elementsEqual("http://".utf8) else { return }
        let value = text(index)
        var prefix = Substring(value)
        var formatted = false
        if let percent = value.firstIndex(of: "%") {
            prefix = value[..<percent]
            formatted = true
        }
        if formatted, !prefix.dropFirst(7).contains(where: { $0 == "/" || $0 == ":" || $0 == "?" }) { return }
        guard let host = CleartextURL.nonLocalHost(in: String(prefix)) else { return }
        report(.cleartextHTTPURL, at: index, message: "cleartext URL to \(host) can be read and altered on the network")
    }

    // MARK: SN006

    /// `[<defaults> setObject:value forKey:key]` / `setValue:forKey:` on a receiver whose text mentions
    /// "defaults" (`[NSUserDefaults standardUserDefaults]`, `[[NSUserDefaults alloc] initWithSuiteName:…]`,
    /// `sharedDefaults`), when the key (a literal, or a constant followed to its literal) or the stored
    /// variable names a secret. A value that is a flag or a number (`@YES`, `@(count)`, `@3`) is not a secret.
    private mutating func checkUserDefaultsWrite(_ keyword: Int) {
        guard let open = enclosingBracket(of: keyword) else { return }
        var mentionsDefaults = false
        var cursor = open + 1
        while cursor < keyword {
            if isIdentifier(cursor), isPunctuation(cursor + 1, 0x3A), enclosingBracket(of: cursor) == open {
                return  // setObject: is not the first keyword of this message
            }
            if isIdentifier(cursor), text(cursor).lowercased().containsUTF8("defaults") { mentionsDefaults = true }
            cursor += 1
        }
        guard mentionsDefaults else { return }
        let close = matchingClose(open)
        guard
            let forKey = (keyword + 2..<max(keyword + 2, close)).first(where: {
                isIdentifier($0, "forKey") && isPunctuation($0 + 1, 0x3A)
            })
        else { return }
        let keyName = keyText(from: forKey + 2, to: close)
        let valueName = storedName(from: keyword + 2, to: forKey)
        // Push-notification device tokens are an address, not an account credential (as for Swift).
        guard let secret = [keyName, valueName].compactMap({ $0 }).first(where: { SecretNames.isSecret($0) }),
            !SecretNames.isPushToken(secret)
        else {
            return
        }
        report(
            .secretInUserDefaults,
            at: open,
            message: "'\(secret)' is written to NSUserDefaults, an unencrypted plist in the app container"
        )
    }

    /// The key's literal, the literal a key constant stands for, or the constant's name.
    private func keyText(from start: Int, to end: Int) -> String? {
        if end == start + 1, tokens[start].kind == .string { return literal(start) }
        guard let name = trailingName(from: start, to: end) else { return nil }
        return stringConstants[name] ?? name
    }

    /// The stored variable's name (`token`, `self.accessToken`, `_session.refreshToken`); nil for a literal,
    /// a number or a boxed flag (`@YES`, `@(enabled)`).
    private func storedName(from start: Int, to end: Int) -> String? {
        guard start < end, !isPunctuation(start, 0x40) else { return nil }
        return trailingName(from: start, to: end)
    }

    /// The last identifier of a plain chain `a.b->c` (optionally cast: `(id)a`) between `start` and `end`.
    private func trailingName(from start: Int, to end: Int) -> String? {
        var first = start
        if isPunctuation(first, 0x28) {  // (id)name, (__bridge id)name
            let close = matchingClose(first)
            guard close < end else { return nil }
            first = close + 1
        }
        guard first < end, isIdentifier(first) else { return nil }
        var index = first
        while index + 2 <= end, isPunctuation(index + 1, 0x2E) || isOperator(index + 1, "->"), isIdentifier(index + 2) {
            index += 2
        }
        guard index + 1 == end else { return nil }
        return text(index)
    }

    // MARK: SN007

    private static let objectiveCHarmlessMembers: Set<String> = ["hash", "length", "isEqualToString", "isEqual"]
    /// Members that carry the secret itself rather than a fact about it.
    private static let valueMembers: Set<String> = [
        "value", "stringValue", "description", "debugDescription", "data", "rawValue", "string", "UTF8String",
        "bytes", "base64EncodedString", "absoluteString",
    ]

    /// `NSLog`/`os_log`/`DDLog…(format, args…)` whose arguments reference a secret-named identifier (not
    /// only its length, hash or presence, nor inside a redacting call), `allHTTPHeaderFields`, or read an
    /// `@"Authorization"` header. `os_log` formats that only use `%{private}`/`%{sensitive}` are not reported.
    private mutating func checkLogging(_ function: Int, name: String) {
        let open = function + 1
        let close = matchingClose(open)
        if Self.osLogFunctions.contains(name),
            let format = (open + 1..<max(open + 1, close)).first(where: { tokens[$0].kind == .string }).map(literal),
            format.contains("%{"), !format.contains("%{public}")
        {
            return
        }
        var enclosing: [Int] = []
        var index = open + 1
        while index < close {
            let token = tokens[index]
            if isPunctuation(index, 0x28) || isPunctuation(index, 0x5B) {
                enclosing.append(index)
            } else if isPunctuation(index, 0x29) || isPunctuation(index, 0x5D) {
                _ = enclosing.popLast()
            } else if token.kind == .string, index != open + 1, literal(index).lowercased() == "authorization" {
                reportLogged("Authorization header", by: name, at: function)
                return
            } else if token.kind == .identifier {
                let identifier = text(index)
                if identifier == "allHTTPHeaderFields"
                    || (SecretNames.isSecret(identifier, includeAuthorization: true)
                        && isLoggedValue(index, enclosing: enclosing))
                {
                    reportLogged(identifier, by: name, at: function)
                    return
                }
            }
            index += 1
        }
    }

    private mutating func reportLogged(_ secret: String, by function: String, at index: Int) {
        report(
            .secretInLogs,
            at: index,
            message: "\(function) writes '\(secret)' to the log",
            fix: Self.osLogFunctions.contains(function)
                ? "Remove the secret from the message or log it with a %{private} placeholder."
                : "Do not log secrets; log whether one is present, or a redacted form."
        )
    }

    /// Whether the secret-named identifier at `index` is logged as a value: not a selector keyword, not
    /// a presence test (`token != nil`, `token ? … : …`, `!token`), not only a harmless member
    /// (`token.length`, `[token hash]`), and not inside a redacting call (`SHA256(token)`, `[self mask:token]`).
    private func isLoggedValue(_ index: Int, enclosing: [Int]) -> Bool {
        let innermostIsBracket = enclosing.last.map { isPunctuation($0, 0x5B) } ?? false
        if isPunctuation(index + 1, 0x3A), innermostIsBracket { return false }  // selector keyword
        if isPunctuation(index + 1, 0x3F), !isPunctuation(index + 2, 0x3A) { return false }  // token ? a : b
        if isOperator(index + 1, "==") || isOperator(index + 1, "!=") || isOperator(index + 1, "&&")
            || isOperator(index + 1, "||") || isPunctuation(index - 1, 0x21) || isOperator(index - 1, "&&")
            || isOperator(index - 1, "||") || isOperator(index - 1, "==") || isOperator(index - 1, "!=")
        {
            return false
        }
        // `credentials.userId`, `token.length`: a member names what is logged, unless it carries the
        // value itself (`cookie.value`); a secret-named member (`session.accessToken`) is judged on its own.
        if isPunctuation(index + 1, 0x2E) || isOperator(index + 1, "->"), isIdentifier(index + 2),
            !Self.valueMembers.contains(text(index + 2))
        {
            return false
        }
        if innermostIsBracket, let open = enclosing.last, isReceiver(index, of: open) {
            if let selector = selectorParts(ofBracket: open).first, isHarmless(text(selector)) { return false }
        }
        for open in enclosing {
            if isPunctuation(open, 0x28), isIdentifier(open - 1), isRedacting(text(open - 1)) { return false }
            if isPunctuation(open, 0x5B), selectorParts(ofBracket: open).contains(where: { isRedacting(text($0)) }) {
                return false
            }
        }
        return true
    }

    private func isHarmless(_ member: String) -> Bool {
        LoggedSecretFinder.harmlessMembers.contains(member) || Self.objectiveCHarmlessMembers.contains(member)
            || isRedacting(member)
    }

    /// A redacting call (``LoggedSecretFinder/redactingWords``), or a helper that renders a value for the
    /// log (`[MXKTools logForPushToken:token]` in element-ios truncates the token).
    private func isRedacting(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return LoggedSecretFinder.redactingWords.contains(where: lowered.contains) || lowered.hasPrefix("logfor")
            || lowered.contains("forlog")
    }

    /// Whether `index` is in the receiver chain (`token`, `self.token`) right after the `[` at `open`.
    private func isReceiver(_ index: Int, of open: Int) -> Bool {
        var cursor = open + 1
        while cursor < index {
            guard isIdentifier(cursor), isPunctuation(cursor + 1, 0x2E) || isOperator(cursor + 1, "->") else {
                return false
            }
            cursor += 2
        }
        return cursor == index && !isPunctuation(index + 1, 0x3A)
    }

    // MARK: SN008 challenge handlers

    /// Judges every `[NSURLCredential credentialForTrust:…]` in a body that answers a challenge with it
    /// (`NSURLSessionAuthChallengeUseCredential` or `useCredential:forAuthenticationChallenge:`): it is
    /// reported unless the trust is checked in the same block or an enclosing one (see ``checks(in:)``).
    private mutating func finishCredentialSites() {
        guard !credentialSites.isEmpty else { return }
        var evaluation = ObjectiveCTrustEvaluation(scanner: self)
        for (bodyIndex, bracket) in credentialSites where bodyIndex < bodies.count {
            let body = bodies[bodyIndex]
            let answers = (body.open..<body.close).contains {
                isIdentifier($0, "NSURLSessionAuthChallengeUseCredential")
                    || (isIdentifier($0, "useCredential") && isPunctuation($0 + 1, 0x3A))
            }
            guard answers else { continue }
            let blocks = evaluation.blocks(of: bodyIndex)
            let checkBlocks = evaluation.checks(inBody: bodyIndex)
            var block: Int? = blocks[bracket]
            var checked = false
            while let current = block {
                if checkBlocks.contains(current) {
                    checked = true
                    break
                }
                block = evaluation.parents[bodyIndex]?[current] ?? nil
            }
            if !checked {
                report(
                    .trustEvaluationDisabled,
                    at: bracket,
                    message: "[NSURLCredential credentialForTrust:] answers the challenge without evaluating "
                        + "the server trust on this path"
                )
            }
        }
    }

    // MARK: Body lookup for ObjectiveCTrustEvaluation

    var allBodies: [Body] { bodies }
    var bodyIndicesByName: [String: [Int]] { bodiesByName }
}
#endif
