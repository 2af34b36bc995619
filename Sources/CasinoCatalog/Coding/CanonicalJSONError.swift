/// Why JSON is not canonical, or has no canonical form (`CanonicalJSON`).
@_spi(CatalogTools) public struct CanonicalJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong. Extensible: new checks add new static values.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Not JSON (RFC 8259), or not UTF-8.
        public static let syntax = Code(rawValue: "syntax")
        /// An object names a key twice (I-JSON forbids it).
        public static let duplicateKey = Code(rawValue: "duplicate-key")
        /// A `\u` escape of half a surrogate pair (I-JSON forbids it).
        public static let loneSurrogate = Code(rawValue: "lone-surrogate")
        /// A number beyond a double, or an integer whose double is written with other digits
        /// (`9007199254740993`, `9223372036854775807`): it would decode as another integer.
        public static let numberOutOfRange = Code(rawValue: "number-out-of-range")
        /// Nested deeper than `CanonicalJSON/maxDepth`.
        public static let tooDeep = Code(rawValue: "too-deep")
        /// A string that is not in Unicode Normalization Form C.
        public static let notNFC = Code(rawValue: "not-nfc")
        /// Valid JSON with a canonical form, but other bytes than that form.
        public static let notCanonical = Code(rawValue: "not-canonical")
    }

    /// What is wrong.
    public var code: Code
    /// The byte offset in the input where it was found.
    public var offset: Int
    /// What is wrong, for people.
    public var message: String

    public init(_ code: Code, at offset: Int, _ message: String) {
        self.code = code
        self.offset = offset
        self.message = message
    }

    public var description: String { "byte \(offset): \(message) (\(code))" }
}
