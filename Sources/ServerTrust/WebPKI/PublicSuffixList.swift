/// Which domains are public suffixes (`com`, `co.uk`), under which nobody may get a wildcard.
///
/// The built-in list treats every single label as a public suffix and knows the most used
/// multi-label ICANN suffixes. For the complete rules, load Mozilla's list
/// (`public_suffix_list.dat`, Debian package `publicsuffix`) with ``init(parsing:)``.
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

    /// The built-in list.
    public static let builtIn = PublicSuffixList(
        parsing: """
            co.uk
            org.uk
            gov.uk
            ac.uk
            me.uk
            ltd.uk
            plc.uk
            net.uk
            com.au
            net.au
            org.au
            edu.au
            gov.au
            co.nz
            org.nz
            co.jp
            ne.jp
            or.jp
            ac.jp
            go.jp
            com.br
            net.br
            org.br
            gov.br
            com.cn
            net.cn
            org.cn
            gov.cn
            edu.cn
            co.in
            net.in
            org.in
            gov.in
            co.kr
            or.kr
            com.mx
            org.mx
            gob.mx
            co.za
            org.za
            gov.za
            com.tr
            gov.tr
            com.tw
            org.tw
            com.hk
            com.sg
            com.ar
            co.il
            org.il
            com.ua
            co.id
            com.my
            com.ph
            com.pl
            com.es
            com.ru
            github.io
            herokuapp.com
            blogspot.com
            appspot.com
            cloudfront.net
            azurewebsites.net
            """
    )

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
