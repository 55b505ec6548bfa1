/// Punycode (RFC 3492) for IDNA labels: turns `bücher` into `xn--bcher-kva`.
enum Punycode {
    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700, initialBias = 72, initialN = 128

    /// The ASCII-compatible form of one label (`xn--…` when it has non-ASCII characters).
    static func asciiLabel(_ label: String) -> String? {
        let scalars = Array(label.unicodeScalars)
        if scalars.allSatisfy(\.isASCII) { return label }
        guard let encoded = self.encode(scalars) else { return nil }
        return "xn--" + encoded
    }

    private static func digit(_ value: Int) -> Character {
        Character(UnicodeScalar(UInt8(value < 26 ? value + 97 : value + 22)))
    }

    private static func adapt(_ delta: Int, _ points: Int, _ first: Bool) -> Int {
        var delta = first ? delta / Self.damp : delta / 2
        delta += delta / points
        var k = 0
        while delta > ((Self.base - Self.tMin) * Self.tMax) / 2 {
            delta /= Self.base - Self.tMin
            k += Self.base
        }
        return k + (Self.base - Self.tMin + 1) * delta / (delta + Self.skew)
    }

    private static func encode(_ input: [Unicode.Scalar]) -> String? {
        var output = String(String.UnicodeScalarView(input.filter(\.isASCII)))
        let basic = output.unicodeScalars.count
        var handled = basic
        if basic > 0 { output.append("-") }
        var n = Self.initialN
        var delta = 0
        var bias = Self.initialBias
        while handled < input.count {
            guard let next = input.map({ Int($0.value) }).filter({ $0 >= n }).min() else { return nil }
            let (product, overflow) = (next - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow, delta <= Int(Int32.max) - product else { return nil }
            delta += product
            n = next
            for scalar in input {
                let value = Int(scalar.value)
                if value < n { delta += 1 }
                if value == n {
                    var q = delta
                    var k = Self.base
                    while true {
                        let t = k <= bias ? Self.tMin : (k >= bias + Self.tMax ? Self.tMax : k - bias)
                        if q < t { break }
                        output.append(Self.digit(t + (q - t) % (Self.base - t)))
                        q = (q - t) / (Self.base - t)
                        k += Self.base
                    }
                    output.append(Self.digit(q))
                    bias = Self.adapt(delta, handled + 1, handled == basic)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return output
    }
}
