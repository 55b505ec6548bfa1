/// Which domains are public suffixes (`com`, `co.uk`, `ck`'s children), under which nobody may get
/// a wildcard (BR §3.2.2.6).
///
/// Only the list's ICANN section counts by default. A wildcard directly under an ICANN suffix
/// (`*.com`, `*.co.uk`) is refused; one under a private-section suffix (`*.s3.amazonaws.com`,
/// `*.cloudfront.net`, `*.github.io`) is accepted, as Chrome, Firefox and Apple accept it: the
/// owner of a private suffix is the applicant the CA validated, and it serves every name under it
/// (virtual-hosted S3 buckets, default CloudFront domains).
///
/// ``builtIn`` is the ICANN section of the Public Suffix List of ``builtInListDate``; a newer copy
/// of `public_suffix_list.dat` can be loaded with ``init(parsing:includingPrivateDomains:)``.
public struct PublicSuffixList: Hashable, Sendable {
    /// The parsed rules, shared by every copy of a list, so comparing two copies of one list
    /// (as a trust-decision cache key does on every handshake) is a pointer comparison.
    final class Rules: Sendable {
        let rules: Set<String>
        let wildcardParents: Set<String>
        let exceptions: Set<String>

        init(rules: Set<String>, wildcardParents: Set<String>, exceptions: Set<String>) {
            self.rules = rules
            self.wildcardParents = wildcardParents
            self.exceptions = exceptions
        }
    }

    let storage: Rules
    var rules: Set<String> { self.storage.rules }
    var wildcardParents: Set<String> { self.storage.wildcardParents }
    var exceptions: Set<String> { self.storage.exceptions }

    /// Lists are equal when they hold the same rules.
    public static func == (lhs: PublicSuffixList, rhs: PublicSuffixList) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.rules == rhs.rules && lhs.wildcardParents == rhs.wildcardParents
                && lhs.exceptions == rhs.exceptions)
    }

    /// Hashes the sizes only (hashing ten thousand rules per lookup would cost more than it saves);
    /// equality still compares every rule.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.rules.count)
        hasher.combine(self.wildcardParents.count)
        hasher.combine(self.exceptions.count)
    }

    /// Parses the text format of publicsuffix.org: one rule a line, `//` comments, `*.` wildcard
    /// rules and `!` exceptions.
    ///
    /// - Parameters:
    ///   - text: the list.
    ///   - includingPrivateDomains: whether the rules after the list's
    ///     `// ===BEGIN PRIVATE DOMAINS===` line count too, which refuses wildcards such as
    ///     `*.s3.amazonaws.com` that browsers accept. Default false: the ICANN section only.
    public init(parsing text: String, includingPrivateDomains: Bool = false) {
        var rules: Set<String> = []
        var wildcardParents: Set<String> = []
        var exceptions: Set<String> = []
        for rawLine in text.split(whereSeparator: \.isNewline) {
            if !includingPrivateDomains, rawLine.contains("===BEGIN PRIVATE DOMAINS===") { break }
            let line = rawLine.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
            if line.isEmpty || line.hasPrefix("//") { continue }
            let rule = HostName.normalise(line)
            if rule.hasPrefix("!") {
                exceptions.insert(String(rule.dropFirst()))
            } else if rule.hasPrefix("*.") {
                wildcardParents.insert(String(rule.dropFirst(2)))
            } else {
                rules.insert(rule)
            }
        }
        self.storage = Rules(rules: rules, wildcardParents: wildcardParents, exceptions: exceptions)
    }

    /// The ICANN section of the Public Suffix List, compiled in (so `*.co.uk` is refused and
    /// `*.s3.amazonaws.com` accepted), Unicode rules as A-labels. Its date is ``builtInListDate``;
    /// `Scripts/generate-public-suffix-list.py` regenerates it from Debian's `publicsuffix`
    /// package. Every single label is a public suffix too (the list's `*` rule).
    public static let builtIn = PublicSuffixList(parsing: PublicSuffixList.mozillaRules)

    /// Whether `domain` is itself a public suffix (every single label is).
    public func isPublicSuffix(_ domain: String) -> Bool {
        let domain = HostName.normalise(domain)
        guard domain.contains(".") else { return true }
        if self.exceptions.contains(domain) { return false }
        if self.rules.contains(domain) { return true }
        if let dot = domain.firstIndex(of: ".") {
            return self.wildcardParents.contains(String(domain[domain.index(after: dot)...]))
        }
        return false
    }
}
