/// Reads DER tag-length-value headers without building a tree: what the CT check needs from a
/// TBSCertificate (one field, or the bytes without one extension) costs a walk over the top-level
/// headers instead of a parse of every nested node. Only definite lengths (DER) are accepted.
struct DERElement {
    /// The whole element (header and content), as indices into the walked bytes.
    let range: Range<Int>
    /// The content.
    let content: Range<Int>
    /// The identifier octet (tags above 30 are refused).
    let tag: UInt8
}

enum DERWalker {
    struct Malformed: Error {}

    /// The element starting at `start`, within `end`.
    static func element(_ bytes: ArraySlice<UInt8>, at start: Int, end: Int) throws(Malformed) -> DERElement {
        guard start < end, end <= bytes.endIndex else { throw Malformed() }
        let tag = bytes[start]
        guard tag & 0x1F != 0x1F else { throw Malformed() }  // high tag numbers: not in a TBSCertificate
        var index = start + 1
        guard index < end else { throw Malformed() }
        let first = bytes[index]
        index += 1
        var length: Int
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count >= 1, count <= 4, index + count <= end else { throw Malformed() }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index += 1
            }
            guard length >= 0x80 else { throw Malformed() }  // DER: the shortest form
        }
        guard length <= end - index else { throw Malformed() }
        return DERElement(range: start..<index + length, content: index..<index + length, tag: tag)
    }

    /// The elements inside `content`, in order.
    static func children(_ bytes: ArraySlice<UInt8>, of content: Range<Int>) throws(Malformed) -> [DERElement] {
        var elements: [DERElement] = []
        var index = content.lowerBound
        while index < content.upperBound {
            let element = try self.element(bytes, at: index, end: content.upperBound)
            elements.append(element)
            index = element.range.upperBound
        }
        return elements
    }

    /// The DER header for `tag` with a content of `length` bytes.
    static func header(tag: UInt8, length: Int) -> [UInt8] {
        if length < 0x80 { return [tag, UInt8(length)] }
        var octets: [UInt8] = []
        var rest = length
        while rest > 0 {
            octets.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [tag, 0x80 | UInt8(octets.count)] + octets
    }

    /// The TBSCertificate's fields (the optional `[0]` version included).
    static func tbsFields(_ tbs: ArraySlice<UInt8>) throws(Malformed) -> [DERElement] {
        let root = try self.element(tbs, at: tbs.startIndex, end: tbs.endIndex)
        guard root.tag == 0x30, root.range.upperBound == tbs.endIndex else { throw Malformed() }
        return try self.children(tbs, of: root.content)
    }

    /// The SubjectPublicKeyInfo of a TBSCertificate, as encoded.
    static func subjectPublicKeyInfo(ofTBS tbs: ArraySlice<UInt8>) throws(Malformed) -> ArraySlice<UInt8> {
        var fields = try self.tbsFields(tbs)[...]
        if fields.first?.tag == 0xA0 { fields = fields.dropFirst() }
        // serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo
        guard fields.count >= 6, fields[fields.startIndex + 5].tag == 0x30 else { throw Malformed() }
        return tbs[fields[fields.startIndex + 5].range]
    }

    /// The TBSCertificate without the extension whose `extnID` is `oid` (its DER encoding, tag
    /// and length included), the enclosing lengths re-encoded; without its `[3]` field if no
    /// extension is left.
    static func tbs(_ tbs: ArraySlice<UInt8>, removingExtension oid: [UInt8]) throws(Malformed) -> [UInt8] {
        let fields = try self.tbsFields(tbs)
        var content: [UInt8] = []
        content.reserveCapacity(tbs.count)
        for field in fields {
            guard field.tag == 0xA3 else {
                content += tbs[field.range]
                continue
            }
            let wrapped = try self.children(tbs, of: field.content)
            guard wrapped.count == 1, wrapped[0].tag == 0x30 else { throw Malformed() }
            var kept: [UInt8] = []
            for ext in try self.children(tbs, of: wrapped[0].content) {
                guard ext.tag == 0x30, let id = try self.children(tbs, of: ext.content).first, id.tag == 0x06 else {
                    throw Malformed()
                }
                if tbs[id.range].elementsEqual(oid) { continue }
                kept += tbs[ext.range]
            }
            guard !kept.isEmpty else { continue }
            let list = self.header(tag: 0x30, length: kept.count) + kept
            content += self.header(tag: 0xA3, length: list.count) + list
        }
        return self.header(tag: 0x30, length: content.count) + content
    }

    /// The 64-byte `r ‖ s` of a DER `ECDSA-Sig-Value` over P-256 (RFC 5480 §2.2.3), or nil when
    /// it is not one (strict DER: minimal lengths, positive integers of at most 32 significant
    /// bytes, nothing after).
    static func p256Signature(_ der: [UInt8]) -> [UInt8]? {
        let bytes = der[...]
        guard let sequence = try? self.element(bytes, at: 0, end: bytes.count), sequence.tag == 0x30,
            sequence.range.upperBound == bytes.count,
            let parts = try? self.children(bytes, of: sequence.content), parts.count == 2
        else { return nil }
        var raw: [UInt8] = []
        raw.reserveCapacity(64)
        for part in parts {
            guard part.tag == 0x02, !part.content.isEmpty else { return nil }
            var integer = bytes[part.content]
            // Negative, or a needless leading zero: not DER.
            if integer.first! & 0x80 != 0 { return nil }
            if integer.count > 1, integer.first == 0 {
                guard integer[integer.startIndex + 1] & 0x80 != 0 else { return nil }
                integer = integer.dropFirst()
            }
            guard integer.count <= 32 else { return nil }
            raw += [UInt8](repeating: 0, count: 32 - integer.count) + integer
        }
        return raw
    }
}
