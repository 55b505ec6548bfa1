import Foundation

/// Name and value heuristics shared by the Swift, property-list and xcconfig rules.
enum NameWords {
    /// Splits an identifier or key into lowercase words at camelCase humps, `_`, `-`, `.`, spaces and digits
    /// boundaries: `refreshTokenV2` → `["refresh", "token", "v", "2"]`, `API_KEY` → `["api", "key"]`,
    /// `URLSessionID` → `["url", "session", "id"]`.
    static func split(_ name: String) -> [String] {
        var words: [String] = []
        var current: [Character] = []
        let chars = Array(name)
        func flush() {
            if !current.isEmpty { words.append(String(current).lowercased()) }
            current.removeAll(keepingCapacity: true)
        }
        for (index, char) in chars.enumerated() {
            if !(char.isLetter || char.isNumber) {
                flush()
                continue
            }
            if let last = current.last {
                let next: Character? = index + 1 < chars.count ? chars[index + 1] : nil
                let lowerToUpper = last.isLowercase && char.isUppercase
                let acronymEnd = last.isUppercase && char.isUppercase && (next?.isLowercase ?? false)
                let digitBoundary = last.isNumber != char.isNumber
                if lowerToUpper || acronymEnd || digitBoundary { flush() }
            }
            current.append(char)
        }
        flush()
        return words
    }
}

/// Decides whether a name refers to a secret.
///
/// Matching is word-based (see ``NameWords/split(_:)``), so `tokenizer` or `passwordless` do not match
/// `token` / `password`. Names whose last word describes the secret rather than holding it (`tokenExpiry`,
/// `passwordLength`, `tokenHeaderName`, `apiKeyURL`) and boolean-style names (`hasToken`, `isPasswordSet`)
/// are not secret names.
enum SecretNames {
    /// Single words that mark a secret.
    static let secretWords: Set<String> = [
        "token", "tokens", "password", "passwords", "passwd", "passcode", "secret", "secrets", "credential",
        "credentials", "jwt", "bearer", "apikey", "privatekey", "sessionid", "accesstoken", "refreshtoken",
        "authtoken", "clientsecret", "pwd",
    ]
    /// Two-word sequences that mark a secret.
    static let secretPairs: [(String, String)] = [
        ("api", "key"), ("private", "key"), ("session", "id"), ("secret", "key"), ("access", "key"),
        ("signing", "key"), ("encryption", "key"),
    ]
    /// Last words that describe a secret instead of holding one.
    static let descriptorSuffixes: Set<String> = [
        "name", "names", "header", "field", "label", "count", "length", "url", "uri", "path", "type", "expiry",
        "expiration", "expires", "date", "prompt", "hint", "placeholder", "error", "errors", "validator",
        "policy", "endpoint", "kind", "id", "identifier", "format", "style", "key", "keys", "min", "max",
        "timeout", "interval", "lifetime", "ttl", "provider", "store", "storage", "manager", "service",
        "handler", "request", "response", "view", "controller", "button", "text", "title", "message", "regex",
        "pattern", "requirement", "requirements", "rules", "strength", "visible", "hidden", "changed",
    ]
    /// First words of boolean-style names.
    static let booleanPrefixes: Set<String> = [
        "is", "has", "should", "did", "will", "can", "needs", "show", "shows", "enable", "enabled", "uses",
        "requires", "allow", "allows", "reset", "forgot", "forgotten", "validate", "verify", "check",
    ]
    static let passwordWords: Set<String> = ["password", "passwords", "passwd", "passcode", "pwd"]

    /// Whether `name` names a secret. With `includeAuthorization`, `authorization` counts (used for logs).
    static func isSecret(_ name: String, includeAuthorization: Bool = false) -> Bool {
        let words = NameWords.split(name)
        return isSecret(words: words, includeAuthorization: includeAuthorization)
    }

    static func isSecret(words: [String], includeAuthorization: Bool = false) -> Bool {
        guard let first = words.first, let last = words.last else { return false }
        if words.count > 1, booleanPrefixes.contains(first) { return false }
        var matchEnd: Int?
        for (index, word) in words.enumerated() {
            if secretWords.contains(word) || (includeAuthorization && word == "authorization") {
                matchEnd = index
            }
            if index + 1 < words.count,
                secretPairs.contains(where: { $0.0 == word && $0.1 == words[index + 1] })
            {
                matchEnd = index + 1
            }
        }
        guard let end = matchEnd else { return false }
        // The secret word itself may be "key"/"id" (apiKey, sessionID); a descriptor after it disqualifies.
        if end == words.count - 1 { return true }
        return !descriptorSuffixes.contains(last)
    }

    /// Whether `name` names a password (used by the weak-hash rule and literal checks).
    static func isPassword(_ name: String) -> Bool {
        let words = NameWords.split(name)
        guard isSecret(words: words), let last = words.last else { return false }
        return words.contains(where: passwordWords.contains) && !descriptorSuffixes.contains(last)
            || passwordWords.contains(last)
    }

    /// Words naming key material for the insecure-randomness rule.
    static let keyMaterialWords: Set<String> = [
        "key", "keys", "nonce", "iv", "salt", "token", "secret", "otp", "password", "passcode", "pin", "seed",
    ]

    /// Whether `name` names key material (key, nonce, IV, salt, token, secret, OTP…).
    static func isKeyMaterial(_ name: String) -> Bool {
        let words = NameWords.split(name)
        guard let last = words.last else { return false }
        if words.count > 1, booleanPrefixes.contains(words[0]) { return false }
        if keyMaterialWords.contains(last) { return true }
        return words.contains(where: keyMaterialWords.contains) && !descriptorSuffixes.contains(last)
            && !["index", "count", "length", "path"].contains(last)
    }
}

/// Decides whether a string literal looks like a real credential.
enum CredentialLiteral {
    /// Minimum length for the entropy test.
    static let minimumLength = 16
    /// Minimum Shannon entropy, in bits per character, for the entropy test.
    static let minimumEntropy = 3.5

    /// Shannon entropy of `text` in bits per character.
    static func entropy(_ text: String) -> Double {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return 0 }
        var counts = [Int](repeating: 0, count: 256)
        for byte in bytes { counts[Int(byte)] += 1 }
        let total = Double(bytes.count)
        var result = 0.0
        for count in counts where count > 0 {
            let probability = Double(count) / total
            result -= probability * log2(probability)
        }
        return result
    }

    /// The kind of well-known credential `text` is, if it matches a known key format.
    static func knownFormat(_ text: String) -> String? {
        func rest(after prefix: String) -> Substring? {
            text.hasPrefix(prefix) ? text.dropFirst(prefix.count) : nil
        }
        func isAlnum(_ c: Character) -> Bool { c.isASCII && (c.isLetter || c.isNumber) }
        if text.contains("-----BEGIN"), text.contains("PRIVATE KEY-----") { return "PEM private key" }
        for prefix in ["sk_live_", "rk_live_", "sk_test_"] {
            if let body = rest(after: prefix), body.count >= 16, body.allSatisfy(isAlnum) { return "Stripe secret key" }
        }
        for prefix in ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"] {
            if let body = rest(after: prefix), body.count >= 30, body.allSatisfy(isAlnum) { return "GitHub token" }
        }
        if let body = rest(after: "github_pat_"), body.count >= 30 { return "GitHub token" }
        for prefix in ["AKIA", "ASIA"] {
            if let body = rest(after: prefix), body.count == 16,
                body.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) })
            {
                return "AWS access key ID"
            }
        }
        if let body = rest(after: "AIza"), body.count == 35,
            body.allSatisfy({ isAlnum($0) || $0 == "_" || $0 == "-" })
        {
            return "Google API key"
        }
        for prefix in ["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-"] {
            if let body = rest(after: prefix), body.count >= 10 { return "Slack token" }
        }
        return nil
    }

    /// Whether `text`, bound to a secret name, looks like a real secret rather than a placeholder, label or
    /// file name. Password names accept literals of >= 6 characters without spaces; other names need
    /// >= 16 characters, Shannon entropy >= 3.5 bits/character, and both letters and digits.
    static func isCredential(_ text: String, passwordName: Bool) -> Bool {
        if knownFormat(text) != nil { return true }
        if text.contains(where: { $0 == " " || $0 == "\n" || $0 == "\t" }) { return false }
        if text.hasPrefix("$(") || text.hasPrefix("${") { return false }
        if text.contains("://") || looksLikeFileName(text) { return false }
        let lowered = text.lowercased()
        let placeholders = ["your", "placeholder", "changeme", "example", "xxxx", "<", "todo", "replace"]
        if placeholders.contains(where: lowered.contains) { return false }
        if passwordName { return text.count >= 6 }
        let hasLetter = text.contains { $0.isASCII && $0.isLetter }
        let hasDigit = text.contains { $0.isASCII && $0.isNumber }
        return text.count >= minimumLength && hasLetter && hasDigit && entropy(text) >= minimumEntropy
    }

    /// `name.pem`, `ca-key.p12`, `config.json`: a short lowercase extension after the last dot.
    static func looksLikeFileName(_ text: String) -> Bool {
        guard let dot = text.lastIndex(of: "."), dot != text.startIndex else { return false }
        let ext = text[text.index(after: dot)...]
        return (1...5).contains(ext.count) && ext.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber) }
            && ext.contains { $0.isLetter }
    }
}

/// Cleartext URL detection shared by all file kinds.
enum CleartextURL {
    /// Prefixes of XML namespace / DTD URIs that are identifiers, not network endpoints.
    static let namespacePrefixes = [
        "http://www.w3.org/", "http://schemas.", "http://ns.adobe.com/", "http://purl.org/", "http://xmlns.com/",
        "http://www.apple.com/dtds/", "http://json-schema.org/", "http://docs.oasis-open.org/",
    ]

    /// If `text` starts with a cleartext `http://` URL to a literal, non-local host, returns the host.
    /// Returns nil otherwise (including `"http://"` alone, whose host is unknown).
    static func nonLocalHost(in text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= 7 else { return nil }
        let lowered = trimmed.lowercased()
        guard lowered.hasPrefix("http://") else { return nil }
        if namespacePrefixes.contains(where: lowered.hasPrefix) { return nil }
        var authority = lowered.dropFirst(7).prefix(while: { !"/?#".contains($0) })
        if authority.isEmpty { return nil }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host: Substring
        if authority.hasPrefix("[") {
            host = authority.dropFirst().prefix(while: { $0 != "]" })
        } else {
            host = authority.prefix(while: { $0 != ":" })
        }
        if host.hasSuffix(".") { host = host.dropLast() }
        if host.isEmpty { return nil }
        return LocalHosts.isLocal(String(host)) ? nil : String(host)
    }
}

/// Hosts that never leave the device or the local link.
enum LocalHosts {
    /// `localhost`, `*.localhost`, `127.0.0.0/8`, `::1` and `*.local` (mDNS).
    static func isLocal(_ rawHost: String) -> Bool {
        var host = rawHost.lowercased()
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host.hasSuffix(".localhost") || host.hasSuffix(".local") { return true }
        if host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        if octets.count == 4, octets[0] == "127", octets.allSatisfy({ UInt8($0) != nil }) { return true }
        return false
    }
}

extension String {
    /// The lines of the text, split at each LF byte, without a CR before it: a CR LF pair is one
    /// `Character`, which a split on `"\n"` would never find.
    var lines: [Substring] {
        self.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            Substring(line.last == 0x0D ? line.dropLast() : line)
        }
    }

    /// Whether `needle`'s UTF-8 bytes occur in this string's, compared byte by byte: without the
    /// Foundation overload of `contains`, which goes through `NSString` and UTF-16 on Linux and was a
    /// measurable part of auditing each file.
    func containsUTF8(_ needle: String) -> Bool {
        let pattern = Array(needle.utf8)
        guard let first = pattern.first else { return true }
        var text = self
        return text.withUTF8 { bytes in
            guard bytes.count >= pattern.count else { return false }
            var index = 0
            let last = bytes.count - pattern.count
            while index <= last {
                if bytes[index] == first, bytes[index..<index + pattern.count].elementsEqual(pattern) { return true }
                index += 1
            }
            return false
        }
    }
}
