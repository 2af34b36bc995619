/// One broken schema rule: which rule, where in the record, and what was wrong.
///
/// ```swift
/// for violation in page.violations() { print(violation) }
/// // items[3].launchUrl: not an absolute https URL: 'http://x' (invalid-url)
/// ```
public struct Violation: Sendable, Hashable, CustomStringConvertible {
    /// Which rule was broken.
    public var code: Code
    /// Where: a dotted path into the record (`items[3].launchUrl`), empty for the record itself.
    public var path: String
    /// What was wrong, with the offending value where it helps.
    public var message: String

    public init(_ code: Code, at path: String, _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String {
        path.isEmpty ? "\(message) (\(code))" : "\(path): \(message) (\(code))"
    }

    /// Returns the violation with its path nested under `parent` (`items[3]` + `.id`).
    public func nested(under parent: String) -> Violation {
        var copy = self
        copy.path = path.isEmpty ? parent : (path.hasPrefix("[") ? parent + path : parent + "." + path)
        return copy
    }

    /// The rule a violation breaks. Extensible: new rules add new static values.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A required text field is empty or only whitespace.
        public static let emptyField = Code(rawValue: "empty-field")
        /// A URL is not absolute https.
        public static let invalidURL = Code(rawValue: "invalid-url")
        /// An id appears twice where ids must be unique.
        public static let duplicateID = Code(rawValue: "duplicate-id")
        /// A page's count, offset, limit or total do not add up.
        public static let pageArithmetic = Code(rawValue: "page-arithmetic")
        /// A number is outside its range (negative total, RTP above 1, NaN popularity).
        public static let outOfRange = Code(rawValue: "out-of-range")
        /// A text field is longer than the schema allows.
        public static let tooLong = Code(rawValue: "too-long")
        /// A path could leave its directory.
        public static let unsafePath = Code(rawValue: "unsafe-path")
        /// A value has the wrong shape (a malformed territory code, a control character).
        public static let malformed = Code(rawValue: "malformed")
    }
}
