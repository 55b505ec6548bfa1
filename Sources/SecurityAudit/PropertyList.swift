#if Tools
import Foundation
import SecureNetworkingInternal

#if canImport(FoundationXML)
import FoundationXML
#endif

/// A parsed property list that remembers the line of every key and value.
struct PlistNode: Sendable {
    /// The value.
    indirect enum Value: Sendable {
        case dictionary([PlistEntry])
        case array([PlistNode])
        case string(String)
        case bool(Bool)
        case number(String)
        case other
    }

    let value: Value
    /// 1-based line of the element (1 for binary property lists).
    let line: Int
    /// A scalar of an OpenStep property list, which has strings only: `YES`, `NO`, `true`,
    /// `false`, `1` and `0` stand for booleans there, as Xcode and Foundation read them.
    var isOpenStepScalar = false

    var entries: [PlistEntry] {
        if case .dictionary(let entries) = value { return entries }
        return []
    }

    subscript(key: String) -> PlistEntry? { entries.first { $0.key == key } }

    var boolValue: Bool? {
        if case .bool(let flag) = value { return flag }
        if isOpenStepScalar, case .string(let text) = value {
            switch text.lowercased() {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: return nil
            }
        }
        return nil
    }

    var stringValue: String? {
        if case .string(let text) = value { return text }
        return nil
    }

    var arrayCount: Int? {
        if case .array(let items) = value { return items.count }
        return nil
    }
}

/// A dictionary entry with the line of its `<key>`.
struct PlistEntry: Sendable {
    let key: String
    let keyLine: Int
    let node: PlistNode
}

/// Parses XML property lists with `XMLParser` (which reports line numbers), OpenStep ones with
/// ``OpenStepPropertyList`` (the reader ServerTrust's Info.plist policy uses, which keeps lines
/// too) and binary ones with `PropertyListSerialization` (every line is 1).
///
/// The one depth rule of the audit's parsers (property lists and JSON policies) lives here:
/// arrays and dictionaries nest at most ``maximumDepth`` levels. The XML builder counts the
/// elements `XMLParser` reports (comments and CDATA are never elements), the JSON parser its own
/// brackets, and a binary property list's object table is walked before CoreFoundation's
/// recursive reader sees it.
enum PropertyListParser {
    struct Failure: Error {
        let reason: String
    }

    /// The most nested arrays and dictionaries (or JSON arrays and objects) a file may have;
    /// ATS keys are four levels deep.
    static let maximumDepth = 64
    /// The most values a binary property list may expand to once its shared objects are
    /// counted at every reference.
    static let maximumValues = 1_000_000
    /// The reason given for a file nested deeper than ``maximumDepth``.
    static let tooDeep = "nested deeper than \(maximumDepth) levels"

    static func parse(_ data: Data) throws(Failure) -> PlistNode {
        if data.starts(with: Array("bplist".utf8)) {
            do {
                try BinaryPropertyListShape.check(
                    Array(data),
                    maximumDepth: Self.maximumDepth,
                    maximumValues: Self.maximumValues
                )
            } catch {
                throw Failure(reason: error.reason)
            }
            do {
                let object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
                return convert(object)
            } catch {
                throw Failure(reason: "malformed binary property list")
            }
        }
        if OpenStepPropertyList.looksLikeOpenStep(Array(data)) {
            do {
                return convert(try OpenStepPropertyList.parse(Array(data), maximumDepth: Self.maximumDepth))
            } catch {
                throw Failure(reason: "malformed OpenStep property list: \(error)")
            }
        }
        // FoundationXML traps on an element name that is not UTF-8 (`<\u{FF}></` crashed the
        // audit; found by the security-audit fuzz target), so such bytes never reach it.
        guard String(validating: data, as: UTF8.self) != nil else {
            throw Failure(reason: "malformed XML property list: not valid UTF-8")
        }
        let delegate = XMLPlistBuilder()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.delegate = delegate
        let succeeded = parser.parse()
        if !succeeded || delegate.failure != nil {
            let underlying = parser.parserError.map { "\($0)" } ?? "unknown"
            let detail = delegate.failure ?? "XML error near line \(max(parser.lineNumber, 1)) (\(underlying))"
            throw Failure(reason: "malformed XML property list: \(detail)")
        }
        guard let root = delegate.root else {
            throw Failure(reason: "malformed XML property list: no <plist> value")
        }
        return root
    }

    /// Converts an OpenStep node, keeping its lines.
    static func convert(_ node: OpenStepPropertyList.Node) -> PlistNode {
        switch node.value {
        case .string(let text):
            return PlistNode(value: .string(text), line: node.line, isOpenStepScalar: true)
        case .data:
            return PlistNode(value: .other, line: node.line)
        case .array(let items):
            return PlistNode(value: .array(items.map { convert($0) }), line: node.line)
        case .dictionary(let entries):
            return PlistNode(
                value: .dictionary(
                    entries.map { PlistEntry(key: $0.key, keyLine: $0.keyLine, node: convert($0.node)) }
                ),
                line: node.line
            )
        }
    }

    /// Converts a Foundation property-list object; dictionary keys are sorted for determinism.
    ///
    /// Strings, the most common values, are tried first: a failed cast to a collection is the
    /// dearest step of the conversion on Linux.
    static func convert(_ object: Any) -> PlistNode {
        if let string = object as? String { return PlistNode(value: .string(string), line: 1) }
        if let array = object as? [Any] { return PlistNode(value: .array(array.map(convert)), line: 1) }
        if let dictionary = object as? [String: Any] {
            let entries = dictionary.keys.sorted().map { key in
                PlistEntry(key: key, keyLine: 1, node: convert(dictionary[key] as Any))
            }
            return PlistNode(value: .dictionary(entries), line: 1)
        }
        if let flag = object as? Bool { return PlistNode(value: .bool(flag), line: 1) }
        if let number = object as? NSNumber { return PlistNode(value: .number(number.stringValue), line: 1) }
        return PlistNode(value: .other, line: 1)
    }
}

/// `XMLParserDelegate` that builds a ``PlistNode`` tree.
private final class XMLPlistBuilder: NSObject, XMLParserDelegate {
    private final class Container {
        let isDictionary: Bool
        let line: Int
        var entries: [PlistEntry] = []
        var items: [PlistNode] = []
        var pendingKey: (String, Int)?

        init(isDictionary: Bool, line: Int) {
            self.isDictionary = isDictionary
            self.line = line
        }
    }

    private static let knownElements: Set<String> = [
        "plist", "dict", "array", "key", "string", "true", "false", "integer", "real", "date", "data",
    ]
    private var stack: [Container] = []
    /// Names of the open elements, to reject mismatched or unclosed tags that libxml2 might recover from.
    private var openElements: [String] = []
    private var text = ""
    private var elementLine = 0
    private var sawPlist = false
    var root: PlistNode?
    var failure: String?

    func parser(
        _ parser: XMLParser,
        didStartElement elementName: String,
        namespaceURI: String?,
        qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        text = ""
        elementLine = parser.lineNumber
        guard Self.knownElements.contains(elementName) else {
            fail("unexpected element <\(elementName)> at line \(elementLine)", parser)
            return
        }
        openElements.append(elementName)
        switch elementName {
        case "plist":
            sawPlist = true
        case "dict", "array":
            guard stack.count < PropertyListParser.maximumDepth else {
                fail("arrays and dictionaries \(PropertyListParser.tooDeep) at line \(elementLine)", parser)
                return
            }
            stack.append(Container(isDictionary: elementName == "dict", line: parser.lineNumber))
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(
        _ parser: XMLParser,
        didEndElement elementName: String,
        namespaceURI: String?,
        qualifiedName: String?
    ) {
        guard openElements.popLast() == elementName else {
            fail("mismatched </\(elementName)> at line \(parser.lineNumber)", parser)
            return
        }
        switch elementName {
        case "plist":
            return
        case "key":
            guard let top = stack.last, top.isDictionary else {
                failure = "<key> outside <dict> at line \(elementLine)"
                parser.abortParsing()
                return
            }
            top.pendingKey = (text, elementLine)
        case "dict":
            guard let container = stack.popLast() else { return }
            add(PlistNode(value: .dictionary(container.entries), line: container.line), parser: parser)
        case "array":
            guard let container = stack.popLast() else { return }
            add(PlistNode(value: .array(container.items), line: container.line), parser: parser)
        case "string":
            add(PlistNode(value: .string(text), line: elementLine), parser: parser)
        case "true", "false":
            add(PlistNode(value: .bool(elementName == "true"), line: elementLine), parser: parser)
        case "integer", "real":
            add(
                PlistNode(value: .number(text.trimmingCharacters(in: .whitespacesAndNewlines)), line: elementLine),
                parser: parser
            )
        case "date", "data":
            add(PlistNode(value: .other, line: elementLine), parser: parser)
        default:
            fail("unexpected element <\(elementName)> at line \(elementLine)", parser)
        }
    }

    func parserDidEndDocument(_ parser: XMLParser) {
        if !openElements.isEmpty, failure == nil {
            failure = "unexpected end of document inside <\(openElements.last ?? "")>"
        }
    }

    private func fail(_ message: String, _ parser: XMLParser) {
        if failure == nil { failure = message }
        parser.abortParsing()
    }

    private func add(_ node: PlistNode, parser: XMLParser) {
        guard let top = stack.last else {
            if sawPlist, root == nil { root = node }
            return
        }
        if top.isDictionary {
            guard let (key, line) = top.pendingKey else {
                failure = "value without <key> at line \(node.line)"
                parser.abortParsing()
                return
            }
            top.entries.append(PlistEntry(key: key, keyLine: line, node: node))
            top.pendingKey = nil
        } else {
            top.items.append(node)
        }
    }
}
#endif
