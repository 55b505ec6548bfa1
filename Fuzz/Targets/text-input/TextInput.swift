import FuzzSupport
import SecureNetworking

/// `TextInput.sanitize`: free text a user enters (a display name, a comment).
@_cdecl("text_input_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// One input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let rule = input.pick(rules)
    let text = input.restText
    guard let clean = try? rule.sanitize(text, field: "comment") else { return 0 }
    require(rule.length.contains(clean.count), "\(clean.count) characters passed \(rule.length)")
    for scalar in clean.unicodeScalars {
        let value = scalar.value
        let lineBreak = value == 0x0A || value == 0x09
        require(
            !(value < 0x20 || (0x7F...0x9F).contains(value)) || (lineBreak && rule.allowsLineBreaks),
            "control character U+\(String(value, radix: 16)) kept"
        )
        require(!(0x202A...0x202E).contains(value) && !(0x2066...0x2069).contains(value), "a bidi control kept")
    }
    // Sanitising is idempotent: clean text passes unchanged.
    require((try? rule.sanitize(clean, field: "comment")) == clean, "sanitising clean text changed it")
    return 0
}

let rules = [
    TextInput(),
    TextInput(length: 1...16),
    TextInput(length: 0...200, allowsLineBreaks: true),
    TextInput(length: 0...64, allowsLineBreaks: true, trimsWhitespace: false),
]
