#if Tools
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
        ("signing", "key"), ("encryption", "key"), ("auth", "code"), ("authorization", "code"),
    ]
    /// Words that mark a secret in what is logged (with `includeAuthorization`): an
    /// Authorization header's value, a cookie's value.
    static let logOnlySecretWords: Set<String> = ["authorization", "cookie", "cookies"]
    /// Last words that describe a secret instead of holding one.
    static let descriptorSuffixes: Set<String> = [
        "name", "names", "header", "field", "label", "count", "length", "url", "uri", "path", "type", "expiry",
        "expiration", "expires", "date", "prompt", "hint", "placeholder", "error", "errors", "validator",
        "policy", "endpoint", "kind", "id", "identifier", "format", "style", "key", "keys", "min", "max",
        "timeout", "interval", "lifetime", "ttl", "provider", "store", "storage", "manager", "service",
        "handler", "request", "response", "view", "controller", "button", "text", "title", "message", "regex",
        "pattern", "requirement", "requirements", "rules", "strength", "visible", "hidden", "changed",
        "hash", "hashes", "digest", "fingerprint", "status", "state", "present", "exists", "missing", "valid",
        "invalid", "expired", "saved", "stored", "available", "icon", "image", "cell", "row", "section",
        "notification", "observer", "delegate", "changes", "tag", "tags", "registry", "enabled", "disabled",
        "attempt", "attempts", "failures", "retries",
    ]
    /// First words of names that hold something derived from the secret, not the secret:
    /// `hashedToken`, `maskedPassword`, `redactedAuthorization`.
    static let derivedPrefixes: Set<String> = [
        "hashed", "hash", "masked", "redacted", "obfuscated", "truncated", "sanitized", "sha", "md5", "digest",
    ]
    /// Words that, just before `token`, make it something other than a credential: CloudKit's
    /// server change token, a sync or page token, a chat room's token (Nextcloud Talk), a
    /// cancellation token, a lexer's token.
    static let nonCredentialTokenQualifiers: Set<String> = [
        "change", "sync", "page", "paging", "pagination", "continuation", "cancellation", "cancel", "next",
        "previous", "prev", "cursor", "room", "conversation", "chat", "call", "history", "idempotency", "lexer",
        "parser", "syntax", "word", "resume", "anchor", "stream", "event", "observation", "observer", "listener",
        "subscription", "notification", "invalidation",
    ]
    /// Words that, just before `session id`, make it a media or signalling session: WebRTC, SIP,
    /// a call — not a login session.
    static let nonCredentialSessionQualifiers: Set<String> = [
        "rtc", "webrtc", "signaling", "signalling", "peer", "call", "media", "sip", "janus", "stream", "room",
        "conference", "capture", "analytics", "tracking", "audio", "video", "playback", "download", "upload", "offer",
        "mcu", "megolm", "olm", "encryption",
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
        if words.count > 1, booleanPrefixes.contains(first) || derivedPrefixes.contains(first) { return false }
        var matchEnd: Int?
        for (index, word) in words.enumerated() {
            let before = index > 0 ? words[index - 1] : ""
            if secretWords.contains(word) || (includeAuthorization && logOnlySecretWords.contains(word)) {
                let qualified =
                    (word == "token" || word == "tokens") && nonCredentialTokenQualifiers.contains(before)
                    || word == "sessionid" && nonCredentialSessionQualifiers.contains(before)
                if !qualified { matchEnd = index }
            }
            if index + 1 < words.count,
                secretPairs.contains(where: { $0.0 == word && $0.1 == words[index + 1] }),
                !(word == "session" && nonCredentialSessionQualifiers.contains(before))
            {
                matchEnd = index + 1
            }
        }
        guard let end = matchEnd else { return false }
        // The secret word itself may be "key"/"id" (apiKey, sessionID); a descriptor after it disqualifies.
        if end == words.count - 1 { return true }
        return !descriptorSuffixes.contains(last)
    }

    /// Words that, before `token`, name an address for push notifications: where a device can be
    /// reached, not a credential to an account. Kept out of UserDefaults findings (defaults stay on
    /// the device) but not out of log findings (logs leave it).
    static let pushTokenQualifiers: Set<String> = ["device", "push", "apns", "voip", "fcm", "pushkit", "remote"]

    /// Whether `name` names a push-notification device token (`apnsDeviceToken`, `pushToken`).
    static func isPushToken(_ name: String) -> Bool {
        let words = NameWords.split(name)
        guard let index = words.lastIndex(where: { $0 == "token" || $0 == "tokens" }), index > 0 else { return false }
        return pushTokenQualifiers.contains(words[index - 1])
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
    /// Keys that are public by design: PostHog project keys, Stripe publishable keys.
    static let publicKeyPrefixes = ["phc_", "pk_live_", "pk_test_"]
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
        if isIdentifier(text, boundTo: nil) { return false }
        if SecretNames.isSecret(text) && NameWords.split(text).count == 1 { return false }  // "password", "Token"
        if publicKeyPrefixes.contains(where: text.hasPrefix) { return false }
        let lowered = text.lowercased()
        let placeholders = ["your", "placeholder", "changeme", "example", "xxxx", "<", "todo", "replace"]
        if placeholders.contains(where: lowered.contains) { return false }
        if passwordName { return text.count >= 6 }
        let hasLetter = text.contains { $0.isASCII && $0.isLetter }
        let hasDigit = text.contains { $0.isASCII && $0.isNumber }
        return text.count >= minimumLength && hasLetter && hasDigit && entropy(text) >= minimumEntropy
    }

    /// Whether `text` is an identifier rather than a secret: the key's own name (`"access_token"`
    /// bound to `accessToken`), a reverse-DNS identifier (`"com.example.app.refreshToken"`), or
    /// words joined by case, `_`, `-` or `.` that name something (`"passwordTextField"`,
    /// `"login-password-field"`), as accessibility identifiers and storage keys are. A value
    /// with a digit-only or mixed word (`"hunter2"`, `"Passw0rd!"`) is not an identifier.
    static func isIdentifier(_ text: String, boundTo name: String?) -> Bool {
        let words = NameWords.split(text)
        if let name, !words.isEmpty {
            let nameWords = NameWords.split(name)
            if words == nameWords || words.suffix(nameWords.count) == nameWords[...] { return true }
        }
        let isReverseDNS =
            text.split(separator: ".", omittingEmptySubsequences: false).count >= 3
            && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
            && text.first?.isLetter == true && !text.hasSuffix(".")
            && text.split(separator: ".").allSatisfy { $0.first?.isLetter == true }
        if isReverseDNS { return true }
        let separated =
            text.contains { "_-.".contains($0) } || text.contains { $0.isUppercase } && text.contains { $0.isLowercase }
        guard separated, words.count >= 2 else { return false }
        // Every word alphabetic and a real word's length, and the text only letters and separators.
        let wordLike = words.allSatisfy { $0.count >= 2 && $0.allSatisfy(\.isLetter) }
        let plain = text.allSatisfy { $0.isASCII && ($0.isLetter || "_-.".contains($0)) }
        return wordLike && plain
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
    /// Prefixes of XML namespace, schema and DTD URIs: identifiers that are compared, never fetched.
    static let namespacePrefixes = [
        "http://www.w3.org/", "http://schemas.", "http://ns.adobe.com/", "http://purl.org/", "http://xmlns.com/",
        "http://www.apple.com/dtds/", "http://json-schema.org/", "http://docs.oasis-open.org/",
        "http://jabber.org/protocol/", "http://etherx.jabber.org/", "http://xmpp.org/", "http://www.itunes.com/dtds/",
        "http://search.yahoo.com/mrss", "http://www.georss.org/", "http://www.opengis.net/", "http://activitystrea.ms/",
        "http://ostatus.org/", "http://joinmastodon.org/ns", "http://www.idpf.org/", "http://www.daisy.org/",
        "http://wellformedweb.org/", "http://webns.net/", "http://backend.userland.com/", "http://rssnamespace.org/",
        "http://www.rssboard.org/", "http://madskills.com/public/xml/", "http://creativecommons.org/ns",
        "http://rdfs.org/", "http://www.openarchives.org/", "http://www.google.com/schemas/",
        "http://www.sitemaps.org/schemas/", "http://ns.", "http://xml.org/", "http://www.iana.org/assignments/",
        "http://openid.net/specs/", "http://openid.net/srv/", "http://specs.openid.net/", "http://www.opml.org/",
        "http://microformats.org/", "http://ogp.me/ns", "http://opengraphprotocol.org/schema",
        "http://www.rssboard.org/media-rss", "http://podlove.org/", "http://www.podcastindex.org/namespace",
        "http://podcastindex.org/namespace", "http://www.w3.org", "http://www.xmpp.org/",
    ]

    /// If `text` starts with a cleartext `http://` URL to a literal host that can be on the public
    /// internet, returns the host. Returns nil otherwise: `"http://"` alone (its host is unknown),
    /// namespace URIs, and hosts that are local, private or reserved (see ``ReservedHosts``).
    static func nonLocalHost(in text: String) -> String? {
        // Most values are not URLs: without a colon there is nothing to look at.
        guard text.utf8.contains(UInt8(ascii: ":")) else { return nil }
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
        if systemHandledHosts.contains(String(host)) { return nil }
        return ReservedHosts.isNonPublic(String(host)) ? nil : String(host)
    }

    /// Hosts whose `http://` links the system hands to an app instead of loading them: Apple's
    /// Map Links (`http://maps.apple.com/?ll=…`, the form Apple's Map Links reference gives) open
    /// Maps. kiwix-apple opens one; no request leaves the app.
    static let systemHandledHosts: Set<String> = ["maps.apple.com"]
}

/// Hosts that never leave the device or the local link.
enum LocalHosts {
    /// `localhost`, `*.localhost`, `127.0.0.0/8`, `::1` and `*.local` (mDNS), with or without a
    /// trailing dot.
    static func isLocal(_ rawHost: String) -> Bool {
        var host = rawHost.lowercased()
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        if host == "localhost" || host.hasSuffix(".localhost") || host.hasSuffix(".local") { return true }
        if host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        if octets.count == 4, octets[0] == "127", octets.allSatisfy({ UInt8($0) != nil }) { return true }
        return false
    }
}

/// Hosts a cleartext URL to is not a finding: they never reach the public internet, or name no
/// real server at all.
///
/// - Local: ``LocalHosts``.
/// - Reserved names (RFC 6761 §6): `example.com`, `example.net`, `example.org` and their
///   subdomains, and the `.example`, `.test`, `.invalid` top-level names; `home.arpa` (RFC 8375);
///   `.onion` (RFC 7686: Tor encrypts and authenticates the connection itself).
/// - Addresses: private IPv4 (RFC 1918: 10/8, 172.16/12, 192.168/16), link-local (169.254/16,
///   `fe80::/10`), shared address space (100.64/10, RFC 6598), unspecified (`0.0.0.0`, `::`),
///   the documentation ranges (192.0.2/24, 198.51.100/24, 203.0.113/24, `2001:db8::/32`) and
///   unique-local IPv6 (`fc00::/7`).
///
/// A cleartext URL to a device on the local network is still cleartext, but it is what such
/// devices offer and ATS itself exempts local networking (`NSAllowsLocalNetworking`).
enum ReservedHosts {
    static let reservedDomains = ["example.com", "example.net", "example.org", "home.arpa"]
    static let reservedTopLevel = ["example", "test", "invalid", "onion"]

    /// `onion` itself (an ATS exception domain with subdomains) or a `.onion` name.
    static func isOnion(_ host: String) -> Bool {
        let lowered = host.lowercased()
        return lowered == "onion" || lowered.hasSuffix(".onion") || lowered.hasSuffix(".onion.")
    }

    static func isNonPublic(_ rawHost: String) -> Bool {
        var host = rawHost.lowercased()
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        if LocalHosts.isLocal(host) { return true }
        for domain in reservedDomains where host == domain || host.hasSuffix("." + domain) { return true }
        if let last = host.split(separator: ".").last, reservedTopLevel.contains(String(last)) { return true }
        if let octets = ipv4(host) { return isNonPublic(ipv4: octets) }
        if host.contains(":") { return isNonPublic(ipv6: host) }
        return false
    }

    static func ipv4(_ host: String) -> [UInt8]? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let octets = parts.compactMap { UInt8($0) }
        return octets.count == 4 ? octets : nil
    }

    static func isNonPublic(ipv4 o: [UInt8]) -> Bool {
        switch (o[0], o[1], o[2]) {
        case (0, _, _), (10, _, _), (127, _, _): return true
        case (172, 16...31, _), (192, 168, _), (169, 254, _), (100, 64...127, _): return true
        case (192, 0, 2), (198, 51, 100), (203, 0, 113): return true
        default: return false
        }
    }

    static func isNonPublic(ipv6 host: String) -> Bool {
        let address = host.split(separator: "%").first.map(String.init) ?? host
        if address == "::" || address == "::1" { return true }
        guard let first = address.split(separator: ":", omittingEmptySubsequences: false).first,
            let value = UInt16(first.isEmpty ? "0" : first, radix: 16)
        else { return false }
        if value & 0xFFC0 == 0xFE80 { return true }  // link-local fe80::/10
        if value & 0xFE00 == 0xFC00 { return true }  // unique local fc00::/7
        if value == 0x2001, address.lowercased().hasPrefix("2001:db8:") { return true }
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
#endif
