/// Why one provider record cannot become a schema value. The caller adds where the record
/// came from (file, index); the error says which field and what to do.
@_spi(CatalogTools) public struct RecordError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a stable code.
    public var code: Code
    /// The field at fault (`launchUrl`), empty for the record as a whole.
    public var field: String
    /// What is wrong, for people.
    public var message: String

    public init(_ code: Code, field: String, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    public var description: String { field.isEmpty ? message : "\(field): \(message)" }

    /// A stable code per failure. Extensible: new failures add new static values.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A required field is absent or empty.
        public static let missingField = Code(rawValue: "missing-field")
        /// A required URL is not https, not absolute, or not a URL.
        public static let invalidURL = Code(rawValue: "invalid-url")
        /// A value does not fit the schema (too long, control characters).
        public static let invalidValue = Code(rawValue: "invalid-value")
        /// The record did not decode at all (wrong JSON types).
        public static let undecodable = Code(rawValue: "undecodable")
    }
}

/// A mapped value and what the mapping had to drop or repair on the way (an http thumbnail
/// dropped, an unknown platform ignored), for the pipeline to log.
@_spi(CatalogTools) public struct Mapped<Value: Sendable>: Sendable {
    /// The schema value.
    public var value: Value
    /// One line per repair, naming the field (`backgroundImageUrl: dropped, not https: 'http://…'`).
    public var notes: [String]

    public init(value: Value, notes: [String] = []) {
        self.value = value
        self.notes = notes
    }
}
