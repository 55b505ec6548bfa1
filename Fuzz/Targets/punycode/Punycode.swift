import FuzzSupport

@testable import SecureNetworking

/// Punycode (RFC 3492), as IDN labels of e-mail domains are written: every label encodes to
/// ASCII that decodes back to the label (the decoder here is the RFC's §6.2, written apart).
@_cdecl("punycode_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// One input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    let label = input.restText
    guard label.unicodeScalars.count <= 256, let ascii = Punycode.asciiLabel(label) else { return 0 }
    require(ascii.unicodeScalars.allSatisfy(\.isASCII), "an encoded label is not ASCII")
    if label.unicodeScalars.allSatisfy(\.isASCII) {
        require(ascii == label, "an ASCII label changed")
        return 0
    }
    require(ascii.hasPrefix("xn--"), "a non-ASCII label without the ACE prefix")
    let decoded = decode(Array(ascii.unicodeScalars.dropFirst(4)).map { UInt8($0.value) })
    require(decoded == Array(label.unicodeScalars).map(\.value), "\(ascii) does not decode to the label")
    return 0
}

/// RFC 3492 §6.2, the decoding procedure; nil on bad input.
func decode(_ input: [UInt8]) -> [UInt32]? {
    let base = 36
    let tMin = 1
    let tMax = 26
    let skew = 38
    let damp = 700
    var n = 128
    var i = 0
    var bias = 72
    var output: [UInt32] = []
    var rest = input[...]
    if let delimiter = input.lastIndex(of: UInt8(ascii: "-")) {
        output = input[..<delimiter].map(UInt32.init)
        rest = input[(delimiter + 1)...]
    }
    func adapt(_ delta: Int, _ count: Int, _ first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / count
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }
    var iterator = rest.makeIterator()
    var pending = rest.count
    while pending > 0 {
        let old = i
        var w = 1
        var k = base
        while true {
            guard let byte = iterator.next() else { return nil }
            pending -= 1
            let digit: Int
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): digit = Int(byte - UInt8(ascii: "a"))
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): digit = Int(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = Int(byte - UInt8(ascii: "0")) + 26
            default: return nil
            }
            let (product, overflow) = digit.multipliedReportingOverflow(by: w)
            guard !overflow, i <= Int(Int32.max) - product else { return nil }
            i += product
            let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
            if digit < t { break }
            let (next, wOverflow) = w.multipliedReportingOverflow(by: base - t)
            guard !wOverflow else { return nil }
            w = next
            k += base
        }
        bias = adapt(i - old, output.count + 1, old == 0)
        n += i / (output.count + 1)
        i %= output.count + 1
        guard n <= 0x10FFFF else { return nil }
        output.insert(UInt32(n), at: i)
        i += 1
    }
    return output
}
