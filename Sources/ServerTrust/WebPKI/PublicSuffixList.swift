/// Which domains are public suffixes (`com`, `co.uk`, `s3.amazonaws.com`), under which nobody may
/// get a wildcard (BR §3.2.2.6).
///
/// ``builtIn`` is the whole Public Suffix List of ``builtInListDate``; a newer copy of
/// `public_suffix_list.dat` can be loaded with ``init(parsing:)``.
public struct PublicSuffixList: Hashable, Sendable {
    var rules: Set<String>
    var wildcardParents: Set<String>
    var exceptions: Set<String>

    /// Parses the text format of publicsuffix.org: one rule a line, `//` comments, `*.` wildcard
    /// rules and `!` exceptions.
    public init(parsing text: String) {
        self.rules = []
        self.wildcardParents = []
        self.exceptions = []
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
            if line.isEmpty || line.hasPrefix("//") { continue }
            let rule = HostName.normalise(line)
            if rule.hasPrefix("!") {
                self.exceptions.insert(String(rule.dropFirst()))
            } else if rule.hasPrefix("*.") {
                self.wildcardParents.insert(String(rule.dropFirst(2)))
            } else {
                self.rules.insert(rule)
            }
        }
    }

    /// The full Public Suffix List, compiled in: ICANN and private sections (so `*.s3.amazonaws.com`
    /// and `*.github.io` are refused like `*.co.uk`), Unicode rules as A-labels. Its date is
    /// ``builtInListDate``; `Scripts/generate-public-suffix-list.py` regenerates it from Debian's
    /// `publicsuffix` package. Every single label is a public suffix too (the list's `*` rule).
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
