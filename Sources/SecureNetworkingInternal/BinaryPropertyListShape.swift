/// The shape of a binary property list (`bplist00`), read from its object table without
/// decoding it: how deeply its arrays, sets and dictionaries nest, and how many values it holds
/// once every shared object is counted where it is referenced.
///
/// The decoders recurse once per level and copy a shared object at every reference, so a deep
/// file overflows the stack and a few hundred bytes of shared references expand to billions of
/// values. The walk is iterative, visits each object once (a memo of heights and sizes), and
/// refuses a cycle, an object or reference outside the file, and anything it cannot read as
/// the decoder would; it never reads the values themselves.
package enum BinaryPropertyListShape {
    package struct Refusal: Error, Equatable {
        package let reason: String
    }

    /// Refuses `bytes` unless every container nests at most `maximumDepth` deep and the
    /// expanded tree holds at most `maximumValues` values (keys included), and at most one per
    /// byte of the file.
    ///
    /// Each reference takes at least a byte, so a file whose arrays and dictionaries are not
    /// shared (CoreFoundation's writer never shares them; it shares equal strings, numbers and
    /// dates) expands to fewer values than it has bytes. Only a shared container multiplies
    /// the values, and the per-byte bound keeps a decoder's work linear in the file: 2 KB of
    /// shared arrays expanding to 990,000 strings took the audit 19 s under AddressSanitizer.
    package static func check(_ bytes: [UInt8], maximumDepth: Int, maximumValues: Int) throws(Refusal) {
        let limit = min(maximumValues, bytes.count)
        let tooMany =
            limit < maximumValues
            ? Refusal(reason: "binary property list expands to more values than its \(bytes.count) bytes")
            : Refusal(reason: "binary property list expands to more than \(maximumValues) values")
        let malformed = Refusal(reason: "malformed binary property list")
        guard bytes.count >= 8 + 1 + 32, bytes.starts(with: Array("bplist0".utf8)) else { throw malformed }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
            let objectCount = Self.integer(bytes, at: trailer + 8, size: 8),
            let top = Self.integer(bytes, at: trailer + 16, size: 8),
            let table = Self.integer(bytes, at: trailer + 24, size: 8),
            objectCount >= 1, top < objectCount, table >= 9, table <= trailer,
            objectCount <= (trailer - table) / offsetSize
        else { throw malformed }

        /// Where an object's references are, or nil for a value that holds none.
        func references(of object: Int) throws(Refusal) -> (start: Int, count: Int)? {
            guard let offset = Self.integer(bytes, at: table + object * offsetSize, size: offsetSize),
                offset >= 8, offset < table
            else { throw malformed }
            let marker = bytes[offset]
            // 0xA array, 0xB ordered set, 0xC set, 0xD dictionary (keys, then values).
            guard (0xA...0xD).contains(marker >> 4) else { return nil }
            // Sets are in the format but are no property-list type (Apple's writer never makes
            // one), and CoreFoundation's set crashed Swift's dynamic cast on Linux (found by the
            // security-audit fuzz target): refused.
            guard marker >> 4 == 0xA || marker >> 4 == 0xD else {
                throw Refusal(reason: "binary property list holds a set, which is not a property-list type")
            }
            var count = Int(marker & 0x0F)
            var start = offset + 1
            if count == 0x0F {
                guard start < table, bytes[start] >> 4 == 0x1, bytes[start] & 0x0F <= 3 else { throw malformed }
                let size = 1 << Int(bytes[start] & 0x0F)
                guard start + 1 + size <= table, let long = Self.integer(bytes, at: start + 1, size: size) else {
                    throw malformed
                }
                count = long
                start += 1 + size
            }
            let references =
                marker >> 4 == 0xD ? count.multipliedReportingOverflow(by: 2) : (partialValue: count, overflow: false)
            guard !references.overflow, references.partialValue <= (table - start) / referenceSize else {
                throw malformed
            }
            return (start, references.partialValue)
        }

        struct Frame {
            let object: Int
            var next: Int
            let end: Int
            var height = 0
            var values = 1
        }
        // -1 not seen, -2 being walked (a reference to it is a cycle), else its height.
        var heights = [Int32](repeating: -1, count: objectCount)
        var values = [Int](repeating: 0, count: objectCount)
        var stack: [Frame] = []
        func enter(_ object: Int) throws(Refusal) -> (height: Int, values: Int)? {
            switch heights[object] {
            case -2:
                throw Refusal(reason: "binary property list contains itself")
            case -1:
                guard let (start, count) = try references(of: object) else {
                    heights[object] = 0
                    values[object] = 1
                    return (0, 1)
                }
                guard stack.count < maximumDepth else {
                    throw Refusal(reason: "arrays and dictionaries nested deeper than \(maximumDepth) levels")
                }
                heights[object] = -2
                stack.append(Frame(object: object, next: start, end: start + count * referenceSize))
                return nil
            default:
                return (Int(heights[object]), values[object])
            }
        }
        func fold(_ child: (height: Int, values: Int)) throws(Refusal) {
            stack[stack.count - 1].height = max(stack[stack.count - 1].height, child.height)
            stack[stack.count - 1].values += child.values
            guard stack[stack.count - 1].values <= limit else { throw tooMany }
        }
        if try enter(top) != nil { return }
        while let frame = stack.last {
            if frame.next < frame.end {
                stack[stack.count - 1].next += referenceSize
                guard let child = Self.integer(bytes, at: frame.next, size: referenceSize), child < objectCount else {
                    throw malformed
                }
                if let done = try enter(child) { try fold(done) }
                continue
            }
            stack.removeLast()
            let height = frame.height + 1
            guard height <= maximumDepth else {
                throw Refusal(reason: "arrays and dictionaries nested deeper than \(maximumDepth) levels")
            }
            heights[frame.object] = Int32(height)
            values[frame.object] = frame.values
            if !stack.isEmpty { try fold((height, frame.values)) }
        }
    }

    /// The big-endian unsigned integer of `size` bytes at `offset`, or nil when it is outside
    /// `bytes` or does not fit an `Int`.
    static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> Int? {
        guard offset >= 0, size <= bytes.count, offset <= bytes.count - size else { return nil }
        var value: UInt64 = 0
        for byte in bytes[offset..<(offset + size)] { value = value << 8 | UInt64(byte) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
}
