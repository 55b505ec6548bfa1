/// A value the app was about to send, or one the server sent, broke a rule.
///
/// Errors compare equal when their ``code`` is equal. ``fieldPath`` names where (`$.user.roles[2]`
/// for responses, the caller's label for inputs). Messages name the rule, never the value: values
/// are often personal data.
public struct ValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier of the rule that failed.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case invalidEmail, tooLong, tooShort, invalidCharacters, empty
            case unrecognisedContent, contentTypeMismatch, tooLarge
            case constraintViolated, decodingFailed
        }

        fileprivate let base: Base

        /// The text form of the code, stable across releases.
        public var description: String { self.base.rawValue }

        /// Not a usable e-mail address.
        public static let invalidEmail = Code(base: .invalidEmail)
        /// Longer than allowed (graphemes for text, bytes or characters where stated).
        public static let tooLong = Code(base: .tooLong)
        /// Shorter than allowed.
        public static let tooShort = Code(base: .tooShort)
        /// A character outside the allow-list.
        public static let invalidCharacters = Code(base: .invalidCharacters)
        /// Empty where a value is required.
        public static let empty = Code(base: .empty)
        /// An upload whose bytes are not one of the allowed types.
        public static let unrecognisedContent = Code(base: .unrecognisedContent)
        /// An upload whose bytes do not match its declared type (an impostor).
        public static let contentTypeMismatch = Code(base: .contentTypeMismatch)
        /// An upload larger than the cap.
        public static let tooLarge = Code(base: .tooLarge)
        /// A decoded response value broke its declared constraint.
        public static let constraintViolated = Code(base: .constraintViolated)
        /// A response could not be decoded (missing field, wrong type, bad JSON).
        public static let decodingFailed = Code(base: .decodingFailed)
    }

    /// What went wrong, as a stable code.
    public let code: Code
    /// Where: a field path (`$.items[0].price`) or the caller's label; nil when not about a field.
    public let fieldPath: String?
    /// The rule that failed, for people. It never holds the value.
    public let message: String

    /// Creates an error. Never put the offending value in `message`.
    public init(_ code: Code, _ message: String, fieldPath: String? = nil) {
        self.code = code
        self.message = message
        self.fieldPath = fieldPath
    }

    /// `code at path: message`.
    public var description: String {
        if let fieldPath { return "\(self.code) at \(fieldPath): \(self.message)" }
        return "\(self.code): \(self.message)"
    }

    public static func == (lhs: ValidationError, rhs: ValidationError) -> Bool {
        lhs.code == rhs.code
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.code)
    }
}
