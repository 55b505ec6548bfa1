#if Tools
/// A check the auditor performs, with its documentation.
///
/// Rule IDs are stable (`SN000`…`SN016`) and are what suppression comments and SARIF results refer to.
public struct AuditRule: Sendable, Hashable {
    /// Stable identifier, for example `"SN001"`.
    public let id: String
    /// Kebab-case name, for example `"ats-arbitrary-loads"`.
    public let name: String
    /// Default severity. Some rules lower or raise it per finding; see ``AuditFinding/severity``.
    public let severity: AuditSeverity
    /// One sentence describing what the rule detects.
    public let summary: String
    /// One line describing how to fix a finding.
    public let fix: String
    /// Why this matters, with references (Apple documentation, OWASP MASVS, CWE).
    public let rationale: String
    /// Classification tags used in SARIF (`security` plus MASVS / CWE identifiers).
    public let tags: [String]

    /// Creates a rule description.
    public init(
        id: String,
        name: String,
        severity: AuditSeverity,
        summary: String,
        fix: String,
        rationale: String,
        tags: [String]
    ) {
        self.id = id
        self.name = name
        self.severity = severity
        self.summary = summary
        self.fix = fix
        self.rationale = rationale
        self.tags = tags
    }
}

extension AuditRule {
    /// `SN000`: a `securenet:ignore` comment without a reason or naming an unknown rule.
    public static let invalidSuppression = AuditRule(
        id: "SN000",
        name: "invalid-suppression",
        severity: .low,
        summary: "A securenet:ignore comment has no reason or names an unknown rule, so it suppresses nothing.",
        fix: "Write `// securenet:ignore SNxxx why this is safe` with a known rule ID and a reason.",
        rationale: "Suppressions are reviewed like code; an unexplained or mistyped suppression hides nothing "
            + "but suggests it does.",
        tags: ["security", "maintainability"]
    )

    /// `SN001`: `NSAllowsArbitraryLoads` (or its web-content / media variants) in `NSAppTransportSecurity`.
    public static let atsArbitraryLoads = AuditRule(
        id: "SN001",
        name: "ats-arbitrary-loads",
        severity: .high,
        summary: "App Transport Security is disabled for all connections (NSAllowsArbitraryLoads).",
        fix: "Remove NSAllowsArbitraryLoads; add a narrow per-domain exception only where a server cannot use TLS.",
        rationale: "NSAllowsArbitraryLoads turns off ATS, allowing cleartext HTTP and weak TLS everywhere "
            + "(Apple, NSAppTransportSecurity). The web-content and media variants are narrower (medium). "
            + "OWASP MASVS-NETWORK-1; CWE-319.",
        tags: ["security", "MASVS-NETWORK-1", "CWE-319"]
    )

    /// `SN002`: a per-domain ATS exception allowing insecure HTTP loads.
    public static let atsInsecureHTTPException = AuditRule(
        id: "SN002",
        name: "ats-insecure-http-exception",
        severity: .medium,
        summary: "An ATS domain exception allows cleartext HTTP (NSExceptionAllowsInsecureHTTPLoads).",
        fix: "Serve the domain over HTTPS and remove the exception.",
        rationale: "NSExceptionAllowsInsecureHTTPLoads lets the app talk to the domain over cleartext HTTP "
            + "(Apple, NSExceptionDomains). High when NSIncludesSubdomains widens it to every subdomain. Local "
            + "hosts (localhost, 127.0.0.1, ::1, *.local) are not reported. OWASP MASVS-NETWORK-1; CWE-319.",
        tags: ["security", "MASVS-NETWORK-1", "CWE-319"]
    )

    /// `SN003`: a per-domain ATS exception lowering the minimum TLS version below 1.2.
    public static let atsWeakTLSVersion = AuditRule(
        id: "SN003",
        name: "ats-weak-tls-version",
        severity: .medium,
        summary: "An ATS domain exception allows TLS versions older than TLS 1.2.",
        fix: "Remove NSExceptionMinimumTLSVersion or set it to TLSv1.2 or TLSv1.3.",
        rationale: "TLS 1.0 and 1.1 are deprecated (RFC 8996); ATS requires TLS 1.2 by default (Apple, "
            + "NSExceptionMinimumTLSVersion). High with NSIncludesSubdomains. OWASP MASVS-NETWORK-1; CWE-326.",
        tags: ["security", "MASVS-NETWORK-1", "CWE-326"]
    )

    /// `SN004`: a per-domain ATS exception disabling forward secrecy.
    public static let atsForwardSecrecyDisabled = AuditRule(
        id: "SN004",
        name: "ats-forward-secrecy-disabled",
        severity: .medium,
        summary: "An ATS domain exception disables the forward-secrecy requirement.",
        fix: "Enable ECDHE cipher suites on the server and remove NSExceptionRequiresForwardSecrecy = false.",
        rationale: "Without forward secrecy, a later compromise of the server key decrypts recorded traffic "
            + "(Apple, NSExceptionRequiresForwardSecrecy). Medium with NSIncludesSubdomains, low for a single "
            + "host. OWASP MASVS-NETWORK-1; CWE-326.",
        tags: ["security", "MASVS-NETWORK-1", "CWE-326"]
    )

    /// `SN005`: a cleartext `http://` URL to a non-local host.
    public static let cleartextHTTPURL = AuditRule(
        id: "SN005",
        name: "cleartext-http-url",
        severity: .medium,
        summary: "A cleartext http:// URL points at a non-local host.",
        fix: "Use https:// (and keep ATS enabled).",
        rationale: "Traffic to an http:// URL can be read and modified on the network; ATS blocks it unless "
            + "weakened. Local hosts and well-known XML namespace URIs are not reported. OWASP "
            + "MASVS-NETWORK-1; CWE-319.",
        tags: ["security", "MASVS-NETWORK-1", "CWE-319"]
    )

    /// `SN006`: a secret stored in `UserDefaults`, `@AppStorage` or a plist file.
    public static let secretInUserDefaults = AuditRule(
        id: "SN006",
        name: "secret-in-user-defaults",
        severity: .high,
        summary: "A token, password or key is stored in UserDefaults, @AppStorage or a plain plist file.",
        fix: "Store secrets in the Keychain (for example this project's SecureStorage), not in UserDefaults.",
        rationale: "UserDefaults and plist files are unencrypted plists in the app container, included in "
            + "backups and readable on a jailbroken or compromised device. OWASP MASVS-STORAGE-1; CWE-312, "
            + "CWE-922.",
        tags: ["security", "MASVS-STORAGE-1", "CWE-312", "CWE-922"]
    )

    /// `SN007`: a secret written to a log.
    public static let secretInLogs = AuditRule(
        id: "SN007",
        name: "secret-in-logs",
        severity: .high,
        summary: "A token, password or Authorization header is written to a log.",
        fix: "Do not log secrets; with Logger, interpolate with `privacy: .private` (or `.sensitive`).",
        rationale: "Logs are collected by sysdiagnose, crash reporters and log-shipping SDKs. The rule asks "
            + "for an explicit `privacy: .private`/`.sensitive` even though os Logger redacts dynamic strings "
            + "by default, because `.public` or a later refactor to print() silently leaks. OWASP "
            + "MASVS-STORAGE-2; CWE-532.",
        tags: ["security", "MASVS-STORAGE-2", "CWE-532"]
    )

    /// `SN008`: server trust evaluation disabled or bypassed.
    public static let trustEvaluationDisabled = AuditRule(
        id: "SN008",
        name: "trust-evaluation-disabled",
        severity: .high,
        summary: "TLS server trust evaluation is disabled or bypassed.",
        fix: "Evaluate the trust (SecTrustEvaluateWithError) before answering with URLCredential(trust:); "
            + "cancel the challenge when a pin check fails.",
        rationale: "Accepting any server trust, ignoring the host name or expired certificates, or falling back "
            + "to default handling after a failed pin check lets a man-in-the-middle read and alter traffic. "
            + "OWASP MASVS-NETWORK-1/-2; CWE-295.",
        tags: ["security", "MASVS-NETWORK-1", "MASVS-NETWORK-2", "CWE-295"]
    )

    /// `SN009`: Keychain items accessible while the device is locked.
    public static let keychainAccessibleAlways = AuditRule(
        id: "SN009",
        name: "keychain-accessible-always",
        severity: .high,
        summary: "A Keychain item uses kSecAttrAccessibleAlways or kSecAttrAccessibleAlwaysThisDeviceOnly.",
        fix: "Use kSecAttrAccessibleWhenUnlockedThisDeviceOnly or kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly.",
        rationale: "These deprecated classes keep the item readable while the device is locked and give it no "
            + "data-protection key (Apple, kSecAttrAccessible). OWASP MASVS-STORAGE-1; CWE-311.",
        tags: ["security", "MASVS-STORAGE-1", "CWE-311"]
    )

    /// `SN010`: a password hashed with a fast or broken hash.
    public static let weakPasswordHash = AuditRule(
        id: "SN010",
        name: "weak-password-hash",
        severity: .high,
        summary: "A password is hashed with MD5/SHA-1, or with unsalted SHA-2.",
        fix: "Derive password hashes with a slow, salted KDF (PBKDF2, scrypt, Argon2 or PasswordHasher).",
        rationale: "Fast hashes let an attacker test billions of guesses per second and unsalted hashes fall to "
            + "precomputed tables. MD5/SHA-1 are reported only on password data (MD5 for ETags is fine). OWASP "
            + "MASVS-CRYPTO-1; CWE-916, CWE-328, CWE-759.",
        tags: ["security", "MASVS-CRYPTO-1", "CWE-916", "CWE-328", "CWE-759"]
    )

    /// `SN011`: authenticated responses written to the URL cache.
    public static let cachedAuthenticatedResponse = AuditRule(
        id: "SN011",
        name: "cached-authenticated-response",
        severity: .medium,
        summary: "A URL cache or cache-preferring policy is used where requests carry an Authorization header.",
        fix: "Use an ephemeral session or `urlCache = nil`, and `.reloadIgnoringLocalCacheData` for authenticated "
            + "requests.",
        rationale: "URLCache stores responses unencrypted on disk (Cache.db); authenticated responses often hold "
            + "personal data and tokens. OWASP MASVS-STORAGE-1; CWE-524.",
        tags: ["security", "MASVS-STORAGE-1", "CWE-524"]
    )

    /// `SN012`: a credential literal in code or build settings.
    public static let hardcodedCredential = AuditRule(
        id: "SN012",
        name: "hardcoded-credential",
        severity: .high,
        summary: "A credential-like string literal is bound to a secret-named variable, key or setting.",
        fix: "Load secrets at run time (Keychain, server-issued tokens); never ship them in the binary or build "
            + "settings.",
        rationale: "Anything in the app bundle can be extracted with `strings`. Reported for known key formats "
            + "(sk_live_, ghp_, AKIA…, PEM private keys) anywhere, and for high-entropy literals (>= 16 "
            + "characters, >= 3.5 bits/character) bound to secret names. OWASP MASVS-STORAGE-1 / "
            + "MASVS-CRYPTO-2; CWE-798.",
        tags: ["security", "MASVS-CRYPTO-2", "CWE-798"]
    )

    /// `SN013`: a non-cryptographic random generator producing key material.
    public static let insecureRandom = AuditRule(
        id: "SN013",
        name: "insecure-random-for-secret",
        severity: .high,
        summary: "A non-cryptographic random function produces a key, nonce, IV, salt, token or OTP.",
        fix: "Use SecRandomCopyBytes, SymmetricKey(size:) or SystemRandomNumberGenerator (e.g. UInt8.random(in:)).",
        rationale: "rand(), random(), drand48() and friends are predictable; arc4random is reported too because "
            + "its guarantees differ across platforms. Reported only when the result is bound to a secret-like "
            + "name in the same statement. OWASP MASVS-CRYPTO-1; CWE-338.",
        tags: ["security", "MASVS-CRYPTO-1", "CWE-338"]
    )

    /// `SN014`: certificate pinning without a backup pin.
    public static let pinWithoutBackup = AuditRule(
        id: "SN014",
        name: "pin-without-backup",
        severity: .medium,
        summary: "A pinned domain has fewer than two pins, so a key rotation bricks the app's networking.",
        fix: "Pin at least two keys: the current one and a backup (or a CA key).",
        rationale: "With a single pin, replacing the certificate or an emergency revocation cuts every "
            + "installed app off (Apple, NSPinnedDomains; OWASP MASTG pinning guidance). MASVS-NETWORK-2; "
            + "CWE-295.",
        tags: ["security", "MASVS-NETWORK-2", "CWE-295", "availability"]
    )

    /// `SN015`: the `get-task-allow` entitlement enabled.
    public static let debuggableEntitlement = AuditRule(
        id: "SN015",
        name: "debuggable-entitlement",
        severity: .low,
        summary: "The get-task-allow entitlement is true, so a debugger can attach and read memory.",
        fix: "Let Xcode set get-task-allow only for Debug signing; remove it from committed entitlements.",
        rationale: "A debuggable build lets any debugger attach and read tokens and keys from memory. OWASP "
            + "MASVS-RESILIENCE-4; CWE-489.",
        tags: ["security", "MASVS-RESILIENCE-4", "CWE-489"]
    )

    /// `SN016`: a main-actor closure handed to an Apple API that calls it on a thread of its own.
    public static let isolatedCompletionHandler = AuditRule(
        id: "SN016",
        name: "isolated-completion-handler",
        severity: .medium,
        summary: "A completion handler or URLSession delegate method that Apple calls off the main thread is "
            + "main-actor isolated, which traps under Swift 6.",
        fix: "Mark the closure @Sendable and hop back with `Task { @MainActor in … }` (or resume a "
            + "continuation), or use the async API; make a delegate method nonisolated.",
        rationale: "A closure literal formed in a @MainActor context (a @MainActor function or type, a view "
            + "controller, a SwiftUI view) without @Sendable is main-actor isolated. Handed to an API from a "
            + "module not in Swift 6 mode (every Objective-C framework), it gets a dynamic executor check at "
            + "its entry (SE-0423), and ASWebAuthenticationSession calls it on its own queue (LAContext's and "
            + "URLSession's handlers are declared @Sendable, so not them): the app crashes in _dispatch_assert_queue_fail (EXC_BREAKPOINT) "
            + "at sign-in or biometric unlock. The same holds for a synchronous URLSession delegate method of "
            + "a main-actor type, called on the session's delegate queue. CWE-662.",
        tags: ["security", "availability", "CWE-662"]
    )

    /// Every rule, ordered by ID.
    public static let all: [AuditRule] = [
        invalidSuppression, atsArbitraryLoads, atsInsecureHTTPException, atsWeakTLSVersion,
        atsForwardSecrecyDisabled, cleartextHTTPURL, secretInUserDefaults, secretInLogs,
        trustEvaluationDisabled, keychainAccessibleAlways, weakPasswordHash, cachedAuthenticatedResponse,
        hardcodedCredential, insecureRandom, pinWithoutBackup, debuggableEntitlement, isolatedCompletionHandler,
    ]

    /// Rules keyed by ID.
    static let byID: [String: AuditRule] = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
}
#endif
