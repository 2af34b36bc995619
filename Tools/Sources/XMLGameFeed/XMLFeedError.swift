/// Why an XML game feed could not be read: the whole feed is rejected, never half of it.
///
/// ``description`` reads like a compiler diagnostic, `feed.xml:12: <message>`, and the
/// message says what to do where there is something to do.
public struct XMLFeedError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable code.
    public var code: Code
    /// What went wrong and what to do, for people.
    public var message: String
    /// The feed's path, or the name the caller gave ``XMLFeedReader/read(data:name:limits:)``.
    public var file: String
    /// The 1-based line the problem is on, when known.
    public var line: Int?

    public init(_ code: Code, _ message: String, file: String, line: Int? = nil) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
    }

    public var description: String {
        if let line { "\(file):\(line): \(message)" } else { "\(file): \(message)" }
    }

    /// A stable code for each failure. Extensible: new failures add new static values.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The document is not well-formed XML, or not a `<feed>`.
        public static let malformed = Code(rawValue: "malformed")
        /// The document has a `<!DOCTYPE>`; feeds must not carry DTDs.
        public static let doctypeForbidden = Code(rawValue: "doctype-forbidden")
        /// The document uses an entity other than the five predefined ones (`&amp;` …).
        public static let entityForbidden = Code(rawValue: "entity-forbidden")
        /// The document, one element's text, its nesting or its attributes are over a
        /// ``XMLFeedReader/Limits``.
        public static let tooLarge = Code(rawValue: "too-large")
        /// The feed lists more games than ``XMLFeedReader/Limits/maxGames``.
        public static let tooManyGames = Code(rawValue: "too-many-games")
        /// There is no feed to read: no such file, or 0 bytes.
        public static let missingInput = Code(rawValue: "missing-input")
        /// The file could not be opened or read.
        public static let io = Code(rawValue: "io")
        /// A value the feed's structure depends on is missing or malformed (a `generated`
        /// date, a category id or position).
        public static let invalidValue = Code(rawValue: "invalid-value")
    }
}
