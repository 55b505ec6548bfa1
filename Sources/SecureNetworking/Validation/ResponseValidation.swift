public import Foundation

/// A decoded response type that declares the constraints its values must meet.
///
/// ```swift
/// struct Profile: ValidatedResponse {
///     let name: String
///     let age: Int
///     let avatar: URL
///     func validate(with v: inout ResponseValidator) {
///         v.check(name, "name", .length(1...100))
///         v.check(age, "age", .range(0...150))
///         v.check(avatar, "avatar", .httpsOnly)
///     }
/// }
/// let profile = try ResponseDecoding.decode(Profile.self, from: body)
/// ```
public protocol ValidatedResponse: Decodable {
    /// Reports every field that breaks its constraint to `validator`.
    func validate(with validator: inout ResponseValidator)
}

/// A rule for one decoded value.
public struct Constraint<Value>: Sendable {
    /// What the rule requires, for messages (`length 1...100`).
    public let rule: String
    private let test: @Sendable (Value) -> Bool

    /// Creates a rule from a predicate.
    public init(_ rule: String, _ test: @escaping @Sendable (Value) -> Bool) {
        self.rule = rule
        self.test = test
    }

    /// Whether `value` meets the rule.
    public func holds(for value: Value) -> Bool { self.test(value) }
}

extension Constraint where Value == String {
    /// A length in grapheme clusters.
    public static func length(_ range: ClosedRange<Int>) -> Constraint {
        Constraint("length \(range)") { range.contains($0.count) }
    }
}

extension Constraint where Value: Comparable & Sendable {
    /// A closed range, such as `.range(0...150)`.
    public static func range(_ range: ClosedRange<Value>) -> Constraint {
        Constraint("in \(range)") { range.contains($0) }
    }
}

extension Constraint where Value: Hashable & Sendable {
    /// One of the listed values (an enumeration the server may only pick from).
    public static func oneOf(_ allowed: Set<Value>) -> Constraint {
        Constraint("one of \(allowed.count) allowed values") { allowed.contains($0) }
    }
}

extension Constraint where Value: Collection & SendableMetatype {
    /// At least one element (or character).
    public static var nonEmpty: Constraint {
        Constraint("not empty") { !$0.isEmpty }
    }

    /// A number of elements.
    public static func count(_ range: ClosedRange<Int>) -> Constraint {
        Constraint("count \(range)") { range.contains($0.count) }
    }
}

extension Constraint where Value == URL {
    /// An absolute `https` URL with a host: a server cannot steer the app to plain HTTP,
    /// `file:` or a custom scheme.
    public static var httpsOnly: Constraint {
        Constraint("an https URL") { $0.scheme?.lowercased() == "https" && !($0.host ?? "").isEmpty }
    }
}

/// Collects constraint violations with their field paths (`$.items[2].price`).
public struct ResponseValidator: Sendable {
    private var path: [String]
    /// The violations found so far, in order.
    public private(set) var violations: [ValidationError] = []

    init(root: String = "$") {
        self.path = [root]
    }

    private func pathText(_ field: String) -> String {
        (self.path + [field]).joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
    }

    /// Checks a value against constraints.
    public mutating func check<Value>(_ value: Value, _ field: String, _ constraints: Constraint<Value>...) {
        for constraint in constraints where !constraint.holds(for: value) {
            self.violations.append(
                ValidationError(.constraintViolated, "must be \(constraint.rule)", fieldPath: self.pathText(field))
            )
        }
    }

    /// Checks an optional value when it is present; nil passes (use ``require(_:_:)`` to forbid it).
    public mutating func check<Value>(_ value: Value?, _ field: String, _ constraints: Constraint<Value>...) {
        guard let value else { return }
        for constraint in constraints where !constraint.holds(for: value) {
            self.violations.append(
                ValidationError(.constraintViolated, "must be \(constraint.rule)", fieldPath: self.pathText(field))
            )
        }
    }

    /// Requires an optional value to be present.
    public mutating func require<Value>(_ value: Value?, _ field: String) {
        if value == nil {
            self.violations.append(ValidationError(.constraintViolated, "is required", fieldPath: self.pathText(field)))
        }
    }

    /// Checks every element of an array, with its index in the path.
    public mutating func each<Element>(_ values: [Element], _ field: String, _ constraints: Constraint<Element>...) {
        for (index, value) in values.enumerated() {
            for constraint in constraints where !constraint.holds(for: value) {
                self.violations.append(
                    ValidationError(
                        .constraintViolated,
                        "must be \(constraint.rule)",
                        fieldPath: self.pathText("\(field)[\(index)]")
                    )
                )
            }
        }
    }

    /// Validates a nested value with its own constraints.
    public mutating func nested<Value: ValidatedResponse>(_ value: Value?, _ field: String) {
        guard let value else { return }
        self.path.append(field)
        value.validate(with: &self)
        self.path.removeLast()
    }

    /// Validates every element of an array of nested values.
    public mutating func nested<Value: ValidatedResponse>(_ values: [Value], _ field: String) {
        for (index, value) in values.enumerated() {
            self.nested(value, "\(field)[\(index)]")
        }
    }
}

/// Decodes JSON responses and enforces their declared constraints.
public enum ResponseDecoding {
    /// Decodes `type` from `data` and validates it.
    ///
    /// - Throws: ``ValidationError/Code/decodingFailed`` with the path of the missing or
    ///   mistyped field, or ``ValidationError/Code/constraintViolated`` with the path of the
    ///   first violation (the message counts the others). Values never appear in the error.
    public static func decode<T: ValidatedResponse>(
        _ type: T.Type,
        from data: Data,
        decoder: JSONDecoder = JSONDecoder()
    ) throws(ValidationError) -> T {
        let value: T
        do {
            value = try decoder.decode(T.self, from: data)
        } catch let error as DecodingError {
            throw Self.describe(error)
        } catch {
            throw ValidationError(.decodingFailed, "the response could not be decoded")
        }
        try Self.validate(value)
        return value
    }

    /// Validates an already decoded value.
    public static func validate<T: ValidatedResponse>(_ value: T) throws(ValidationError) {
        var validator = ResponseValidator()
        value.validate(with: &validator)
        guard let first = validator.violations.first else { return }
        let others = validator.violations.count - 1
        throw ValidationError(
            .constraintViolated,
            others == 0 ? first.message : "\(first.message) (and \(others) more violation\(others == 1 ? "" : "s"))",
            fieldPath: first.fieldPath
        )
    }

    static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.reduce("$") { path, key in
            if let index = key.intValue { return "\(path)[\(index)]" }
            return "\(path).\(key.stringValue)"
        }
    }

    static func describe(_ error: DecodingError) -> ValidationError {
        switch error {
        case .keyNotFound(let key, let context):
            return ValidationError(.decodingFailed, "is missing", fieldPath: Self.path(context.codingPath + [key]))
        case .valueNotFound(_, let context):
            return ValidationError(.decodingFailed, "is null", fieldPath: Self.path(context.codingPath))
        case .typeMismatch(let type, let context):
            return ValidationError(.decodingFailed, "is not a \(type)", fieldPath: Self.path(context.codingPath))
        case .dataCorrupted(let context):
            return ValidationError(.decodingFailed, "is not valid", fieldPath: Self.path(context.codingPath))
        @unknown default:
            return ValidationError(.decodingFailed, "the response could not be decoded")
        }
    }
}
