#if Tools
/// How deeply `[` nests in Swift source, counted before swift-syntax parses it.
///
/// swift-syntax 602's parser looks ahead for a collection or inline-array type at every `[` and
/// backtracks, so its time doubles with each nested level: `let x = ` and 25 `[` kept
/// `securenet audit` busy for minutes (found by the security-audit fuzz target). Past its own
/// nesting limit (256) it stops early, so the slow range is a few dozen levels.
///
/// Only `[` the parser reads as code counts: not in comments, not in the text of a string
/// literal (plain, multi-line and raw) outside its interpolations. Inside an interpolation `[`
/// opens and `]` closes, never below the depth the literal started at. Elsewhere every `[`
/// opens (a `\[` in a regex literal too: the parser may read it as a key path). An earlier
/// version also counted `[` in comments and string text, and skipped five real files of issue
/// 39's corpus for it: commented-out `[:]`, eleven Markdown links in one string.
enum SwiftBracketNesting {
    /// The most nested `[` audited: ten levels parse in milliseconds, and app code rarely has
    /// more than five.
    static let maximumDepth = 10

    /// The reason given for a file nested deeper.
    static let tooDeep =
        "[ nested deeper than \(maximumDepth) levels (swift-syntax's parser takes exponential time on it), not audited"

    static func depth(of source: String) -> Int {
        let bytes = Array(source.utf8)
        var depth = 0
        var deepest = 0
        var index = 0
        func at(_ offset: Int) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }
        func open() {
            depth += 1
            deepest = max(deepest, depth)
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "["):
                open()
                index += 1
            case UInt8(ascii: "]"):
                depth = max(depth - 1, 0)
                index += 1
            case UInt8(ascii: "/") where at(1) == UInt8(ascii: "/"):
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            case UInt8(ascii: "/") where at(1) == UInt8(ascii: "*"):
                var comments = 1
                index += 2
                while index < bytes.count, comments > 0 {
                    if bytes[index] == UInt8(ascii: "/"), at(1) == UInt8(ascii: "*") {
                        comments += 1
                        index += 1
                    } else if bytes[index] == UInt8(ascii: "*"), at(1) == UInt8(ascii: "/") {
                        comments -= 1
                        index += 1
                    }
                    index += 1
                }
            case UInt8(ascii: "#"), UInt8(ascii: "\""):
                var hashes = 0
                while at(hashes) == UInt8(ascii: "#") { hashes += 1 }
                guard at(hashes) == UInt8(ascii: "\"") else {
                    index += max(hashes, 1)
                    continue
                }
                let multiline = at(hashes + 1) == UInt8(ascii: "\"") && at(hashes + 2) == UInt8(ascii: "\"")
                let quote = Array(repeating: UInt8(ascii: "\""), count: multiline ? 3 : 1)
                let terminator = quote + Array(repeating: UInt8(ascii: "#"), count: hashes)
                index += hashes + quote.count
                // Only interpolations hold code: there `[` opens and `]` closes.
                let base = depth
                var parentheses = 0
                let escape = [UInt8(ascii: "\\")] + Array(repeating: UInt8(ascii: "#"), count: hashes)
                while index < bytes.count {
                    let byte = bytes[index]
                    if parentheses > 0 {
                        switch byte {
                        case UInt8(ascii: "["): open()
                        case UInt8(ascii: "]"): depth = max(depth - 1, base)
                        case UInt8(ascii: "("): parentheses += 1
                        case UInt8(ascii: ")"): parentheses -= 1
                        default: break
                        }
                        index += 1
                        continue
                    }
                    if bytes[index...].starts(with: escape) {
                        if at(escape.count) == UInt8(ascii: "(") {
                            parentheses = 1
                            index += escape.count + 1
                        } else {
                            index += escape.count + 1
                        }
                        continue
                    }
                    if bytes[index...].starts(with: terminator) {
                        index += terminator.count
                        break
                    }
                    if !multiline, bytes[index] == 0x0A { break }
                    index += 1
                }
                depth = base
            default:
                index += 1
            }
        }
        return deepest
    }
}
#endif
