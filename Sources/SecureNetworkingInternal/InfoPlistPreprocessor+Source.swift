import Foundation

extension InfoPlistPreprocessor {
    /// A logical line as `cpp -traditional` reads it: one physical line, or several joined by
    /// backslash-newlines or by a comment that a directive opens and a later line closes.
    struct LogicalLine: Equatable {
        /// The 1-based line of its first physical line.
        let line: Int
        /// How many physical lines it spans.
        let count: Int
        /// Its text as cpp reads it: backslash-newlines removed, a comment a space in a directive
        /// and nothing in text (traditional cpp pastes around it), `\r` kept at the end of text.
        let text: String
        /// Whether its first physical line starts inside a comment (and so holds no directive).
        let startsInComment: Bool
        /// The text as written, for messages: each physical line trimmed, joined by a space.
        let written: String
    }

    /// `lines` as logical lines (see ``LogicalLine``).
    /// - Throws: ``Failure`` for a `/*` never closed.
    static func logicalLines(_ lines: [Substring]) throws(Failure) -> [LogicalLine] {
        var result: [LogicalLine] = []
        result.reserveCapacity(lines.count)
        var inComment = false
        var commentLine = 0
        var index = 0
        while index < lines.count {
            let first = index
            let startsInComment = inComment
            let isDirective = !inComment && lines[index].utf8.first == UInt8(ascii: "#")
            var kept: [UInt8] = []
            var written: [String] = []
            // A string or character constant ends at its quote or at the end of the line.
            var quote: UInt8?
            while true {
                let bytes = Array(lines[index].utf8)
                var end = bytes.count
                let hasCarriageReturn = end > 0 && bytes[end - 1] == UInt8(ascii: "\r")
                if hasCarriageReturn { end -= 1 }
                let continues = end > 0 && bytes[end - 1] == UInt8(ascii: "\\") && index + 1 < lines.count
                let stop = continues ? end - 1 : end
                written.append(
                    String(decoding: bytes[..<stop], as: UTF8.self).trimmingCharacters(in: .whitespaces)
                )
                var position = 0
                while position < stop {
                    let byte = bytes[position]
                    let following = position + 1 < stop ? bytes[position + 1] : nil
                    if inComment {
                        if byte == UInt8(ascii: "*"), following == UInt8(ascii: "/") {
                            inComment = false
                            if isDirective { kept.append(UInt8(ascii: " ")) }
                            position += 2
                        } else {
                            position += 1
                        }
                        continue
                    }
                    if let open = quote {
                        kept.append(byte)
                        if byte == UInt8(ascii: "\\"), let following {
                            kept.append(following)
                            position += 2
                            continue
                        }
                        if byte == open { quote = nil }
                        position += 1
                        continue
                    }
                    if byte == UInt8(ascii: "/"), following == UInt8(ascii: "*") {
                        inComment = true
                        commentLine = index + 1
                        position += 2
                        continue
                    }
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { quote = byte }
                    kept.append(byte)
                    position += 1
                }
                if continues {
                    index += 1
                    continue
                }
                quote = nil
                // A comment a directive opens makes the lines up to its end part of the directive.
                if inComment, isDirective, index + 1 < lines.count {
                    index += 1
                    continue
                }
                if hasCarriageReturn, !inComment, !isDirective { kept.append(UInt8(ascii: "\r")) }
                break
            }
            result.append(
                LogicalLine(
                    line: first + 1,
                    count: index - first + 1,
                    text: String(decoding: kept, as: UTF8.self),
                    startsInComment: startsInComment,
                    written: written.filter { !$0.isEmpty }.joined(separator: " ")
                )
            )
            index += 1
        }
        if inComment {
            throw Failure(line: commentLine, reason: "a /* comment is not closed before the end of the file")
        }
        return result
    }

    /// The directive a logical line holds, with its argument (comments already spaces), if any:
    /// `#` in the first column, spaces, and one of the preprocessor's directive names.
    static func directive(in unit: LogicalLine) -> (name: String, argument: Substring)? {
        guard !unit.startsInComment, unit.text.first == "#" else { return nil }
        let rest = unit.text.dropFirst().drop { $0 == " " || $0 == "\t" }
        let name = rest.prefix { $0.isLetter }
        guard Self.names.contains(String(name)) else { return nil }
        let after = rest.dropFirst(name.count)
        if let next = after.first, !(next == " " || next == "\t" || next == "(" || next == "<" || next == "\"") {
            return nil
        }
        return (String(name), after.trimmingCharacters(in: .whitespaces)[...])
    }
}
