/// The "did you mean …?" of the policy readers, the JSON policy file's and the Info.plist's: the
/// known key a misspelt one was most likely meant to be. One rule for both, so that the two
/// formats suggest alike.
enum KeySuggestion {
    /// The most edits a misspelling is taken to be (a key meant is one or two edits away).
    static let maximumEdits = 2

    /// The known key fewest edits from `key` (at most ``maximumEdits``; the first in sorted
    /// order among equals), or nil when none is that close.
    static func nearest(to key: String, among known: some Collection<String>) -> String? {
        var best: (key: String, distance: Int)?
        for candidate in known.sorted() {
            let distance = Self.editDistance(candidate, key, atMost: Self.maximumEdits)
            if distance <= Self.maximumEdits, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.key
    }

    /// `"; did you mean KEY?"` for the key nearest to `key`, or an empty string.
    static func phrase(for key: String, among known: some Collection<String>) -> String {
        Self.nearest(to: key, among: known).map { "; did you mean \($0)?" } ?? ""
    }

    /// The Levenshtein distance of `a` and `b`, or `limit + 1` when it is larger.
    static func editDistance(_ a: String, _ b: String, atMost limit: Int) -> Int {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        guard abs(a.count - b.count) <= limit, a.count <= 64, b.count <= 64 else { return limit + 1 }
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return min(previous[b.count], limit + 1)
    }
}
